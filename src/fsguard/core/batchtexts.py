"""validate_only's look at the text: each edit of a request_json batch planned, by the run's own planner, on the text
the operations before it would leave, so an old_text the run would not find, or would find several times, is
reported before anything runs (an atomic run fails there and rolls back). The validation advice promised this:
validate_only answered "all valid" for the very edit the run had just failed on.

A file's text is followed through the batch's writes, edits, copies and moves of files; what the copy or move of a
directory, a delete or an extract would leave is not, and an edit of it is left to the run. Text on disk is read
through the pinned walk, as a pipeline's dry run reads it. A file the run refuses on sight (above --max-file-size,
binary, not in its encoding) and a write's content (an append's whole file) above the limit are reported; a file
that cannot be read for another reason is left to the run, which names why.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from fsguard.core.batchops import edit_planner
from fsguard.core.batchplan import BatchOperation
from fsguard.core.beneath import Beneath
from fsguard.core.disk import read_at
from fsguard.core.errors import (
    AmbiguousMatchError,
    BinaryFileError,
    EncodingError,
    FsguardError,
    NoMatchError,
    TooLargeError,
)
from fsguard.core.textio import decode
from fsguard.core.writing import check_payload_size

_REFUSED = (TooLargeError, BinaryFileError, EncodingError)  # why the run refuses a file's text on sight


def foreseen(
    operations: Sequence[BatchOperation],
    targets: Sequence[tuple[Path, Path | None]],
    beneath: Beneath,
    max_file_size: int,
) -> bool:
    """Whether validate_only finds the last of ``operations`` failing, planned on what the ones before it leave (each
    at its canonical path and destination in ``targets``); read after a rollback, the disk is what validate_only saw.
    An atomic run's error sends the agent to validate_only only then: for an edit of what a directory's move left,
    validate_only answers "all valid" again."""
    texts = PlannedTexts(beneath, max_file_size)
    *before, last = zip(operations, targets, strict=True)
    for op, (path, destination) in before:
        texts.step(op, path, destination)
    op, (path, destination) = last
    return bool(texts.step(op, path, destination))


class PlannedTexts:
    """The text each path would hold after the operations stepped through so far (see the module docstring)."""

    def __init__(self, beneath: Beneath, max_file_size: int) -> None:
        self._beneath = beneath
        self._max_file_size = max_file_size
        # The text a path would hold, or the file on disk whose text it would hold (a copy or move of it).
        self._held: dict[Path, str | Path] = {}
        self._unknown: set[Path] = set()  # what would be there (or below) is not followed

    def step(self, op: BatchOperation, path: Path, destination: Path | None) -> list[str]:
        """Take ``op`` (at its canonical ``path`` and ``destination``) into the texts; why it would fail."""
        try:
            return self._stepped(op, path, destination)
        except _REFUSED as exc:
            self._set(path, None)
            return [exc.message.split("\n")[0]]

    def _stepped(self, op: BatchOperation, path: Path, destination: Path | None) -> list[str]:
        if op.type in ("edit", "search_and_replace"):
            return self._edit(op, path)
        if op.type == "write":
            base = self._appended_to(path) if op.append else ""
            # An append above the limit is too: the run refuses the file it would make (the text, when not followed)
            check_payload_size(path, (base or "") + (op.content or ""), self._max_file_size)
            self._set(path, None if base is None else base + (op.content or ""))
        elif op.type in ("copy", "move") and destination is not None:
            source = self._source(path)
            if op.type == "move":
                self._set(path, None, tree=True)
            self._set(destination, source, tree=True)
        elif op.type != "create_dir":  # delete, extract
            for changed in (path, destination):
                if changed is not None:
                    self._set(changed, None, tree=True)
        return []

    def _edit(self, op: BatchOperation, path: Path) -> list[str]:
        text = self._text(path)
        if text is None:
            self._set(path, None)
            return []
        try:
            plan = edit_planner(op)(text)
        except (NoMatchError, AmbiguousMatchError) as exc:
            return [exc.message.split("\n")[0]]  # the file keeps its text: a failed operation changes nothing
        except FsguardError:
            self._set(path, None)  # the run names it
            return []
        self._held[path] = plan.new_text
        return []

    def _set(self, path: Path, held: str | Path | None, *, tree: bool = False) -> None:
        """``path`` would now hold ``held`` (None: something not followed); with ``tree``, what was below it is gone
        (a directory's copy, move or delete): looked for only then, or a batch of thousands of writes is quadratic."""
        inside = [p for p in (*self._held, *self._unknown) if p.is_relative_to(path)] if tree else [path]
        for entry in inside:
            self._held.pop(entry, None)
            self._unknown.discard(entry)
        if held is None:
            self._unknown.add(path)
        else:
            self._held[path] = held

    def _source(self, path: Path) -> str | Path | None:
        """What a copy or move of ``path`` carries: its text or the file on disk holding it; None: not a file
        followed here (a directory, a link)."""
        held = self._held.get(path)
        if held is not None or self._not_followed(path):
            return held
        try:
            return path if stat.S_ISREG(os.lstat(path).st_mode) else None
        except OSError:
            return None

    def _text(self, path: Path) -> str | None:
        held = self._held.get(path)
        if isinstance(held, str):
            return held
        if held is None and self._not_followed(path):
            return None
        try:
            with self._beneath.entry(held or path) as entry:
                data, _ = read_at(entry, self._max_file_size)
            return decode(data, held or path).text
        except _REFUSED:
            raise
        except FsguardError:
            return None

    def _appended_to(self, path: Path) -> str | None:
        """The text an append adds to: what ``path`` holds, "" where nothing is (an append makes the file)."""
        if path not in self._held and not self._not_followed(path) and not os.path.lexists(path):
            return ""
        return self._text(path)

    def _not_followed(self, path: Path) -> bool:
        return any(above in self._unknown for above in (path, *path.parents))
