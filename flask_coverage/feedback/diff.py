"""The lines a unified diff adds, by their numbers in the new file (pure: no Flask, no database).

Read as Codecov reads a diff: each hunk's lines that are not removals are numbered from the hunk's
new start, and those that start with ``+`` are added. The hunk header's counts say where a hunk
ends, so a line of content that looks like a header (``+++ x``, ``diff --git``) is never taken for
one. Deleted files add nothing; a renamed file adds only its changed lines; binary files add nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional, Union

#: Path → the line numbers the diff adds to it, ascending (empty for a file it only removes lines from).
AddedLines = dict[str, list[int]]

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"n": b"\n", b"t": b"\t", b"a": b"\a", b"b": b"\b", b"f": b"\f", b"r": b"\r", b"v": b"\v"}


def _unquote(name: bytes) -> bytes:
    """A path as git writes it: ``"..."`` with C escapes (octal bytes included) when it must be quoted."""
    if not (name.startswith(b'"') and name.endswith(b'"') and len(name) > 1):
        return name
    body, out, index = name[1:-1], bytearray(), 0
    while index < len(body):
        char = body[index : index + 1]
        if char == b"\\" and index + 1 < len(body):
            following = body[index + 1 : index + 2]
            if following.isdigit() and index + 4 <= len(body):
                out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
                index += 4
                continue
            out += _ESCAPES.get(following, following)
            index += 2
            continue
        out += char
        index += 1
    return bytes(out)


def _new_path(line: bytes, prefix: bytes = b"b/") -> Union[str, None]:
    """The path of a ``+++ b/path`` (or ``--- a/path``) line; ``None`` for ``/dev/null``."""
    name = _unquote(line[4:].rstrip(b"\r\n").split(b"\t")[0])
    if name == b"/dev/null":
        return None
    if name.startswith(prefix):
        name = name[2:]
    return name.decode("utf-8", "replace")


def added_lines(diff: Iterable[Union[bytes, str]], removed: Optional[AddedLines] = None) -> AddedLines:
    """The added lines of each file of a unified diff (``git diff`` or a provider's), given line by
    line. ``removed``, if given, gets the removed lines of each file, by their numbers in the old file
    (under its old path)."""
    found: AddedLines = {}
    path: Union[str, None] = None
    old_path: Union[str, None] = None
    old_left = new_left = 0
    number = old_number = 0
    for raw in diff:
        line = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else raw
        if old_left > 0 or new_left > 0:  # inside a hunk: its counts say what each line is
            first = line[:1]
            if first == b"+":
                if path is not None:
                    found.setdefault(path, []).append(number)
                number += 1
                new_left -= 1
            elif first == b"-":
                if removed is not None and old_path is not None:
                    removed.setdefault(old_path, []).append(old_number)
                old_number += 1
                old_left -= 1
            elif first == b"\\":  # "\ No newline at end of file"
                pass
            else:  # context (" ", or an empty line where a tool dropped the space)
                number += 1
                old_number += 1
                old_left -= 1
                new_left -= 1
            continue
        if line.startswith(b"diff "):
            path = old_path = None
        elif line.startswith(b"--- "):
            old_path = _new_path(line, b"a/")
        elif line.startswith(b"+++ "):
            path = _new_path(line)
            if path is not None:
                found.setdefault(path, [])  # changed, maybe with no line added
        elif line.startswith(b"@@"):
            match = _HUNK.match(line)
            if match:
                old_start, old_count, start, new_count = match.groups()
                old_number = max(int(old_start), 1)
                old_left = 1 if old_count is None else int(old_count)
                new_left = 1 if new_count is None else int(new_count)
                number = max(int(start), 1)
    return found


def paired_lines(
    added: Iterable[int], removed: Iterable[int], last: int
) -> Iterator[tuple[Optional[int], Optional[int]]]:
    """The lines of a file before and after a diff, in order, as ``(number before, number after)``:
    ``(None, n)`` for a line the diff adds, ``(n, None)`` for one it removes, and the lines it leaves
    alone paired in order (the n-th line before that the diff does not remove is the n-th line after
    that it does not add); until both numbers pass ``last``."""
    added_set, removed_set = set(added), set(removed)
    before = after = 1
    while before <= last or after <= last:
        if after in added_set:
            yield None, after
            after += 1
        elif before in removed_set:
            yield before, None
            before += 1
        else:
            yield before, after
            before += 1
            after += 1


@dataclass(frozen=True)
class Diff:
    """What a diff changes: the ``added`` lines by path (new numbers) and the ``removed`` ones (old
    numbers, old paths)."""

    added: AddedLines
    removed: AddedLines


def parse_diff(diff: Iterable[Union[bytes, str]]) -> Diff:
    """The added and removed lines of a unified diff, given line by line."""
    removed: AddedLines = {}
    return Diff(added_lines(diff, removed), removed)
