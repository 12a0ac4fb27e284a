"""The git tool's engine: checks a request, finds the repository, and hands it to the action.

The modules behind it:

- :mod:`fsguard.core.gitrepo`: finding a repository inside the roots; :mod:`fsguard.core.gitprocess`: running git
- :mod:`fsguard.core.gitparse`: git's NUL-separated machine formats, parsed
- :mod:`fsguard.core.gitviews`: status, diff, log, show
- :mod:`fsguard.core.gitchanges`: add, commit, push, restore; :mod:`fsguard.core.gitinit`: init
- :mod:`fsguard.core.gitrefs`: branch

``paths`` are relative to the repository's top directory (or absolute), and each must resolve inside the roots
and the repository. When ``path`` names a file and no ``paths`` are given, status, diff and log are limited to it.
Actions that change the repository hold a per-repository lock, so two fsguard calls never race on its index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from fsguard.core.gitchanges import add, commit, push, rejected_push, restore
from fsguard.core.gitinit import init
from fsguard.core.gitprocess import GIT_TIMEOUT_S, GitProcess
from fsguard.core.gitrefs import branch
from fsguard.core.gitrepo import GitCall, GitRequest, Repository, locate, refuse_option
from fsguard.core.gitrestore import discarded
from fsguard.core.gitscreen import check_source
from fsguard.core.gitstatus import status
from fsguard.core.gitviews import diff, log, show
from fsguard.core.safeguards import Safeguards
from fsguard.models.git import GitResult

_HANDLERS: dict[str, Callable[[GitCall], GitResult]] = {
    "status": status,
    "diff": diff,
    "log": log,
    "show": show,
    "add": add,
    "commit": commit,
    "push": push,
    "restore": restore,
    "branch": branch,
}
_READ_ONLY = frozenset({"status", "diff", "log", "show"})
_SCOPED_BY_PATH = frozenset({"status", "diff", "log"})
_WINDOWS_ABSOLUTE = re.compile(r"^[A-Za-z]:[\\/]")


class GitRunner:
    """Runs one git action for the tool."""

    def __init__(
        self,
        safeguards: Safeguards,
        *,
        executable: str = "git",
        timeout: float = GIT_TIMEOUT_S,
        run_hooks: bool = False,
    ) -> None:
        self._safe = safeguards
        self._process = GitProcess(safeguards, executable, timeout, run_hooks=run_hooks)

    def run(self, request: GitRequest) -> GitResult:
        """Do ``request.action``.

        Raises:
            InvalidParamsError: a bad or missing argument (rev/name/remote starting with "-" among them).
            AccessDeniedError: a path, or the repository, outside the roots.
            NotARepositoryError, GitUnavailableError, GitFailedError, RiskBlockedError, HookDeniedError.
        """
        for field in ("rev", "name", "remote"):
            refuse_option(field, getattr(request, field))
        if request.action == "init":
            return init(self._safe, self._process, request)
        repo, target = locate(self._safe, self._process, request.path)
        call = GitCall(self._safe, repo, request, self._scope(repo, target, request))
        handler = _HANDLERS[request.action]
        if request.action in _READ_ONLY:
            return handler(call)
        self._safe.policy.check_not_read_only(repo.root)  # a repository in a read-only root is only looked at
        # A restore, and a branch switch, overwrite files only under their own locks, taken after this one: a
        # cancelled call still stops at those (another process may be editing the file), before it changes anything.
        with self._safe.locks.hold(repo.root / ".git", changing=request.action not in ("restore", "branch")):
            return handler(call)

    def rejected_push(self, request: GitRequest) -> list[str]:
        """What ``request`` (a push) would have rejected without force; nothing is pushed.

        Raises:
            NotARepositoryError, AccessDeniedError (a remote outside the roots), GitUnavailableError.
        """
        for field in ("name", "remote"):
            refuse_option(field, getattr(request, field))
        repo, _ = locate(self._safe, self._process, request.path)
        return rejected_push(GitCall(self._safe, repo, request, ()))

    def discarded(self, request: GitRequest) -> list[Path]:
        """The files ``request`` (a working-tree restore) would overwrite, once every check that refuses it before
        it changes anything has passed; nothing is changed.

        Raises:
            As :meth:`run` does for that restore, before it writes (AccessDeniedError, ReadOnlyError, ...).
        """
        refuse_option("rev", request.rev)
        repo, target = locate(self._safe, self._process, request.path)
        call = GitCall(self._safe, repo, request, self._scope(repo, target, request))
        self._safe.policy.check_not_read_only(repo.root)
        if request.rev:
            check_source(call, request.rev)
        return [Path(repo.absolute(name)) for name in discarded(call)]

    def _scope(self, repo: Repository, target: Path, request: GitRequest) -> tuple[str, ...]:
        """The pathspecs: each of ``paths`` (resolved, inside the roots and the repository), or the file ``path``
        names for status/diff/log."""
        if request.paths is not None:
            return tuple(repo.relative(self._entry(repo, given), given) for given in request.paths)
        if request.action in _SCOPED_BY_PATH and target != repo.root and not target.is_dir():
            return (repo.relative(target, request.path or str(target)),)
        return ()

    def _entry(self, repo: Repository, given: str) -> Path:
        """A path as git names it: relative to the repository's top; a final symlink is the link itself."""
        if given and not (Path(given).is_absolute() or _WINDOWS_ABSOLUTE.match(given)):
            given = str(repo.root / given)
        return self._safe.policy.resolve_entry(given)
