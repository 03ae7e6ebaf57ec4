"""Salesforce Apex code coverage JSON (``sf apex run test --code-coverage --result-format json
--output-dir DIR`` writes it as ``test-result-codecoverage.json``: ``[{"id", "name", "totalLines",
"lines": {"<line>": <count>}, "totalCovered", "coveredPercent"}]``).

As Codecov reads it: each entry is an Apex class or trigger, its ``lines`` a count per line, HIT above
0, MISS at 0. The path is the ``name``, with ``.cls`` added when it has no extension (the file is then
found in the repository by the network list, as ``force-app/main/default/classes/<name>.cls``).

Skipped and counted: an entry without a name or a ``lines`` object; as every format, a line that is
not a number or is 0, a count that is not a number; negative counts clamped to 0, decimals rounded
down. Streamed one entry at a time.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..lines import HIT, MISS, LineColumns
from ._common import ParsedFile, json_line_number
from ._format import ParseContext, ReportFormat, ReportHead
from ._json import JsonStream
from .coveralls import json_hit_count

__all__ = ["FORMAT", "parse_salesforce"]

_FIRST_ENTRY = re.compile(rb'\[\s*\{\s*"(?:id|name)"\s*:')
_LINES = re.compile(rb'"lines"\s*:\s*\{')


def parse_salesforce(chunks: Iterable[bytes], context: ParseContext) -> Iterator[ParsedFile]:
    """Yield one ParsedFile per entry of Salesforce's Apex coverage JSON read from ``chunks``."""
    resolver = context.resolver()
    skips = context.skips
    stream = JsonStream(chunks)
    for entry in stream.items("Salesforce Apex coverage JSON is a list"):
        name = entry.get("name") if isinstance(entry, dict) else None
        counts = entry.get("lines") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.strip() or not isinstance(counts, dict):
            skips.add("entries without a name or a lines object, skipped")
            continue
        path = resolver.resolve(name if "." in name else name + ".cls")
        lines = LineColumns()
        for key, count in counts.items():
            number = json_line_number(key, path, skips)
            hits = json_hit_count(count, skips) if number is not None else None
            if number is not None and hits is not None:
                lines.add(number, hits, HIT if hits else MISS)
        if len(lines):
            yield ParsedFile(path, lines.take())
    stream.end()


def _detect(head: ReportHead) -> bool:
    return (
        head.kind == "json-array" and _FIRST_ENTRY.match(head.text) is not None and _LINES.search(head.text) is not None
    )


FORMAT = ReportFormat(
    "salesforce", "Salesforce Apex JSON", _detect, parse_salesforce, ("test-result-codecoverage.json",)
)
