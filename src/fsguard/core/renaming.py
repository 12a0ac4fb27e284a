"""Batch rename: one rule applied to the names of the files in a directory, all or nothing.

Only regular files are renamed (listed pinned by fd, links never followed); ``recursive`` enters subdirectories
except hidden and VCS ones; a hidden file is selected only by a ``file_pattern`` starting with ``.``, as in a
shell. Files go in byte-wise order of their relative paths (number_files' order). Each new name must pass the
path policy, no two files may get one name, and no new name may exist already, even one the same set renames
away: a chain or swap would hang on the order of the moves, and a crash half-way would leave it tangled (do it
in two passes). Any conflict refuses the whole set before anything moves; a preview lists all of them.
Each rename is a no-clobber :meth:`Mover.move` (locks, pinning, move hooks); the renames done are one change
group; if one fails, those done are moved back, and so does the next start after a kill mid-set (its run record,
:mod:`fsguard.core.runs`). A cancelled set stops before the rename whose locks it waits for, and those done stay, as
the group.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePath
from typing import Literal

from fsguard.core.confirmation import plural
from fsguard.core.errors import BatchFailedError, FsguardError, InvalidParamsError, NotDirectoryError
from fsguard.core.globs import fnmatch_spelling
from fsguard.core.gotemplate import expand_go_template
from fsguard.core.groups import Change
from fsguard.core.ignore import VCS_DIRS, check_directory
from fsguard.core.moving import Mover
from fsguard.core.oserrors import from_os_error
from fsguard.core.patterns import compile_re2, go_substituted
from fsguard.core.renameconflicts import NameConflict, refusal
from fsguard.core.reverting import Reverter
from fsguard.core.runs import RunRecord, RunRecords
from fsguard.core.safeguards import Safeguards

OPERATION = "batch_rename"
MAX_RENAMES = 10_000
MAX_PADDING = 12

# Each mode with the fields it needs and what they are, for the "'x' is required for mode" messages.
MODES: dict[str, dict[str, str]] = {
    "find_replace": {"find": "the text to look for in each name", "replace": 'its replacement ("" removes it)'},
    "add_prefix": {"prefix": "the text put before each name"},
    "add_suffix": {"suffix": "the text put before each extension"},
    "number_files": {},
    "regex_rename": {"pattern": "an RE2 regex matched on each name", "replacement": "the new text ($1 for groups)"},
    "change_extension": {"extension": 'the new extension, e.g. "jpg" ("" removes it)'},
    "to_lowercase": {},
    "to_uppercase": {},
}
Rule = Callable[[str, int], str]  # (current name, position in the set) -> new name
_BACKSLASH_GROUP = re.compile(r"\\(\d+)|\\g<(\w+)>")


@dataclass(frozen=True, kw_only=True)
class RenameRequest:
    """One rename set: which files (path, file_pattern, recursive) and the rule (mode and its fields)."""

    path: str
    mode: str
    find: str | None = None
    replace: str | None = None
    prefix: str | None = None
    suffix: str | None = None
    pattern: str | None = None
    replacement: str | None = None
    extension: str | None = None
    start_number: int = 1
    padding: int = 3  # 001_a.txt: names sort in number order up to 999 files
    recursive: bool = False
    file_pattern: str = "*"
    preview: bool = False
    case_sensitive: bool | None = None  # None: find_replace ignores case (as the seed did), regex_rename does not

    def problems(self) -> list[tuple[str, str]]:
        """Every (field, problem) of this request; empty when it can run."""
        if self.mode not in MODES:
            close = _closest_mode(self.mode)
            hint = f" (did you mean {close!r}?)" if close else ""
            return [("mode", f"invalid mode {self.mode!r}{hint}. Valid modes: {', '.join(MODES)}.")]
        found = [
            (name, f"{name!r} is required for {self.mode}: {meaning}.")
            for name, meaning in MODES[self.mode].items()
            if getattr(self, name) is None
        ]
        for name in ("replace", "prefix", "suffix", "extension", "file_pattern"):
            used = name in MODES[self.mode] or name == "file_pattern"
            if used and "/" in (getattr(self, name) or ""):
                found.append((name, f"{name!r} contains '/': a rename keeps each file in its own directory."))
        if self.mode == "find_replace" and self.find == "":
            found.append(("find", "'find' is empty: pass the text to replace in each name."))
        if not self.file_pattern:
            found.append(("file_pattern", "'file_pattern' is empty: pass a glob such as '*.jpg', or leave it out."))
        if self.start_number < 0:
            found.append(("start_number", f"'start_number' is {self.start_number}: use 0 or more."))
        if not 0 <= self.padding <= MAX_PADDING:
            found.append(("padding", f"'padding' is {self.padding}: use 0 to {MAX_PADDING} digits."))
        return found


@dataclass(frozen=True)
class PlannedRename:
    """One file and the name the rule gives it."""

    source: Path
    name: str

    @property
    def target(self) -> Path:
        return self.source.parent / self.name

    @property
    def shown_target(self) -> str:
        """The target as text, also when the name is not a valid one (empty, with '/')."""
        return f"{self.source.parent}/{self.name}"


@dataclass(frozen=True)
class RenameReport:
    """What a rename set did or would do."""

    status: Literal["preview", "applied"]
    directory: Path
    renames: tuple[PlannedRename, ...]
    conflicts: tuple[NameConflict, ...]
    group_id: str | None = None  # backup(action="restore", backup_id=...) moves every name back


class Renamer:
    """Plans and runs rename sets."""

    def __init__(self, safeguards: Safeguards, mover: Mover, reverter: Reverter, runs: RunRecords) -> None:
        self._safe = safeguards
        self._mover = mover
        self._reverter = reverter
        self._runs = runs  # a set the server is killed in the middle of is rolled back at the next start

    def run(self, request: RenameRequest) -> RenameReport:
        """Preview the set, or run it whole.

        Raises:
            InvalidParamsError: a bad request, or a set larger than MAX_RENAMES.
            NotFoundError, NotDirectoryError: ``path`` is not a directory.
            ReadOnlyError, AccessDeniedError: a file or its new name lies in a read-only root or a ``.git``; nothing
                was renamed (a preview is refused too, as the run would be).
            ConflictError: (not in preview) some conflict; nothing was renamed. ``conflicts`` lists them.
            BatchFailedError: a rename failed; those done were moved back (see ``rolled_back``).
        """
        problems = request.problems()
        if problems:
            raise InvalidParamsError("; ".join(problem for _, problem in problems))
        directory = self._safe.policy.resolve(request.path)
        try:
            check_directory(directory)
        except NotDirectoryError as exc:
            hint = f"{directory} is a file: path is the directory holding the files (pick them with file_pattern)."
            raise NotDirectoryError(hint, path=str(directory)) from exc
        rule = rule_for(request)
        renames = []
        for index, source in enumerate(self._files(directory, request)):
            name = rule(source.name, index)
            if name != source.name:
                renames.append(PlannedRename(source, name))
        if len(renames) > MAX_RENAMES:
            raise InvalidParamsError(
                f"the rule renames {len(renames):,} files, more than {MAX_RENAMES:,} in one set. "
                "Narrow it with file_pattern, or rename one subdirectory at a time."
            )
        conflicts = self._conflicts(renames)
        for plan in renames:  # a read-only root refuses the whole set before anything moves, and so its preview
            self._safe.policy.check_writable(plan.source)
            self._safe.policy.check_writable(plan.target)
        if request.preview:
            return RenameReport("preview", directory, tuple(renames), tuple(conflicts))
        if conflicts:
            raise refusal(conflicts, len(renames))
        with self._runs.run("batch_operations", OPERATION, atomic=True) as record:
            group_id = self._apply(renames, record)
        return RenameReport("applied", directory, tuple(renames), (), group_id)

    def _files(self, directory: Path, request: RenameRequest) -> list[Path]:
        """The candidate files, in byte-wise order of their relative paths."""
        found: list[Path] = []
        pending = [directory]
        while pending:
            current = pending.pop()
            try:
                with self._safe.beneath.directory(current) as fd, os.scandir(fd) as entries:
                    for entry in entries:
                        if entry.is_dir(follow_symlinks=False):
                            if request.recursive and not entry.name.startswith(".") and entry.name not in VCS_DIRS:
                                pending.append(current / entry.name)
                        elif entry.is_file(follow_symlinks=False) and _selected(entry.name, request.file_pattern):
                            found.append(current / entry.name)
            except OSError as exc:
                raise from_os_error(exc, current) from exc
        found = [path for path in found if self._safe.policy.denied_by(path) is None]  # invisible, so never renamed
        return sorted(found, key=lambda path: [os.fsencode(part) for part in path.relative_to(directory).parts])

    def _conflicts(self, renames: list[PlannedRename]) -> list[NameConflict]:
        found: list[NameConflict] = []
        by_target: dict[Path, list[PlannedRename]] = {}
        for plan in renames:
            problem = self._invalid(plan)
            if problem is None:
                by_target.setdefault(plan.target, []).append(plan)
            else:
                found.append(NameConflict("invalid_name", plan.shown_target, (str(plan.source),), problem))
        renamed_away = {plan.source for plan in renames}
        for target, plans in by_target.items():
            sources = tuple(str(plan.source) for plan in plans)
            if len(plans) > 1:
                reason = f"{len(plans)} files would get this name"
                found.append(NameConflict("same_target", str(target), sources, reason))
            elif target in renamed_away:
                reason = "this name is taken by a file the same set renames (a chain or swap): rename in two passes"
                found.append(NameConflict("target_exists", str(target), sources, reason))
            elif target.exists() or target.is_symlink():
                reason = "a directory with this name exists" if target.is_dir() else "a file with this name exists"
                found.append(NameConflict("target_exists", str(target), sources, reason))
        return found

    def _invalid(self, plan: PlannedRename) -> str | None:
        """Why the new name cannot be used, or None."""
        name = plan.name
        if name in ("", ".", ".."):
            return f"the rule makes the name {name!r}, which cannot name a file"
        if "/" in name or "\0" in name:
            return f"the new name {name!r} contains '/' or NUL, which a file name cannot"
        for path, which in ((plan.source, "current"), (plan.target, "new")):
            try:
                # exact: a computed name is used as made ("xy "), never as a typed path is forgiven ("xy")
                self._safe.policy.resolve_entry(str(path), exact=True)
            except FsguardError as exc:
                return f"the path policy refuses the {which} name: {exc.message}"
        return None

    def _apply(self, renames: list[PlannedRename], record: RunRecord) -> str | None:
        done: list[Change] = []
        try:
            for plan in renames:
                with self._safe.locks.step():  # cancelled while it waits for this rename's locks: stops before it
                    moved = self._mover.move(
                        str(plan.source), str(plan.target), tool="batch_operations", exact=True, fingerprinted=True
                    )
                done.append(
                    Change("moved", str(moved.destination), source=str(moved.source), after_hash=moved.fingerprint)
                )
                record.changed(done[-1:])
        except FsguardError as exc:
            raise self._roll_back(renames, done, exc, record) from exc
        except BaseException:
            record.save(done)  # an unexpected stop: what was renamed stays restorable as one
            raise
        group = record.save(done)
        return group.group_id if group else None

    def _roll_back(
        self, renames: list[PlannedRename], done: list[Change], exc: FsguardError, record: RunRecord
    ) -> BatchFailedError:
        """Move back the renames done (newest first, never clobbering); the error says what came back."""
        index = len(done)
        failed = renames[index]
        outcomes = self._reverter.revert(done, force=True, rollback=True)
        back = [o.change for o in outcomes if o.status in ("reverted", "already")]
        stayed = [o for o in reversed(outcomes) if o.status not in ("reverted", "already")]
        group = record.save([o.change for o in stayed])
        attempt = (
            f"rename {index + 1} of {len(renames)} ({failed.source.name} → {failed.name} in {failed.source.parent})"
        )
        undone = (
            f"The {plural(len(back), 'rename')} done before it {'was' if len(back) == 1 else 'were'} moved back: "
            "every name is as before. "
            "Fix the cause (or narrow file_pattern), then rerun the set."
        )
        if stayed:
            listed = "; ".join(f"{o.change.path} ({o.error_code or o.status})" for o in stayed)
            back_how = (
                f"backup(action='restore', backup_id='{group.group_id}') moves those back"
                if group is not None
                else "move_file moves those back (their group could not be saved)"
            )
            undone = (
                f"Moved back {len(back)} of {plural(len(done), 'rename')} done; NOT moved back: {listed}. Once the "
                f"cause is fixed, {back_how}."
            )
        return BatchFailedError(
            f"{attempt} failed: {exc.message} {undone}",
            failed_index=index,
            failed_id=str(failed.source),
            error_code=exc.code,
            rolled_back=[change.source for change in back],
            not_rolled_back=[f"{o.change.path}: {o.detail or o.status}" for o in stayed],
            backup_id=group.group_id if group else None,
        )


def rule_for(request: RenameRequest) -> Rule:
    """The request's mode as a function from a name (and its position in the set) to the new name."""
    match request.mode:
        case "find_replace":
            replace = request.replace or ""
            found = re.compile(re.escape(request.find or ""), 0 if request.case_sensitive else re.IGNORECASE)
            return lambda name, _index: found.sub(lambda _match: replace, name)
        case "regex_rename":
            sensitive = request.case_sensitive is not False
            compiled = compile_re2(request.pattern or "", case_sensitive=sensitive, what="pattern", advice=" (RE2).")
            # \1 and \g<name> (Python's spelling, which models often use) mean what $1 and ${name} mean.
            template = _BACKSLASH_GROUP.sub(
                lambda m: "${" + (m.group(1) or m.group(2)) + "}", request.replacement or ""
            )

            def renamed(name: str, _index: int) -> str:
                try:
                    return go_substituted(compiled, name, lambda match: expand_go_template(template, match))[0]
                except UnicodeEncodeError:  # RE2 takes UTF-8 only: a name that is not UTF-8 keeps its bytes
                    return name

            return renamed
        case "add_prefix":
            return lambda name, _index: f"{request.prefix or ''}{name}"
        case "add_suffix":
            return lambda name, _index: "{0}{suffix}{1}".format(*split_extension(name), suffix=request.suffix or "")
        case "number_files":
            return lambda name, index: f"{request.start_number + index:0{request.padding}d}_{name}"
        case "change_extension":
            extension = (request.extension or "").lstrip(".")
            return lambda name, _index: split_extension(name)[0] + (f".{extension}" if extension else "")
        case "to_lowercase":
            return lambda name, _index: name.lower()
        case "to_uppercase":
            return lambda name, _index: name.upper()
    raise InvalidParamsError(f"invalid mode {request.mode!r}. Valid modes: {', '.join(MODES)}.")


def split_extension(name: str) -> tuple[str, str]:
    """``report.txt`` → (``report``, ``.txt``); a dotfile such as ``.env`` has no extension."""
    suffix = PurePath(name).suffix
    return (name[: -len(suffix)], suffix) if suffix else (name, "")


def _closest_mode(given: str) -> str | None:
    """The mode a wrong one probably meant: one containing it ("lower"), else the most similar spelling."""
    wanted = given.strip().lower().replace("-", "_").replace(" ", "_")
    containing = [mode for mode in MODES if wanted and wanted in mode]
    if len(containing) == 1:
        return containing[0]
    close = difflib.get_close_matches(wanted, list(MODES), n=1, cutoff=0.5)
    return close[0] if close else None


def _selected(name: str, file_pattern: str) -> bool:
    """A glob on the name (``*``, ``?``, ``[ab]``) or the literal name; hidden files only by a pattern starting '.'."""
    if name.startswith(".") and not file_pattern.startswith("."):
        return False
    return name == file_pattern or fnmatchcase(name, fnmatch_spelling(file_pattern))
