"""Trash previews: the first lines of a trashed file, or the names in a trashed directory no deny rule hides.

The trash lives in the state directory (fsguard's own, out of every root), so its items are read by name;
a symlink in there is shown as a link, never followed.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.errors import FsguardError, NotFoundError
from fsguard.core.textio import decode, sniff
from fsguard.core.trashentries import TrashEntry

PREVIEW_BYTES = 64 * 1024
PREVIEW_NAMES = 200


@dataclass(frozen=True)
class Preview:
    """What the Trash page shows of one entry."""

    text: str | None  # a file's first bytes as text; None for binary or directories
    names: list[str]  # a directory's entries (relative), first PREVIEW_NAMES
    note: str


# Whether a deny rule hides an entry of a trashed directory: its path relative to the directory, and whether it is one.
Hides = Callable[[str, bool], bool]


def preview(trash_root: Path, entry: TrashEntry, hides: Hides) -> Preview:
    """The preview of ``entry`` (whose id the caller checked); a directory's names leave out those ``hides`` judges
    hidden, as a listing does, and count them.

    Raises:
        NotFoundError: its item is gone (restored or purged meanwhile, or a crash mid-move left its record alone).
    """
    item = trash_root / entry.sd_id / "item"
    if not os.path.lexists(item):
        raise _gone(entry)
    if item.is_symlink():
        return Preview(None, [], f"a symbolic link to {item.readlink()}")
    if entry.is_directory:
        return _directory(item, hides)
    try:
        # Non-blocking: a trashed pipe would hold the page (and a worker thread) until something wrote to it.
        fd = os.open(item, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise _gone(entry) from exc
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return Preview(None, [], "a pipe, socket or device: it has no content to show")
        head = handle.read(PREVIEW_BYTES)
    cut = f"the first {PREVIEW_BYTES // 1024} KiB of {entry.size:,} bytes" if entry.size > PREVIEW_BYTES else ""
    try:
        return Preview(_text(head, Path(entry.original_path), whole=len(head) < PREVIEW_BYTES), [], cut)
    except FsguardError:
        return Preview(None, [], f"binary content, {entry.size:,} bytes")


def _text(head: bytes, path: Path, *, whole: bool) -> str:
    """The text of a file's first bytes; when they are not the whole file, judged as a read in pieces judges them:
    decoded whole, a UTF-8 file whose cut split a character was taken for a legacy code page and shown garbled."""
    if whole:
        return decode(head, path).text
    encoding, bom = sniff(head, path)
    # Not final: the character the cut splits is left out, not replaced.
    return codecs.getincrementaldecoder(encoding)("replace").decode(head[len(bom) :])


def _gone(entry: TrashEntry) -> NotFoundError:
    return NotFoundError(
        f"trash entry {entry.sd_id} holds nothing any more (restored or purged): {entry.original_path} is not in the "
        "trash. The Trash page lists what is.",
        sd_id=entry.sd_id,
    )


def _directory(item: Path, hides: Hides) -> Preview:
    names: list[str] = []
    hidden = 0
    for base, dirs, files in os.walk(item):
        below = Path(base).relative_to(item)
        judged = [(name, False) for name in sorted(files)] + [(name, True) for name in sorted(dirs)]
        shown = [(name, is_dir) for name, is_dir in judged if not hides(str(below / name), is_dir)]
        hidden += len(judged) - len(shown)
        dirs[:] = [name for name, is_dir in shown if is_dir]  # a hidden directory counts once, its names unread
        for name, is_dir in shown:
            names.append(str(below / name) + ("/" if is_dir else ""))
            if len(names) >= PREVIEW_NAMES:
                more = f"; at least {hidden} more hidden by deny rules" if hidden else ""
                return Preview(None, names, f"the first {PREVIEW_NAMES} entries{more}")
    if hidden:
        return Preview(None, names, f"{hidden} hidden by deny rules")
    return Preview(None, names, "" if names else "an empty directory")
