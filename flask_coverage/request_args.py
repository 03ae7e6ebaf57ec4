"""What the graph views and the web pages read from a request alike, and the one ETag rule.

Not a blueprint: :mod:`flask_coverage.blueprints.graphs` and :mod:`flask_coverage.blueprints.web`
both read the graph token (``?token=``), the flag (``?flag=``) and a repository's color range here,
so that an image and the page that shows it agree.
"""

from __future__ import annotations

import hashlib
from typing import Optional

from flask import current_app, request

from .auth import is_plausible_token
from .errors import InvalidInput
from .identifiers import FLAG_PATTERN, FLAG_RULE
from .models import Repository
from .svg.trend import TREND_PERIODS


def graph_token() -> Optional[str]:
    """The request's ``?token=`` (a graph token), if it is worth asking the hook about."""
    token = request.args.get("token")
    return token if is_plausible_token(token) else None


def requested_flag() -> Optional[str]:
    """The ``flag`` query argument (``None`` without one; an empty one is none, as on Codecov).

    Raises ``InvalidInput`` for a name that no upload can have (the upload's rule).
    """
    flag = request.args.get("flag") or None
    if flag is not None and not FLAG_PATTERN.fullmatch(flag):
        raise InvalidInput(f"flag must be {FLAG_RULE}")
    return flag


def trend_period() -> str:
    """The ``period`` of a trend chart or a page's trend (:data:`~flask_coverage.svg.trend.TREND_PERIODS`,
    default ``all``); another value is an :class:`InvalidInput`."""
    period = request.args.get("period", "all")
    if period not in TREND_PERIODS:
        raise InvalidInput(f"period must be one of {', '.join(TREND_PERIODS)}")
    return period


def color_range(repository: Repository) -> tuple[float, float]:
    """The coverage range of a repository's colors: its own, else ``COVERAGE_COLOR_RANGE``."""
    low, high = current_app.config["COVERAGE_COLOR_RANGE"]
    if repository.coverage_low is not None:
        low = repository.coverage_low
    if repository.coverage_high is not None:
        high = repository.coverage_high
    return low, high


def etag(*parts: object) -> str:
    """The entity tag of an answer made from ``parts`` (each written with ``str``): 32 hex digits of
    their SHA-256, so that any change of any part changes it."""
    material = "\0".join(map(str, parts))
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:32]
