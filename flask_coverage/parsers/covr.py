"""R's covr JSON (``covr::codecov()`` and ``covr::coveralls()`` build it: ``{"files": [{"name", "coverage"}],
"uploader": "R"}``).

Element *i* of a file's ``coverage`` is line *i* (element 0 is line 0: no line), ``null`` is no code,
a count HIT or (0) MISS, as Codecov reads it. Paths are the ``name``s as written (relative to the
package). Skipped and counted: a file entry without a name or a ``coverage`` list, an element that is
neither null nor a number; negative counts clamped to 0, decimals rounded down. Streamed one file
entry at a time.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ._common import ParsedFile
from ._format import ParseContext, ReportFormat, ReportHead
from ._json import JsonStream
from .coveralls import list_lines

__all__ = ["FORMAT", "parse_covr"]

_FILES_FIRST = re.compile(rb'\{\s*"files"\s*:\s*\[\s*(?:\]|\{\s*"name"\s*:)')
_UPLOADER_R = re.compile(rb'"uploader"\s*:\s*"R"')


def parse_covr(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of ``files`` of covr's JSON read from ``chunks``."""
    resolver = context.resolver()
    stream = JsonStream(chunks)
    stream.expect("{", "covr's JSON is an object")
    for key in stream.members():
        if key != "files":
            stream.skip()
            continue
        for entry in stream.items("covr JSON: files is not a list"):
            name = entry.get("name") if isinstance(entry, dict) else None
            coverage = entry.get("coverage") if isinstance(entry, dict) else None
            if not isinstance(name, str) or not isinstance(coverage, list):
                context.skips.add("file entries without a name or a coverage list, skipped")
                continue
            yield ParsedFile(resolver.resolve(name), list_lines(coverage, 0, context.skips))
    stream.end()


def _detect(head: ReportHead) -> bool:
    return head.kind == "json" and (
        _FILES_FIRST.match(head.text) is not None or _UPLOADER_R.search(head.text) is not None
    )


FORMAT = ReportFormat("covr", "R covr JSON", _detect, parse_covr, ("covr*.json", "codecov.json"))
