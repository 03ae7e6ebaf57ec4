"""The upload endpoint of the Codecov v2 protocol: ``POST /upload/v2`` (DESIGN section 7)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("coverage_upload", __name__)
