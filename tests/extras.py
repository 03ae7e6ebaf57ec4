"""Skip marks for the tests that need an optional extra of the package: they skip, saying which extra,
only when its package is not installed (a test whose extra is installed runs, and may fail)."""

from __future__ import annotations

import importlib.util

import pytest

#: The PostgreSQL URLs' driver, psycopg: the postgresql extra.
needs_psycopg = pytest.mark.skipif(
    importlib.util.find_spec("psycopg") is None,
    reason="needs psycopg, the postgresql extra: pip install '.[postgresql]'",
)
#: The Redis client: the redis extra.
needs_redis = pytest.mark.skipif(
    importlib.util.find_spec("redis") is None,
    reason="needs redis, the redis extra: pip install '.[redis]'",
)
