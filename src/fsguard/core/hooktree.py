"""The pre-hooks of a directory deleted, moved or copied, fired for the files inside it that a path glob names.

A hook's path glob judged only the path a call named, so ``**/*.lock`` refused deleting ``d/x.lock`` and let
deleting ``d`` take it. The tree is walked only when a pre-hook of the event has a path glob at all, and a file no
glob matches costs the glob matching only, never a hook process.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsguard.core.hooks import HookEvent
from fsguard.core.trees import files_below

if TYPE_CHECKING:
    from fsguard.core.beneath import Pinned
    from fsguard.core.hooks import HookRunner


def fire_below(
    hooks: HookRunner,
    tree: Pinned,
    family: str,
    *,
    landing: Path | None = None,
    walked: list[str] | None = None,
    **event: Any,
) -> None:
    """Fire ``pre-{family}`` for each file below the directory ``tree`` that a hook's path glob matches, at its path
    and, for a move or copy, where it lands under ``landing``. ``walked``: the files below ``tree`` (relative to it)
    when the caller listed them already (:func:`check_landing`), so the tree is not walked twice.

    Raises:
        HookDeniedError: a hook denied a file inside; nothing was done.
        AccessDeniedError: the tree changed while it was walked.
    """
    name = f"pre-{family}"
    if not hooks.globbed(name):
        return
    files = walked if walked is not None else files_below(tree)
    below = ((str(tree.path / file), None if landing is None else str(landing / file)) for file in files)
    hooks.run_inside(HookEvent(**{"event": name, "file_path": str(tree.path), **event}), below, str(tree.path))
