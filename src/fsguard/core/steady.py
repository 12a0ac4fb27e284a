"""A whole-file hash taken in many reads (a streamed pass) of a file that stays the same throughout.

The hash is the OCC token an agent passes back as ``expected_hash``: it must be of bytes that were on disk
together. A file rewritten in place while it was streamed gave a hash of half old, half new bytes, or new lines
under the old hash; the read still handed it out and the session kept it as the file's known hash.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fsguard.core.errors import ExternalChangeError
from fsguard.core.hashing import identity

TRIES = 3
"""Passes before a file changing under each of them is refused: a single rewrite costs one more pass, while a file
written to without pause (a busy log) is not read for ever."""

T = TypeVar("T")


def steady(
    fd: int,
    first: os.stat_result,
    path: Path,
    attempt: Callable[[os.stat_result], T],
    unsteady: Callable[[T], T] | None = None,
) -> T:
    """What ``attempt`` (given the stat it goes by; ``first`` the first time) took from the open ``fd`` during
    which the file did not change, tried up to :data:`TRIES` times; then ``unsteady`` of the last try's, when given
    (what can be said of a file that never held still: a busy log's tail, without its hash).

    Raises:
        ExternalChangeError: the file changed during every try, and no ``unsteady`` was given.
    """
    before, grew = first, False
    for _ in range(TRIES):
        found = attempt(before)
        after = os.fstat(fd)
        if identity(before) == identity(after):  # nothing was written to it meanwhile
            return found
        growing = after.st_ino == before.st_ino and after.st_size > before.st_size
        if unsteady is not None and growing and grew:
            return unsteady(found)  # grown in two passes running (a busy log): a third would cost as much again
        before, grew = after, growing
    if unsteady is not None:
        return unsteady(found)
    raise ExternalChangeError(
        f"{path.name} changed on disk while it was read, {TRIES} times running (another program is writing it): "
        "nothing of it is shown and no content_hash is given. Read it again once that program stops writing it.",
        path=str(path),
    )


def unsteady_note(name: str) -> str:
    """What a result without its hash says: why, and how to get one."""
    return (
        f"{name} was written to while it was read (another program is writing it), so no content_hash is given: "
        "read it again for one before an edit"
    )
