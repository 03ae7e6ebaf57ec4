"""flask-coverage: a self-hostable, Codecov-compatible code-coverage service for Flask apps."""

from .extension import CoverageService
from .models import ServiceEnum

__all__ = ["CoverageService", "ServiceEnum"]
