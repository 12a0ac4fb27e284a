"""Parsers for git's machine formats, all NUL-separated, so names with spaces, newlines or any Unicode survive.

- :func:`parse_status`: ``git status --porcelain=v2 --branch -z``
- :func:`parse_numstat`: ``--numstat -z`` (diff, show, diff-tree); a rename is ``a\\td\\t\\0old\\0new\\0``
- :func:`parse_log`: ``log -z --format=%H%x00%an%x00%aI%x00%s`` (four NUL-separated fields per commit)
- :func:`parse_refs`: ``for-each-ref --format=%(HEAD)%00%(refname)%00%(refname:lstrip=2)``
- :func:`parse_push`: ``push --porcelain``

Names are decoded as UTF-8 with replacement characters for bytes that are not (a result must be valid JSON);
``core.quotepath=off`` and ``-z`` keep git from quoting them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

# Commit risk, the seed's informational scale: HIGH from any of these, MEDIUM from any of the next.
HIGH_FILES, HIGH_INSERTIONS, HIGH_DELETIONS = 40, 3000, 500
MEDIUM_FILES, MEDIUM_INSERTIONS = 15, 800
LOG_FIELDS = ("%H", "%an", "%aI", "%s")
LOG_FORMAT = "%x00".join(LOG_FIELDS)
# lstrip, not :short: short names a branch "heads/v1" when a tag v1 exists, and that name given back makes a new
# branch "heads/v1". Remote-tracking branches keep their remote (origin/main), as git branch -r lists them.
REF_FORMAT = "%(HEAD)%00%(refname)%00%(refname:lstrip=2)"
CommitRisk = Literal["LOW", "MEDIUM", "HIGH"]


def text(raw: bytes) -> str:
    """Bytes from git as text; invalid UTF-8 becomes U+FFFD rather than failing the whole result."""
    return raw.decode("utf-8", errors="replace")


@dataclass
class StatusReport:
    """One ``git status``: branch facts and repo-relative paths by state."""

    branch: str | None = None  # None when HEAD is detached
    commit: str | None = None  # None on a branch with no commits yet
    upstream: str | None = None
    ahead: int | None = None
    behind: int | None = None
    staged: list[str] = field(default_factory=list)
    unstaged: list[str] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)
    conflicted: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)  # a staged rename or copy: new name -> old name

    @property
    def clean(self) -> bool:
        return not (self.staged or self.unstaged or self.untracked or self.conflicted)


def parse_status(data: bytes) -> StatusReport:
    """Read ``git status --porcelain=v2 --branch -z``: headers, then ordinary (1), renamed (2), unmerged (u),
    untracked (?) and ignored (!) entries."""
    report = StatusReport()
    records = data.split(b"\0")
    index = 0
    while index < len(records):
        record = text(records[index])
        index += 1
        kind = record[:2]
        if kind == "# ":
            _status_header(report, record[2:])
        elif kind in ("1 ", "2 "):
            fields = record.split(" ", 8 if kind == "1 " else 9)
            if kind == "2 " and index < len(records):  # the original path follows as its own record
                report.renamed[fields[-1]] = text(records[index])
                index += 1
            _sort_change(report, fields[1], fields[-1])
        elif kind == "u ":
            report.conflicted.append(record.split(" ", 10)[-1])
        elif kind == "? ":
            report.untracked.append(record[2:])
    return report


def _status_header(report: StatusReport, header: str) -> None:
    key, _, value = header.partition(" ")
    if key == "branch.oid":
        report.commit = None if value == "(initial)" else value
    elif key == "branch.head":
        report.branch = None if value == "(detached)" else value
    elif key == "branch.upstream":
        report.upstream = value
    elif key == "branch.ab":
        ahead, _, behind = value.partition(" ")
        report.ahead, report.behind = abs(int(ahead)), abs(int(behind))


def _sort_change(report: StatusReport, xy: str, path: str) -> None:
    if xy[0] != ".":
        report.staged.append(path)
    if xy[1] != ".":
        report.unstaged.append(path)


@dataclass(frozen=True)
class FileStat:
    """One file of a diff: lines added and deleted (None for a binary file), and where a rename came from."""

    path: str
    added: int | None
    deleted: int | None
    from_path: str | None = None
    conflicted: bool = False


def parse_numstat(data: bytes) -> list[FileStat]:
    """Read ``--numstat -z``; anything before the first numstat record (a commit id, say) is skipped."""
    records = data.split(b"\0")
    stats: list[FileStat] = []
    index = 0
    while index < len(records):
        parts = text(records[index]).lstrip("\n").split("\t", 2)
        index += 1
        if len(parts) != 3 or not _is_count(parts[0]) or not _is_count(parts[1]):
            continue
        added, deleted = (None if part == "-" else int(part) for part in parts[:2])
        if parts[2]:
            stats.append(FileStat(parts[2], added, deleted))
        elif index + 1 < len(records):  # a rename: the old and new names follow as two records
            old, new = text(records[index]), text(records[index + 1])
            index += 2
            stats.append(FileStat(new, added, deleted, old))
    return stats


def with_conflicts(stats: list[FileStat], conflicted: set[str]) -> list[FileStat]:
    """``stats`` with each path in ``conflicted`` (unmerged in the index) marked, once.

    git lists an unmerged path as a ``0 0`` stub, then, when the working tree has a combined diff against the
    stages, again with its counts: kept as one file with those counts, where the first entry stood.
    """
    if not conflicted:
        return stats
    merged: dict[str, FileStat] = {}
    for stat in stats:
        if stat.path in conflicted:
            stat = replace(stat, conflicted=True)
            if stat.path in merged and stat.added == stat.deleted == 0:
                continue
        merged[stat.path] = stat
    return list(merged.values())


def _is_count(part: str) -> bool:
    return part == "-" or part.isdigit()


@dataclass(frozen=True)
class CommitLine:
    """One commit as log and show list it."""

    hash: str
    author: str
    date: str  # ISO 8601 with the author's offset
    subject: str


def parse_log(data: bytes) -> list[CommitLine]:
    """Read ``log -z --format=`` :data:`LOG_FORMAT`: every commit is four NUL-separated fields."""
    fields = [text(part).strip("\n") for part in data.rstrip(b"\0\n").split(b"\0")] if data.strip() else []
    size = len(LOG_FIELDS)
    return [CommitLine(*fields[i : i + size]) for i in range(0, len(fields) - size + 1, size)]


def parse_log_bodies(data: bytes) -> list[tuple[CommitLine, str]]:
    """Read ``log -z --format=`` :data:`LOG_FORMAT` ``%x00%b``: each commit's four fields, then its message past
    the subject (no NUL can be in it, so each commit is five fields)."""
    fields = [text(part).strip("\n") for part in data.split(b"\0")]
    size = len(LOG_FIELDS) + 1
    return [
        (CommitLine(*fields[i : i + size - 1]), fields[i + size - 1]) for i in range(0, len(fields) - size + 1, size)
    ]


@dataclass(frozen=True)
class RefLine:
    """One branch (local or remote-tracking) from for-each-ref."""

    name: str  # short name: main, origin/main
    remote: bool
    current: bool


def parse_refs(data: bytes) -> list[RefLine]:
    """Read ``for-each-ref --format=`` :data:`REF_FORMAT`; the symbolic ``origin/HEAD`` is left out."""
    refs: list[RefLine] = []
    for line in text(data).splitlines():
        parts = line.split("\0")
        if len(parts) != 3 or parts[1].endswith("/HEAD"):
            continue
        refs.append(RefLine(parts[2], parts[1].startswith("refs/remotes/"), parts[0] == "*"))
    return refs


@dataclass(frozen=True)
class PushedRef:
    """One line of ``push --porcelain``: the flag (space, +, -, *, =, !), the refspec and git's summary."""

    flag: str
    refspec: str
    summary: str

    @property
    def rejected(self) -> bool:
        return self.flag == "!"


def parse_push(data: bytes) -> list[PushedRef]:
    """Read ``push --porcelain``: one tab-separated line per ref between ``To <url>`` and ``Done``."""
    pushed: list[PushedRef] = []
    for line in text(data).splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and len(parts[0]) == 1:
            pushed.append(PushedRef(parts[0], parts[1], parts[2]))
    return pushed


def commit_risk(files: int, insertions: int, deletions: int) -> CommitRisk:
    """The seed's commit scale (informational, never blocks): HIGH past 40 files, 3000 insertions or 500
    deletions; MEDIUM past 15 files or 800 insertions; else LOW."""
    if files > HIGH_FILES or insertions > HIGH_INSERTIONS or deletions > HIGH_DELETIONS:
        return "HIGH"
    if files > MEDIUM_FILES or insertions > MEDIUM_INSERTIONS:
        return "MEDIUM"
    return "LOW"
