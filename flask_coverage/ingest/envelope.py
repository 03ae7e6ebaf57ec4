"""The upload's envelope: its bytes to its parts, the reports, the uploader's file list and its fixes.

Two containers are read here, never in the blueprints:

- the legacy uploaders' envelope (``/upload/v2`` and the v4 ``PUT``): an environment section ending in
  ``<<<<<< ENV``, the file list (``network``) ending in ``<<<<<< network``, then reports, each
  starting with ``# path=<name>`` and ending in ``<<<<<< EOF``; a ``# path=fixes`` section lists
  lines that are not code; everything after ``==FROMNOWONIGNOREDBYCODECOV==>>>`` is ignored;
- codecov-cli's JSON payload (the ``PUT`` to its upload URL): ``coverage_files`` (base64 of zlib
  data), ``network_files``, ``report_fixes`` and keys that are passed over.

Every list is read an element at a time and bounded in count and in bytes (:data:`MAX_NETWORK_FILES`,
:data:`MAX_LIST_BYTES`, :data:`MAX_FIX_LINES`, :data:`MAX_REPORTS`): past a bound the upload is refused
with a 413 before the list costs more; a list of the wrong shape is a 400. The bounds are stated in
docs/deployment.md ("Limits and abuse").
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..errors import InvalidInput, ReportTooLarge
from ..inflate import inflate
from ..parsers import ReportSource
from ..parsers._json import JsonStream

__all__ = [
    "MAX_FIX_LINES",
    "MAX_LIST_BYTES",
    "MAX_NETWORK_FILES",
    "MAX_REPORTS",
    "FileFix",
    "UploadParts",
    "read_cli_payload",
    "read_envelope",
]

#: Paths in an upload's file list: the largest monorepos list a few hundred thousand files.
MAX_NETWORK_FILES = 500_000
#: Bytes of an upload's file list, and of its fixes, each.
MAX_LIST_BYTES = 32 * 1024 * 1024
#: Line numbers over all the files an upload's fixes name.
MAX_FIX_LINES = 1_000_000
#: Reports in one upload.
MAX_REPORTS = 1_000
#: Bytes of one file name in a list (longer ones name no file of the repository and are refused).
MAX_NAME_BYTES = 4096
#: Bytes of one line of the envelope's fixes (``path:1,2,3,...``).
MAX_FIX_LINE_BYTES = 1024 * 1024

#: Lines an uploader marks as not code in one file, and its last line (``eof``), if known.
FileFix = tuple[frozenset[int], Optional[int]]

_MARKER = re.compile(rb"^<<<<<< (ENV|network|EOF)[ \t]*\r?$", re.MULTILINE)
_PATH_LINE = re.compile(rb"# path=([^\r\n]*)\r?(?:\n|$)")
_BLANK = re.compile(rb"\s*")
_LINE = re.compile(rb"[^\r\n]*")
_IGNORED_FROM = b"==FROMNOWONIGNOREDBYCODECOV==>>>"
_FIX_EOF = re.compile(r"EOF: ([0-9]{1,9}) (.+)")
_FIX_LINES = re.compile(r"([0-9]{1,9}(?:,[0-9]{1,9})*)")
_FIX_SOURCE = re.compile(r"([0-9]{1,9}):(.*)")
_MAX_LINE = 2**32 - 1


@dataclass
class UploadParts:
    """What an upload carries: ``(name, report)`` pairs, the file list and the fixes per path."""

    reports: list[tuple[str, ReportSource]] = field(default_factory=list)
    network: list[str] = field(default_factory=list)
    fixes: dict[str, FileFix] = field(default_factory=dict)


class _Budget:
    """Counts the entries and bytes of one list; a 413 past either bound."""

    def __init__(self, what: str, max_count: int, max_bytes: Optional[int] = None) -> None:
        self.what, self.max_count = what, max_count
        self.max_bytes = MAX_LIST_BYTES if max_bytes is None else max_bytes
        self.count = self.size = 0

    def spend(self, size: int, count: int = 1) -> None:
        self.count += count
        self.size += size
        if self.count > self.max_count:
            raise ReportTooLarge(f"{self.what} has more than {self.max_count} entries")
        if self.size > self.max_bytes:
            raise ReportTooLarge(f"{self.what} is larger than {self.max_bytes} bytes")


def read_envelope(body: bytes | bytearray) -> UploadParts:
    """The parts of a v2 body: a plain report, or the uploaders' envelope (see the module's docstring).

    Everything up to the last ``<<<<<< ENV`` or ``<<<<<< network`` line is the environment and the
    file list; the rest is split at ``<<<<<< EOF`` lines. Blank parts are dropped.
    """
    ignored = body.find(_IGNORED_FROM)
    end_of_data = len(body) if ignored < 0 else ignored
    markers = list(_MARKER.finditer(body, 0, end_of_data))
    parts = UploadParts()
    first = _BLANK.match(body, 0, end_of_data).end()  # type: ignore[union-attr]
    if not markers and not _PATH_LINE.match(body, first, end_of_data):
        parts.reports.append(("", memoryview(body)[:end_of_data]))
        return parts
    network = [m for m in markers if m.group(1) == b"network"]
    if network:
        end = network[-1].start()
        start = max((m.end() for m in markers if m.group(1) == b"ENV" and m.end() <= end), default=0)
        parts.network = _envelope_lines(body, start, end)
    start = max((m.end() for m in markers if m.group(1) != b"EOF"), default=0)
    bounds = [(m.start(), m.end()) for m in markers if m.group(1) == b"EOF" and m.start() >= start]
    view = memoryview(body)
    reports = _Budget("the upload's list of reports", MAX_REPORTS, end_of_data + 1)
    for end, next_start in [*bounds, (end_of_data, end_of_data)]:
        position = _BLANK.match(body, start, end).end()  # type: ignore[union-attr]
        name = ""
        path_line = _PATH_LINE.match(body, position, end)
        if path_line:
            name = path_line.group(1).decode("utf-8", "replace").strip()[:200]
            position = path_line.end()
        if name == "fixes":
            parts.fixes = _legacy_fixes(body, position, end)
        elif name or _BLANK.match(body, position, end).end() < end:  # type: ignore[union-attr]
            reports.spend(0)
            parts.reports.append((name or f"#{len(parts.reports) + 1}", view[position:end]))
        start = next_start
    return parts


def _lines(body: bytes | bytearray, start: int, end: int, longest: int) -> Iterator[str]:
    # The non-blank lines of body[start:end], stripped and decoded one at a time.
    position = start
    while position < end:
        match = _LINE.match(body, position, end)
        line_end = match.end()  # type: ignore[union-attr]
        if line_end - position > longest:
            raise InvalidInput(f"a line of the envelope is longer than {longest} bytes")
        line = body[position:line_end].strip()
        position = line_end + 1
        if line:
            yield line.decode("utf-8", "replace")


def _envelope_lines(body: bytes | bytearray, start: int, end: int) -> list[str]:
    budget = _Budget("the upload's file list (network)", MAX_NETWORK_FILES)
    names = []
    for line in _lines(body, start, end, MAX_NAME_BYTES):
        budget.spend(len(line))
        names.append(line)
    return names


def _legacy_fixes(body: bytes | bytearray, start: int, end: int) -> dict[str, FileFix]:
    """The ``# path=fixes`` section, read as Codecov reads it: ``path:1,2,3``, ``path:5:source``
    (a ``/*`` ... ``*/`` or ``LCOV_EXCL_START`` ... ``LCOV_EXCL_STOP`` pair of such lines marks the
    lines between too) and ``EOF: n path``. Lines that follow none of these are passed over."""
    budget = _Budget("the upload's fixes", MAX_FIX_LINES)
    lines: dict[str, set[int]] = {}
    eofs: dict[str, int] = {}
    blocks: dict[str, tuple[list[int], list[int]]] = {}
    for line in _lines(body, start, end, MAX_FIX_LINE_BYTES):
        budget.spend(len(line), 0)
        eof = _FIX_EOF.fullmatch(line)
        if eof:
            eofs[eof.group(2).strip()] = int(eof.group(1))
            continue
        path, colon, rest = line.partition(":")
        if not colon or not path:
            continue
        numbers = _FIX_LINES.fullmatch(rest.strip())
        if numbers:
            found = [int(n) for n in numbers.group(1).split(",")]
        else:
            source = _FIX_SOURCE.fullmatch(rest.strip())
            if source is None:
                continue
            number, text = int(source.group(1)), source.group(2).strip()
            found = [number]
            if text.startswith("/*") or "LCOV_EXCL_START" in text:
                blocks.setdefault(path, ([], []))[0].append(number)
            elif text.endswith("*/") or "LCOV_EXCL_STOP" in text or "LCOV_EXCL_END" in text:
                blocks.setdefault(path, ([], []))[1].append(number)
        found = [n for n in found if 0 < n <= _MAX_LINE]
        budget.spend(0, len(found))
        lines.setdefault(path, set()).update(found)
    for path, (starts, stops) in blocks.items():
        for begin, stop in zip(sorted(starts), sorted(stops)):
            budget.spend(0, max(0, stop - begin - 1))
            lines[path].update(range(begin + 1, stop))
    return {path: (frozenset(lines.get(path, ())), eofs.get(path)) for path in {*lines, *eofs}}


def read_cli_payload(raw: bytes | bytearray, limit: Optional[int]) -> UploadParts:
    """The parts of codecov-cli's upload body, read as a stream; a 4xx for anything malformed.

    Each coverage file's ``data`` is base64 of zlib data, inflated with what is left of ``limit``
    (so all of them together stay under it: a bomb is a 413 before it costs more). Keys other than
    ``coverage_files``, ``network_files`` and ``report_fixes`` are passed over without being built.
    """
    view = memoryview(raw)
    stream = JsonStream(bytes(view[i : i + (1 << 20)]) for i in range(0, len(view), 1 << 20))
    if stream.peek() != "{":
        try:
            stream.value()
        except (InvalidInput, RecursionError):
            raise InvalidInput("the body is not JSON") from None
        raise InvalidInput("the body must be a JSON object")
    stream.expect("{", "")
    parts = UploadParts()
    left = limit
    for key in stream.members():
        if key == "coverage_files":
            left = _cli_reports(stream, parts, left)
        elif key == "network_files":
            parts.network = _cli_network(stream)
        elif key == "report_fixes":
            parts.fixes = _cli_fixes(stream)
        else:
            stream.skip()
    stream.end()
    if not parts.reports:
        raise InvalidInput("coverage_files must be a non-empty list")
    return parts


def _cli_reports(stream: JsonStream, parts: UploadParts, left: Optional[int]) -> Optional[int]:
    not_a_list = "coverage_files must be a non-empty list"
    budget = _Budget("the upload's coverage_files", MAX_REPORTS, 2**62)
    if stream.peek() != "[":
        stream.skip()
        raise InvalidInput(not_a_list)
    for index, item in enumerate(stream.items(not_a_list)):
        budget.spend(0)
        if not isinstance(item, dict) or not isinstance(item.get("data"), str):
            raise InvalidInput(f"coverage_files[{index}] must be an object with data")
        filename = item.get("filename")
        name = filename[:200] if isinstance(filename, str) else f"#{index + 1}"
        if item.get("format", "base64+compressed") != "base64+compressed":
            raise InvalidInput(f"coverage file {name!r}: format must be 'base64+compressed'")
        try:
            compressed = base64.b64decode(item["data"], validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput(f"coverage file {name!r}: data is not base64") from None
        data = inflate(compressed, left, what=f"coverage file {name!r}")
        if left is not None:
            left -= len(data)
        parts.reports.append((name, data))
    return left


def _cli_network(stream: JsonStream) -> list[str]:
    wrong = "network_files must be a list of paths"
    if stream.peek() == "n":
        stream.value()  # null: no list
        return []
    if stream.peek() != "[":
        stream.skip()
        raise InvalidInput(wrong)
    budget = _Budget("the upload's network_files", MAX_NETWORK_FILES)
    names = []
    for name in stream.items(wrong):
        if not isinstance(name, str) or len(name) > MAX_NAME_BYTES:
            raise InvalidInput(wrong)
        budget.spend(len(name))
        names.append(name)
    return names


def _cli_fixes(stream: JsonStream) -> dict[str, FileFix]:
    """``report_fixes`` (``{"format": "legacy", "value": {path: {"eof": n, "lines": [...]}}}``), walked."""
    shape = "report_fixes must be {'format': 'legacy', 'value': {path: fixes}}"
    if stream.peek() == "n":
        stream.value()
        return {}
    if stream.peek() != "{":
        stream.skip()
        raise InvalidInput(shape)
    stream.expect("{", "")
    fixes: Optional[dict[str, FileFix]] = None
    budget = _Budget("the upload's report_fixes", MAX_FIX_LINES)
    for key in stream.members():
        if key != "value":
            stream.skip()
            continue
        if stream.peek() != "{":
            stream.skip()
            raise InvalidInput(shape)
        stream.expect("{", "")
        fixes = {}
        for path in stream.members():
            fixes[path] = _cli_fix(stream, path, budget)
    if fixes is None:
        raise InvalidInput(shape)
    return fixes


def _cli_fix(stream: JsonStream, path: str, budget: _Budget) -> FileFix:
    wrong = f"report_fixes for {path[:80]!r} must be {{'eof': n, 'lines': [n, ...]}}"
    budget.spend(len(path), 0)
    if len(path) > MAX_NAME_BYTES or stream.peek() != "{":
        stream.skip()
        raise InvalidInput(wrong)
    stream.expect("{", "")
    lines: set[int] = set()
    eof = None
    for key in stream.members():
        if key == "lines":
            for run in stream.numbers(wrong):
                if not all(_is_line(n) for n in run):
                    raise InvalidInput(wrong)
                budget.spend(0, len(run))
                lines.update(run)
        elif key == "eof":
            eof = stream.value()
            if eof is not None and not _is_line(eof):
                raise InvalidInput(wrong)
        else:
            stream.skip()
    return frozenset(lines), eof


def _is_line(value: object) -> bool:
    return type(value) is int and 0 < value <= _MAX_LINE
