"""Turning the file names written in a report into repository-relative paths.

Rules (documented in docs/parsing.md):

- ``\\`` becomes ``/``; ``.`` segments, doubled slashes and ``a/..`` pairs are collapsed.
- An absolute name under a Cobertura ``<source>`` is made relative to it (the longest source wins),
  then prefixed with that source's place in the repository; one under ``root`` loses ``root``.
- A relative Cobertura name is joined to the outermost absolute ``<source>`` (the checkout root
  whenever it is listed: coverage.py, Istanbul and gcovr all list it); a relative ``<source>`` is
  dropped, as Codecov drops it.
- An absolute name that matches neither is kept without its leading ``/`` (or drive), so nothing
  is lost silently and the uploader can see which ``root`` to pass.
- A name that is empty, climbs out (``..`` after collapsing), is absurdly long or holds control
  characters is refused with a ReportError.
- With the uploader's file list (``network``), :func:`place_by_network` moves a path that is not
  in it to the one listed file it is the end of (or that is the end of it, or, for a Go import path,
  whose path inside its Go module it is the end of).
"""

from __future__ import annotations

import posixpath
import re
from typing import Iterable, Optional, Sequence

from ..errors import ReportError
from ..identifiers import refusal, refused_character
from ._common import quote

MAX_PATH_LENGTH = 4096
#: How many folders deep :func:`place_by_network` compares the ends of paths.
MAX_PLACING_DEPTH = 32

_DRIVE = re.compile(r"[A-Za-z]:(?=/|$)")
# The usual name, already in the form the full rule gives: printable ASCII segments without blanks,
# ``\\`` or ``:``, none of them ``.`` or ``..`` or empty, joined by single slashes (at most one leading).
# The full rule leaves such a name unchanged by its normalising, so PathResolver.resolve skips that.
_SEGMENT = r"(?!\.\.?(?:/|\Z))[A-Za-z0-9_.+@~,=%#!$&'()\[\]{};^-]+"
_CLEAN_NAME = re.compile(rf"/?{_SEGMENT}(?:/{_SEGMENT})*\Z").match
_CLEAN_RELATIVE = re.compile(rf"{_SEGMENT}(?:/{_SEGMENT})*\Z").match


class PathResolver:
    """Maps report file names to repository-relative paths for one report."""

    def __init__(self, root: str | None = None, sources: Sequence[str] = ()) -> None:
        self._root = _normalise(root) if root else None
        # A relative source is dropped, as Codecov drops it: it says nothing about where the checkout is.
        absolute = [s for s in (_normalise(s) for s in sources if s.strip()) if _is_absolute(s)]
        # Without a root, the sources' common ancestor stands for the checkout root.
        base = self._root or (_common_ancestor(absolute) if len(absolute) > 1 else None)
        self._sources: list[tuple[str, str | None]] = []
        for source in absolute:
            if base is None:
                prefix: str | None = ""
            else:
                prefix = _strip_prefix(source, base)
            self._sources.append((source, prefix))
        usable = [prefix for _, prefix in self._sources if prefix is not None]
        # Outermost first; min() keeps document order among equally deep sources.
        self._relative_prefix = min(usable, key=_depth) if usable else ""
        self._by_length = sorted(self._sources, key=lambda sp: -len(sp[0]))

    def resolve(self, name: str) -> str:
        """The repository-relative path for the file ``name``, or a ReportError."""
        # Fast path, exactly the full rule's answer: a clean name (see _CLEAN_NAME) is its own
        # normalised form and passes every check; the placing below is the full rule's, and a result
        # that is itself a clean relative path is what the final normpath and checks leave as it is.
        if len(name) <= MAX_PATH_LENGTH and _CLEAN_NAME(name) is not None:
            if name[0] == "/":
                path = self._relative_to_repository(name) if self._by_length or self._root is not None else name[1:]
            elif self._root is not None and (rest := _strip_prefix(name, self._root)) is not None:
                path = rest
            elif self._sources:
                path = posixpath.join(self._relative_prefix, name)
            else:
                return name
            if _CLEAN_RELATIVE(path) is not None:
                return path
        return self._resolve_fully(name)

    def _resolve_fully(self, name: str) -> str:
        if not name or not name.strip():
            raise ReportError("report names a file with an empty path")
        if len(name) > MAX_PATH_LENGTH:
            raise ReportError(f"path {quote(name)} is longer than {MAX_PATH_LENGTH} characters")
        char = refused_character(name)
        if char is not None:
            raise ReportError(refusal(f"path {quote(name)}", char))
        path = _normalise(name)
        if _is_absolute(path):
            path = self._relative_to_repository(path)
        elif self._root is not None and (rest := _strip_prefix(path, self._root)) is not None:
            path = rest
        elif self._sources:
            path = posixpath.join(self._relative_prefix, path)
        path = posixpath.normpath(path) if path else ""
        if path in ("", "."):
            raise ReportError(f"path {quote(name)} names the repository root, not a file")
        if path == ".." or path.startswith("../"):
            raise ReportError(f"path {quote(name)} climbs out of the repository root")
        return path

    def _relative_to_repository(self, path: str) -> str:
        for source, prefix in self._by_length:
            if prefix is None:
                continue
            rest = _strip_prefix(path, source)
            if rest is not None:
                return posixpath.join(prefix, rest) if prefix else rest
        if self._root is not None:
            rest = _strip_prefix(path, self._root)
            if rest is not None:
                return rest
        return _DRIVE.sub("", path, count=1).lstrip("/")


def _normalise(path: str) -> str:
    path = path.strip().replace("\\", "/")
    drive = ""
    match = _DRIVE.match(path)
    if match:
        drive, path = match.group(0).upper(), path[match.end() :] or "/"
    path = posixpath.normpath(path)
    # POSIX keeps a leading "//"; a report means nothing special by it.
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    return drive + path


def _is_absolute(path: str) -> bool:
    return path.startswith("/") or _DRIVE.match(path) is not None


def _strip_prefix(path: str, prefix: str) -> str | None:
    # "" when path is prefix itself, the remainder when path is below it, None otherwise.
    if path == prefix:
        return ""
    if prefix in ("", "."):
        return None if _is_absolute(path) else path
    head = prefix if prefix.endswith("/") else prefix + "/"
    if path.startswith(head):
        return path[len(head) :]
    return None


def _common_ancestor(paths: Sequence[str]) -> str:
    parts = [p.split("/") for p in paths]
    common = []
    for segments in zip(*parts):
        if any(s != segments[0] for s in segments):
            break
        common.append(segments[0])
    return "/".join(common) or "/"


def _depth(prefix: str) -> int:
    return 0 if not prefix else prefix.count("/") + 1


def place_by_network(paths: Iterable[str], network: Iterable[str]) -> dict[str, str]:
    """Where each of ``paths`` belongs according to the uploader's file list ``network``.

    ``network`` lists the repository's files, relative to its root. A path that is in it stays; one
    that is not moves to the one network file that ends with ``/path`` (a report written relative to
    an inner source folder), else, for a Go import path, to the one file of a Go module of the
    repository (a folder with a ``go.mod``) whose path inside the module ``path`` ends with, the
    longest such (``example.com/m/pkg/x.go`` to ``svc/pkg/x.go`` beside ``svc/go.mod``), else to the
    longest network file that ``path`` ends with (a report that kept a build directory in front). A
    path that matches no file, or several equally, stays.
    Endings are compared up to :data:`MAX_PLACING_DEPTH` folders deep, so the cost stays linear in
    the list's size whatever it holds. Returns ``{path: new path}`` for the paths that move.
    """
    # Only names that could be report paths: relative, inside the repository, plain text.
    files = {_normalise(name) for name in network if name.strip() and len(name) <= MAX_PATH_LENGTH}
    files = {name for name in files if not (_is_absolute(name) or name.startswith("..") or refused_character(name))}
    unplaced = {path for path in paths if path not in files}
    if not files or not unplaced:
        return {}
    depth = min(MAX_PLACING_DEPTH, max(path.count("/") for path in unplaced) + 1)
    # The network file each unplaced path is the end of; None when several are.
    ends_of: dict[str, Optional[str]] = {}
    for name in files:
        end = len(name)
        for _ in range(depth):
            cut = name.rfind("/", 0, end)
            if cut < 0:
                break
            ending = name[cut + 1 :]
            if ending in unplaced:
                ends_of[ending] = name if ending not in ends_of else None
            end = cut
    in_modules = _go_module_files(files) if any(path.endswith(".go") for path in unplaced) else {}
    moves: dict[str, str] = {}
    for path in unplaced:
        target = ends_of.get(path) or _in_go_module(path, in_modules) or _longest_listed_end(path, files)
        if target is not None:
            moves[path] = target
    return moves


def _go_module_files(files: set[str]) -> dict[str, Optional[str]]:
    # Each .go file under a folder holding a go.mod, by its path inside that (nearest) module; None
    # when two modules hold the same inner path.
    modules = {name[: -len("go.mod")].rstrip("/") for name in files if name == "go.mod" or name.endswith("/go.mod")}
    inner: dict[str, Optional[str]] = {}
    if not modules:
        return inner
    for name in files:
        if not name.endswith(".go"):
            continue
        folder = name
        for _ in range(MAX_PLACING_DEPTH):
            cut = folder.rfind("/")
            folder = folder[:cut] if cut >= 0 else ""
            if folder in modules:
                rest = name[len(folder) + 1 :] if folder else name
                inner[rest] = name if rest not in inner else None
                break
            if not folder:
                break
    return inner


def _in_go_module(path: str, in_modules: dict[str, Optional[str]]) -> Optional[str]:
    # A Go import path (example.com/m/pkg/x.go) is a module path and a path inside the module: the
    # longest inner path that one module of the repository holds names the file (svc/pkg/x.go when
    # svc/go.mod declares example.com/m).
    if not in_modules or not path.endswith(".go"):
        return None
    start = 0
    for _ in range(MAX_PLACING_DEPTH):
        cut = path.find("/", start)
        if cut < 0:
            return None
        rest = path[cut + 1 :]
        if rest in in_modules:
            return in_modules[rest]
        start = cut + 1
    return None


def _longest_listed_end(path: str, files: set[str]) -> Optional[str]:
    start = 0
    for _ in range(MAX_PLACING_DEPTH):
        cut = path.find("/", start)
        if cut < 0:
            return None
        if path[cut + 1 :] in files:
            return path[cut + 1 :]
        start = cut + 1
    return None
