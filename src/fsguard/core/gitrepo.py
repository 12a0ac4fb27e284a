"""A git repository inside the roots, and the request an action works on.

A repository is found by walking up from the path for ``.git`` (a directory, or a file of a worktree or
submodule); its working tree, git directory and common directory (git's own answer, which follows ``gitdir:``
files and ``core.worktree``) must all lie inside the roots, because git acts on the whole repository. Its git and
common directories must be a ``.git`` or lie inside one, the place the file tools never write: elsewhere
(``--separate-git-dir``, a bare repository's worktrees) an agent could have written their config. User paths
always go after ``--``; option-like values of rev, name and remote are refused before git sees them
(:func:`refuse_option`). git itself runs through :class:`fsguard.core.gitprocess.GitProcess`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fsguard.core.errors import AccessDeniedError, InvalidParamsError, NotARepositoryError, NotFoundError
from fsguard.core.gitalternates import borrowed_stores
from fsguard.core.gitparse import text
from fsguard.core.gitprocess import GitOutput, GitProcess, Scratch
from fsguard.core.oserrors import leads_through_loop, link_loop_error
from fsguard.core.safeguards import Safeguards
from fsguard.models.git import GitActionName

GitOutputMode = Literal["stat", "name-only", "full"]


@dataclass(frozen=True, kw_only=True)
class GitRequest:
    """One git call's arguments, as the tool received them."""

    action: GitActionName
    path: str | None = None
    paths: tuple[str, ...] | None = None
    output: GitOutputMode | None = None
    max_lines: int = 200
    limit: int = 10
    rev: str | None = None
    staged: bool = False
    message: str | None = None
    name: str | None = None
    remote: str | None = None
    checkout: bool = False
    force: bool = False
    # What one answer holds of a patch or a file shown: bytes (--max-response-bytes) and characters (the compact
    # voice's cut), so the result's patch is the one the text shows.
    patch_bytes: int | None = None
    patch_chars: int | None = None


# Every command names the repository: the ``.git`` at the top, that top as the working tree. Left to discover it,
# git takes a directory whose ``.git`` is broken (empty, or its HEAD gone) for a bare repository of its own, and
# reads the ``config`` an agent could write there with write_file: a filter or a hook path in it runs a program.
# ``--work-tree`` also overrides a ``core.worktree`` that would move the working tree elsewhere.
_NAMED = ("--git-dir=.git", "--work-tree=.")


@dataclass(frozen=True)
class Repository:
    """A repository whose working tree, git dir and common dir are inside the roots."""

    root: Path
    process: GitProcess

    def git(
        self,
        *args: str,
        keep_lines: int | None = None,
        keep_bytes: int | None = None,
        check: bool = True,
        stdin: int | bytes | None = None,
        scratch: Scratch | None = None,
        pass_fds: Iterable[int] = (),
        stoppable: bool = False,
    ) -> GitOutput:
        """Run ``git <args>`` at the top of the working tree, on its ``.git`` and nothing git discovers (``stdin``,
        ``scratch``, ``pass_fds`` and ``stoppable``: :meth:`GitProcess.run`)."""
        return self.process.run(
            self.root,
            args,
            keep_lines=keep_lines,
            keep_bytes=keep_bytes,
            check=check,
            repository=_NAMED,
            stdin=stdin,
            scratch=scratch,
            pass_fds=pass_fds,
            stoppable=stoppable,
        )

    def absolute(self, relative: str) -> str:
        """A repo-relative name from git as an absolute path (a trailing ``/`` of a directory is kept)."""
        return f"{str(self.root).rstrip('/')}/{relative}"

    def relative(self, canonical: Path, given: str) -> str:
        """``canonical`` as a pathspec relative to the top of the working tree.

        Raises:
            InvalidParamsError: it lies outside this repository.
        """
        if canonical == self.root:
            return "."
        if not canonical.is_relative_to(self.root):
            raise InvalidParamsError(
                f"{given!r} is {canonical}, outside the repository {self.root}. Pass paths inside it (relative to "
                "the repository, or absolute).",
                path=given,
            )
        return canonical.relative_to(self.root).as_posix()


def refuse_option(field: str, value: str | None) -> None:
    """Refuse a value git would read as an option (``-x``, ``--output=x``).

    Raises:
        InvalidParamsError: ``value`` starts with ``-``.
    """
    if value is not None and value.startswith("-"):
        raise InvalidParamsError(
            f"invalid {field} {json.dumps(value)}: value must not start with '-' (git would read it as an option). "
            f"Nothing was run. Pass a plain {field}, e.g. {_EXAMPLES[field]}.",
            param=field,
        )


_EXAMPLES = {"rev": 'rev="HEAD~1"', "name": 'name="feature/x"', "remote": 'remote="origin"'}


def locate(safe: Safeguards, process: GitProcess, user_path: str | None) -> tuple[Repository, Path]:
    """The repository holding ``user_path`` (default: the first root), and the canonical path itself.

    Raises:
        AccessDeniedError: the path, or the repository it belongs to, is outside the roots; its working tree lies
            inside a ``.git``, or its git or common directory is not one (nor inside one).
        SymlinkLoopError: the path leads through a loop of symbolic links.
        NotARepositoryError: no repository holds it.
    """
    target = safe.policy.resolve(user_path) if user_path else default_directory(safe)
    if leads_through_loop(target, follow=True):  # not "no repository here": a path that names nothing
        raise link_loop_error(target)
    start = target if target.is_dir() else target.parent
    top = next((d for d in (start, *start.parents) if (d / ".git").exists()), None)
    if top is None:
        if not os.path.lexists(target):  # a missing path in a repository is fine (git log of a deleted file)
            raise NotFoundError(f"{target} does not exist. Check the path with list_directory.", path=str(target))
        next_step = (  # init in a read-only root is refused: advising it would only lead to a second error
            "It lies in a read-only root, where none can be created: pass a path inside an existing repository."
            if safe.policy.is_read_only(start)
            else f'Create one with git(action="init", path="{start}"), or pass a path inside an existing repository.'
        )
        raise NotARepositoryError(
            f"path is not inside a git repository: {target}. {next_step}",
            path=str(target),
        )
    if not safe.policy.contains(top):
        raise _outside(safe, target, top, "working tree")
    if safe.policy.in_git_internals(top):  # its files are another repository's config and hooks
        raise AccessDeniedError(
            f"access denied: {target} belongs to a git repository whose working tree {top} lies inside a "
            "repository's internals (.git): a restore or a branch switch there would rewrite that repository's "
            "config and hooks, which git runs. fsguard runs git only on a working tree outside every .git. Pass a "
            "path in the outer repository.",
            path=str(target),
        )
    repo = Repository(top, process)
    said = repo.git(
        "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir", check=False
    )
    if said.code != 0:
        raise NotARepositoryError(
            f"{top / '.git'} is not a valid git repository (git: {said.stderr.strip()[:200] or 'no answer'}). "
            "fsguard runs git only on a repository whose .git is intact; ask the user to repair it.",
            path=str(target),
        )
    kinds = ("working tree", "git directory", "common directory")
    locations = text(said.stdout).splitlines()
    for kind, location in zip(kinds, locations, strict=False):
        resolved = Path(os.path.realpath(location))
        if not safe.policy.contains(resolved):
            raise _outside(safe, target, Path(location), kind)
        if kind != "working tree" and not safe.policy.in_git_internals(resolved):
            raise _unguarded(target, resolved, kind)
    _check_borrowed(safe, target, Path(locations[-1]) / "objects")
    return repo, target


def _check_borrowed(safe: Safeguards, target: Path, objects: Path) -> None:
    """Refuse a repository that borrows objects (``objects/info/alternates``) from a store outside the roots: git
    would show any object there by its hash. The store is not named: it lies outside."""
    try:
        outside = any(not safe.policy.contains(store) for store in borrowed_stores(objects))
    except ValueError:
        outside = True
    if outside:
        raise AccessDeniedError(
            f"access denied: {target} belongs to a git repository that borrows objects from a store outside the "
            f"allowed roots ({objects}/info/alternates): git would show that repository's files by hash. Ask the "
            "user to give it objects of its own (git repack -a -d, then delete the alternates file), or use another "
            "repository under a root.",
            path=str(target),
        )


def default_directory(safe: Safeguards) -> Path:
    """Where git runs when no path is given: the first root (the current directory with --unrestricted)."""
    roots = safe.policy.active_roots()
    return roots[0] if roots else Path.cwd().resolve()


def _outside(safe: Safeguards, target: Path, location: Path, kind: str) -> AccessDeniedError:
    return AccessDeniedError(
        f"access denied: {target} belongs to a git repository whose {kind} is {location}, outside the allowed "
        f"roots: {safe.policy.describe_roots()}. git acts on whole repositories, so fsguard runs it only on one "
        'entirely inside a root. Use a repository under a root, or create one there with git(action="init").',
        path=str(target),
    )


def _unguarded(target: Path, location: Path, kind: str) -> AccessDeniedError:
    """A git directory not named .git (``git init --separate-git-dir``, a bare repository with worktrees): the
    file tools guard only a ``.git``, so its config and hooks, which git runs, may be an agent's."""
    return AccessDeniedError(
        f"access denied: {target} belongs to a git repository whose {kind} {location} is not a .git, so the file "
        "tools could have written its config and hooks (a filter or hook there is a program git runs). fsguard runs "
        "git only on a repository whose git directories are a .git or inside one. Ask the user to run git on it, or to "
        "work in a clone whose git directory is its .git.",
        path=str(target),
    )


@dataclass(frozen=True)
class GitCall:
    """Everything an action needs: the safeguards, the repository, the request, and its pathspecs (the ``paths``
    given, or the file ``path`` names, relative to the top of the working tree)."""

    safe: Safeguards
    repo: Repository
    request: GitRequest
    scope: tuple[str, ...]


def fire(
    safe: Safeguards, phase: Literal["pre", "post"], family: str, path: Path | str, action: str, **metadata: Any
) -> None:
    """Run the hooks of ``{phase}-{family}`` for one git action (a denying pre-hook raises HookDeniedError)."""
    safe.hooks.fire(
        phase,
        family,
        tool_name="git",
        file_path=str(path),
        operation=action,
        metadata={"git_operation": action, **metadata},
    )


@contextmanager
def holding_files(safe: Safeguards, targets: Iterable[Path]) -> Iterator[None]:
    """The locks of the working-tree files git is about to rewrite, taken in one global order (as
    :meth:`PathLocks.hold_all`, without its directories' recursion) under the repository's lock.

    Another fsguard's edit of one of them then lands before git runs (git sees a local change) or after it, never
    in between; nothing changes before the last is held, so a call cancelled while it waits for any of them stops.
    """
    in_order = sorted(set(targets))
    with ExitStack() as held:
        for target in in_order:
            held.enter_context(safe.locks.hold(target, changing=target == in_order[-1]))
        yield
