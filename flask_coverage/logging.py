"""Keep tokens out of request logs.

Clients may send secrets in the query string: ``?access_token=`` (older public API), ``?token=``
(graphs, file views, ``/upload/v2``), ``?signature=`` (the signed upload URLs of ``/upload/v4``
and codecov-cli, see :mod:`flask_coverage.upload_urls`), ``?code=`` (the git host's authorization code
on the sign-in's callback, docs/sign-in.md). Request logs are written by the server,
not by the app: werkzeug's development server logs each request line to the ``werkzeug`` logger, and gunicorn
writes its access log (request line and ``Referer``, both with the raw query) to the
``gunicorn.access`` logger. :class:`RedactTokensFilter` rewrites such records so the value reads
``[redacted]``; :func:`install_log_filter` puts it on those loggers and on the extension's own
``flask_coverage`` logger. ``CoverageService.init_app`` calls it, so a gunicorn worker (which
imports the app) and ``flask run`` are covered without configuration.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from urllib.parse import unquote_plus

#: Query parameters whose values are secrets.
SECRET_PARAMETERS = frozenset({"access_token", "token", "signature", "code"})

#: The loggers :func:`install_log_filter` protects.
PROTECTED_LOGGERS = ("werkzeug", "gunicorn.access", "gunicorn.error", "flask_coverage")

REDACTED = "[redacted]"

# A word of a log line: a run without blanks; a ``"`` belongs to it unless a blank or the end follows,
# so the closing quote of a log field (``"GET /x?token=abc HTTP/1.1"``) is not part of a query.
_WORD = re.compile(r"""(?:[^\s"]|"(?=\S))+""")


@functools.lru_cache(maxsize=8)
def _secret_pattern(names: frozenset[str]) -> re.Pattern[str]:
    # A secret name followed by "=", not preceded by a character of a longer name (graph_token).
    alternatives = "|".join(re.escape(name) for name in sorted(names))
    return re.compile(rf"(?<![0-9A-Za-z_])(?:{alternatives})=", re.IGNORECASE)


def redact_tokens(text: str, names: Iterable[str] = SECRET_PARAMETERS) -> str:
    """``text`` with the value of every query parameter whose name is in ``names`` replaced.

    Each query string in ``text`` (what follows a ``?`` in a word, or a bare ``a=b&c=d`` word) is split
    the way the server splits it, at ``&``, and each part is percent-decoded before it is looked at,
    because a server logs the raw query while the app reads the decoded one (``acc%65ss_token``). A
    part whose decoded text holds ``name=`` anywhere after a non-word character is redacted whole
    (``?a=b;token=X``, ``?(token=X``, ``?x=a,token=X``): whatever separator a client or an older
    parser might honour, the secret never reaches the log. Names are compared case-insensitively.
    """
    if "=" not in text and "%3d" not in text.lower():
        return text
    secret = _secret_pattern(frozenset(names))

    def part(raw: str) -> str:
        if not secret.search(unquote_plus(raw)):
            return raw
        key, equals, _ = raw.partition("=")
        return f"{key}={REDACTED}" if equals else REDACTED

    def word(match: re.Match[str]) -> str:
        head, mark, query = match.group().partition("?")
        if not mark:
            # A bare query string (gunicorn's %(q)s), not a path that happens to hold "=".
            slash = head.find("/")
            if "=" not in head or -1 < slash < head.find("="):
                return head
            head, query = "", head
        return head + mark + "&".join(map(part, query.split("&")))

    return _WORD.sub(word, text)


class RedactTokensFilter(logging.Filter):
    """A logging filter that redacts secret query parameters from each record's message.

    Usable on a logger or a handler (also from ``logging.config.dictConfig`` as
    ``{"()": "flask_coverage.logging.RedactTokensFilter"}``). It never drops a record.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted is the handler's to report, not ours
            return True
        redacted = redact_tokens(message)
        if redacted != message:
            record.msg = redacted
            record.args = ()
        return True


def install_log_filter(logger_names: Iterable[str] = PROTECTED_LOGGERS) -> None:
    """Add one :class:`RedactTokensFilter` to each named logger (idempotent, process-wide).

    A filter on a logger sees the records logged to that logger itself, which is how werkzeug and
    gunicorn log their request lines. Naming ``flask_coverage`` also covers the extension's module
    loggers that exist by then (``flask_coverage.sources``, ``flask_coverage.state``), since a parent's filter does
    not see its children's records.
    """
    names = list(logger_names)
    if "flask_coverage" in names:
        names += [name for name in list(logging.root.manager.loggerDict) if name.startswith("flask_coverage.")]
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactTokensFilter) for existing in logger.filters):
            logger.addFilter(RedactTokensFilter())
