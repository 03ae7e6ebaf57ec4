"""The plug-in shape of a report format: what a parser declares, what it is given, what it reports.

A format is one :class:`ReportFormat` (``FORMAT`` in its module), registered in ``parsers/__init__.py``:

- ``detect(head)`` answers from the report's first bytes (a :class:`ReportHead`) whether the report is
  this format. Content decides; the upload's file name (``head.name``) only chooses among formats
  whose detectors all said yes. A detector must say no to every other registered format's reports
  (``tests/parsers/test_detection.py`` holds each to every sample).
- ``parse(chunks, context)`` reads the report's bytes (an iterable of chunks, read once) and yields
  :class:`~flask_coverage.parsers._common.ParsedFile`\\ s. It resolves names with
  ``context.resolver()`` and reports every line it skips or clamps with ``context.skips.add(reason)``
  ("skip, count and say"); it raises :class:`~flask_coverage.errors.ReportError` only for a document
  that is not the format or breaks a size or cost bound.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import AbstractSet, Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

from ._common import ParsedFile
from ._input import strip_bom
from ._paths import PathResolver

__all__ = ["ParseContext", "ParserSettings", "ReportFormat", "ReportHead", "Skips"]

#: Distinct skip reasons kept per report; more are counted under :data:`OTHER_REASON`.
MAX_SKIP_REASONS = 32
OTHER_REASON = "other"

_XML_NAME = re.compile(rb"<([^\s/>!?]+)")
_SUBSET_END = re.compile(rb"\]\s*>")
_JSON_KEY_VALUE = b'"%s"[ \t\r\n]*:[ \t\r\n]*(.)'
_PRINTABLE = re.compile(rb"[^\x20-\x7e]")


class Skips:
    """What the parsers of one upload skipped or clamped, counted by reason.

    A reason is a fixed phrase of the parser ("line number 0", "hit count not an integer"), never
    text from the report, so the counts stay small and the answer says nothing a report chose.
    """

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def add(self, reason: str, count: int = 1) -> None:
        """Count ``count`` lines skipped or clamped for ``reason``."""
        if reason not in self.counts and len(self.counts) >= MAX_SKIP_REASONS:
            reason = OTHER_REASON
        self.counts[reason] = self.counts.get(reason, 0) + count

    @property
    def total(self) -> int:
        """How many lines were skipped or clamped, whatever the reason."""
        return sum(self.counts.values())

    def __bool__(self) -> bool:
        return bool(self.counts)

    def summary(self) -> str:
        """One line for people: ``"skipped or clamped: 2 negative hit counts, clamped to 0; 1 ..."``."""
        if not self.counts:
            return "nothing skipped or clamped"
        parts = "; ".join(f"{count} {reason}" for reason, count in sorted(self.counts.items(), key=_most_first))
        return f"skipped or clamped: {parts}"

    def update(self, other: Skips) -> None:
        """Add the counts of ``other`` to these."""
        for reason, count in other.counts.items():
            self.add(reason, count)


def _most_first(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


@dataclass(frozen=True)
class ParserSettings:
    """The ``parsers:`` settings of a ``codecov.yml`` that change what a report reads, with Codecov's
    defaults (docs/parsing.md, "parsers: settings")."""

    #: ``parsers.javascript.enable_partials``: Istanbul JSON's half-taken lines stay PARTIAL (else HIT).
    javascript_partials: bool = False
    #: ``parsers.gcov.branch_detection.{conditional,loop,method,macro}``: which gcov lines with
    #: ``branch`` records take their state from them.
    gcov_conditional: bool = True
    gcov_loop: bool = True
    gcov_method: bool = False
    gcov_macro: bool = False
    #: Whether a gcov line marked ``1*`` (a block on it never ran) is read as its count (as gcov and
    #: gcovr count it) or dropped (as Codecov drops it): the service's ``COVERAGE_GCOV_UNEXECUTED_BLOCKS``.
    gcov_unexecuted_blocks: bool = True
    #: ``parsers.{cobertura,go,jacoco}.partials_as_hits``: that format's PARTIAL lines are HITs.
    cobertura_partials_as_hits: bool = False
    go_partials_as_hits: bool = False
    jacoco_partials_as_hits: bool = False
    #: ``parsers.cobertura.handle_missing_conditions``: read, and changes nothing here (Codecov's
    #: changes only the list of a line's missing branches, which is not stored here).
    cobertura_missing_conditions: bool = False

    @classmethod
    def of(cls, yaml: Mapping[str, Any], **service: bool) -> ParserSettings:
        """The settings a ``codecov.yml`` (its parsed mapping) gives, Codecov's default for any key
        missing or not a boolean; ``service`` the ones the service's configuration sets."""
        parsers = _mapping(yaml.get("parsers"))
        values: dict[str, bool] = {}
        for name, path in _KEYS.items():
            section: Any = parsers
            for key in path:
                section = _mapping(section).get(key)
            if isinstance(section, bool):
                values[name] = section
        return cls(**values, **service)

    @property
    def gcov_default(self) -> bool:
        """Whether gcov is read with the compiled reader's rules: Codecov's default branch detection
        (conditionals and loops), ``1*`` lines kept."""
        detection = (self.gcov_conditional, self.gcov_loop, self.gcov_method, self.gcov_macro)
        return detection == (True, True, False, False) and self.gcov_unexecuted_blocks


_KEYS = {
    "javascript_partials": ("javascript", "enable_partials"),
    "gcov_conditional": ("gcov", "branch_detection", "conditional"),
    "gcov_loop": ("gcov", "branch_detection", "loop"),
    "gcov_method": ("gcov", "branch_detection", "method"),
    "gcov_macro": ("gcov", "branch_detection", "macro"),
    "cobertura_partials_as_hits": ("cobertura", "partials_as_hits"),
    "cobertura_missing_conditions": ("cobertura", "handle_missing_conditions"),
    "go_partials_as_hits": ("go", "partials_as_hits"),
    "jacoco_partials_as_hits": ("jacoco", "partials_as_hits"),
}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


@dataclass
class ParseContext:
    """What a parser is given besides the bytes: how to place paths and where to count skips."""

    #: The checkout directory the report was written in (``root=``), stripped from paths.
    root: Optional[str] = None
    skips: Skips = field(default_factory=Skips)
    #: The report's file name as the upload gave it, if any: a hint, never trusted.
    name: Optional[str] = None
    #: The repository's files an upload's paths are placed on (the uploader's file list, else the
    #: tree's): empty when there are none, None when the caller does not place paths. Only a format
    #: whose names Codecov tries against that list reads it (JaCoCo's report name).
    known: Optional[AbstractSet[str]] = None
    #: The ``parsers:`` settings of the codecov.yml in force (Codecov's defaults when there is none).
    settings: ParserSettings = field(default_factory=ParserSettings)

    def resolver(self, sources: Sequence[str] = ()) -> PathResolver:
        """The name rule for this report (``parsers/_paths.py``), with the folders the report lists."""
        return PathResolver(self.root, sources)


class ReportHead:
    """The first bytes of a report, looked at once for every detector.

    ``text`` is the head without a byte order mark and leading blanks; ``kind`` is ``"xml"``,
    ``"json"`` (an object), ``"json-array"`` or ``"text"``; for XML, ``xml_root`` is the root element's
    name and ``xml_root_tag`` its start tag as written (attributes included, at most 4 KiB).
    """

    def __init__(self, head: bytes, name: Optional[str] = None) -> None:
        self.text = strip_bom(head).lstrip()
        self.name = name
        self.xml_root: Optional[str] = None
        self.xml_root_tag = b""
        first = self.text[:1]
        if first == b"<":
            self.kind = "xml"
            start = _xml_root_start(self.text)
            if start is not None:
                match = _XML_NAME.match(self.text, start)
                if match:
                    self.xml_root = match.group(1).decode("utf-8", "replace")
                    end = self.text.find(b">", start, start + 4096)
                    self.xml_root_tag = self.text[start : end + 1 if end >= 0 else start + 4096]
        elif first == b"{":
            self.kind = "json"
        elif first == b"[":
            self.kind = "json-array"
        else:
            self.kind = "text"

    def json_value_start(self, key: str) -> Optional[str]:
        """The first character of the value of the first ``"key":`` in the head (``"{"``, ``"["``, ...)."""
        match = re.search(_JSON_KEY_VALUE % re.escape(key.encode()), self.text)
        return match.group(1).decode("latin-1") if match else None

    def xml_root_has(self, attribute: str) -> bool:
        """Whether the root element's start tag carries ``attribute``."""
        return re.search(rb"\s%s\s*=" % re.escape(attribute.encode()), self.xml_root_tag) is not None

    def name_matches(self, patterns: Iterable[str]) -> bool:
        """Whether the hint ``name`` (its last path segment) matches one of the glob ``patterns``."""
        if not self.name:
            return False
        base = self.name.replace("\\", "/").rpartition("/")[2].lower()
        return any(fnmatch.fnmatchcase(base, pattern) for pattern in patterns)

    def describe(self) -> str:
        """What the head looks like, for the "unknown report format" line."""
        if self.kind == "xml":
            if self.xml_root is None:
                return "XML without a root element"
            return f"XML whose root element is <{_shown(self.xml_root.encode())}>"
        if self.kind == "json":
            key = re.match(rb'\{[ \t\r\n]*"([^"\\]{0,40})', self.text)
            return f'a JSON object whose first key is "{_shown(key.group(1))}"' if key else "a JSON object"
        if self.kind == "json-array":
            return "a JSON array"
        return f"text starting {_shown(self.text[:30])!r}"


def _shown(data: bytes) -> str:
    # Report text in a message: printable ASCII only, so nothing the report chose can mislead.
    return _PRINTABLE.sub(b"?", data[:40]).decode("ascii")


def _xml_root_start(text: bytes) -> Optional[int]:
    # Skips the prolog (declaration, comments, processing instructions, DOCTYPE) with plain
    # searches: a regular expression for it backtracks exponentially on hostile input.
    pos = 0
    while True:
        while pos < len(text) and text[pos] in b" \t\r\n":
            pos += 1
        if text.startswith(b"<?", pos):
            end = text.find(b"?>", pos)
            pos = -1 if end < 0 else end + 2
        elif text.startswith(b"<!--", pos):
            end = text.find(b"-->", pos)
            pos = -1 if end < 0 else end + 3
        elif text.startswith(b"<!DOCTYPE", pos):
            close, subset = text.find(b">", pos), text.find(b"[", pos)
            if 0 <= subset < close:
                match = _SUBSET_END.search(text, subset)
                pos = -1 if match is None else match.end()
            else:
                pos = -1 if close < 0 else close + 1
        else:
            return pos if text.startswith(b"<", pos) else None
        if pos < 0:
            return None


#: A parser: the report's chunks and its context to the files it holds.
Parser = Callable[[Iterable[bytes], ParseContext], Iterator[ParsedFile]]


@dataclass(frozen=True)
class ReportFormat:
    """One report format as the registry knows it."""

    #: The value of ``parse_report(format=...)``, the CLI's ``--format`` and the upload record.
    name: str
    #: How people call it, in messages and docs ("Cobertura XML").
    title: str
    detect: Callable[[ReportHead], bool]
    parse: Parser
    #: Glob patterns of the file names the tools write (``"*.lcov"``, ``"lcov.info"``): a hint only.
    file_names: tuple[str, ...] = ()
    #: Whether the settings make this format's PARTIAL lines HITs (``parsers.<language>.partials_as_hits``
    #: and the like), applied to every file the parser yields.
    partials_as_hits: Callable[[ParserSettings], bool] = lambda _settings: False
