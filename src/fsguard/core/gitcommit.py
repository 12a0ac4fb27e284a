"""A commit with paths: made from an index of fsguard's, onto the commit that index was read from.

The paths' working-tree bytes go into a scratch index read from HEAD (:mod:`fsguard.core.gitstage` reads them).
``git commit`` on that index reads HEAD again when it starts: another process committing in between made fsguard's
commit the child of that commit with the tree of the one before, silently reverting its change. So the commit is
made with ``commit-tree`` on the commit the index was read from, and HEAD moves to it only if it still points there
(``update-ref``'s compare-and-swap, as ``git commit`` moves it). What else ``git commit -m`` does is done alike: the
repository's hooks when the operator allows them (pre-commit on that index, prepare-commit-msg, commit-msg,
post-commit, through ``git hook run``), the message cleaned up as ``commit.cleanup`` says, a signature when
``commit.gpgSign`` asks for one, and the reflog's ``commit: <subject>``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fsguard.core.errors import ExternalChangeError, InvalidParamsError
from fsguard.core.gitparse import text
from fsguard.core.gitprocess import Scratch, failure
from fsguard.core.gitrefs import current_commit, merging
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitstage import entries, null_id

_SIGN_OFF = b"Signed-off-by: "


def commit_paths(call: GitCall, names: list[bytes], message: str) -> str:
    """Commit HEAD with ``names`` as the working tree holds them, and nothing else staged, then stage them, as
    ``git commit -- paths`` does; the id of the commit made.

    Raises:
        InvalidParamsError: a merge is in progress (git makes no partial commit then), a name is a directory, or
            the message is empty once cleaned up.
        GitFailedError: a path matches no file git knows, or a hook refused the commit, in git's words.
        ExternalChangeError: another process moved HEAD (committed) meanwhile; nothing was committed.
    """
    repo = call.repo
    if merging(repo):
        raise InvalidParamsError(
            "cannot do a partial commit during a merge: commit without paths to conclude it (stage the resolved "
            'files with git(action="add", paths=[...]) first). Nothing was changed.'
        )
    parent = current_commit(repo)  # the index is read from this commit, and the commit made onto it alone
    # git takes only paths it knows (in the index or HEAD) and names the first it does not.
    with_tree = [f"--with-tree={parent}"] if parent else []
    known = repo.git("ls-files", "--error-unmatch", *with_tree, "--", *call.scope, check=False)
    if known.code != 0:
        raise failure("commit", known.code, known.stderr, advice="Nothing was changed. Commit only tracked paths.")
    lines, directories = entries(call, names)
    if directories:
        shown = ", ".join(repr(os.fsdecode(name)) for name in directories)
        raise InvalidParamsError(
            f"{shown}: a submodule or a repository inside this one, which a commit with paths does not take. "
            'Stage it with git(action="add", paths=[...]), then commit without paths. Nothing was changed.'
        )
    with tempfile.TemporaryDirectory(prefix="fsguard-git-") as directory:
        scratch = Scratch(Path(directory) / "index")
        if parent is not None:
            repo.git("read-tree", parent, scratch=scratch)
        if lines:
            repo.git("update-index", "-z", "--index-info", stdin=lines, scratch=scratch)
        made = _commit(call, scratch, parent, message, Path(directory) / "COMMIT_EDITMSG")
    if lines:
        repo.git("update-index", "-z", "--index-info", stdin=lines)
    _hook(call, "post-commit", check=False)  # after the index is updated, as git runs it; its exit changes nothing
    return made


def _commit(call: GitCall, scratch: Scratch, parent: str | None, message: str, editing: Path) -> str:
    """Commit ``scratch``'s index onto ``parent`` (None: the first commit) and move HEAD to it if HEAD is still
    there; the new commit's id.

    Raises:
        InvalidParamsError: the message is empty once cleaned up.
        GitFailedError: a hook refused, or git failed otherwise.
        ExternalChangeError: HEAD is no longer at ``parent``.
    """
    repo = call.repo
    mode = text(repo.git("config", "--get", "commit.cleanup", check=False).stdout).strip()
    verbatim = mode == "verbatim"
    worded = os.fsencode(message)
    worded += b"" if worded.endswith(b"\n") else b"\n"  # as -m completes its line
    if repo.process.run_hooks:
        _hook(call, "pre-commit", scratch=scratch)
        editing.write_bytes(worded if verbatim else _cleaned(call, worded, comments=False))
        _hook(call, "prepare-commit-msg", str(editing), "message", scratch=scratch)
        _hook(call, "commit-msg", str(editing), scratch=scratch)
        worded = editing.read_bytes()
    if not verbatim:  # comment lines go only where asked (commit.cleanup=strip): -m opens no editor
        worded = _cleaned(call, worded, comments=mode == "strip")
    if _empty(worded, verbatim=verbatim):
        raise InvalidParamsError(
            "the commit message is empty once cleaned up as git cleans it (comment lines and Signed-off-by lines "
            "alone count as empty). Nothing was committed. Pass a message that says what changed."
        )
    tree = text(repo.git("write-tree", scratch=scratch).stdout).strip()
    signed = text(repo.git("config", "--bool", "--get", "commit.gpgSign", check=False).stdout).strip() == "true"
    parents = ["-p", parent] if parent else []
    made = text(repo.git("commit-tree", *(["-S"] if signed else []), *parents, tree, stdin=worded).stdout).strip()
    subject = os.fsdecode(worded.split(b"\n", 1)[0])
    reflog = f"{'commit' if parent else 'commit (initial)'}: {subject}"
    moved = repo.git("update-ref", "-m", reflog, "HEAD", made, parent or null_id(call), check=False)
    if moved.code != 0:
        now = current_commit(repo)
        if now == parent:
            raise failure("commit", moved.code, moved.stderr)
        raise ExternalChangeError(
            f"HEAD moved from {_short(parent)} to {_short(now)} while this commit was being made (another process "
            "committed). Nothing was committed, so that commit's changes stay, and your files are as they were. See "
            'git(action="status"), then commit again.'
        )
    return made


def _empty(worded: bytes, *, verbatim: bool) -> bool:
    """git's test of an empty message: blank lines and sign-offs only (none at all, kept verbatim)."""
    if verbatim:
        return not worded
    return all(not line.strip() or line.startswith(_SIGN_OFF) for line in worded.split(b"\n"))


def _cleaned(call: GitCall, worded: bytes, *, comments: bool) -> bytes:
    """``worded`` as git cleans a commit message: trailing spaces and surplus blank lines out, and with
    ``comments`` the comment lines (core.commentChar)."""
    return call.repo.git("stripspace", *(["--strip-comments"] if comments else []), stdin=worded).stdout


def _hook(call: GitCall, name: str, *args: str, scratch: Scratch | None = None, check: bool = True) -> None:
    """Run the repository's hook ``name`` (if it has one) where the operator allows hooks; with ``check``, one that
    fails stops the commit, as in git.

    Raises:
        GitFailedError: the hook failed (with ``check``), in its own words.
    """
    if not call.repo.process.run_hooks:
        return
    given = ["--", *args] if args else []
    # Stoppable: a hook may run long, and nothing is committed before the last of them ends.
    out = call.repo.git("hook", "run", "--ignore-missing", name, *given, scratch=scratch, check=False, stoppable=True)
    if check and out.code != 0:
        raise failure("commit", out.code, out.stderr, out.stdout)


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "no commit yet"
