"""Voice of minify_js."""

from __future__ import annotations

from fsguard.core.minify import PREVIEW_CHARS
from fsguard.models import MinifyResult
from fsguard.voice.paths import shown


def minify_text(result: MinifyResult, compact: bool) -> str:
    """Sizes before and after, where the output went, and how to undo (or, in a dry run, a preview)."""
    saved = result.bytes_before - result.bytes_after
    in_place = result.output_path == result.path
    if compact:
        return _compact(result, saved, in_place)
    sizes = f"{result.bytes_before:,} → {result.bytes_after:,} bytes (saved {saved:,}, {result.saved_percent:.1f}%)"
    where = "in place" if in_place else f"into {shown(result.output_path)}"
    if result.dry_run and result.unchanged:
        head = f"DRY RUN, nothing written: {shown(result.path)} is already minified; minifying it would write nothing."
    elif result.dry_run:
        head = f"DRY RUN, nothing written: minifying {shown(result.path)} {where} would give {sizes}."
    elif result.unchanged:
        head = f"{shown(result.path)} is already minified; nothing was written (hash {result.content_hash})."
    else:
        created = "" if in_place else f" (new file; {shown(result.path)} is unchanged)"
        head = f"Minified {shown(result.path)} {where}{created}: {sizes}, hash {result.content_hash}."
    lines = [head]
    if result.backup_id:
        chain = f" (previous step {result.parent_backup_id})" if result.parent_backup_id else ""
        lines.append(
            f'Undo: backup(action="undo_last", file_path="{shown(result.path)}") · backup {result.backup_id}{chain}'
        )
    if result.kept_bang_comments:
        lines.append("Kept /*! */ comments; rjsmin removes every other comment.")
    lines.extend(note for note in (result.structure_warning, result.external_change, *(result.notes or ())) if note)
    if result.preview is not None:
        more = " (first 500 characters)" if len(result.preview) >= PREVIEW_CHARS else ""
        lines.append(f"Preview{more}:\n{result.preview}")
    return "\n".join(lines)


def _compact(result: MinifyResult, saved: int, in_place: bool) -> str:
    if result.dry_run:
        verb = "UNCHANGED (dry-run)" if result.unchanged else "MINIFY (dry-run)"
    else:
        verb = "UNCHANGED" if result.unchanged else "MINIFIED"
    parts = [
        f"{verb} {shown(result.output_path)}",
        f"{result.bytes_before}→{result.bytes_after}B ({-saved:+d}, {result.saved_percent:.1f}%)",
    ]
    if not in_place:
        parts.append(f"from:{shown(result.path)}")
    if result.content_hash and not result.dry_run:  # the next expected_hash, as write_file's compact text gives it
        parts.append(f"hash {result.content_hash}")
    if result.backup_id:
        parts.append(f"undo:{result.backup_id}")
    if result.kept_bang_comments:
        parts.append("kept /*! */ comments")
    text = " | ".join(parts)
    text += "".join(
        f"\n{note}" for note in (result.structure_warning, result.external_change, *(result.notes or ())) if note
    )
    if result.preview is not None:
        text += f"\n{result.preview}"
    return text
