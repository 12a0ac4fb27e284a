"""analyze_operation: what a write, edit or delete would do to a file, decided without touching it."""

from __future__ import annotations

import os
import stat
from functools import partial
from pathlib import Path
from typing import Literal

from fsguard.core.attributes import check_replaceable
from fsguard.core.beneath import Beneath, lstat_at
from fsguard.core.confirmation import plural
from fsguard.core.diff import common_prefix_len, common_suffix_len, render_diff
from fsguard.core.disk import read_at
from fsguard.core.editing import edit_risk, guarded_bytes
from fsguard.core.errors import FsguardError, InvalidParamsError, NotDirectoryError, NotFoundError
from fsguard.core.hooks import HookRunner
from fsguard.core.matching import Replacement
from fsguard.core.media import identify
from fsguard.core.modes import replace
from fsguard.core.mutation import missing_file
from fsguard.core.oserrors import leads_through_loop, link_loop_error
from fsguard.core.paths import PathPolicy
from fsguard.core.risk import RiskAssessment, RiskLevel, RiskPolicy, assess_risk, write_guard
from fsguard.core.textio import decode, kept_breaks
from fsguard.core.trees import size_and_files, visible_size_and_files
from fsguard.core.writing import check_payload_size, decoded_or_none, written_bytes
from fsguard.models import AnalyzeResult

Operation = Literal["file", "optimize", "write", "edit", "delete"]
# As the seed judges a delete (its "config" included: removing one breaks what reads it); ".key", not "key", which
# "keyboard.py" holds too.
_SENSITIVE = (".env", "config", "credential", "password", "secret", ".pem", ".key", ".crt", "id_rsa", "token")
_LARGE = 1024 * 1024


class Analyzer:
    """Plans operations under the path policy; reads, never writes."""

    def __init__(
        self, policy: PathPolicy, beneath: Beneath, risk: RiskPolicy, *, max_file_size: int, hooks: HookRunner
    ) -> None:
        self._policy = policy
        self._hooks = hooks
        self._beneath = beneath
        self._risk = risk
        self._max_file_size = max_file_size

    def analyze(
        self,
        operation: Operation,
        user_path: str,
        *,
        content: str | None = None,
        old_text: str | None = None,
        new_text: str | None = None,
    ) -> AnalyzeResult:
        """The risk report of ``operation`` on ``user_path``."""
        # A delete removes a link itself, as delete_file does: one that leads nowhere, or back to itself, is there.
        path = self._policy.resolve_entry(user_path) if operation == "delete" else self._policy.resolve(user_path)
        found = self._status(path, follow=operation != "delete")
        if found is None and leads_through_loop(path, follow=operation != "delete"):
            raise link_loop_error(path)
        exists = found is not None
        base = AnalyzeResult(operation=operation, path=str(path), exists=exists, risk_level="LOW", message="")
        try:  # the tool's own refusal first, as the tool checks it first: a .git, a root, a read-only root
            if operation == "delete":
                self._policy.check_removable(path, "deleted")
            elif operation in ("write", "edit"):
                self._policy.check_writable(path)
        except FsguardError as exc:
            return _refused(base, exc)
        if operation == "delete":
            return self._delete(base, path, found)
        if operation in ("file", "optimize"):
            return self._file(base, path, found)
        if exists:  # its diff shows the file's text: a hook keeping read_file out of it keeps this out too
            event = {
                "tool_name": "analyze_operation",
                "file_path": str(path),
                "operation": f"analyze_operation:{operation}",
            }
            self._hooks.fire("pre", "read", **event)
        data = self._data(path) if exists else None
        if operation == "write":
            if content is None:
                raise InvalidParamsError("analyze_operation(operation='write') needs content: the new file text.")
            return self._write(base, path, data, content)
        if old_text is None or new_text is None:
            raise InvalidParamsError("analyze_operation(operation='edit') needs old_text and new_text.")
        return self._edit(base, path, data, Replacement(old_text, new_text))

    def _edit(self, base: AnalyzeResult, path: Path, data: bytes | None, edit: Replacement) -> AnalyzeResult:
        """An edit as edit_file makes it: refused where it refuses, placed and rated by its planner."""
        if data is None:
            return _refused(base, missing_file(path))
        decoded = decode(data, path)
        try:  # edit_file's own planner: its matches, and the size of the change it reports
            plan = replace(edit, tolerant=False, path=str(path))(decoded.text)
        except FsguardError as exc:
            return base.model_copy(
                update={
                    "risk_level": "HIGH",
                    "risk_factors": [f"the edit cannot be placed: {exc.message.splitlines()[0]}"],
                    "suggestions": [
                        f'Copy old_text exactly from read_file(path="{path}"), adding lines until it matches once.'
                    ],
                }
            )
        try:
            new_bytes = guarded_bytes(plan, decoded, len(data), path, allow_rewrite=False)
            check_replaceable(self._beneath, path)  # its mode, a flag or a read-only mount refuses edit_file's write
        except FsguardError as exc:
            return _refused(base, exc)
        risk = edit_risk(self._risk, decoded.text, plan)
        return self._change(base, path, decoded.text, plan.new_text, risk, [], unchanged=new_bytes == data)

    def _write(self, base: AnalyzeResult, path: Path, data: bytes | None, content: str) -> AnalyzeResult:
        """A write as write_file makes it: the file's encoding and CRLF or CR breaks kept."""
        current = decoded_or_none(data, path)
        try:
            check_payload_size(path, content, self._max_file_size)
            written, _ = written_bytes(content, None, current, path)
            if data is not None and written != data:  # the same bytes are not written again ("unchanged")
                check_replaceable(self._beneath, path)
        except FsguardError as exc:
            return _refused(base, exc)
        before, after = (current.text if current else ""), kept_breaks(content, current)
        changed = max(len(before), len(after)) if not before else abs(len(after) - len(before)) + _span(before, after)
        risk = assess_risk(
            self._risk, file_chars=len(before), chars_changed=changed, occurrences=1, deletes=len(after) < len(before)
        )
        guard = write_guard(existing_size=len(data), new_size=len(written)) if data is not None else None
        factors = [guard.message] if guard else []
        binary = bool(data) and current is None  # its diff reads as a new file's: "@@ -0,0 +1 @@", nothing removed
        if binary:
            factors.append(
                f"replaces a binary file ({len(data or b''):,} bytes) whole: the diff shows only the new text"
            )
        planned = self._change(base, path, before, after, risk, factors, unchanged=written == data, binary=binary)
        return planned if data is not None else self._creation(planned)

    def _status(self, path: Path, *, follow: bool) -> os.stat_result | None:
        """``path``'s status through the pinned walk, None when nothing is there: a directory another process swaps
        for a link to outside the roots is refused on the way, never followed (a plain stat reported the size of a
        file outside)."""
        try:
            with self._beneath.entry(path, follow=follow) as entry:
                return lstat_at(entry)
        except (NotFoundError, NotDirectoryError):
            return None

    def _data(self, path: Path) -> bytes:
        with self._beneath.entry(path) as entry:
            data, _ = read_at(entry, self._max_file_size)
        return data

    @staticmethod
    def _creation(planned: AnalyzeResult) -> AnalyzeResult:
        """A new file overwrites nothing: LOW, not the 100 % change (CRITICAL) its empty "before" would measure."""
        return planned.model_copy(
            update={
                "risk_level": "LOW",
                "risk_factors": ["creates a new file: nothing existing is overwritten"],
                "suggestions": ["write_file creates it, and any missing parent directories."],
            }
        )

    def _change(
        self,
        base: AnalyzeResult,
        path: Path,
        before: str,
        after: str,
        risk: RiskAssessment,
        factors: list[str],
        *,
        unchanged: bool,
        binary: bool = False,
    ) -> AnalyzeResult:
        if unchanged:
            # As the tools do, the same bytes are not written again: no step to undo. Judged from the bytes, not the
            # texts, which can differ where the bytes do not (a leading U+FEFF over a BOM file, LF typed for CRLF).
            return base.model_copy(
                update={
                    "risk_level": RiskLevel.LOW.value,
                    "risk_factors": [],
                    "lines_added": 0,
                    "lines_removed": 0,
                    "preview_diff": None,
                    "suggestions": [
                        "Nothing would change: the file already holds this text, so nothing is written or backed up."
                    ],
                }
            )
        diff = render_diff(self._policy.label(path), before, after, "auto", full_diff=_FULL_DIFF[base.operation])
        # Every call named here runs as written: undo_last without file_path is refused.
        suggestions = [
            f'A backup is taken before the change; undo it with backup(action="undo_last", file_path="{path}").'
        ]
        if binary:  # edit_file edits text only: it refuses this file
            suggestions.insert(
                0, "It is binary, which edit_file refuses: write_file replaces it whole (raw bytes as content_base64)."
            )
        elif risk.level in (RiskLevel.HIGH, RiskLevel.CRITICAL) and base.operation == "write" and base.exists:
            suggestions.insert(0, "Most of the file changes: prefer edit_file for the parts that really change.")
        return base.model_copy(
            update={
                "risk_level": risk.level.value,
                "risk_factors": [*factors, *risk.factors],
                "lines_added": diff.added,
                "lines_removed": diff.removed,
                "preview_diff": diff.text or None,
                "suggestions": suggestions,
            }
        )

    def _delete(self, base: AnalyzeResult, path: Path, found: os.stat_result | None) -> AnalyzeResult:
        if found is None:
            return base.model_copy(update={"risk_factors": ["nothing to delete: the path does not exist"]})
        hidden = 0
        with self._beneath.entry(path, follow=False) as entry:
            # From stats: a SHA-256 of it all took 40 s for a 10 GB file. What a deny rule hides goes to the trash
            # too but is not counted: its size, beside the visible files', would tell what a secret holds.
            if stat.S_ISDIR(found.st_mode) and self._policy.deny.active:
                size, files, hidden = visible_size_and_files(entry, partial(self._hides, path))
            else:
                size, files = size_and_files(entry)
        factors = [f"{plural(files, 'file')}, {plural(size, 'byte')}"]
        if hidden:
            factors.append(f"{hidden} more hidden by deny rules (deleted with it, not counted)")
        level = "MEDIUM"
        if stat.S_ISDIR(found.st_mode):
            level, factors = "HIGH", [*factors, "a whole directory"]
        if size > _LARGE:
            level = "HIGH"
        if any(marker in path.name.lower() for marker in _SENSITIVE):
            level, factors = "CRITICAL", [*factors, "the name suggests configuration, secrets or credentials"]
        recursive = ", recursive=true" if stat.S_ISDIR(found.st_mode) else ""
        # The sd_id restore_trash needs exists only once the delete has run: its result gives it.
        suggestions = [
            f'delete_file(path="{path}"{recursive}) moves it to the trash; backup(action="restore_trash", sd_id=...) '
            'restores it, with the sd_id the delete returns (or one from backup(action="list_trash")).'
        ]
        return base.model_copy(update={"risk_level": level, "risk_factors": factors, "suggestions": suggestions})

    def _hides(self, directory: Path, relative: str, is_dir: bool) -> bool:
        return self._policy.denied_by(directory / relative, is_dir=is_dir) is not None

    def _file(self, base: AnalyzeResult, path: Path, found: os.stat_result | None) -> AnalyzeResult:
        if found is None:
            return base.model_copy(update={"risk_factors": ["the path does not exist"]})
        if stat.S_ISDIR(found.st_mode):
            return base.model_copy(
                update={"risk_factors": ["a directory"], "suggestions": [f'Use list_directory(path="{path}").']}
            )
        if not stat.S_ISREG(found.st_mode):
            return base.model_copy(update={"risk_factors": ["not a regular file (a pipe, socket or device)"]})
        size = found.st_size
        try:
            data = self._data(path)
            if (media := identify(data)) is not None:  # as read_file sees it: not a binary file to read as base64
                shape = f" {media.width}x{media.height}" if media.width is not None else ""
                return base.model_copy(
                    update={
                        "risk_factors": [f"{size:,} bytes, {media.kind}, {media.mime_type}{shape}"],
                        "suggestions": [f'read_file(path="{path}") shows the {media.kind} to you.'],
                    }
                )
            lines = decode(data, path).line_count  # counted as read_file counts: CR and CRLF too
        except FsguardError as exc:
            return base.model_copy(update={"risk_factors": [exc.message.splitlines()[0]]})
        suggestions = ["edit_file changes only the matched span; prefer it to write_file for small changes."]
        if lines > 300:
            suggestions.insert(0, "Over 300 lines: read it in ranges (start_line/end_line) or search it first.")
        return base.model_copy(
            update={"risk_factors": [f"{size:,} bytes, {lines} lines, text"], "suggestions": suggestions}
        )


def _span(before: str, after: str) -> int:
    """Characters between the common prefix and suffix of two texts: the changed region's size. Compared in chunks
    at C speed: character by character, an edit in the middle of a 40 MB file took 13 s to analyze."""
    start = common_prefix_len(before, after)
    end = common_suffix_len(before, after, min(len(before), len(after)) - start)
    return max(len(before), len(after)) - start - end


def _refused(base: AnalyzeResult, exc: FsguardError) -> AnalyzeResult:
    """The plan of an operation the tool refuses: nothing would change, for the reason and code the tool gives."""
    return base.model_copy(
        update={
            "risk_level": "CRITICAL",
            "refused": exc.code,
            "risk_factors": [f"the tool refuses it ({exc.code}): {exc.message}"],
        }
    )


# The closing note of an elided preview: analyze_operation takes no diff_format, so it names a call that shows the
# whole diff. write_file has no dry run: only its backup, once written, can be compared with the file.
_FULL_DIFF = {
    "edit": 'edit_file with the same old_text/new_text and dry_run=true, diff_format="full" shows the complete diff',
    "write": 'write_file has no dry run; after it, backup(action="compare", backup_id=...) shows the complete diff',
}
