"""project_replace: one find/replace across a tree, previewed, risk-gated, backed up file by file.

Literal by default and truly literal (``$``, ``\\`` and ``.`` mean themselves); RE2 regex when asked.
A literal find on one line is looked for with ripgrep first (the walk and text rules of content search, binary files
counted so that they can be named): only the files it names are read and rewritten. A regex, a find holding a line
break, a case-insensitive one past ASCII, or a missing ripgrep reads every file of the walk. UTF-32 files, binary
to ripgrep and to search, are found only by the full walk.
VCS directories, gitignored paths, binaries and files above --max-file-size are skipped, and unless
``include_dependencies`` the search's default skips too: dependency, cache and build directories and minified
files (:data:`fsguard.core.ignore.DEPENDENCY_DIRS`, ``*.min.*``, ``*.map``), which the report lists. Every
changed file gets its own backup on its own undo chain, so undo_last works per file afterwards.
A cancelled run stops between files, or before the file whose lock it waits for: each file holds either its old or
its new bytes, and the files changed before the cancellation stay changed (backed up, and saved as one group).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NamedTuple

from fsguard.core.attributes import check_writable
from fsguard.core.beneath import lstat_at
from fsguard.core.confirmation import plural
from fsguard.core.denial import HiddenFiles
from fsguard.core.dirsync import directory_syncs_batched
from fsguard.core.disk import read_at
from fsguard.core.errors import (
    AccessDeniedError,
    BinaryFileError,
    ExternalChangeError,
    FsguardError,
    InvalidParamsError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    ReadOnlyFilesystemError,
    RiskBlockedError,
    TooLargeError,
)
from fsguard.core.globs import left_in
from fsguard.core.groups import Change, Group, GroupStore
from fsguard.core.growth import results_up_to
from fsguard.core.hashing import content_hash
from fsguard.core.haystack import transcoded
from fsguard.core.hookfilter import gate_reads
from fsguard.core.ignore import WalkOptions, excluded_by_gitignore, normalise_globs, walk_files
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.occ import OccVerdict
from fsguard.core.oserrors import check_readable
from fsguard.core.pins import Pins
from fsguard.core.query import prepare_query
from fsguard.core.replacerefusals import CHANGED_MEANWHILE, name_changed, refuse_if_none_replaced, relative
from fsguard.core.replacetext import KeptEndings, Substitute, check_hook_text, check_new_text, rg_literal, substitution
from fsguard.core.rgprocess import RipgrepFailed
from fsguard.core.ripgrep import Limits, ripgrep_hits, ripgrep_path
from fsguard.core.risk import EDIT_SCALE, RiskLevel, graded
from fsguard.core.safeguards import Safeguards
from fsguard.core.sidewalk import walk_beside
from fsguard.core.skips import Skips
from fsguard.core.textio import decode

Progress = Callable[[int, int], None]
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FileChange:
    """One file's replacements."""

    path: Path
    replacements: int
    backup_id: str | None = None
    skipped: str | None = None
    content_hash: str | None = None  # what the file holds after the replace
    verdict: OccVerdict | None = None  # set when the file changed on disk since this session saw it (--auto-occ warn)
    notes: tuple[str, ...] = ()  # what the write and the hooks told the agent (Mutation.hook_notes)


@dataclass(frozen=True)
class ReplaceReport:
    """What project_replace did, or would do."""

    status: str  # "applied" or "preview"
    files: tuple[FileChange, ...]
    total_replacements: int
    risk_level: RiskLevel
    files_scanned: int
    group_id: str | None = None  # one id restoring every changed file: backup(action="restore", backup_id=...)
    skipped: tuple[str, ...] = ()  # what the default skips left out, relative to the path (directories end in /)
    too_large: tuple[str, ...] = ()  # files above --max-file-size, relative to the path
    binary: tuple[str, ...] = ()  # binary or undecodable files holding the find text, relative to the path
    unreadable: tuple[str, ...] = ()  # directories the user may not list or enter, never walked (each ends in /)
    endings_kept: tuple[str, ...] = ()  # files holding find that replace retypes in line breaks alone: left as they are
    excluded_by_gitignore: bool = False  # nothing planned, the path itself being excluded by a .gitignore
    more_files: bool = False  # a file past max_files holds the find text too (left alone)


@dataclass(frozen=True, kw_only=True)
class ReplaceRequest:
    """One project_replace call: what to replace, where, and how carefully."""

    path: str
    find: str
    replace: str
    literal: bool = True
    case_sensitive: bool = True
    file_types: tuple[str, ...] = ()
    include_paths: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    preview: bool = False
    max_files: int = 1000
    force: bool = False
    respect_gitignore: bool = True
    include_dependencies: bool = False


class ProjectReplacer:
    """Find and replace across the files under a directory."""

    def __init__(self, safeguards: Safeguards, groups: GroupStore) -> None:
        self._safe = safeguards
        self._groups = groups

    def run(
        self, request: ReplaceRequest, progress: Progress | None = None, *, waiting: Callable[[], None] | None = None
    ) -> ReplaceReport:
        """Replace ``request.find`` in every matching file (at most ``max_files`` changed files).

        ``progress`` gets (files done, files planned) between files and may raise to cancel: the files before are
        whole and backed up, as when cancelled at a file's lock (it and the later files untouched). ``waiting`` is
        called every 0.1 s while ripgrep looks for the files holding ``find``, and may raise to stop it.

        Raises:
            InvalidParamsError: empty find, or an invalid regex.
            ExternalChangeError: --auto-occ block, and a file to change changed on disk since this session saw
                it; nothing was written (a preview is refused too, as edit_file's dry run is).
            ReadOnlyError: path, or a file to change, lies in a read-only root; nothing was written (a preview is
                refused too).
            RiskBlockedError: a HIGH or CRITICAL change without ``force``; nothing was written.
            EncodingError, TooLargeError: a file to change is in an encoding that cannot store its new text, or
                would be above --max-file-size; nothing was written (a preview is refused too).
        """
        if not request.find:
            raise InvalidParamsError("find is empty: pass the text to replace (or, with literal=false, an RE2 regex).")
        substitute = substitution(
            request.find, request.replace, literal=request.literal, case_sensitive=request.case_sensitive
        )
        base = self._safe.policy.resolve(request.path)
        self._safe.policy.check_not_read_only(base)
        options = WalkOptions(
            respect_gitignore=request.respect_gitignore,
            globs=normalise_globs(list(request.file_types)),
            max_file_size=self._safe.max_file_size,
            rules_from=self._safe.policy.root_of(base),
            skip_dependencies=not request.include_dependencies,
            skip_minified=not request.include_dependencies,
        )
        included, excluded = request.include_paths, request.exclude_paths
        planned: list[_Plan] = []
        scanned = 0
        skips = Skips()
        binary: list[Path] = []
        grown: list[Path] = []  # above the size limit when read: the file asked for, or one that grew since the walk
        unchanged = KeptEndings.of(request.find, request.replace, request.literal, request.case_sensitive)
        more = False
        one = base.is_file()
        if one:
            check_readable(base)
        hide = self._safe.policy.hidden_files()
        # A file a deny rule hides is never read, never changed (the path asked for was judged by resolve).
        files = [base] if one else self._candidates(base, request, options, skips, waiting, hide)
        with Pins(self._safe.beneath) as pins:
            for path in files:
                scanned += 1
                if not left_in(path, base, included, excluded):
                    continue
                plan = self._plan(pins, path, substitute, binary, grown, unchanged)
                if plan is not None:
                    if len(planned) >= request.max_files:
                        more = True  # one file past the cap holds the find text: the answer must say so
                        break
                    planned.append(plan)
        writable = [plan for plan in planned if plan.left_alone is None]
        external = self._safe.guard.check_all((plan.path, plan.planned_hash) for plan in writable)
        total = sum(plan.count for plan in writable)
        risk = graded(EDIT_SCALE, len(writable), total)
        # The walk found the skips by name: only those the pinned walk finds too are reported.
        asked = skips.left_in(base, included, excluded)
        kept = asked.standing(self._safe.beneath, base, above=self._safe.max_file_size, hide=hide)
        grown_names = [relative(path, base) for path in grown]
        too_large = [*kept.too_large, *(name for name in grown_names if name not in kept.too_large)]
        binaries = tuple(relative(path, base) for path in binary)
        endings_kept = tuple(relative(path, base) for path in unchanged.paths)
        seen = _Seen(tuple(kept.by_default), tuple(too_large), binaries, tuple(kept.unreadable), endings_kept)
        ignored = not planned and base.is_dir() and excluded_by_gitignore(base, options)
        # A read-only root nested below path refuses the whole run before any write, and so its preview.
        list(map(self._safe.policy.check_writable, (plan.path for plan in planned)))
        if request.preview:  # it names each file holding the text: a path-glob pre-read hook may keep one out
            gate_reads(self._safe.hooks, (plan.path for plan in planned), "project_replace:preview", base)
            changes = tuple(
                FileChange(plan.path, 0, skipped=f"{plan.left_alone}; it would be left as it is")
                if plan.left_alone
                else FileChange(plan.path, plan.count, verdict=external.get(plan.path))
                for plan in planned
            )
            return ReplaceReport(
                "preview", changes, total, risk, scanned, None, *seen, excluded_by_gitignore=ignored, more_files=more
            )
        if risk in (RiskLevel.HIGH, RiskLevel.CRITICAL) and not request.force:
            raise RiskBlockedError(
                f"project_replace would change {plural(len(writable), 'file')}, {plural(total, 'occurrence')}: "
                f"risk {risk.value}. "
                "Nothing was written. Run it with preview=true to see every file, narrow it with "
                "file_types/exclude_paths, or pass force=true (each file is backed up and undoable).",
                files=len(writable),
                occurrences=total,
                risk_level=risk.value,
            )
        done, group = self._apply_all(planned, external, progress, base)
        refuse_if_none_replaced(done)
        total = sum(c.replacements for c in done)
        applied = (tuple(done), total, risk, scanned, group.group_id if group else None)
        return ReplaceReport("applied", *applied, *seen, excluded_by_gitignore=ignored, more_files=more)

    def _apply_all(
        self, planned: list[_Plan], external: dict[Path, OccVerdict], progress: Progress | None, base: Path
    ) -> tuple[list[FileChange], Group | None]:
        """Change the planned files one at a time, in order; what changed, and its group."""
        done: list[FileChange] = []
        try:
            with directory_syncs_batched():  # one fsync per directory, not per file
                for number, plan in enumerate(planned, 1):
                    if plan.left_alone:  # as its preview named it: the write would be refused
                        done.append(FileChange(plan.path, 0, skipped=f"{plan.left_alone}; left as it was"))
                    else:
                        with self._safe.locks.step():  # cancelled while it waits for this file's lock: stops before it
                            done.append(self._apply(plan, external.get(plan.path)))
                    if progress is not None:
                        progress(number, len(planned))  # may raise to cancel: the files before are whole, backed up
        except FsguardError as exc:  # a full disk mid-run, say: the files changed before it stay changed
            name_changed(exc, done, len(planned), self._save_group(done), base)
            raise
        except BaseException:  # a cancelled run still gets its group: the files it changed are restorable as one
            self._save_group(done)
            raise
        return done, self._save_group(done)

    def _save_group(self, done: list[FileChange]) -> Group | None:
        """The group of the files changed so far; None when it cannot be saved (a full disk)."""
        changes = (Change.modified(c.path, c.backup_id, c.content_hash) for c in done if c.content_hash is not None)
        return self._groups.save("project_replace", changes)

    def _candidates(
        self,
        base: Path,
        request: ReplaceRequest,
        options: WalkOptions,
        skips: Skips,
        waiting: Callable[[], None] | None,
        hide: HiddenFiles | None,
    ) -> Iterable[Path]:
        """The files that may hold ``find``, in walk order, none that ``hide`` hides: those ripgrep finds it in
        (binary ones too, to be reported), or, without it, for a find it may read otherwise or by a ``.gitignore``
        it reads otherwise than git (:mod:`fsguard.core.sidewalk`), every file of the walk. ``skips`` get default
        skips, files too large and directories the user may not list or enter."""
        skipped, large, unreadable = skips.by_default, skips.too_large, skips.unreadable
        rg = ripgrep_path()
        find = request.find
        plain = request.literal and "\n" not in find and "\r" not in find
        if rg is None or not plain or not (request.case_sensitive or find.isascii()):
            return _shown(walk_files(base, options, skipped, large, unreadable=unreadable), hide)
        query = prepare_query(*rg_literal(find, request.case_sensitive), request.case_sensitive, False)
        try:  # the walk beside runs while rg counts
            hits = ripgrep_hits(
                rg, base, query, options, Limits(0, 0, None), progress=_ticks(waiting), beneath=self._safe.beneath,
                binary=True, hide=hide,
                meanwhile=partial(walk_beside, base, options, skipped, large, unreadable=unreadable),
            )  # fmt: skip
        except RipgrepFailed as exc:
            logger.warning("ripgrep failed (%s); project_replace reads every file of the walk", exc)
            skips.clear()  # the walk finds them again
            return _shown(walk_files(base, options, skipped, large, unreadable=unreadable), hide)
        return [Path(hit[0]) for hit in hits]

    def _plan(
        self, pins: Pins, path: Path, substitute: Substitute, binary: list[Path], large: list[Path], same: KeptEndings
    ) -> _Plan | None:
        try:  # a walk lists regular files: one a link took the place of is not followed, not read
            entry = pins.entry(path)
            data, seen = read_at(entry, self._safe.max_file_size)
        except TooLargeError:
            large.append(path)  # never touched, but named
            return None
        except FsguardError:
            return None  # vanished since the walk: never touched
        try:
            decoded = decode(data, path)
        except FsguardError:  # binary or undecodable: never touched, named if it holds the find text as search reads it
            if substitute(transcoded(data).decode("utf-8", "replace"))[1]:
                binary.append(path)
            return None
        with results_up_to(self._safe.max_file_size, path):
            new_text, count = substitute(decoded.text)
        if count == 0 or new_text == decoded.text:
            if count:
                same.note(path, decoded.text)
            return None
        found = seen or lstat_at(entry)
        try:  # the write's own check, so that a preview names the files the run leaves alone
            if found is not None:
                check_writable(entry, found)
        except (AccessDeniedError, ReadOnlyFilesystemError) as exc:
            return _Plan(path, new_text, content_hash(data), count, f"{exc.code}, the server may not write it")
        check_new_text(decoded, new_text, path, self._safe.max_file_size)
        return _Plan(path, new_text, content_hash(data), count)

    def _apply(self, plan: _Plan, verdict: OccVerdict | None) -> FileChange:
        path = plan.path
        hook = HookCall("edit", "project_replace", "project_replace", {"replacements": plan.count})
        try:
            with mutation(self._safe, path) as change:
                current = change.require()
                if change.current_hash != plan.planned_hash:
                    return FileChange(path, 0, skipped=CHANGED_MEANWHILE)
                decoded = decode(current, path)
                new_text = (
                    change.fire_pre(hook, over=decoded, old_content=decoded.text, new_content=plan.new_text)
                    or plan.new_text
                )
                if new_text is not plan.new_text:  # a pre-edit hook's text, which the plan never saw
                    check_hook_text(decoded, new_text, path, self._safe.max_file_size)
                done = change.commit(decoded.encode(new_text), hook)
        except ExternalChangeError:  # written to by another program while the new bytes were being written
            return FileChange(path, 0, skipped=CHANGED_MEANWHILE)
        except _TAKEN_AWAY as exc:  # since the plan: gone, a link, a directory, a pipe, or above the size limit
            return FileChange(path, 0, skipped=f"{exc.code} during the replace; left as it was")
        backup_id = done.backup.backup_id if done.backup else None
        return FileChange(
            path,
            plan.count,
            backup_id=backup_id,
            content_hash=done.content_hash,
            verdict=verdict,
            notes=tuple(change.hook_notes),
        )


def _shown(files: Iterable[Path], hide: HiddenFiles | None) -> Iterable[Path]:
    """``files`` less those ``hide`` hides, one at a time as the walk yields them (a walk may hold 200,000)."""
    return files if hide is None else (path for path in files if not hide(str(path)))


_TAKEN_AWAY = (NotFoundError, AccessDeniedError, NotDirectoryError, IsDirectoryError, BinaryFileError, TooLargeError)


class _Seen(NamedTuple):
    """What a run left out: default skips, files above the size limit, binary files holding the find text,
    directories the user may not list or enter, files whose line breaks alone the replacement retypes."""

    skipped: tuple[str, ...]
    too_large: tuple[str, ...]
    binary: tuple[str, ...]
    unreadable: tuple[str, ...]
    endings_kept: tuple[str, ...]


def _ticks(waiting: Callable[[], None] | None) -> Callable[[int], None] | None:
    """rg's progress (its rounds), as calls of ``waiting``: a replace reports its files done, not rg's."""
    if waiting is None:
        return None
    return lambda _rounds: waiting()


@dataclass(frozen=True)
class _Plan:
    path: Path
    new_text: str
    planned_hash: str
    count: int
    left_alone: str | None = None  # why the file may not be written: it is skipped, named, never tried
