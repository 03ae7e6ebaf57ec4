"""The extensions of the host app, created once and initialised per app by ``create_app``."""

from __future__ import annotations

from flask_sqlalchemy import SQLAlchemy

from flask_coverage import CoverageService

#: The host app's database; the coverage service keeps its tables in it too.
db = SQLAlchemy()
#: The coverage service, sharing the host's database.
coverage = CoverageService(db=db)
