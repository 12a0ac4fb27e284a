"""A pipeline's dry run reading what its earlier steps would leave (:mod:`fsguard.core.pipeline_overlay`).

Where a step reads a file an earlier step of the dry run would change, it reads the planned text (or finds the file
gone, or at its new place) instead of the disk: an edit is planned on it, a count counts in it, a copy, rename or
delete finds it or not. A search under a directory walks the disk as it is now, then takes the planned changes
into its counts; what earlier steps would newly put under the directory it cannot judge (which files the walk
would keep) and names in the step's ``unforeseen``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fsguard.core.confirmation import plural
from fsguard.core.denial import HiddenFiles
from fsguard.core.disk import read_at
from fsguard.core.editing import EditOptions, guarded_bytes
from fsguard.core.errors import NotFoundError
from fsguard.core.ignore import WalkOptions, walk_files
from fsguard.core.modes import EditPlan, Planner
from fsguard.core.pipeline_calls import PipelineEngines
from fsguard.core.pipeline_overlay import GONE, Edited, OnDisk, Overlay
from fsguard.core.textio import DecodedText, decode

SHOWN = 5


def decoded_text(engines: PipelineEngines, overlay: Overlay, path: Path) -> DecodedText:
    """The text at ``path``, once the earlier steps of a dry run had run (read through the pinned walk when on disk).

    Raises:
        NotFoundError: an earlier step would delete or move it away.
        FsguardError: on disk: missing, a directory, binary, undecodable or above --max-file-size.
    """
    found = overlay.at(path)
    if isinstance(found, Edited):
        return found.decoded
    if found is GONE:
        raise NotFoundError(
            f"file does not exist: {path}: an earlier step of this dry run would delete or move it away. Check the "
            "steps' order and files.",
            path=str(path),
        )
    with engines.beneath.entry(found.path) as entry:
        data, _ = read_at(entry, engines.max_file_size)
    return decode(data, found.path)


def planned_edit(
    engines: PipelineEngines, overlay: Overlay, file: str, planner: Planner, options: EditOptions
) -> EditPlan:
    """The edit of ``file`` as a dry run: edit_file's own on a file no earlier step changes, else planned on the text
    the earlier steps would leave, refused as edit_file refuses it (the path, a read-only root, the encoding).

    Raises:
        FsguardError: as :meth:`Editor.run` raises it; nothing was written.
    """
    path = Path(file)
    if overlay.at(path) == OnDisk(path):
        return engines.editor.run(file, planner, options).plan
    canonical = engines.policy.resolve(file)
    engines.policy.check_writable(canonical)
    decoded = decoded_text(engines, overlay, path)
    plan = planner(decoded.text)
    guarded_bytes(plan, decoded, len(decoded.encode(decoded.text)), canonical, allow_rewrite=options.allow_rewrite)
    return plan


def overlaid_counts(
    overlay: Overlay,
    engines: PipelineEngines,
    base: Path,
    options: WalkOptions,
    hide: HiddenFiles | None,
    counts: dict[str, int],
    count: Callable[[str], int],
) -> tuple[dict[str, int], str | None]:
    """A directory search's ``counts`` (file → matches, from the disk) as the earlier steps of a dry run would leave
    the files under ``base``, and what it could not judge (None when nothing).

    The files the walk keeps on disk are counted again where an earlier step changes them, and dropped where one
    deletes them; a path that earlier steps would newly put there is not counted, and is named."""
    if not overlay.below(base):
        return counts, None
    adjusted = dict(counts)
    walked = {str(path) for path in walk_files(base, options) if hide is None or not hide(str(path))}
    for file in sorted(walked | counts.keys()):
        found = overlay.at(Path(file))
        if found == OnDisk(Path(file)):
            continue
        matches = count(decoded_text(engines, overlay, Path(file)).text) if found is not GONE else 0
        if matches:
            adjusted[file] = matches
        else:
            adjusted.pop(file, None)
    new = [path for path in overlay.below(base) if str(path) not in walked and overlay.exists(path)]
    new = [path for path in new if not (path.exists() or path.is_symlink())]
    if not new:
        return dict(sorted(adjusted.items())), None
    names = ", ".join(str(path.relative_to(base)) or "." for path in new[:SHOWN])
    more = f" and {len(new) - SHOWN} more" if len(new) > SHOWN else ""
    unforeseen = (
        f"earlier steps would put {plural(len(new), 'path')} under {base} that {'is' if len(new) == 1 else 'are'} "
        f"not there yet ({names}{more}); this dry run did not search {'it' if len(new) == 1 else 'them'}, as it cannot "
        f"tell which the walk would keep. The real run searches {'it' if len(new) == 1 else 'them'}."
    )
    return dict(sorted(adjusted.items())), unforeseen
