"""One pipeline for every edit mode: plan and guard the new text inside the shared write sequence (mutation).

Dry runs walk the same pipeline and stop before the backup, so what they report is what a real run
would do. A failed plan or guard leaves no backup and does not move the undo chain.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from fsguard.core.backups import BackupRecord
from fsguard.core.diff import DiffFormat, DiffResult, render_diff
from fsguard.core.errors import (
    AmbiguousMatchError,
    EncodingError,
    FsguardError,
    NoMatchError,
    RewriteBlockedError,
    TooLargeError,
)
from fsguard.core.hashing import content_hash
from fsguard.core.modes import EditPlan, Planner
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.occ import OccVerdict, stale_read_head
from fsguard.core.risk import (
    Integrity,
    RiskAssessment,
    RiskLevel,
    RiskPolicy,
    assess_risk,
    check_integrity,
    rewrite_guard,
)
from fsguard.core.safeguards import Safeguards
from fsguard.core.structure import StructureChecker
from fsguard.core.textio import DecodedText, decode

_Refusal = TypeVar("_Refusal", bound=FsguardError)


@dataclass(frozen=True, kw_only=True)
class EditOptions:
    """How to carry out an edit, whatever its mode: which tool and mode asked, and the guards to apply."""

    tool: str
    mode: str | None = None
    expected_hash: str | None = None
    dry_run: bool = False
    diff_format: DiffFormat = "auto"
    diff_context: int = 3
    allow_rewrite: bool = False
    # old_text of a replace: a second failure to match the same text adds the REPEATED_OLD_TEXT advice.
    match_text: str | None = None

    @property
    def operation(self) -> str:
        """How backups, hooks and the audit log name it: ``edit_file:replace``, ``multi_edit``."""
        return f"{self.tool}:{self.mode}" if self.mode else self.tool


@dataclass(frozen=True)
class EditReport:
    """What an edit did (or, in a dry run, would do)."""

    path: Path
    mode: str
    plan: EditPlan
    dry_run: bool
    previous_hash: str
    content_hash: str
    total_lines: int
    diff: DiffResult
    risk: RiskAssessment
    backup: BackupRecord | None
    structure_warning: str | None
    integrity: Integrity | None
    verdict: OccVerdict
    verified: bool
    hook_notes: tuple[str, ...] = ()  # what the hooks told the agent (Mutation.hook_notes)


class Editor:
    """Carries out planned edits on files under the path policy."""

    def __init__(self, safeguards: Safeguards, structure: StructureChecker, risk: RiskPolicy) -> None:
        self._safe = safeguards
        self._structure = structure
        self._risk = risk

    def run(self, user_path: str, planner: Planner, options: EditOptions) -> EditReport:
        """Plan and apply one edit to ``user_path``.

        Raises:
            FsguardError: the path, the hash, the plan or a guard refused; nothing was written.
        """
        try:
            return self._apply(user_path, planner, options)
        except TooLargeError as exc:  # the seed's words, which its callers match on
            raise TooLargeError(
                f"file validation failed: file too large for editing: {exc.message}", **exc.fields
            ) from exc

    def _apply(self, user_path: str, planner: Planner, options: EditOptions) -> EditReport:
        path = self._safe.policy.resolve(user_path)
        hook = HookCall("edit", options.tool, options.operation)
        with mutation(self._safe, path, changing=not options.dry_run) as change:  # a dry run leaves the next its check
            data = change.require()
            if options.dry_run:  # its diff shows the file's text, and no pre-edit fires: a read gate does
                change.fire_read(options.tool, f"{options.operation}:dry_run")
            decoded = decode(data, path)
            before_hash = change.current_hash or content_hash(data)  # the mutation's own: hashed once
            verdict = change.check(options.expected_hash)
            try:
                plan = planner(decoded.text)
            except NoMatchError as exc:
                raise _stale_read(self._repeated(path, options, _at(exc, path)), verdict, options) from None
            except AmbiguousMatchError as exc:
                raise _stale_read(_at(exc, path), verdict, options) from None
            except FsguardError as exc:
                raise _at(exc, path) from None
            self._safe.session.matched(path)
            if not options.dry_run:
                substituted = change.fire_pre(hook, over=decoded, old_content=decoded.text, new_content=plan.new_text)
                if substituted is not None:
                    plan = replace(plan, new_text=substituted)
            new_bytes = guarded_bytes(plan, decoded, len(data), path, allow_rewrite=options.allow_rewrite)
            risk = edit_risk(self._risk, decoded.text, plan)
            diff = render_diff(
                self._safe.policy.label(path),
                decoded.text,
                plan.new_text,
                options.diff_format,
                context=options.diff_context,
            )
            structure = self._structure.check(path, decoded.text, plan.new_text)
            report = EditReport(
                path=path,
                mode=options.mode or options.tool,
                plan=plan,
                dry_run=options.dry_run,
                previous_hash=before_hash,
                content_hash=before_hash,
                # The diff counts the lines it adds and removes: no second count over the whole new text.
                total_lines=decoded.line_count + diff.added - diff.removed,
                diff=diff,
                risk=risk,
                backup=None,
                structure_warning=structure,
                integrity=None,
                verdict=verdict,
                verified=False,
                hook_notes=tuple(change.hook_notes),
            )
            if options.dry_run and new_bytes != data:
                change.check_writable()  # the real run's write would refuse it: so does its dry run
            if options.dry_run or new_bytes == data:
                return report
            done = change.commit(new_bytes, replace(hook, metadata={"risk_level": risk.level.value}))
        integrity = None
        if risk.level in (RiskLevel.HIGH, RiskLevel.CRITICAL):
            integrity = check_integrity(new_bytes, lines=report.total_lines, change_pct=risk.change_pct)
        return replace(
            report,
            content_hash=done.content_hash,
            backup=done.backup,
            integrity=integrity,
            verified=done.verified,
            hook_notes=tuple(change.hook_notes),  # the post-hooks' too
        )

    def _repeated(self, path: Path, options: EditOptions, exc: NoMatchError) -> NoMatchError:
        """The no-match error, with the seed's REPEATED_OLD_TEXT advice (catalog §2.2) once the same old_text
        has failed twice on this file: the agent is retyping it from memory."""
        if options.match_text is None or exc.fields.get("already_applied"):
            return exc
        misses = self._safe.session.missed(path, options.match_text)
        if misses < 2:
            return exc
        return NoMatchError(
            f"{exc.message}\n[REPEATED_OLD_TEXT] old_text has failed to match {misses} times on this file. "
            "Stop retyping it: read the lines where the change goes (read_file with start_line/end_line) and "
            "copy them exactly.",
            **exc.fields,
            repeated=misses,
        )


def _at(exc: _Refusal, path: Path) -> _Refusal:
    """A planner's refusal naming the canonical path in its fields (the error's _meta and the audit line), as every
    other refusal of the edit does: its planner was made with the path as typed (``d/../f.txt``, or relative), which
    its message keeps."""
    return type(exc)(exc.message, **{**exc.fields, "path": str(path)})


def _stale_read(
    exc: NoMatchError | AmbiguousMatchError, verdict: OccVerdict, options: EditOptions
) -> NoMatchError | AmbiguousMatchError:
    """The match error, with the one-time STALE_READ hint when the file was not read lately: the seed put it on
    edit_file's and multi_edit's failures too (catalog §2.2), where it matters most, as an old_text typed without
    reading the file is the likeliest not to fit it. The hint is spent either way. A batch or pipeline step's
    error names the step instead, as its successes carry no such hint."""
    if not verdict.stale_read or options.tool not in ("edit_file", "multi_edit"):
        return exc
    hint = f"{stale_read_head(verdict.path)}: read it (or pass expected_hash) first, and quote what it holds."
    first, *report = exc.message.split("\n")
    lines = [first, *report[:-1], hint, *report[-1:]]  # the advice after the report, the next action, stays last
    return type(exc)("\n".join(lines), **{**exc.fields, "stale_read": True})


def guarded_bytes(plan: EditPlan, decoded: DecodedText, size: int, path: Path, *, allow_rewrite: bool) -> bytes:
    """The planned text in the file's own encoding, refused as every edit refuses it (analyze_operation predicts
    with this too, so its plan and the edit cannot part); ``size`` is the file's size in bytes.

    Raises:
        RewriteBlockedError: the replacement looks like a whole file written over a small block.
        EncodingError: the new text has characters the file's encoding cannot store.
    """
    if plan.rewrite is not None and not allow_rewrite:
        refusal = rewrite_guard(file_size=size, old_len=plan.rewrite[0], new_len=plan.rewrite[1])
        if refusal is not None:
            raise RewriteBlockedError(refusal, path=str(path))
    return _encode(decoded, plan.new_text, path)


def edit_risk(policy: RiskPolicy, text: str, plan: EditPlan) -> RiskAssessment:
    """The grade of ``plan`` on ``text``: what an edit reports, and analyze_operation predicts."""
    return assess_risk(
        policy,
        file_chars=len(text),
        chars_changed=plan.chars_changed,
        occurrences=plan.replacements,
        deletes=len(plan.new_text) < len(text),
    )


def _encode(decoded: DecodedText, text: str, path: Path) -> bytes:
    """The edited text in the file's own encoding and BOM.

    Raises:
        EncodingError: the new text has characters the file's encoding cannot store.
    """
    try:
        return decoded.encode(text)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise EncodingError(
            f"{path} is {decoded.encoding} and cannot store {bad!r} from the new text. Nothing was written. "
            "Use characters that encoding has, or rewrite the file as UTF-8 with write_file(encoding='utf-8').",
            path=str(path),
        ) from exc
