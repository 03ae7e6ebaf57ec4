"""Reading a ``codecov.yml`` safely: :func:`load_yaml` parses with PyYAML's safe loader and refuses
what a configuration file has no use for and an attacker has: more than :data:`MAX_YAML_BYTES`,
anchors and aliases (the "billion laughs"), explicit tags, nesting deeper than :data:`MAX_DEPTH`,
duplicate keys. :class:`YamlError` is the error of any ``codecov.yml`` that cannot be used. Pure: no
Flask, no database.
"""

from __future__ import annotations

from typing import Any, Optional

import yaml

#: A ``codecov.yml`` is a few hundred bytes; this bounds the work of parsing a hostile one.
MAX_YAML_BYTES = 64 * 1024
#: Codecov's deepest key is six levels down (``coverage.status.project.<title>.paths[]``).
MAX_DEPTH = 16

#: Where in the YAML a value is: its keys and list indexes from the top.
Path = tuple[Any, ...]


class YamlError(ValueError):
    """A ``codecov.yml`` that cannot be used: ``path`` is where (``()`` for the whole file)."""

    def __init__(self, message: str, path: Path = ()):
        super().__init__(message)
        self.path = path
        self.message = message

    def __str__(self) -> str:
        return f"Error at {list(self.path)}: {self.message}" if self.path else self.message


class _Loader(yaml.SafeLoader):
    """The safe loader without anchors, aliases, tags, deep nesting or duplicate keys."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        mark = event.start_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}"
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise YamlError(f"anchors and aliases (& and *) are not accepted ({where})")
        if getattr(event, "tag", None) is not None:
            raise YamlError(f"tags (!...) are not accepted ({where})")
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise YamlError(f"nested deeper than {MAX_DEPTH} levels ({where})")
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise YamlError(f"a key must be a plain value (line {key_node.start_mark.line + 1})")
            if key in seen:
                raise YamlError(f"the key {key!r} appears twice (line {key_node.start_mark.line + 1})")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def load_yaml(data: bytes | str) -> Optional[dict[str, Any]]:
    """The mapping a ``codecov.yml`` holds, or ``None`` if it is empty; :class:`YamlError` if it is
    too big, not YAML, hostile (see the module) or not a mapping."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_YAML_BYTES:
        raise YamlError(f"The file is larger than {MAX_YAML_BYTES:,} bytes.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise YamlError("The file is not UTF-8 text.") from None
    try:
        value = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is the safe loader, narrowed
    except YamlError as error:
        raise YamlError(f"Can't parse YAML: {error.message}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(error, "problem", None) or "not YAML"
        raise YamlError(f"Can't parse YAML: {problem}{where}") from None
    except RecursionError:
        raise YamlError(f"Can't parse YAML: nested deeper than {MAX_DEPTH} levels") from None
    if value is None:
        return None
    if not isinstance(value, dict):
        raise YamlError("The file must be a mapping of keys to values.")
    return value
