"""What a ``codecov.yml`` does to the paths of an upload: its ``fixes`` and ``ignore``, and the
``paths`` and ``ignore`` of the upload's flags (:class:`PathRules`). Pure: no Flask, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .patterns import Compiled, PatternFilter, compile_pattern, pattern_filter
from .schema import flag_settings


@dataclass(frozen=True)
class PathRules:
    """What a ``codecov.yml`` does to the paths of an upload (docs/pull-requests.md, "ignore and
    fixes"): ``fixes`` rewrite a path (the first whose ``before`` matches; ``::prefix/`` ones add a
    prefix first), then a path must pass ``keep`` (:func:`~.patterns.matches`): the top-level
    ``ignore`` patterns negated, and for an upload with flags each flag's ``ignore`` negated and
    ``paths``."""

    fixes: tuple[tuple[str, str], ...] = ()
    keep: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: dict[str, Any], flags: tuple[str, ...] = ()) -> PathRules:
        patterns = [_negated(pattern) for pattern in settings.get("ignore") or []]
        for flag in flags:
            found = flag_settings(settings, flag) or {}
            patterns += [_negated(pattern) for pattern in found.get("ignore") or []]
            patterns += found.get("paths") or []
        fixes = tuple((rule["before"], rule["after"]) for rule in settings.get("fixes") or [])
        return cls(fixes, tuple(patterns))

    def __bool__(self) -> bool:
        return bool(self.fixes or self.keep)

    @cached_property
    def _compiled(self) -> tuple[str, list[tuple[Compiled, str]], PatternFilter]:
        """What :meth:`fix` and :meth:`kept` use, compiled once (an upload may have 100,000 paths)."""
        prefix = "/".join(after.rstrip("/") for before, after in self.fixes if before == "^" and after)
        rewrites = [(compile_pattern(before), after) for before, after in self.fixes if before != "^"]
        return prefix, rewrites, pattern_filter(self.keep)

    def fix(self, path: str) -> str:
        """``path`` rewritten by the fixes (the prefixes first, then the first rewrite that matches)."""
        prefix, rewrites, _ = self._compiled
        if prefix:
            path = f"{prefix}/{path}"
        for before, after in rewrites:
            match = before.match(path)
            if match:
                path = after + path[match.end() :]
                break
        return _SLASHES.sub("/", path).lstrip("/")

    def kept(self, path: str) -> bool:
        """Whether the file at ``path`` (after the fixes) is stored: as :func:`~.patterns.matches`
        says of ``keep``."""
        return self._compiled[2].passes(path)


_SLASHES = re.compile("/{2,}")


def _negated(pattern: str) -> str:
    return pattern[1:] if pattern.startswith("!") else "!" + pattern
