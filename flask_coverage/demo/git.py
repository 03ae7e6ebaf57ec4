"""The demo's git history: generated source files whose tracked lines are where the demo reports
put them, committed as real git objects, so every demo commit sha is the sha of a git commit.

No third-party source is shipped: each file is made from its report alone (a statement on every
tracked line, a branch on a partial one, a comment marker elsewhere). The objects are
hashed here without git, so the shas are the same with or without a mirror; :func:`write_mirror`
stores them as a bare repository (loose objects), which the file view's git loader reads
(``COVERAGE_SOURCE_GIT_ROOT``, docs/web.md).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from dataclasses import dataclass, field
from typing import Optional

from ..lines import PARTIAL, LineCoverage
from ..parsers import merge_by_path, parse_report

#: Author and committer of every demo commit, at a fixed time: the same shas on every machine.
SIGNATURE = b"Demo <demo@example.com> 1717718400 +0000"
_COMMENTS = {".js": "//", ".mjs": "//", ".ts": "//", ".c": "//", ".go": "//", ".java": "//", ".rs": "//"}


def source_text(path: str, lines: LineCoverage) -> bytes:
    """A made-up file for ``path`` with a statement on each tracked line of ``lines`` (a branch on
    partial ones) and comments, which no coverage tool tracks, on the others."""
    comment = _COMMENTS.get(os.path.splitext(path)[1], "#")
    c_like = comment == "//"
    tracked = {number: state for number, _, state in lines}
    out = []
    header = f"{comment} Made up for the flask-coverage demo: code on the lines its report tracks."
    for number in range(1, max(tracked, default=0) + 1):
        state = tracked.get(number)
        if state is None:
            # A bare comment marker: lines that are not code read as comments, not as missing text.
            out.append(header if number == 1 else comment)
        elif state == PARTIAL:
            out.append(
                f"if (check({number})) total += {number};" if c_like else f"if check({number}): total += {number}"
            )
        else:
            out.append(f"const step{number} = work({number});" if c_like else f"step_{number} = work({number})")
    return "".join(line + "\n" for line in out).encode()


@dataclass
class GitHistory:
    """Git objects of a line of commits, hashed as git does; ``objects`` maps sha to (kind, body)."""

    objects: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    head: Optional[str] = None

    def add(self, kind: bytes, body: bytes) -> str:
        sha = hashlib.sha1(kind + b" %d\0" % len(body) + body).hexdigest()  # noqa: S324 - git's object names
        self.objects[sha] = (kind, body)
        return sha

    def _tree(self, files: dict[str, str]) -> str:
        children: dict[str, dict[str, str]] = {}
        entries: list[tuple[bytes, bytes, str]] = []
        for path, blob in files.items():
            first, slash, rest = path.partition("/")
            if slash:
                children.setdefault(first, {})[rest] = blob
            else:
                entries.append((first.encode(), b"100644", blob))
        entries += [(name.encode(), b"40000", self._tree(sub)) for name, sub in children.items()]
        # Git sorts entries by name, a folder's name as if it ended with "/".
        entries.sort(key=lambda entry: entry[0] + (b"/" if entry[1] == b"40000" else b""))
        return self.add(
            b"tree", b"".join(mode + b" " + name + b"\0" + bytes.fromhex(sha) for name, mode, sha in entries)
        )

    def commit(self, report: bytes, message: str, branch: Optional[str]) -> str:
        """Commit the made-up source of every file of ``report`` on top of the last commit; its sha."""
        files = {
            path: self.add(b"blob", source_text(path, lines))
            for path, lines in merge_by_path(parse_report(report)).items()
            if path and not path.startswith("/") and ".." not in path.split("/")
        }
        body = b"tree %s\n" % self._tree(files).encode()
        if self.head is not None:
            body += b"parent %s\n" % self.head.encode()
        body += b"author %s\ncommitter %s\n\n%s\n" % (SIGNATURE, SIGNATURE, message.encode())
        self.head = self.add(b"commit", body)
        if branch:
            self.branches[branch] = self.head
        return self.head


def write_mirror(history: GitHistory, git_dir: str, default_branch: str) -> None:
    """Store ``history`` as the bare repository ``git_dir`` (created if needed; objects it has are kept)."""
    for folder in ("objects", "refs/heads", "refs/tags"):
        os.makedirs(os.path.join(git_dir, folder), exist_ok=True)
    with open(os.path.join(git_dir, "config"), "w", encoding="ascii") as file:
        file.write("[core]\n\trepositoryformatversion = 0\n\tbare = true\n")
    with open(os.path.join(git_dir, "HEAD"), "w", encoding="utf-8") as file:
        file.write(f"ref: refs/heads/{default_branch}\n")
    for sha, (kind, body) in history.objects.items():
        path = os.path.join(git_dir, "objects", sha[:2], sha[2:])
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as file:
                file.write(zlib.compress(kind + b" %d\0" % len(body) + body, 1))
    for branch, sha in history.branches.items():
        ref = os.path.join(git_dir, "refs", "heads", *branch.split("/"))
        os.makedirs(os.path.dirname(ref), exist_ok=True)
        with open(ref, "w", encoding="ascii") as file:
            file.write(sha + "\n")
