"""A repository's ``codecov.yml``: what it may say, what it does to paths, and which one is in force
at a commit (docs/pull-requests.md, "codecov.yml"). Uploads, feedback, the pages, the API and the CLI read it; it
reads nothing of theirs.

- :mod:`.loader`: reading the file safely (pure);
- :mod:`.schema`: validating it with Codecov's coercions, the defaults, and what it says (pure);
- :mod:`.patterns`: its regular expressions, compiled in one place and matched (pure);
- :mod:`.paths`: its ``fixes`` and ``ignore`` applied to an upload's paths (pure);
- :mod:`.numbers`: how it shows a percentage (pure);
- :mod:`.settings`: which YAML applies to a commit (the commit's file, else the repository's or the
  owner's stored YAML, merged over the defaults), read once per commit and kept.
"""
