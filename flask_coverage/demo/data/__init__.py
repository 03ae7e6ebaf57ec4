"""The demo data set that ``flask coverage demo`` loads (see :mod:`flask_coverage.demo`).

Two organizations on GitHub: ``acme``, with 64 members (several pages of the users list, admins
and deactivated members among them), and ``globex``. Four repositories:

- ``acme/marshmallow`` (public) and ``acme/flask-sqlalchemy`` (private), from real coverage.py
  reports, and ``globex/d3-hierarchy`` (public), from a real c8 report (the files of this folder,
  see its README.md). Older commits, branches (some with a ``/`` in their name) and pull requests
  get seeded variants of the same reports (some hit lines turned into misses, some files left out),
  so every tip shows different coverage.
- ``globex/platform`` (public): a generated report of a few thousand files, to show what the graphs
  do with a big project.

Everything random is seeded: the data set is the same on every machine and every Python version.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from importlib import resources
from typing import Optional

from ...models import ServiceEnum

__all__ = [
    "DEMO_GENERATED_FILES",
    "DEMO_REPOSITORIES",
    "DEMO_SEED",
    "DEMO_SERVICE",
    "DEMO_TOKEN_NAME",
    "DEMO_TOKEN_USER",
    "FEATURED_USERS",
    "GENERATED",
    "ORGANIZATIONS",
    "DemoRepository",
    "DemoUpload",
    "DemoUser",
    "demo_users",
    "generate_lcov",
    "report_bytes",
    "vary_lcov",
]

DEMO_SERVICE = ServiceEnum.github
#: The user who owns the demo access token, and its name.
DEMO_TOKEN_USER = "alice"  # noqa: S105 - a username
DEMO_TOKEN_NAME = "demo"  # noqa: S105 - the token's label
#: Files in the generated repository ``globex/platform`` unless told otherwise.
DEMO_GENERATED_FILES = 3000
#: The seed of every random choice of the demo (variants and the generated report).
DEMO_SEED = 20240607
#: ``DemoUpload.report`` of the generated repository.
GENERATED = "<generated>"


@dataclass(frozen=True)
class DemoUser:
    """A demo user: ``memberships`` are ``(org, activated, is_admin)`` triples."""

    username: str
    name: str
    email: str
    memberships: tuple[tuple[str, bool, bool], ...] = ()
    about: str = ""


@dataclass(frozen=True)
class DemoUpload:
    """One upload: a report of this package (or :data:`GENERATED`) for the commit named ``label``.

    ``miss_rate`` (a share of the hit lines turned into misses) and ``drop_files`` (files left out)
    make a seeded variant of an LCOV report, for the older commits and the branches. ``flags`` are
    the upload's flags; an upload with the label of the one before it goes to the same commit (as a
    second CI job of one build does).
    """

    label: str
    report: str
    branch: Optional[str] = None
    pullid: Optional[int] = None
    miss_rate: float = 0.0
    drop_files: int = 0
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class DemoRepository:
    """A demo repository and its uploads, oldest first (the default branch's tip is the last on it)."""

    owner: str
    name: str
    private: bool
    language: str
    uploads: tuple[DemoUpload, ...]
    branch: str = "main"


ORGANIZATIONS = (("acme", "Acme Corporation"), ("globex", "Globex"))

#: The users the example app offers on its sign-in page, each showing one kind of access.
FEATURED_USERS = (
    DemoUser(
        "alice",
        "Alice Archer",
        "alice@example.com",
        (("acme", True, True), ("globex", True, False)),
        "admin of acme, member of globex; owns the demo access token",
    ),
    DemoUser("bob", "Bob Baker", "bob@example.com", (("acme", True, False),), "member of acme"),
    DemoUser(
        "carol",
        "Carol Chen",
        "carol@example.com",
        (("globex", True, True),),
        "admin of globex, not in acme: acme's private repository stays hidden",
    ),
    DemoUser("dave", "Dave Dunn", "dave@example.com", (("acme", False, False),), "deactivated member of acme"),
)

# fmt: off
_FIRST_NAMES = (
    "Amara", "Bruno", "Chidi", "Daria", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kaia", "Luca", "Mina",
    "Noor", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Vera", "Wen", "Ximena", "Yara", "Zane",
)
_LAST_NAMES = (
    "Novak", "Okafor", "Pereira", "Quist", "Rahman", "Sato", "Tanaka", "Ueda", "Varga", "Weber", "Yilmaz", "Zhou",
)
# fmt: on


def demo_users() -> list[DemoUser]:
    """Every demo user: :data:`FEATURED_USERS`, then 66 generated ones (60 in acme, 10 in globex)."""
    users = list(FEATURED_USERS)
    for index in range(66):
        first = _FIRST_NAMES[index % len(_FIRST_NAMES)]
        last = _LAST_NAMES[(index * 5) % len(_LAST_NAMES)]
        memberships = []
        if index < 60:
            # Every 20th member an admin, every 6th one deactivated: a few of each on every page.
            memberships.append(("acme", index % 6 != 5, index % 20 == 0))
        if index >= 56:
            memberships.append(("globex", True, index == 65))
        username = f"{first}-{last}-{index:02d}".lower()
        users.append(
            DemoUser(username, f"{first} {last}", f"{first}.{last}.{index:02d}@example.com".lower(), tuple(memberships))
        )
    return users


_MARSHMALLOW = "marshmallow.lcov"
_FLASK_SQLALCHEMY = "flask-sqlalchemy.lcov"
_D3 = "d3-hierarchy.lcov"

DEMO_REPOSITORIES = (
    DemoRepository(
        "acme",
        "marshmallow",
        private=False,
        language="python",
        uploads=(
            DemoUpload("3.26.0", _MARSHMALLOW, branch="main", miss_rate=0.10, drop_files=2),
            DemoUpload("4.0.0", _MARSHMALLOW, branch="main", miss_rate=0.04, drop_files=1),
            DemoUpload("nested partial 1", _MARSHMALLOW, branch="fix/nested-partial", pullid=41, miss_rate=0.08),
            DemoUpload("nested partial 2", _MARSHMALLOW, branch="fix/nested-partial", pullid=41, miss_rate=0.02),
            DemoUpload("typos", _MARSHMALLOW, branch="docs/typos", pullid=42, miss_rate=0.05),
            DemoUpload("4.1.0", "marshmallow.coverage.xml", branch="main", flags=("unit",)),
            DemoUpload("4.1.0", _MARSHMALLOW, branch="main", miss_rate=0.35, flags=("integration",)),
        ),
    ),
    DemoRepository(
        "acme",
        "flask-sqlalchemy",
        private=True,
        language="python",
        uploads=(
            DemoUpload("3.0.5", _FLASK_SQLALCHEMY, branch="main", miss_rate=0.12),
            DemoUpload(
                "async 1", _FLASK_SQLALCHEMY, branch="feature/async-session", pullid=7, miss_rate=0.2, drop_files=1
            ),
            DemoUpload("async 2", _FLASK_SQLALCHEMY, branch="feature/async-session", pullid=7, miss_rate=0.08),
            DemoUpload("3.1.1", "flask-sqlalchemy.coverage.json", branch="main"),
        ),
    ),
    DemoRepository(
        "globex",
        "d3-hierarchy",
        private=False,
        language="javascript",
        uploads=(
            DemoUpload("v3.0.0", _D3, branch="main", miss_rate=0.15, drop_files=3),
            DemoUpload("binary treemap", _D3, branch="treemap/binary", pullid=3, miss_rate=0.05),
            DemoUpload("v3.1.2", _D3, branch="main"),
        ),
    ),
    DemoRepository(
        "globex",
        "platform",
        private=False,
        language="python",
        uploads=(DemoUpload("platform", GENERATED, branch="main"),),
    ),
)


def _label_hash(repository: DemoRepository, label: str) -> str:
    # The seed of an upload's variant (the commit shas are those of the demo's git history).
    text = f"flask-coverage demo {repository.owner}/{repository.name} {label}"
    return hashlib.sha1(text.encode()).hexdigest()  # noqa: S324 - a name, not a security measure


def _pick(rng: random.Random, items: tuple[str, ...]) -> str:
    # random() alone, not randrange/choice: its sequence is the same on every Python version.
    return items[int(rng.random() * len(items))]


# fmt: off
_AREAS = (
    "api", "auth", "billing", "core", "exports", "ingest", "notifications", "search", "storage", "web",
)
_LAYERS = (
    "handlers", "models", "services", "schemas", "tasks", "utils", "views",
)
_STEMS = (
    "account", "audit", "cache", "config", "event", "export", "index", "invoice", "order", "payment", "plan",
    "queue", "render", "report", "router", "session", "token", "user", "webhook", "worker",
)
# fmt: on


def generate_lcov(files: int, *, seed: int = DEMO_SEED) -> bytes:
    """An LCOV report of ``files`` made-up Python files, always the same for the same arguments.

    Files are spread over area/layer folders; each area has a coverage level of its own and each
    file varies around it, so the graphs show every color.
    """
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    levels = {area: 0.3 + 0.7 * rng.random() for area in _AREAS}
    out: list[str] = []
    for index in range(files):
        area, layer, stem = _pick(rng, _AREAS), _pick(rng, _LAYERS), _pick(rng, _STEMS)
        nested = f"{_pick(rng, _STEMS)}s/" if rng.random() < 0.3 else ""
        level = min(1.0, max(0.0, levels[area] + (rng.random() - 0.5) * 0.4))
        out.append(f"SF:{area}/{layer}/{nested}{stem}_{index:05d}.py\n")
        line = 0
        # Mostly small files, a few big ones: 5 to ~400 tracked lines.
        for _ in range(5 + int(400 * rng.random() ** 3)):
            line += 1 + int(3 * rng.random())
            hits = 1 + int(30 * rng.random()) if rng.random() < level else 0
            out.append(f"DA:{line},{hits}\n")
            if hits and rng.random() < 0.03:
                out.append(f"BRDA:{line},0,0,0\n")
        out.append("end_of_record\n")
    return "".join(out).encode()


def vary_lcov(report: bytes, *, seed: int, miss_rate: float = 0.0, drop_files: int = 0) -> bytes:
    """A seeded variant of an LCOV report: ``drop_files`` files left out, ``miss_rate`` of hit lines missed."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data, not secrets
    blocks = [block for block in report.decode("utf-8").split("end_of_record\n") if block.strip()]
    dropped = set(sorted(range(len(blocks)), key=lambda _: rng.random())[:drop_files])
    out: list[str] = []
    for number, block in enumerate(blocks):
        if number in dropped:
            continue
        for record in block.splitlines():
            if record.startswith("DA:") and rng.random() < miss_rate:
                line, _, rest = record[3:].partition(",")
                if rest.partition(",")[0] not in ("", "0"):
                    record = f"DA:{line},0"
            out.append(record + "\n")
        out.append("end_of_record\n")
    return "".join(out).encode()


def report_bytes(repository: DemoRepository, upload: DemoUpload, generated_files: int = DEMO_GENERATED_FILES) -> bytes:
    """The report ``upload`` of ``repository`` sends (the generated one with ``generated_files`` files)."""
    if upload.report == GENERATED:
        return generate_lcov(generated_files)
    data = (resources.files(__name__) / upload.report).read_bytes()
    if upload.miss_rate or upload.drop_files:
        seed = DEMO_SEED ^ int(_label_hash(repository, upload.label)[:8], 16)
        data = vary_lcov(data, seed=seed, miss_rate=upload.miss_rate, drop_files=upload.drop_files)
    return data
