"""git init, made where no swapped directory can move it.

git turns the directory it runs in into an absolute path and makes the repository by that path, so a directory on
the way swapped for a link to outside the roots while git runs made it create the repository outside (a race
probe: 1 in 447 calls). git now runs in a fresh directory of a random name that fsguard makes inside the target
through its pinned walk: swapped away, that path names nothing git can write into. Its ``.git`` is then moved into
the target by the directory fds fsguard holds, never replacing one. Made on the target's own filesystem, the
repository's probes (file modes, links, case) are of that filesystem.

A ``.git`` already in the target is left as it is: git would only add what its templates miss, and by path.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

from fsguard.core.beneath import Pinned, lstat_at, rename_no_replace
from fsguard.core.errors import AccessDeniedError, AlreadyExistsError, NotDirectoryError
from fsguard.core.fdtree import child_dir
from fsguard.core.gitprocess import GitProcess
from fsguard.core.gitrepo import GitRequest, default_directory, fire
from fsguard.core.oserrors import from_os_error
from fsguard.core.rmtree import remove_tree
from fsguard.core.safeguards import Safeguards
from fsguard.models.git import GitResult

_WORKSHOP = ".fsguard-init-"  # and 16 random hex digits: the directory git runs in, inside the target


def init(safe: Safeguards, process: GitProcess, request: GitRequest) -> GitResult:
    """Create a repository in ``path`` (default: the first root), creating the directory when it is missing.

    Raises:
        AccessDeniedError: the path is, or lies inside, a ``.git``.
        NotDirectoryError: the path is a file.
        AlreadyExistsError: a ``.git`` that is no repository is there, or one appeared while git ran.
    """
    target = safe.policy.resolve(request.path) if request.path else default_directory(safe)
    if safe.policy.in_git_internals(target):
        raise AccessDeniedError(
            f"access denied: {target} is inside a repository's internals (.git), where init makes no repository: "
            "its working tree would be that .git, whose config and hooks git then rewrites and runs. Nothing was "
            "created. Pass a directory outside every .git.",
            path=str(target),
        )
    safe.policy.check_not_read_only(target)
    fire(safe, "pre", "create", target, "init")
    with safe.beneath.entry(target, make_parents=True) as entry:
        _make_directory(entry)
    with safe.beneath.directory(target, listed=False) as directory:
        existed = _repository_at(directory, target)
        if not existed:
            _make(process, directory, target)
    fire(safe, "post", "create", target, "init")
    return GitResult(action="init", repository=str(target), message="", reinitialized=existed)


def _make_directory(entry: Pinned) -> None:
    """Make the directory ``entry`` unless one is there.

    Raises:
        NotDirectoryError: something else is there.
    """
    try:
        os.mkdir(entry.name, dir_fd=entry.parent)
        return
    except FileExistsError:
        found = lstat_at(entry)
    except OSError as exc:  # a read-only mount, a full disk, a denied parent: the user's to clear, not a crash
        raise from_os_error(exc, entry.path) from exc
    if found is None or not stat.S_ISDIR(found.st_mode):
        raise NotDirectoryError(
            f"{entry.path} is a file; init needs a directory. Pass its parent or a new path.", path=str(entry.path)
        )


def _repository_at(directory: int, target: Path) -> bool:
    """Whether ``target`` (open as ``directory``) holds a repository already: a ``.git`` directory with a HEAD, or
    the ``gitdir:`` file of a worktree or submodule.

    Raises:
        AlreadyExistsError: a ``.git`` is there that is neither.
    """
    try:
        found = os.stat(".git", dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise from_os_error(exc, target / ".git") from exc
    if stat.S_ISDIR(found.st_mode):
        try:
            with child_dir(directory, ".git") as git_dir:
                os.stat("HEAD", dir_fd=git_dir, follow_symlinks=False)
            return True
        except FileNotFoundError:
            pass  # no HEAD: no repository
        except OSError as exc:
            raise from_os_error(exc, target / ".git") from exc
    elif stat.S_ISREG(found.st_mode) and _gitdir_file(directory, target):
        return True
    raise AlreadyExistsError(
        f"{target}/.git exists but holds no git repository, and init does not replace it. Look at it with "
        "list_directory, then delete it or pass another path.",
        path=str(target / ".git"),
    )


def _gitdir_file(directory: int, target: Path) -> bool:
    try:
        fd = os.open(".git", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=directory)
        try:
            return os.read(fd, 8) == b"gitdir: "
        finally:
            os.close(fd)
    except OSError as exc:
        raise from_os_error(exc, target / ".git") from exc


def _make(process: GitProcess, directory: int, target: Path) -> None:
    """Run ``git init`` in a fresh directory inside ``target``, then move the ``.git`` it made into ``target``."""
    name = _WORKSHOP + secrets.token_hex(8)
    try:
        os.mkdir(name, 0o700, dir_fd=directory)
    except OSError as exc:
        raise from_os_error(exc, target) from exc
    try:
        process.run(target / name, ["init", "--quiet"])
        try:
            with child_dir(directory, name) as workshop:
                made = Pinned(workshop, ".git", target / name / ".git")
                rename_no_replace(made, Pinned(directory, ".git", target / ".git"))
        except FileExistsError as exc:
            raise AlreadyExistsError(
                f"{target}/.git appeared while git init ran (another program made it); it was left as it is. "
                'Check it with git(action="status").',
                path=str(target / ".git"),
            ) from exc
        except OSError as exc:
            raise from_os_error(exc, target / ".git") from exc
    finally:
        # Empty once .git has moved; a failed git's leftovers go too. Removing cannot undo what git did.
        with suppress(OSError):
            remove_tree(directory, name)
