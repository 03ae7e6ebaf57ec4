"""The older public API: ``{COVERAGE_LEGACY_URL_PREFIX}/...`` (DESIGN section 6)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("coverage_legacy", __name__)
