"""Escaping of text and URLs for the SVG writer."""

from __future__ import annotations

import re
from urllib.parse import quote

# Characters that never reach the output: everything outside the XML 1.0 Char
# production (C0 controls, lone surrogates, U+FFFE, U+FFFF) and, because they
# are control characters too, TAB, LF, CR, DEL and the C1 controls.
_DROPPED = r"\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
_dropped = re.compile(f"[{_DROPPED}]")
_needs_work = re.compile(f"[&<>\"'{_DROPPED}]").search
#: Whether a path needs neither percent-encoding nor XML escaping (the common case).
url_safe = re.compile(r"[A-Za-z0-9_.~/-]*").fullmatch
_scheme = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:").match


def xml_escape(text: str) -> str:
    """``text`` made safe for XML character data and quoted attribute values.

    Control characters and characters XML 1.0 forbids are dropped, and
    ``& < > " '`` become character references.
    """
    if _needs_work(text) is None:
        return text
    text = _dropped.sub("", text)
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


def url_path(path: str) -> str:
    """``path`` percent-encoded for a URL (``/`` kept), safe in an attribute as is."""
    if url_safe(path) is not None:
        return path
    return quote(path, safe="/", errors="replace")


def link_prefix_attr(prefix: str) -> str:
    """The link prefix escaped for an ``href``; raises ``ValueError`` if it has a
    scheme other than http(s) (e.g. ``javascript:``), since the SVG must not
    carry script."""
    cleaned = _dropped.sub("", prefix).strip()
    if _scheme(cleaned) is not None and not cleaned.lower().startswith(("http:", "https:")):
        raise ValueError("link_prefix must be a relative URL or an http(s) URL")
    return xml_escape(cleaned)
