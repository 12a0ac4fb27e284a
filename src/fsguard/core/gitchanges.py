"""The git actions that change something: add, commit, push and restore (init: :mod:`fsguard.core.gitinit`).

Each fires the hooks of its family around the git call (tool ``git``, operation = the action): ``write`` for add,
commit, push, restore and switching branch, ``create`` for init and a new branch, ``delete`` for a deleted branch.
A working-tree restore is the one action that overwrites file bytes, so it needs ``force`` and first backs up every
file it will overwrite, chained like any other mutation: ``backup(action="undo_last", file_path=...)`` brings the
discarded edit back. Pushing never uses ``--force``, only ``--force-with-lease``.
"""

from __future__ import annotations

from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.errors import (
    FsguardError,
    InvalidParamsError,
    RiskBlockedError,
)
from fsguard.core.gitcommit import commit_paths
from fsguard.core.gitparse import LOG_FORMAT, commit_risk, parse_log, parse_numstat, parse_push, text
from fsguard.core.gitprocess import failure
from fsguard.core.gitrefs import current_branch, current_commit, merging, unsent_push_advice
from fsguard.core.gitremote import branch_refspec, check_pushed_history, check_remote
from fsguard.core.gitrepo import GitCall, fire, holding_files
from fsguard.core.gitrestore import (
    back_up,
    check_rewritable,
    discarded,
    link_target,
    name_restored,
    put_back,
    settle_index,
    source_entries,
)
from fsguard.core.gitscreen import check_changeable, check_source
from fsguard.core.gitstage import stage
from fsguard.core.gitunreadable import check_readable
from fsguard.core.pathforms import escaped
from fsguard.models.git import GitBackup, GitCommit, GitResult


def add(call: GitCall) -> GitResult:
    """Stage exactly the paths given (never an implicit ``add .``)."""
    repo, safe = call.repo, call.safe
    specs = _required(call, "git add requires explicit 'paths' (no implicit 'add .'): pass paths=[\"a.py\"].")
    # What add would stage: changed and deleted tracked files, and untracked ones .gitignore does not exclude.
    listed = repo.git("ls-files", "-z", "--modified", "--deleted", "--others", "--exclude-standard", "--", *specs)
    check_readable(call, listed.stderr)
    check_changeable(call, _names(listed.stdout), staging=True)
    _refuse_ignored(call)
    unmerged_raw = repo.git("diff", "--name-only", "--diff-filter=U", "-z", "--", *specs).stdout
    unmerged = _names(unmerged_raw)
    targets = [repo.absolute(spec) for spec in specs]
    for target in targets:
        fire(safe, "pre", "write", target, "add")
    # git names what add would stage; fsguard reads it (gitstage). An unmerged file is listed once per stage.
    stage(call, list(dict.fromkeys(_raw_names(listed.stdout) + _raw_names(unmerged_raw))))
    staged = _names(repo.git("diff", "--cached", "--name-only", "-z", "--", *specs).stdout)
    # A conflict resolved to this branch's side matches HEAD, so no diff names it, yet this add staged it.
    staged += [name for name in unmerged if name not in staged]
    for target in targets:
        fire(safe, "post", "write", target, "add")
    return _cut_paths(
        call, GitResult(action="add", repository=str(repo.root), message=""), [repo.absolute(n) for n in staged]
    )


def _refuse_ignored(call: GitCall) -> None:
    """Refuse paths .gitignore excludes, before git runs: git add stages the other paths, then fails on those
    (exit 1), so the call would read as failed with some paths staged.

    git's own dry run decides: a path is refused when it is ignored, lies in an ignored directory, or is an
    ignored directory (even one holding a tracked file); a directory that merely holds ignored files is not.

    Raises:
        InvalidParamsError: git would refuse a path given as ignored.
        GitFailedError: git's dry run fails otherwise (a path that matches no file).
    """
    out = call.repo.git("add", "--dry-run", "--", *call.scope, check=False)
    if out.code == 0:
        return
    if _IGNORED_HEADER not in out.stderr:  # a path that matches nothing: git's own words
        raise failure("add", out.code, out.stderr, out.stdout)
    listed = out.stderr.split(_IGNORED_HEADER, 1)[1].splitlines()
    refused = [line for line in listed if line and not line.startswith(("hint:", "fatal:", "error:"))]
    raise InvalidParamsError(
        f"{', '.join(map(repr, refused))}: ignored by .gitignore, and git stages an ignored path only by force, "
        "which fsguard does not use. Nothing was staged. Leave them out of paths, or take them out of "
        ".gitignore first."
    )


_IGNORED_HEADER = "The following paths are ignored by one of your .gitignore files:\n"


def commit(call: GitCall) -> GitResult:
    """Commit what is staged (or, with paths, those paths as they are in the working tree), with real stats."""
    repo, request = call.repo, call.request
    if not request.message or not request.message.strip():
        raise InvalidParamsError("missing 'message' parameter (required for commit): pass message=\"Fix the parser\".")
    # What goes in, named once: without paths what is staged (on a branch with no commit yet too), with paths
    # their working-tree bytes, staged or not.
    chosen: list[bytes] = []  # with paths: the names whose working-tree bytes go in
    if not call.scope:
        going_in = _names(repo.git("diff", "--cached", "--name-only", "--no-renames", "-z").stdout)
        # A merge whose conflicts were all resolved to this branch's side stages nothing, yet its commit is what
        # concludes it (git commits it with no --allow-empty).
        if not going_in and not merging(repo):
            raise InvalidParamsError(
                'nothing staged to commit. Stage files first with git(action="add", paths=[...]) (see '
                'git(action="status")), then commit. Nothing was changed.'
            )
    else:
        # --no-renames: a rename is listed as git commit -- paths takes it, the old name's removal and the new name
        changed = repo.git("diff", "--name-only", "--no-renames", "-z", "HEAD", "--", *call.scope, check=False)
        if changed.code != 0:  # no commit yet: every tracked file the paths hold goes in
            changed = repo.git("ls-files", "-z", "--", *call.scope)
        chosen = _raw_names(changed.stdout)
        going_in = [text(name) for name in chosen]
        if not going_in:  # else git fails with its whole status printed, and the agent is left to read why
            raise InvalidParamsError(
                "nothing to commit in these paths: their working-tree bytes are those of HEAD, or they are not "
                'tracked (stage a new file first with git(action="add", paths=[...])). A commit with paths takes '
                "the files as they are in the working tree, not what is staged. Nothing was changed."
            )
    check_changeable(call, going_in, staging=True)
    fire(call.safe, "pre", "write", repo.root, "commit", message=request.message)
    made_id = "HEAD"  # with paths, the commit made: another process may have moved HEAD on since
    if call.scope:
        made_id = commit_paths(call, chosen, request.message)
    else:
        # Stoppable: its hooks (--git-hooks) may run long; stopped with SIGTERM, git takes back its index.lock and
        # moves HEAD (a lock file renamed) all or not at all.
        repo.git("commit", "-m", request.message, stoppable=True)
    # "--": a work-tree file named HEAD made the bare revision ambiguous, and the call failed after the commit.
    made = parse_log(repo.git("log", "--max-count=1", "-z", f"--format={LOG_FORMAT}", made_id, "--").stdout)[0]
    commit_id = made.hash
    # Against the first parent, so a merge commit (concluding a merge) counts what it brings to the branch.
    numstat = repo.git(
        "show", "--format=", "--numstat", "-z", "-M", "--no-textconv", "--diff-merges=first-parent", commit_id, "--"
    )
    stats = parse_numstat(numstat.stdout)
    insertions = sum(s.added or 0 for s in stats)
    deletions = sum(s.deleted or 0 for s in stats)
    risk = commit_risk(len(stats), insertions, deletions)
    fire(call.safe, "post", "write", repo.root, "commit", commit_hash=commit_id, risk=risk)
    return GitResult(
        action="commit",
        repository=str(repo.root),
        message="",
        branch=current_branch(repo),
        hash=commit_id,
        commit=GitCommit(hash=made.hash, subject=made.subject, author=made.author, date=made.date),
        files_changed=len(stats),
        insertions=insertions,
        deletions=deletions,
        risk_level=risk,
    )


_LEASE = ["--force-with-lease", "--force-if-includes"]  # a forced push: never over commits this one has not seen


def push(call: GitCall) -> GitResult:
    """Push to ``remote`` (default origin); ``name`` pushes that branch and sets it as upstream; ``force`` uses
    ``--force-with-lease``, never ``--force``."""
    repo, request = call.repo, call.request
    remote = request.remote or "origin"
    receiver = check_remote(call, remote)
    refspec = branch_refspec(call, request.name)
    if receiver:  # a local repository under the roots
        check_pushed_history(call, remote, refspec)
    pushed = request.name or current_branch(repo)
    fire(call.safe, "pre", "write", repo.root, "push", remote=remote, branch=pushed, force=request.force)
    # With the lease alone, a fetch in the background (an editor's) while the user was asked moved the remote-tracking
    # ref to the commits someone else pushed, and the push replaced them unseen: it must also hold that ref's tip.
    lease = _LEASE if request.force else []
    target = [remote, refspec] if refspec else [remote]
    upstream = ["--set-upstream", *target] if refspec else target
    # Stoppable: a pre-push hook or a remote may keep it waiting; stopped with SIGTERM, git pushes no more.
    out = repo.git("push", "--porcelain", *receiver, *lease, *upstream, check=False, stoppable=True)
    refs = parse_push(out.stdout)
    if out.code != 0:
        rejected = "; ".join(f"{_refspec(r.refspec)} {r.summary}" for r in refs if r.rejected)
        advice, said = "Nothing was pushed.", out.stderr
        if rejected and not request.force and _lease_refuses(call, receiver, target):  # force=true would fail too
            advice = (
                f"Rejected: {rejected}. The remote has commits this branch has not taken in: integrate them first "
                "(git fetch, look at them, then merge or rebase onto them), then push again."
            )
        elif rejected and not request.force:
            advice = (
                f"Rejected: {rejected}. The remote has commits this branch does not: integrate them first, or "
                "replace them with force=true (--force-with-lease: refused if the remote moved since your last fetch)."
            )
        elif rejected and "stale info" in rejected:  # git knows nothing of that remote's ref (a path, or no fetch)
            advice = (
                f"Rejected: {rejected}. This repository has no record of what the remote holds now (it was never "
                "fetched, or the remote is a path or URL): fetch it, look at what it has, then retry."
            )
        elif rejected:
            advice = (
                f"Rejected: {rejected}. The remote has commits this branch has not taken in (pushed since your last "
                "fetch, or fetched since, in the background too): look at them (git log), merge or drop them on "
                "purpose, then retry."
            )
        elif told := unsent_push_advice(repo, remote, pushed, out.stderr):  # git's advice is for its CLI: cut
            advice, said = told, out.stderr.strip().split("\n", 1)[0]
        raise failure("push", out.code, said, out.stdout, advice)
    fire(call.safe, "post", "write", repo.root, "push", remote=remote, branch=pushed, force=request.force)
    return GitResult(
        action="push",
        repository=str(repo.root),
        message="",
        remote=remote,
        branch=pushed,
        forced=request.force,
        updates=[f"{_refspec(r.refspec)} {r.summary}" for r in refs],
    )


def rejected_push(call: GitCall) -> list[str]:
    """The refs a push without force would have rejected, from a dry run: nothing is sent and no hook runs."""
    request = call.request
    remote = request.remote or "origin"
    receiver = check_remote(call, remote)
    refspec = branch_refspec(call, request.name)
    if receiver:  # refused all the same: nothing to ask about
        check_pushed_history(call, remote, refspec)
    upstream = [remote, refspec] if refspec else [remote]
    dry = ["push", "--dry-run", "--no-verify", "--porcelain", *receiver]
    rejected = [r for r in parse_push(call.repo.git(*dry, *upstream, check=False).stdout) if r.rejected]
    if rejected and _lease_refuses(call, receiver, upstream):
        return []  # forced, it is refused too (never fetched, or not taken in since): a yes could not make it run
    return [f"{_refspec(r.refspec)} {r.summary}" for r in rejected]


def _lease_refuses(call: GitCall, receiver: list[str], target: list[str]) -> bool:
    """Whether a dry run of the forced push (``--force-with-lease --force-if-includes``) is rejected too."""
    dry = ["push", "--dry-run", "--no-verify", "--porcelain", *receiver, *_LEASE, *target]
    return any(r.rejected for r in parse_push(call.repo.git(*dry, check=False).stdout))


def restore(call: GitCall) -> GitResult:
    """Unstage (``staged``), or discard working-tree changes (``force``; every overwritten file backed up first).

    Raises:
        RiskBlockedError: a working-tree restore without force; nothing was changed.
    """
    repo, request, safe = call.repo, call.request, call.safe
    specs = _required(
        call, "git restore requires explicit 'paths' (no implicit whole-tree restore): pass paths=[\"a.py\"]."
    )
    if request.rev:
        check_source(call, request.rev)
    source = [f"--source={request.rev}"] if request.rev else []
    if request.staged:
        # With no commit yet there is no HEAD to restore the index from (git restore says "could not resolve
        # HEAD"): unstaging is taking the paths out of the index, as git status advises (rm --cached).
        unborn = not request.rev and current_commit(repo) is None
        # The index entries it sets: those that differ from the source (a hidden file's would be staged anew).
        changed = (
            repo.git("ls-files", "-z", "--", *specs)
            if unborn
            else repo.git(
                *("diff", "--cached", "--name-only", "--no-renames", "-z", request.rev or "HEAD", "--", *specs),
                check=False,
            )
        )
        check_changeable(call, _names(changed.stdout), staging=True)
        targets = [repo.absolute(spec) for spec in specs]
        for target in targets:
            fire(safe, "pre", "write", target, "restore", staged=True)
        if unborn:  # --cached leaves the working tree alone; -f, or git keeps an entry the file has changed since
            repo.git("rm", "--cached", "-r", "-f", "--quiet", "--", *specs)
        else:
            repo.git("restore", "--staged", *source, "--", *specs)
        for target in targets:
            fire(safe, "post", "write", target, "restore", staged=True)
        result = GitResult(action="restore", repository=str(repo.root), message="", source=request.rev)
        return _cut_paths(call, result, targets)
    names = discarded(call)  # refused first as it would be with force: a yes or force=true cannot change that
    if not request.force:
        raise RiskBlockedError(
            "destructive git operation 'restore' requires force:true for safety; nothing was changed. Pass force=true "
            "to discard the working-tree changes of these paths (every file it overwrites is backed up first: "
            'backup(action="undo_last", file_path=...) brings it back), or staged=true to only unstage.',
            action="restore",
        )
    return _discard(call, names)


def _discard(call: GitCall, names: list[str]) -> GitResult:
    """Back up, then put back as the source holds them (:mod:`fsguard.core.gitrestore`), the files in ``names``; a
    failed restore takes back the backups of the files it had not overwritten yet."""
    repo, safe, rev = call.repo, call.safe, call.request.rev
    targets = [Path(repo.absolute(name)) for name in names]
    with holding_files(safe, targets):
        entries = source_entries(call, names)
        check_rewritable(call, names, entries)
        for target in targets:
            fire(safe, "pre", "write", target, "restore", source=rev)
        saved: list[tuple[Path, BackupRecord]] = []
        links = {
            name: found
            for target, name in zip(targets, names, strict=True)
            if (found := link_target(call, target)) is not None
        }
        written: list[Path] = []
        try:
            for target, name in zip(targets, names, strict=True):
                record = back_up(call, target, name)
                if record is not None:
                    saved.append((target, record))
            for target, name in zip(targets, names, strict=True):
                with safe.beneath.entry(target, follow=False, make_parents=name in entries) as entry:
                    put_back(call, name, entry, entries.get(name))
                written.append(target)
        except FsguardError as exc:
            overwritten = set(written)
            for target, record in saved:
                if target not in overwritten:  # not overwritten: its chain goes back to where it was
                    safe.backups.step_back(record)
            name_restored(exc, written, {target: record.backup_id for target, record in saved}, len(targets))
            raise
        settle_index(call, entries)
        after = {target: record.after_hash for target, record in saved}
        for target in targets:
            digest = after.get(target)
            if digest:  # remembered, and announced (WSL autosync), as a write through fsguard would be
                safe.session.record_hash(target, digest)
                for listener in safe.committed:
                    listener(target, "write", "git")
            else:
                safe.session.forget(target)
            fire(safe, "post", "write", target, "restore", source=rev)
    result = GitResult(
        action="restore",
        repository=str(repo.root),
        message="",
        source=rev,
        backups=[GitBackup(path=str(t), backup_id=r.backup_id) for t, r in saved],
    )
    result = _cut_paths(call, result, [str(t) for t in targets])
    if links:  # a link holds no bytes to back up; what it pointed to is all it held, so the answer keeps that
        told = "; ".join(f"{escaped(name)} -> {escaped(old)}" for name, old in links.items())
        replaced = f"Replaced symbolic links, not backed up (a link's target is all it holds): {told}."
        result.note = f"{result.note} {replaced}" if result.note else replaced
    return result


def _cut_paths(call: GitCall, result: GitResult, paths: list[str]) -> GitResult:
    """``result`` with the first max_lines of ``paths``; past that, how many there are (files_changed) and a note."""
    cap = call.request.max_lines
    result.paths = paths[:cap]
    if len(paths) > cap:
        result.files_changed, result.truncated = len(paths), True
        result.note = f"Path list cut at {cap} of {len(paths)}: raise max_lines to see more."
    return result


def _required(call: GitCall, problem: str) -> tuple[str, ...]:
    if not call.scope:
        raise InvalidParamsError(problem)
    return call.scope


def _refspec(refspec: str) -> str:
    source, _, target = refspec.partition(":")
    return f"{source.removeprefix('refs/heads/')} -> {target.removeprefix('refs/heads/')}"


def _names(data: bytes) -> list[str]:
    return [text(name) for name in _raw_names(data)]


def _raw_names(data: bytes) -> list[bytes]:
    return [name for name in data.split(b"\0") if name]
