"""A diff against the working tree, from bytes fsguard reads itself.

``git diff`` reads each changed file by its path after checking the directories on the way: another process that
swaps one for a link to outside the roots in between put the bytes of a file outside in the patch. So git only
names the tracked files that differ from the index; fsguard reads each through its pinned walk into an index of its
own (:func:`fsguard.core.gitstage.stage`), and git compares that index with the repository's index (as a tree) or
with the revision asked for: the patch ``git diff`` prints, from bytes that never came through such a link. The
objects this writes go to a scratch directory (the repository's are read as alternates), so the look leaves
nothing in the repository.

A submodule's uncommitted changes are no index entry (its commit is all an index records), so a submodule git names
is left in that index as the compared side holds it, and compared by git itself (``submodules``): as ``git diff``
does, it looks inside the submodule, and prints only its commit, with ``-dirty`` (gitviews asks for the short form).
A file the server's user may not read, and one git may not reach through a directory it may not search, is left in
that index as the compared side holds it too, and named (``unreadable``): the diff shows the others.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.gitparse import text
from fsguard.core.gitprocess import Scratch
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitstage import null_id, stage
from fsguard.core.gitunreadable import unreadable


@dataclass(frozen=True)
class WorkingTree:
    """The tracked files as the working tree holds them, in ``scratch``'s index; ``base`` is the repository's index
    as a tree (what an unstaged diff compares them with)."""

    scratch: Scratch
    base: str
    submodules: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()  # files the server's user may not read: as compared in that index


@contextmanager
def working_tree(call: GitCall) -> Iterator[WorkingTree | None]:
    """The working tree of ``call``'s pathspecs read by fsguard into a scratch index; None while the index holds a
    conflict, which a tree cannot record (the diff then reads by path, as git does)."""
    repo = call.repo
    stores = text(repo.git("rev-parse", "--path-format=absolute", "--git-path", "objects").stdout).strip()
    with tempfile.TemporaryDirectory(prefix="fsguard-git-") as directory:
        objects = Path(directory) / "objects"
        objects.mkdir()
        scratch = Scratch(Path(directory) / "index", objects, Path(stores))
        base = repo.git("write-tree", check=False, scratch=dataclasses.replace(scratch, index=None))
        if base.code != 0:
            yield None
            return
        tree = text(base.stdout).strip()
        repo.git("read-tree", tree, scratch=scratch)
        changed = repo.git("diff", "--name-only", "--no-renames", "-z", "--", *call.scope)
        refused: list[bytes] = []  # files it may not read; git names those it may not reach (not in changed)
        directories = stage(call, [name for name in changed.stdout.split(b"\0") if name], scratch, refused)
        unread = unreadable(call, changed.stderr, map(os.fsdecode, refused))
        if same := list(dict.fromkeys([*directories, *refused, *map(os.fsencode, unread)])):
            _as_compared(call, scratch, call.request.rev or tree, same)
        submodules = tuple(os.fsdecode(name.rstrip(b"/")) for name in directories)
        yield WorkingTree(scratch, tree, submodules, tuple(unread))


def _as_compared(call: GitCall, scratch: Scratch, compared: str, same: list[bytes]) -> None:
    """Set the entries of the names in ``same`` in ``scratch``'s index to what ``compared`` holds (none where it
    holds none), so the diff of that index shows nothing for them."""
    names = [os.fsdecode(name.rstrip(b"/")) for name in same]
    listed = call.repo.git("ls-tree", "-z", compared, "--", *names).stdout
    # A folder there is no index entry (its files are, and a submodule now stands where they were).
    held = [record for record in listed.split(b"\0") if b"\t" in record and not record.startswith(b"040000 ")]
    found = {record.split(b"\t", 1)[1] for record in held}
    null = null_id(call)
    lines = b"".join(record + b"\0" for record in held) + b"".join(
        f"0 {null}\t".encode() + name + b"\0" for name in map(os.fsencode, names) if name not in found
    )
    call.repo.git("update-index", "-z", "--index-info", stdin=lines, scratch=scratch)
