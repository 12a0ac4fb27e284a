"""The object stores a repository borrows from: ``objects/info/alternates`` (``git clone --shared`` or
``--reference`` writes one), whose objects git reads as its own. ``git show <hash>`` then answers with the bytes of
any object the other store holds, files of a repository outside the roots (or the client's) included, so the git
tool runs only on a repository whose borrowed stores lie inside them too."""

from __future__ import annotations

import os
from pathlib import Path

_DEPTH = 5  # git follows alternates of alternates this deep


def borrowed_stores(objects: Path) -> list[Path]:
    """Every object directory ``objects`` borrows from, in turn, resolved (links followed), as git reads them: one
    path a line, ``#`` a comment, relative to the directory of objects that names it, C-quoted when it starts with a
    quote. A file git could not read either (missing, a directory, unreadable) names none, and a store that is not
    there is passed over, as git passes over it.

    Raises:
        ValueError: a quoted line that is no C-quoted path: where git would look cannot be told.
    """
    found: list[Path] = []
    todo = [(Path(os.path.realpath(objects)), 0)]
    while todo:
        store, depth = todo.pop()
        if depth >= _DEPTH:
            continue
        for line in _lines(store / "info" / "alternates"):
            borrowed = Path(os.path.realpath(store / os.fsdecode(_unquoted(line))))
            if borrowed not in found and borrowed.is_dir():  # git passes over one that is not there
                found.append(borrowed)
                todo.append((borrowed, depth + 1))
    return found


def _lines(alternates: Path) -> list[bytes]:
    try:
        data = alternates.read_bytes()
    except OSError:
        return []
    return [line for line in data.splitlines() if line.strip() and not line.startswith(b"#")]


def _unquoted(line: bytes) -> bytes:
    """A C-quoted path (``"a\\tb\\303\\251"``) as its bytes; any other line as written."""
    if not (line.startswith(b'"') and line.endswith(b'"') and len(line) >= 2):
        return line
    try:  # octal escapes become one character per byte, which latin-1 gives back as that byte
        return line[1:-1].decode("unicode_escape").encode("latin-1")
    except UnicodeError as exc:
        raise ValueError(f"not a C-quoted path: {line!r}") from exc
