"""The result of the git tool: one model for its ten actions, each filling the fields that apply to it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from fsguard.models.base import Result
from fsguard.models.wire import PATH_KEYS

GitActionName = Literal["status", "diff", "log", "show", "add", "commit", "push", "restore", "branch", "init"]


class GitFileChange(Result):
    """One file of a diff or a commit."""

    path: str = Field(description="Absolute path of the file (its new name after a rename).")
    added: int | None = Field(None, description="Lines added; absent for a binary file.")
    deleted: int | None = Field(None, description="Lines deleted; absent for a binary file.")
    binary: bool = Field(False, description="True for a binary file (git counts no lines in it).")
    from_path: str | None = Field(None, description="Absolute path of the old name, for a rename or copy.")
    conflicted: bool | None = Field(
        None, description="diff: true for a path with a merge conflict (listed once; see status conflicted)."
    )


class GitCommit(Result):
    """One commit."""

    hash: str = Field(description="Full commit id.")
    subject: str = Field(description="First line of the message.")
    author: str
    date: str = Field(description="Author date, ISO 8601 with the author's UTC offset.")
    body: str | None = Field(
        None, description="show, and log with output full: the rest of the message (at most 40 lines)."
    )


class GitStatusCounts(Result):
    """How many paths are in each state (the lists may be cut at max_lines)."""

    staged: int
    unstaged: int
    untracked: int
    conflicted: int


class GitBackup(Result):
    """A file a working-tree restore overwrote, and the backup holding its previous bytes."""

    path: str
    backup_id: str = Field(description="Undo with backup(action='undo_last', file_path=path).")


class GitResult(Result):
    """What the git tool returns. Paths are absolute; lists of paths hold at most max_lines entries."""

    action: GitActionName
    repository: str = Field(description="Absolute path of the working tree's top directory.")
    message: str = Field(description="The text block: a summary of the result.")
    # status, commit, push
    branch: str | None = Field(None, description="Current branch (absent when HEAD is detached), or the one pushed.")
    upstream: str | None = Field(
        None, description="status: the upstream branch, e.g. origin/main; branch: the one a new branch tracks."
    )
    ahead: int | None = Field(None, description="status: commits on the branch not on its upstream.")
    behind: int | None = Field(None, description="status: commits on the upstream not on the branch.")
    staged: list[str] | None = Field(None, description="status: paths with staged changes.")
    unstaged: list[str] | None = Field(None, description="status: tracked paths changed in the working tree.")
    untracked: list[str] | None = Field(None, description="status: untracked paths (a directory ends with /).")
    conflicted: list[str] | None = Field(None, description="status: paths with merge conflicts.")
    renamed: Annotated[dict[str, str], PATH_KEYS] | None = Field(
        None, description="status: staged renames (and copies) among the staged paths listed: new path -> old path."
    )
    counts: GitStatusCounts | None = Field(None, description="status: totals, even when the lists are cut.")
    clean: bool | None = Field(None, description="status: true when nothing is staged, changed or untracked.")
    merging: bool | None = Field(
        None, description="status: true while a merge is in progress; a commit concludes it (after the conflicts)."
    )
    # log, show
    commits: list[GitCommit] | None = Field(None, description="log: newest first.")
    commit: GitCommit | None = Field(None, description="show: the commit shown; commit: the commit made.")
    # diff, show
    output: Literal["stat", "name-only", "full"] | None = Field(
        None, description="diff/show: the view shown (stat by default); status: the view asked for."
    )
    compared: str | None = Field(
        None,
        description="diff: 'unstaged' (working tree vs index), 'staged' (index vs HEAD), or the rev or range given; "
        "log: the rev or range given.",
    )
    files: list[GitFileChange] | None = Field(None, description="diff/show: changed files with line counts.")
    patch: str | None = Field(
        None,
        description="diff/show with output=full: the patch, cut at max_lines lines and at the response budget "
        "(see truncated); show of a file at a revision: its text.",
    )
    binary: bool | None = Field(
        None, description="show: true when the file at the revision is binary; its bytes are left out (see size)."
    )
    size: int | None = Field(None, description="show: the binary file's size in bytes.")
    total_lines: int | None = Field(None, description="diff/show: lines of the whole patch, when it was cut.")
    truncated: bool | None = Field(None, description="True when a patch or a list was cut; see note.")
    denied: int | None = Field(
        None, description="status/diff/show: files a deny rule hides, left out of the lists and the patch."
    )
    unreadable: list[str] | None = Field(
        None,
        description="status/diff: paths the server's user may not read (permission denied), so git could not tell "
        "what changed there: left out of the lists, the files and the patch. A directory ends with /.",
    )
    note: str | None = Field(None, description="What was cut or downgraded, and how to see it.")
    # commit
    hash: str | None = Field(None, description="commit: the new commit id.")
    files_changed: int | None = Field(
        None, description="commit, diff, show: files changed, all of them (add, restore: when the list was cut)."
    )
    insertions: int | None = Field(None, description="commit, diff, show: lines added over every file changed.")
    deletions: int | None = Field(None, description="commit, diff, show: lines deleted over every file changed.")
    risk_level: Literal["LOW", "MEDIUM", "HIGH"] | None = Field(
        None, description="commit: LOW, MEDIUM (>15 files or >800 insertions), HIGH (>40 files, >3000 ins, >500 del)."
    )
    # branch
    branches: list[str] | None = Field(None, description="branch: local branches, then remote-tracking ones.")
    current: str | None = Field(
        None, description="branch: the checked-out branch after the call (absent when HEAD is detached)."
    )
    detached_at: str | None = Field(
        None, description="branch: the commit HEAD points at when it is detached (no branch checked out)."
    )
    created: str | None = Field(None, description="branch: the branch created.")
    deleted: str | None = Field(None, description="branch: the branch deleted.")
    deleted_commit: str | None = Field(None, description="branch: the commit the deleted branch pointed at.")
    switched: bool | None = Field(None, description="branch: true when HEAD moved to the branch.")
    # add, restore
    paths: list[str] | None = Field(
        None, description="add: paths staged now; restore: paths restored; log: the paths its commits touch."
    )
    source: str | None = Field(None, description="restore: the revision restored from (default: the index/HEAD).")
    backups: list[GitBackup] | None = Field(None, description="restore: each file overwritten and its backup.")
    # push
    remote: str | None = Field(None, description="push: the remote pushed to.")
    forced: bool | None = Field(None, description="push: true when --force-with-lease was used.")
    updates: list[str] | None = Field(None, description="push: git's line per ref, e.g. 'main -> main [new branch]'.")
    # init
    reinitialized: bool | None = Field(
        None, description="init: true when a repository was already there (it is left as it is)."
    )
