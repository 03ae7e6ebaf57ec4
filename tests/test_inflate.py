"""The bounded inflater: gzip of one or many members, zlib, limits and bad data."""

from __future__ import annotations

import gzip
import os
import zlib

import pytest

from flask_coverage.errors import ReportError, ReportTooLarge
from flask_coverage.inflate import MAX_GZIP_MEMBERS, gunzip, inflate

TEXT = os.urandom(300_000).hex().encode()  # incompressible enough to span many steps


def test_one_member_and_many_members_give_their_concatenation() -> None:
    assert gunzip(gzip.compress(TEXT), None) == TEXT
    parts = [TEXT[:5], b"", TEXT[5:200_000], TEXT[200_000:]]
    assert gunzip(b"".join(gzip.compress(part) for part in parts), None) == TEXT
    assert gunzip(b"", None) == b""


def test_chunks_may_split_members_anywhere() -> None:
    body = gzip.compress(b"first\n") + gzip.compress(TEXT) + gzip.compress(b"last\n")
    for size in (1, 7, 4096, 100_000):
        chunks = [body[start : start + size] for start in range(0, len(body), size)]
        assert gunzip(iter(chunks), None) == b"first\n" + TEXT + b"last\n"


def test_zlib_as_python_compresses_it() -> None:
    assert inflate(zlib.compress(TEXT), None) == TEXT
    assert inflate(memoryview(zlib.compress(b"x")), 1) == b"x"


@pytest.mark.parametrize("limit", [0, 1, 1000, len(TEXT) - 1])
def test_the_output_stops_one_byte_past_the_limit(limit: int) -> None:
    with pytest.raises(ReportTooLarge, match=f"the decompressed body is larger than the limit of {limit} bytes"):
        gunzip(gzip.compress(TEXT), limit)
    with pytest.raises(ReportTooLarge, match=f"decompressed report 'a' is larger than the limit of {limit} bytes"):
        inflate(zlib.compress(TEXT), limit, "report 'a'")
    assert gunzip(gzip.compress(TEXT[:limit]), limit) == TEXT[:limit]


def test_a_bomb_is_refused_at_the_limit_across_members() -> None:
    bomb = gzip.compress(b"\0" * 5_000_000) * 3
    with pytest.raises(ReportTooLarge):
        gunzip(bomb, 12_000_000)
    assert len(gunzip(bomb, 15_000_000)) == 15_000_000


BAD = {
    "not gzip": (gunzip, b"\x1f\x8b\x08" + b"\0" * 7 + b"\xff" * 50, "the body is not valid gzip data"),
    "garbage after a member": (gunzip, gzip.compress(b"a") + b"\0\0\0\0", "the body is not valid gzip data"),
    "truncated": (gunzip, gzip.compress(TEXT)[:-5], "the gzip data is truncated"),
    "truncated second member": (gunzip, gzip.compress(b"a") + gzip.compress(b"b")[:12], "gzip data is truncated"),
    "too many members": (gunzip, gzip.compress(b"") * (MAX_GZIP_MEMBERS + 1), "more than 1000 gzip members"),
    "not zlib": (inflate, b"plain text", "the data is not valid zlib data"),
    "gzip given as zlib": (inflate, gzip.compress(b"a"), "the data is not valid zlib data"),
    "data after zlib": (inflate, zlib.compress(b"a") + b"x", "the data goes on after the end of its zlib stream"),
    "truncated zlib": (inflate, zlib.compress(TEXT)[:1000], "the zlib data is truncated"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_data_is_a_report_error(name: str) -> None:
    function, data, message = BAD[name]
    with pytest.raises(ReportError, match=message) as raised:
        function(data, None)
    assert not isinstance(raised.value, ReportTooLarge)


def test_the_most_members_allowed_are_read() -> None:
    assert gunzip(gzip.compress(b"ab") * MAX_GZIP_MEMBERS, None) == b"ab" * MAX_GZIP_MEMBERS
