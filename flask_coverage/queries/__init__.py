"""The read side: every query that reads stored coverage and its owners back, one module per concept.

- :mod:`.repositories`: owners and repositories by name; the one repository query, with the
  visibility condition (:data:`flask_coverage.auth.READABLE`).
- :mod:`.targets`: which commit a URL means (sha, sha prefix, branch, pull, default branch), and a
  branch or pull with its commits.
- :mod:`.files`: what a commit holds: its files, flags and uploads.
- :mod:`.lists`: the v2 API's lists (repositories, commits, branches, pulls, an organization's members).
- :mod:`.trend`: the coverage trend, read from its daily rows, and their refresh.
- :mod:`.compare`: two commits compared file by file.
- :mod:`.graph_records`: what a graph is drawn from, read once per coverage version.
- :mod:`.lookups`: what an API URL names for its caller, or the one 404.

No module here reads the request or knows a schema: the blueprints, the CLI, the uploads and the
operator's writes call them.
"""
