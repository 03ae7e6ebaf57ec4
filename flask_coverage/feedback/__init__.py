"""Pull-request feedback: a pull's real base, the coverage of the lines a pull adds, and what the
``codecov.yml`` (:mod:`flask_coverage.codecov_yml`) asks to be sent (docs/pull-requests.md).

- :mod:`.diff`: the added lines of a unified diff (pure);
- :mod:`.patch`: a pull's base and its patch coverage.
"""
