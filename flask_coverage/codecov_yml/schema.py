"""Validating a ``codecov.yml`` as Codecov does (docs/pull-requests.md, the keys table).

:func:`parse` reads the file (:func:`~.loader.load_yaml`), then :func:`validate` checks it against
Codecov's schema and applies its coercions (``range: 60..80``, ``"80%"``, ``target: auto``, path
patterns to regular expressions, branch names to anchored ones, the comment's ``layout`` and
``require_changes``). Every regular expression is checked by the engine that will run it
(:func:`~.patterns.compile_pattern`). An unknown key is an error naming its path, as Codecov's
validator says it; a key Codecov knows that this service does not act on yet validates and is listed
in the answer's ``notes``. :data:`DEFAULTS`, :func:`merged`, :func:`flag_settings` and
:func:`components` read what a validated YAML says. Pure: no Flask, no database.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import urlsplit

from ..identifiers import refusal, refused_character
from .loader import Path, YamlError, load_yaml
from .patterns import PatternError, compile_pattern


@dataclass
class Validated:
    """A valid ``codecov.yml``: its coerced ``value`` and the ``notes`` on keys not acted on."""

    value: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(self.value, indent=2, sort_keys=True)


# -- Codecov's coercions: each takes the value and its path, and returns the coerced value ------------

Check = Callable[[Any, Path, list[str]], Any]


def _fail(path: Path, message: str) -> Any:
    raise YamlError(message, path)


def boolean(value: Any, path: Path, notes: list[str]) -> bool:
    if not isinstance(value, bool):
        _fail(path, "must be a boolean (true or false)")
    return value


def text(value: Any, path: Path, notes: list[str]) -> str:
    if not isinstance(value, str):
        _fail(path, "must be a string")
    return value


def _integer(low: int, high: Optional[int] = None) -> Check:
    def check(value: Any, path: Path, notes: list[str]) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(path, "must be an integer")
        if value < low or (high is not None and value > high):
            _fail(path, f"must be between {low} and {high}" if high is not None else f"must be at least {low}")
        return value

    return check


_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%?\s*")


def percent(value: Any, path: Path, notes: list[str]) -> float:
    """``80``, ``80.5``, ``"80%"`` → ``80.0``; 0 to 100."""
    if isinstance(value, bool):
        _fail(path, 'must be a percentage such as 80 or "80%"')
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str) and (match := _PERCENT.fullmatch(value)):
        number = float(match.group(1))
    else:
        return _fail(path, 'must be a percentage such as 80 or "80%"')
    if not 0 <= number <= 100:
        _fail(path, "must be between 0 and 100")
    return number


def target(value: Any, path: Path, notes: list[str]) -> Any:
    """A percentage, or ``auto`` (the base's coverage)."""
    return "auto" if value == "auto" else percent(value, path, notes)


_RANGE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*\.{2,3}\s*(\d+(?:\.\d+)?)\s*")


def coverage_range(value: Any, path: Path, notes: list[str]) -> list[float]:
    """``"60..80"``, ``"60...80"`` or ``[60, 80]`` → ``[60.0, 80.0]``; low ≤ high, both 0 to 100."""
    if isinstance(value, str) and (match := _RANGE.fullmatch(value)):
        low, high = float(match.group(1)), float(match.group(2))
    elif isinstance(value, list) and len(value) == 2:
        low, high = (percent(item, (*path, index), notes) for index, item in enumerate(value))
    else:
        return _fail(path, 'must be a range such as "60..80" or [60, 80]')
    if not (0 <= low <= 100 and 0 <= high <= 100):
        _fail(path, "must be between 0 and 100")
    if low > high:
        _fail(path, "the lower end must not be above the upper end")
    return [low, high]


def _choice(*values: Any) -> Check:
    def check(value: Any, path: Path, notes: list[str]) -> Any:
        if isinstance(value, bool) and not any(isinstance(item, bool) for item in values):
            _fail(path, "must be one of " + ", ".join(map(str, values)))
        if value not in values:
            _fail(path, "must be one of " + ", ".join(json.dumps(item) for item in values))
        return value

    return check


def _list_of(item: Check) -> Check:
    def check(value: Any, path: Path, notes: list[str]) -> list[Any]:
        if isinstance(value, str):
            value = [value]  # Codecov takes a lone string for a list of one
        if not isinstance(value, list):
            _fail(path, "must be a list")
        return [item(element, (*path, index), notes) for index, element in enumerate(value)]

    return check


def _regex(pattern: str, path: Path) -> str:
    try:
        compile_pattern(pattern)
    except PatternError as error:
        _fail(path, str(error))
    return pattern


def _glob(pattern: str, anchored: bool = True) -> str:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        out.append({"*": "[^/]*", "?": "."}.get(char) or re.escape(char))
        index += 1
    return "^" + "".join(out) + (r"\Z" if anchored else "")


def path_regex(pattern: str, anchored: bool = True) -> str:
    """A path pattern as Codecov reads it, to a regular expression (``!`` kept in front): ``./`` is
    dropped; no ``*``, ``$``, ``[`` or ``]`` → a prefix; ``**``, ``/*`` or a ``*`` not after ``.`` or
    ``]`` → a glob (``*`` within a folder, ``**`` across, ``?`` one character); else a regex."""
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    if body.startswith("./"):
        body = body[2:]
    if not any(char in body for char in "*$[]"):
        regex = "^" + re.escape(body)
    elif "**" in body or "/*" in body or re.search(r"(?<![.\]])\*", body):
        regex = _glob(body, anchored)
    else:
        regex = body
    return ("!" if negated else "") + regex


def path_pattern(value: Any, path: Path, notes: list[str]) -> str:
    pattern = text(value, path, notes)
    if not pattern.strip("!"):
        _fail(path, "must not be empty")
    regex = path_regex(pattern)
    _regex(regex.lstrip("!"), path)
    return regex


def branch_pattern(value: Any, path: Path, notes: list[str]) -> str:
    """``*`` or ``""`` → ``.*``; ``main`` → ``^main$``; ``release/*`` → ``^release/.*$``; ``!`` negates."""
    name = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else text(value, path, notes)
    negated = name.startswith("!")
    body = name[1:] if negated else name
    regex = ".*" if body in ("", "*") else "^" + ".*".join(re.escape(part) for part in body.split("*")) + "$"
    return ("!" if negated else "") + _regex(regex, path)


def fix(value: Any, path: Path, notes: list[str]) -> dict[str, str]:
    """``"before::after"`` → ``{"before": <regex of the prefix>, "after": "after"}``."""
    rule = text(value, path, notes)
    if rule.count("::") != 1:
        _fail(path, 'must be "before::after"')
    before, after = rule.split("::")
    char = refused_character(after)
    if char is not None:
        _fail(path, refusal("the path after ::", char))
    if ".." in after.split("/"):
        _fail(path, "the path after :: must not climb out of the repository (..)")
    regex = path_regex(before, anchored=False) if before else "^"
    return {"before": _regex(regex, path), "after": after}


#: The comment's sections (Codecov's names); ``name:N`` limits a list section to N rows.
LAYOUT_SECTIONS = frozenset(
    [
        "header",
        "newheader",
        "condensed_header",
        "reach",
        "diff",
        "flag",
        "flags",
        "file",
        "files",
        "tree",
        "components",
        "footer",
        "newfooter",
        "condensed_footer",
        "condensed_files",
        "newfiles",
        "changes",
        "suggestions",
        "betaprofiling",
        "sunburst",
        "uncovered",
        "feedback",
    ]
)
#: The sections drawn here; the others validate and are left out of the comment (with a note).
LAYOUT_DRAWN = frozenset(
    [
        "header",
        "newheader",
        "condensed_header",
        "diff",
        "flag",
        "flags",
        "components",
        "file",
        "files",
        "tree",
        "footer",
        "newfooter",
        "condensed_footer",
        "condensed_files",
        "newfiles",
    ]
)


def layout(value: Any, path: Path, notes: list[str]) -> list[str]:
    """``"header, diff, files:5"`` → ``["header", "diff", "files:5"]``."""
    if value is None or value is False:
        return []
    items = [item.strip() for item in text(value, path, notes).split(",") if item.strip()]
    unknown = []
    for item in items:
        name, _, limit = item.partition(":")
        if name not in LAYOUT_SECTIONS or (limit and not limit.isdigit()):
            unknown.append(item)
        elif name not in LAYOUT_DRAWN:
            notes.append(f"{list(path)}: the section {name!r} is not drawn here")
    if unknown:
        _fail(path, "Unexpected values on layout: " + ", ".join(unknown))
    return items


CHANGE_KINDS = ("any_change", "coverage_drop", "uncovered_patch")


def require_changes(value: Any, path: Path, notes: list[str]) -> list[list[str]]:
    """``false`` → ``[]`` (always comment); ``true`` → ``[["any_change"]]``; ``"a or b and c"`` → groups
    of alternatives, every group must hold (``[["a", "b"], ["c"]]``)."""
    if value is False:
        return []
    if value is True:
        return [["any_change"]]
    expression = text(value, path, notes)
    groups = []
    for part in re.split(r"\s+and\s+", expression.strip(), flags=re.IGNORECASE):
        names = [name.strip() for name in re.split(r"\s+or\s+", part, flags=re.IGNORECASE)]
        bad = [name for name in names if name not in CHANGE_KINDS]
        if bad:
            _fail(path, f"unknown condition {bad[0]!r}: use {', '.join(CHANGE_KINDS)}, joined by and / or")
        groups.append(names)
    return groups


def _comment_switch(value: Any, path: Path, notes: list[str]) -> Any:
    """``comment: false`` turns the comment off; ``comment: true`` is the default comment (Codecov
    turns it off too, surprisingly: docs/pull-requests.md)."""
    return {} if boolean(value, path, notes) else False


def _anything(value: Any, path: Path, notes: list[str]) -> Any:
    return value


@dataclass(frozen=True)
class Keys:
    """A mapping with these keys; ``ignored`` ones validate and are noted as not acted on, ``required``
    ones must be there."""

    checks: dict[str, Any]
    ignored: frozenset[str] = frozenset()
    #: A mapping of free names (flags, status titles) to this check.
    each: Any = None
    required: frozenset[str] = frozenset()

    def __call__(self, value: Any, path: Path, notes: list[str]) -> dict[str, Any]:
        if not isinstance(value, dict):
            _fail(path, "must be a mapping")
        for key in sorted(self.required - set(value)):
            _fail((*path, key), "required field")
        out = {}
        for key, item in value.items():
            where = (*path, key)
            if self.each is not None:
                if not isinstance(key, str) or not key:
                    _fail(where, "must be a name")
                out[key] = _run(self.each, item, where, notes)
                continue
            if key not in self.checks:
                _fail(where, "unknown key")
            if key in self.ignored:
                notes.append(f"{list(where)}: valid, not acted on by this service")
            out[key] = _run(self.checks[key], item, where, notes)
        return out


def _run(check: Any, value: Any, path: Path, notes: list[str]) -> Any:
    return check(value, path, notes)


def _either(*checks: Check) -> Check:
    """The first check that accepts ``value`` (booleans first, as ``status: false``). If none does,
    the error of the one that got deepest into the value, else all they wanted."""

    def check(value: Any, path: Path, notes: list[str]) -> Any:
        errors: list[YamlError] = []
        for candidate in checks:
            try:
                return candidate(value, path, notes)
            except YamlError as failed:
                errors.append(failed)
        deepest = max(errors, key=lambda error: len(error.path))
        if len(deepest.path) > len(path):
            raise deepest
        wanted = " or ".join(error.message.removeprefix("must be ") for error in errors)
        raise YamlError(f"must be {wanted}", path)

    return check


_STATUS_KEYS = {
    "target": target,
    "threshold": percent,
    "base": _choice("auto", "parent", "pr"),
    "flags": _list_of(text),
    "paths": _list_of(path_pattern),
    "branches": _list_of(branch_pattern),
    "if_ci_failed": _choice("success", "failure", "error"),
    "if_not_found": _choice("success", "failure", "error"),
    "if_no_uploads": _choice("success", "failure", "error"),
    "informational": boolean,
    "only_pulls": boolean,
    "enabled": boolean,
    "removed_code_behavior": _choice("adjust_base", "removals_only", "fully_covered_patch", "off", False),
    "flag_coverage_not_uploaded_behavior": _choice("include", "exclude", "pass"),
    "carryforward_behavior": _choice("include", "exclude", "pass"),
    "include_changes": _anything,
    "disable_approx": boolean,
    "measurement": _anything,
    "skip_if_assumes": boolean,
    "type": _choice("project", "patch", "changes"),
    "name_prefix": text,
}
_STATUS_IGNORED = frozenset(
    [
        "if_ci_failed",
        "if_no_uploads",
        "flag_coverage_not_uploaded_behavior",
        "include_changes",
        "disable_approx",
        "measurement",
        "skip_if_assumes",
    ]
)
STATUS = Keys(_STATUS_KEYS, _STATUS_IGNORED)
STATUS_GROUP = _either(boolean, Keys({}, each=_either(boolean, STATUS)))

#: A status of a flag or a component (``flag_management``, ``component_management``): its ``type`` says
#: which kind, its title is ``name_prefix`` and the flag's or component's name.
_NAMED_STATUS = Keys(
    {key: check for key, check in _STATUS_KEYS.items() if key != "flags"},
    _STATUS_IGNORED,
    required=frozenset({"type"}),
)
_FLAG_RULES = {
    "paths": _list_of(path_pattern),
    "ignore": _list_of(path_pattern),
    "carryforward": boolean,
    "carryforward_mode": _choice("all", "labels"),
    "after_n_builds": _integer(0),
    "statuses": _list_of(_NAMED_STATUS),
}
_FLAG_IGNORED = frozenset({"carryforward_mode", "after_n_builds"})
_FLAG = Keys(
    {**_FLAG_RULES, "joined": boolean, "required": boolean, "assume": _anything},
    ignored=_FLAG_IGNORED | {"joined", "required", "assume"},
)


def flag_name(value: Any, path: Path, notes: list[str]) -> str:
    name = text(value, path, notes)
    if not name:
        _fail(path, "must not be empty")
    return name


_FLAG_MANAGEMENT = Keys(
    {
        "default_rules": Keys(_FLAG_RULES, _FLAG_IGNORED),
        "individual_flags": _list_of(
            Keys({**_FLAG_RULES, "name": flag_name}, _FLAG_IGNORED, required=frozenset({"name"}))
        ),
    }
)


def regex(value: Any, path: Path, notes: list[str]) -> str:
    return _regex(text(value, path, notes), path)


_COMPONENT_RULES = {
    "paths": _list_of(path_pattern),
    "flag_regexes": _list_of(regex),
    "statuses": _list_of(_NAMED_STATUS),
}
_COMPONENT_MANAGEMENT = Keys(
    {
        "default_rules": Keys(_COMPONENT_RULES),
        "individual_components": _list_of(
            Keys(
                {**_COMPONENT_RULES, "name": text, "component_id": flag_name},
                required=frozenset({"component_id"}),
            )
        ),
    }
)


def notifier_url(value: Any, path: Path, notes: list[str]) -> str:
    """A Slack or webhook notifier's URL: http(s), with a host; a Codecov-encrypted ``secret:`` cannot
    be read here (noted; that notifier is not sent)."""
    url = text(value, path, notes)
    if url.startswith("secret:"):
        notes.append(f"{list(path)}: an encrypted Codecov secret, not readable here: the notifier is not sent")
        return url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        _fail(path, "must be an http(s) URL")
    return url


#: A notifier under ``coverage.notify.slack`` or ``.webhook`` (Codecov's keys).
_NOTIFIER = Keys(
    {
        "url": notifier_url,
        "threshold": percent,
        "only_pulls": boolean,
        "branches": _list_of(branch_pattern),
        "flags": _list_of(text),
        "paths": _list_of(path_pattern),
        "attachments": _either(text, _list_of(text)),
        "message": text,
        "layout": _anything,
    },
    ignored=frozenset({"attachments", "message", "layout"}),
    required=frozenset({"url"}),
)
_NOTIFY_TARGETS = Keys(
    {
        "slack": Keys({}, each=_NOTIFIER),
        "webhook": Keys({}, each=_NOTIFIER),
        "email": _anything,
        "irc": _anything,
        "gitter": _anything,
        "hipchat": _anything,
    },
    ignored=frozenset({"email", "irc", "gitter", "hipchat"}),
)

_NOTIFY = Keys(
    {
        "after_n_builds": _integer(0),
        "manual_trigger": boolean,
        "wait_for_ci": boolean,
        "require_ci_to_pass": boolean,
        "notify_error": boolean,
        "countdown": _anything,
        "delay": _anything,
    },
    ignored=frozenset({"notify_error", "countdown", "delay"}),
)

SCHEMA = Keys(
    {
        "codecov": Keys(
            {
                "notify": _NOTIFY,
                "require_ci_to_pass": boolean,
                "branch": text,
                "strict_yaml_branch": text,
                "bot": text,
                "ci": _list_of(text),
                "max_report_age": _anything,
                "disable_default_path_fixes": boolean,
                "allow_coverage_offsets": boolean,
                "allow_pseudo_compare": boolean,
                "archive": Keys({"uploads": boolean}),
                "token": text,
                "url": text,
                "slug": text,
                "ui": _anything,
            },
            ignored=frozenset(
                [
                    "branch",
                    "strict_yaml_branch",
                    "bot",
                    "ci",
                    "max_report_age",
                    "disable_default_path_fixes",
                    "allow_coverage_offsets",
                    "allow_pseudo_compare",
                    "archive",
                    "token",
                    "url",
                    "slug",
                    "ui",
                ]
            ),
        ),
        "coverage": Keys(
            {
                "precision": _integer(0, 99),
                "round": _choice("down", "up", "nearest"),
                "range": coverage_range,
                "status": Keys(
                    {
                        "project": STATUS_GROUP,
                        "patch": STATUS_GROUP,
                        "changes": STATUS_GROUP,
                        "default_rules": Keys(
                            {
                                "flag_coverage_not_uploaded_behavior": _STATUS_KEYS[
                                    "flag_coverage_not_uploaded_behavior"
                                ],
                                "carryforward_behavior": _STATUS_KEYS["carryforward_behavior"],
                            },
                            ignored=frozenset({"flag_coverage_not_uploaded_behavior"}),
                        ),
                    }
                ),
                "notify": _NOTIFY_TARGETS,
            },
        ),
        "comment": _either(
            _comment_switch,
            Keys(
                {
                    "layout": layout,
                    "behavior": _choice("default", "once", "new", "spammy"),
                    "require_changes": require_changes,
                    "require_base": boolean,
                    "require_head": boolean,
                    "require_bundle_changes": _anything,
                    "bundle_change_threshold": _anything,
                    "after_n_builds": _integer(0),
                    "hide_project_coverage": boolean,
                    "hide_comment_details": boolean,
                    "show_carryforward_flags": boolean,
                    "show_critical_paths": boolean,
                    "branches": _list_of(branch_pattern),
                    "paths": _list_of(path_pattern),
                    "flags": _list_of(text),
                },
                ignored=frozenset(
                    [
                        "require_base",
                        "require_head",
                        "require_bundle_changes",
                        "bundle_change_threshold",
                        "hide_comment_details",
                        "show_critical_paths",
                        "branches",
                        "paths",
                        "flags",
                    ]
                ),
            ),
        ),
        "ignore": _list_of(path_pattern),
        "fixes": _list_of(fix),
        "flags": Keys({}, each=_FLAG),
        "flag_management": _FLAG_MANAGEMENT,
        "component_management": _COMPONENT_MANAGEMENT,
        "github_checks": _either(boolean, Keys({"annotations": boolean})),
        "parsers": _anything,
        "profiling": _anything,
        "slack_app": _anything,
        "cli": _anything,
        "bundle_analysis": _anything,
        "test_analytics": _anything,
        "ai_pr_review": _anything,
        "beta_groups": _anything,
    },
    ignored=frozenset(
        [
            "profiling",
            "slack_app",
            "cli",
            "bundle_analysis",
            "test_analytics",
            "ai_pr_review",
            "beta_groups",
        ]
    ),
)

# Codecov moves these from under ``coverage`` to the top level before validating.
_MOVED_TO_TOP = ("flags", "parsers", "ignore", "fixes")


def validate(value: dict[str, Any]) -> Validated:
    """The coerced ``codecov.yml`` and its notes, or :class:`YamlError` at the first error."""
    value = copy.deepcopy(value)
    coverage = value.get("coverage")
    if isinstance(coverage, dict):
        for key in _MOVED_TO_TOP:
            if key in coverage:
                if key in value:
                    raise YamlError("given both here and at the top level", ("coverage", key))
                value[key] = coverage.pop(key)
    notify = (value.get("codecov") or {}).get("notify") if isinstance(value.get("codecov"), dict) else None
    if isinstance(notify, dict) and "require_ci_to_pass" in notify:
        value["codecov"].setdefault("require_ci_to_pass", notify.pop("require_ci_to_pass"))
    value.pop("to_string", None)  # reserved by Codecov, dropped as it does
    notes: list[str] = []
    return Validated(SCHEMA(value, (), notes), notes)


def parse(data: bytes | str) -> Optional[Validated]:
    """:func:`load_yaml` then :func:`validate`: ``None`` for an empty file."""
    loaded = load_yaml(data)
    return None if loaded is None else validate(loaded)


#: What applies when no YAML says otherwise (Codecov's defaults for a self-hosted install).
DEFAULTS: dict[str, Any] = {
    "codecov": {"notify": {}},
    "coverage": {
        "precision": 2,
        "round": "down",
        "range": [60.0, 80.0],
        "status": {"project": True, "patch": True, "changes": False},
    },
    "comment": {
        "layout": ["header", "diff", "flags", "files"],
        "behavior": "default",
        "require_changes": [],
        "hide_project_coverage": False,
    },
}


def merged(*layers: Optional[dict[str, Any]]) -> dict[str, Any]:
    """The layers merged in order, later over earlier: mappings key by key, anything else replaced."""
    out: dict[str, Any] = {}
    for layer in layers:
        if layer:
            out = _merge(out, layer)
    return out


def _merge(base: Any, over: Any) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = _merge(base.get(key), value)
        return out
    return copy.deepcopy(over)


# -- What the validated YAML says, read as Codecov reads it -------------------------------------------


def flag_settings(settings: dict[str, Any], flag: str) -> Optional[dict[str, Any]]:
    """A flag's configuration: ``flags.<name>`` if the YAML has it, else ``flag_management``'s
    ``individual_flags`` entry of that name over its ``default_rules`` (``None`` without either)."""
    legacy = settings.get("flags") or {}
    if flag in legacy:
        return legacy[flag]
    management = settings.get("flag_management")
    if management is None:
        return None
    found = dict(management.get("default_rules") or {})
    for entry in management.get("individual_flags") or []:
        if entry["name"] == flag:
            found.update(entry)
            break
    return found


def carries_forward(settings: dict[str, Any], flag: str) -> bool:
    """Whether a commit whose uploads lack ``flag`` carries its coverage from an ancestor (its ``carryforward``)."""
    return bool((flag_settings(settings, flag) or {}).get("carryforward"))


def components(settings: dict[str, Any]) -> list[dict[str, Any]]:
    """``component_management``'s components, each over the ``default_rules``, with its ``title``
    (its ``name``, else its ``component_id``)."""
    management = settings.get("component_management") or {}
    defaults = management.get("default_rules") or {}
    found = []
    for entry in management.get("individual_components") or []:
        component = {**defaults, **entry}
        found.append({**component, "title": component.get("name") or component["component_id"]})
    return found


def component_flags(component: dict[str, Any], flags: Sequence[str]) -> tuple[str, ...]:
    """The ``flags`` a component's ``flag_regexes`` match, in their order (none: the component is of
    every upload)."""
    regexes = [compile_pattern(regex) for regex in component.get("flag_regexes") or []]
    return tuple(flag for flag in flags if any(regex.match(flag) for regex in regexes))
