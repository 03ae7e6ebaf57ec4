"""Web pages of the signed-in user: ``{COVERAGE_ACCOUNT_URL_PREFIX}/...`` (access tokens)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("coverage_account", __name__, template_folder="../templates")
