"""Pull-request feedback: what a repository's ``codecov.yml`` says, a pull's real base, and the
coverage of the lines a pull adds (docs/pull-requests.md).

- :mod:`.codecov_yml`: reading a ``codecov.yml`` safely and validating it with Codecov's coercions
  (pure: no Flask, no database);
- :mod:`.settings`: which YAML applies to a commit (the file at the commit, else the repository's
  stored YAML, merged over the defaults), read once per commit and kept;
- :mod:`.diff`: the added lines of a unified diff (pure);
- :mod:`.patch`: a pull's base and its patch coverage.
"""
