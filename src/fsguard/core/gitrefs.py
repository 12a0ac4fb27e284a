"""git branch: list, create (and switch to), switch to, or delete a branch.

Without ``name`` it lists. A ``name`` that does not exist is created (at ``rev``, default HEAD; ``checkout``
switches to it, starting it from, and tracking, the one remote's branch of that name when there is one, as ``git
switch`` does). An existing ``name`` is switched to with ``checkout``, else deleted, as the seed does: ``-d``,
which git refuses for a branch not merged, and ``-D`` with ``force``. A deletion reports the commit the branch
pointed at, so it can be recreated with ``rev``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from fsguard.core.confirmation import plural
from fsguard.core.errors import InvalidParamsError
from fsguard.core.gitparse import REF_FORMAT, parse_refs, text
from fsguard.core.gitprocess import failure
from fsguard.core.gitrepo import GitCall, Repository, fire, holding_files
from fsguard.core.gitscreen import check_changeable, hidden
from fsguard.core.pathforms import escaped
from fsguard.models.git import GitResult


def branch(call: GitCall) -> GitResult:
    """List, create, switch to or delete a branch; the result always lists the branches after the call."""
    repo, request = call.repo, call.request
    result = GitResult(action="branch", repository=str(repo.root), message="")
    name = request.name
    if name is not None:
        exists = repo.git("show-ref", "--verify", "--quiet", f"refs/heads/{name}", check=False).code == 0
        if exists and request.checkout:
            # By its full name: a tag of the same name comes first where git reads a revision (the diff of the
            # files the switch rewrites), and switch takes the branch.
            with _switching(call, f"refs/heads/{name}"):
                fire(call.safe, "pre", "write", repo.root, "branch", branch=name, switch=True)
                repo.git("switch", name)
                fire(call.safe, "post", "write", repo.root, "branch", branch=name, switch=True)
            result.switched = True
        elif exists:
            _delete(call, name, result)
        else:
            _create(call, name, result)
    return _listed(repo, result)


def current_branch(repo: Repository) -> str | None:
    """The checked-out branch (also on a branch with no commits yet); None when HEAD is detached."""
    # Not --short, which says "heads/v1" when a tag v1 exists: a push or a compare by that name misses the branch.
    out = repo.git("symbolic-ref", "--quiet", "HEAD", check=False)
    return (text(out.stdout).strip().removeprefix("refs/heads/") or None) if out.code == 0 else None


def current_commit(repo: Repository) -> str | None:
    """The commit HEAD points at; None on a branch with no commits yet."""
    out = repo.git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    return (text(out.stdout).strip() or None) if out.code == 0 else None


def unsent_push_advice(repo: Repository, remote: str, branch: str | None, stderr: str) -> str | None:
    """What to do about a push git refused before sending anything: to a remote the repository does not have (where
    setting an upstream, git's own advice, fails the same way), or of a branch with no upstream; else None."""
    named = not any(mark in remote for mark in "/:\\")  # a URL or path is given, not looked up
    if named and repo.git("remote", "get-url", "--", remote, check=False).code != 0:
        return (
            f"This repository has no remote {remote!r}, so nothing was pushed. fsguard does not add remotes: ask the "
            f"user to add one (git remote add {remote} URL), or pass remote= the name of one it has."
        )
    if "has no upstream branch" in stderr:
        return f'Nothing was pushed. Push it and set its upstream with git(action="push", name="{branch}").'
    return None


def merging(repo: Repository) -> bool:
    """A merge is in progress (MERGE_HEAD): its commit is due, even when the index matches HEAD."""
    return repo.git("rev-parse", "--quiet", "--verify", "MERGE_HEAD", check=False).code == 0


def _create(call: GitCall, name: str, result: GitResult) -> None:
    """Create ``name``, switching to it with ``checkout``.

    Raises:
        InvalidParamsError: no commit yet for it to point at, and no checkout (git's words: "not a valid object
            name: 'main'").
    """
    repo, request = call.repo, call.request
    if not request.checkout and not request.rev and current_commit(repo) is None:
        here = current_branch(repo) or "HEAD"
        raise InvalidParamsError(
            f"branch {name!r} cannot be created yet: {here} has no commits, so there is nothing for it to point "
            f"at. Commit first, or pass checkout=true to start work on {name!r} instead of {here}. Nothing was "
            "changed."
        )
    tracked = _remote_namesake(call, name) if request.checkout and not request.rev else None
    start = [request.rev] if request.rev else ["--track", tracked] if tracked else []
    origin = request.rev or tracked
    with _switching(call, origin) if request.checkout and origin else nullcontext():
        fire(call.safe, "pre", "create", repo.root, "branch", branch=name, switch=request.checkout)
        if request.checkout:
            repo.git("switch", "--create", name, *start)
        else:
            repo.git("branch", name, *start)
        fire(call.safe, "post", "create", repo.root, "branch", branch=name, switch=request.checkout)
    result.created = name
    result.switched = request.checkout or None
    result.upstream = tracked


def _remote_namesake(call: GitCall, name: str) -> str | None:
    """The remote-tracking branch ``<remote>/name`` a switch to ``name`` starts from and tracks, as ``git switch
    name`` does, when exactly one remote has it (or several, checkout.defaultRemote among them); None when none has.

    Raises:
        InvalidParamsError: several remotes have it and none is the default (git switch refuses to guess too).
    """
    remotes = text(call.repo.git("remote").stdout).split()
    found = [
        f"{remote}/{name}"
        for remote in remotes
        if call.repo.git("show-ref", "--verify", "--quiet", f"refs/remotes/{remote}/{name}", check=False).code == 0
    ]
    preferred = text(call.repo.git("config", "--get", "checkout.defaultRemote", check=False).stdout).strip()
    if len(found) > 1 and f"{preferred}/{name}" in found:  # git switch's own tie-break
        return f"{preferred}/{name}"
    if len(found) > 1:
        raise InvalidParamsError(
            f"branch {name!r} is on several remotes ({', '.join(found)}), so which one to start it from and track "
            f'is not clear. Pass rev= the one, e.g. git(action="branch", name="{name}", rev="{found[0]}", '
            "checkout=true). Nothing was changed."
        )
    return found[0] if found else None


@contextmanager
def _switching(call: GitCall, target: str) -> Iterator[None]:
    """Around a switch to ``target``: refuse one that would rewrite a file a deny rule hides or one in a read-only
    root, and hold the locks of the files it rewrites (those that differ between HEAD and ``target``, up to
    :meth:`PathLocks.most_held`), so another fsguard's edit of one is never lost under git's rewrite, and a cancelled
    switch stops before it starts."""
    if current_commit(call.repo) is None:  # an unborn HEAD (an orphan branch): every file of the target comes in
        changed = call.repo.git("ls-tree", "-r", "-z", "--name-only", target, "--", check=False)
    else:
        changed = call.repo.git("diff", "--name-only", "--no-renames", "-z", "HEAD", target, "--", check=False)
    # Else (an unknown rev) git's own switch says what is wrong.
    names = [text(name) for name in changed.stdout.split(b"\0") if name] if changed.code == 0 else []
    check_changeable(call, names)
    _check_untracked(call, names)
    locked = names if len(names) <= call.safe.locks.most_held() else []  # else under the repository's lock alone
    with holding_files(call.safe, (Path(call.repo.absolute(name)) for name in locked)):
        yield


def _check_untracked(call: GitCall, names: list[str]) -> None:
    """Refuse a switch that would overwrite or delete what git does not track where the target puts a file: an
    untracked file at that path or at a folder on its way, or a folder holding untracked files where the target has
    a file. git refuses this itself for untracked files, but an ignored one (out.log, a build/ folder, an .env) it
    overwrites or deletes silently, and nothing keeps a copy.

    Raises:
        InvalidParamsError: such paths exist (named, but for those a deny rule hides, which are counted).
    """
    repo = call.repo
    at_stake = sorted(
        {"/".join(parts[:depth]) for parts in (n.split("/") for n in names) for depth in range(1, len(parts) + 1)}
    )
    if not at_stake:
        return
    tracked = {text(name) for name in repo.git("ls-files", "-z").stdout.split(b"\0") if name}
    endpoints = set(names)
    lost: list[str] = []
    folders: list[str] = []  # folders where the target has a file: lost only if they hold untracked files
    cut: set[str] = set()  # paths whose descendants need no look (not a folder on disk, or already at stake)
    for name in at_stake:
        parts = name.split("/")
        if any("/".join(parts[:depth]) in cut for depth in range(1, len(parts))):
            continue
        try:
            mode = os.lstat(repo.absolute(name)).st_mode
        except OSError:  # not there (or unreachable): nothing of it to lose
            cut.add(name)
            continue
        if name in tracked:  # git's own business: it refuses to overwrite local changes
            continue
        if stat.S_ISDIR(mode):
            if name in endpoints:
                folders.append(name)
                cut.add(name)
            continue
        lost.append(name)  # an untracked file, link or other, where the target has a file or a folder
        cut.add(name)
    if folders:
        inside = repo.git("ls-files", "-z", "--others", "--", *folders).stdout
        held = {text(name) for name in inside.split(b"\0") if name}
        lost += [f"{folder}/" for folder in folders if any(name.startswith(f"{folder}/") for name in held)]
    if not lost:
        return
    secret = hidden(call, lost)
    shown = [name for name in sorted(lost) if name not in secret]
    told = [escaped(name) for name in shown[:_NAMED_AT_MOST]]
    if len(shown) > _NAMED_AT_MOST:
        told.append(f"{len(shown) - _NAMED_AT_MOST} more")
    if secret:
        told.append(f"{len(secret)} a deny rule hides")
    raise InvalidParamsError(
        f"switching would overwrite or delete {plural(len(lost), 'path')} git does not track (ignored ones too), "
        f"keeping no copy: {', '.join(told)}. Nothing was changed. Move {'it' if len(lost) == 1 else 'them'} "
        "out of the way first (move_file), then switch again."
    )


_NAMED_AT_MOST = 10


def _delete(call: GitCall, name: str, result: GitResult) -> None:
    repo, force = call.repo, call.request.force
    tip = text(repo.git("rev-parse", "--verify", f"refs/heads/{name}").stdout).strip()
    fire(call.safe, "pre", "delete", repo.root, "branch", branch=name, commit=tip, force=force)
    out = repo.git("branch", "--delete", *(["--force"] if force else []), name, check=False)
    if out.code != 0:
        unmerged = "not fully merged" in out.stderr
        # git 2.39 says "checked out at", later ones "used by worktree at"; switching to it is no way out there.
        checked_out = name == current_branch(repo) or any(
            words in out.stderr for words in ("checked out at", "used by worktree at")
        )
        if unmerged:
            advice = (
                f"Nothing was deleted. To delete it anyway, retry with force=true (it points at {tip[:12]}; "
                f'git(action="branch", name="{name}", rev="{tip[:12]}") recreates it).'
            )
        elif checked_out:
            advice = (
                "Nothing was deleted: a working tree has it checked out. Switch that one to another branch first "
                '(git(action="branch", name="<other>", checkout=true) there), then delete it.'
            )
        else:
            advice = "Nothing was deleted. To switch to it instead, pass checkout=true."
        raise failure("branch", out.code, out.stderr, advice=advice)
    fire(call.safe, "post", "delete", repo.root, "branch", branch=name, commit=tip, force=force)
    result.deleted, result.deleted_commit = name, tip


def _listed(repo: Repository, result: GitResult) -> GitResult:
    refs = parse_refs(repo.git("for-each-ref", f"--format={REF_FORMAT}", "refs/heads", "refs/remotes").stdout)
    result.branches = [ref.name for ref in refs if not ref.remote] + [ref.name for ref in refs if ref.remote]
    result.current = current_branch(repo)
    result.detached_at = current_commit(repo) if result.current is None else None
    return result
