"""Moving lines between files, and appending to one: the batch's extract and write-with-append.

Both files of an extract go through the write sequence (:func:`mutation`): locked in one global order,
pinned, backed up, written atomically, read back. The lines keep their bytes: a new destination gets the
source's encoding, BOM and line endings; an existing one (``append``) keeps its own encoding and gets the
lines with the source's line endings, on a line of their own. Every pre-hook fires before either file is
written, so a refusal leaves both as they were.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.charsets import text_codec
from fsguard.core.confirmation import plural
from fsguard.core.errors import (
    AlreadyExistsError,
    EncodingError,
    InvalidParamsError,
    NotDirectoryError,
)
from fsguard.core.groups import Change, ChangeLog
from fsguard.core.mutation import Commit, HookCall, Mutation, mutation
from fsguard.core.occ import OccVerdict
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import DecodedText, decode, first_break, kept_breaks, split_lines, whole_file, written_bom


@dataclass(frozen=True)
class Extracted:
    """What an extract did: the lines' size in the source's encoding, and both files after it."""

    bytes_moved: int
    lines: int
    source: Commit
    destination: Commit
    verdict: OccVerdict  # the source's


def extract_lines(
    safe: Safeguards,
    source: Path,
    destination: Path,
    lines: tuple[int, int],
    *,
    append: bool,
    expected_hash: str | None,
    tool: str,
    done: ChangeLog,
) -> Extracted:
    """Move lines ``lines[0]..lines[1]`` (1-based, inclusive; an end past the file means its last line).

    The destination is written first and logged in ``done`` at once, so a failure writing the source
    leaves a change the caller can roll back.

    Raises:
        InvalidParamsError: the range starts past the end of the source.
        AlreadyExistsError: the destination exists and ``append`` is false.
        FsguardError: a hash, hook, encoding or the filesystem refused.
    """
    start, end = lines
    if source == destination:
        raise InvalidParamsError(f"extract needs another file as destination than its source {source}.")
    with _both(safe, source, destination) as (from_file, to_file):
        data = from_file.require()
        verdict = from_file.check(expected_hash)
        decoded = decode(data, source)
        numbered = split_lines(decoded.text)
        if start > len(numbered):
            raise InvalidParamsError(
                f"start_line {start} is past the end of {source} ({plural(len(numbered), 'line')}). Read it again.",
                path=str(source),
                start_line=start,
            )
        last = min(end, len(numbered))
        block = "".join(numbered[start - 1 : last])
        rest = "".join(numbered[: start - 1] + numbered[last:])
        if to_file.current is not None and not append:
            raise AlreadyExistsError(
                f"{destination} already exists: pass append: true to add the lines at its end, or choose a new file.",
                path=str(destination),
            )
        operation = f"{tool}:extract"
        write_hook = HookCall("write", tool, operation, {"source_path": str(source)})
        edit_hook = HookCall("edit", tool, operation, {"dest_path": str(destination)})
        target = _appended(to_file, block, new_file=decoded, as_lines=True)
        rest = from_file.fire_pre(edit_hook, over=decoded, old_content=decoded.text, new_content=rest) or rest
        target = _substituted(to_file, write_hook, target)
        written = to_file.commit(_encoded(target, to_file, decoded), write_hook, make_parents=True)
        done.add(_change(to_file, written))
        removed = from_file.commit(_encoded(rest, from_file, decoded), edit_hook)
        done.add(_change(from_file, removed))
    return Extracted(len(block.encode(decoded.encoding)), last - start + 1, removed, written, verdict)


@dataclass(frozen=True)
class Appended:
    """What an append did; ``unchanged`` when there was nothing to add to an existing file."""

    path: Path
    created: bool
    unchanged: bool
    size: int  # bytes on disk after the append
    added: int | None  # bytes the append added (the line break it started with included); None when rewritten
    content_hash: str
    verified: bool
    previous_hash: str | None
    backup: BackupRecord | None
    verdict: OccVerdict
    encoding: str
    line_break_added: bool
    hook_notes: tuple[str, ...] = ()  # what the hooks told the agent (Mutation.hook_notes)
    # A pre-write hook's modified_content is the whole file: the hook saw the file with the text appended as its
    # content, so what it answers replaces that, and what was written is its text, not an append.
    rewritten: bool = False


def append_text(
    safe: Safeguards,
    path: Path,
    text: str,
    *,
    expected_hash: str | None,
    tool: str,
    done: ChangeLog,
    encoding: str | None = None,
    own_line: bool = False,
    make_parents: bool = True,
) -> Appended:
    """Add ``text`` at the end of ``path``, creating the file (in ``encoding``, else UTF-8) if needed.

    The file keeps its encoding and BOM; in a uniformly CRLF (or CR) file the text's line breaks become the file's.
    With ``own_line``, text added to a file whose last line has no line break starts on a new line (the file's own
    break); without it the text is added exactly as given.

    Raises:
        NotFoundError: ``expected_hash`` names a file that does not exist.
        InvalidParamsError: ``encoding`` is not the existing file's.
        FsguardError: the hash, a hook, the encoding, the size limit or the filesystem refused; nothing changed.
    """
    with mutation(safe, path, may_be_missing=True) as change:
        if change.entry is None and not make_parents:
            raise NotDirectoryError(
                f"{path.parent} does not exist. Pass create_dirs=true, or create it with create_directory.",
                path=str(path.parent),
            )
        verdict = change.check(expected_hash)
        hook = HookCall("write", tool, f"{tool}:append")
        appended = _appended(change, text, new_file=_new_file(encoding), as_lines=False, own_line=own_line)
        _check_encoding(change.path, appended.decoded, encoding, text)
        target = _substituted(change, hook, appended)
        rewritten = target.text != appended.text
        data = _encoded(target, change, None, whole=target.decoded is None or not target.decoded.text)
        before = len(change.current) if change.current is not None else 0
        used = target.decoded.encoding if target.decoded is not None else "utf-8"
        if change.current is not None and data == change.current:
            digest = change.current_hash or ""
            notes = tuple(change.hook_notes)
            added = None if rewritten else 0
            return Appended(
                path, False, True, before, added, digest, True, digest, None, verdict, used, False, notes, rewritten
            )
        committed = change.commit(data, hook, make_parents=make_parents)
        done.add(_change(change, committed))
    return Appended(
        path=path,
        created=change.current is None,
        unchanged=False,
        size=committed.size,
        added=None if rewritten else committed.size - before,
        content_hash=committed.content_hash,
        verified=committed.verified,
        previous_hash=change.current_hash,
        backup=committed.backup,
        verdict=verdict,
        encoding=used,
        line_break_added=bool(appended.separator) and not rewritten,
        hook_notes=tuple(change.hook_notes),
        rewritten=rewritten,
    )


def _new_file(encoding: str | None) -> DecodedText | None:
    """How a file created by an append in ``encoding`` is stored (a Unicode BOM where the codec has one)."""
    if encoding is None:
        return None
    name = text_codec(encoding)
    stored = {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}.get(name, name)
    return DecodedText("", stored, written_bom(stored), "none", False, 0)


def _check_encoding(path: Path, existing: DecodedText | None, encoding: str | None, text: str) -> None:
    """Refuse an ``encoding`` that is not the existing file's, unless ``text`` is the same bytes in both (Latin-1
    text appended to a file read as cp1252): an append never converts a file."""
    if existing is None or encoding is None or not existing.text:
        return
    wanted, have = text_codec(encoding), codecs.lookup(existing.encoding).name
    if have == wanted or have.startswith(f"{wanted}-") or (wanted == "utf-8-sig" and have == "utf-8"):
        return
    if _same_bytes(text, wanted, have):
        return
    raise InvalidParamsError(
        f"{path} is {existing.encoding}; an append keeps the file's encoding. Drop encoding, or convert the "
        "whole file with write_file.",
        path=str(path),
        encoding=encoding,
    )


def _same_bytes(text: str, one: str, other: str) -> bool:
    """Whether ``text`` is the same bytes in both codecs (and either can store it)."""
    try:
        return text.encode(one) == text.encode(other)
    except UnicodeEncodeError:
        return False


@contextmanager
def _both(safe: Safeguards, source: Path, destination: Path) -> Iterator[tuple[Mutation, Mutation]]:
    """Both files' mutations, their locks taken in one global order so two callers never deadlock. Nothing is
    committed before both are held: the second lock asks whether the call was cancelled while it waited."""
    first, second = sorted((source, destination))
    with ExitStack() as stack:
        opened = {
            path: stack.enter_context(mutation(safe, path, may_be_missing=path == destination, changing=path == second))
            for path in (first, second)
        }
        yield opened[source], opened[destination]


@dataclass(frozen=True)
class _Target:
    text: str
    decoded: DecodedText | None  # how the file is stored now; None for a new file
    separator: str = ""  # the line break put before the added text


def _appended(
    change: Mutation, text: str, *, new_file: DecodedText | None, as_lines: bool, own_line: bool = False
) -> _Target:
    if change.current is None or (not change.current and new_file is not None):
        return _Target(text, new_file)  # an empty file has no encoding of its own: it is stored as a new one
    existing = decode(change.current, change.path)
    if not as_lines:
        text = kept_breaks(text, existing)  # as write_file does
    separator = ""
    if (as_lines or own_line) and text and existing.text and not existing.text.endswith(("\n", "\r")):
        separator = first_break(existing.text, text)  # the lines start on a line of their own
    return _Target(existing.text + separator + text, existing, separator)


def _substituted(change: Mutation, hook: HookCall, target: _Target) -> _Target:
    replaced = change.fire_pre(hook, over=target.decoded if change.current else None, content=target.text)
    return target if replaced is None else _Target(replaced, target.decoded, target.separator)


def _encoded(target: _Target | str, change: Mutation, fallback: DecodedText | None, *, whole: bool = False) -> bytes:
    """The bytes of ``target``; ``whole``: its text is all the file holds, a leading U+FEFF then the file's BOM
    (:func:`whole_file`) where the file has one, as write_file takes it (an append to an empty file wrote two)."""
    text, decoded = (target, fallback) if isinstance(target, str) else (target.text, target.decoded)
    try:
        if decoded is not None and whole:
            return whole_file(text, decoded.encoding, decoded.bom)
        return decoded.encode(text) if decoded is not None else text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodingError(
            f"{change.path} is {decoded.encoding if decoded else 'utf-8'} and cannot store "
            f"{exc.object[exc.start : exc.end]!r}. Nothing was written. Convert it first with write_file.",
            path=str(change.path),
        ) from exc


def _change(change: Mutation, commit: Commit) -> Change:
    if change.current is None:
        return Change.created(change.path, commit.content_hash)
    return Change.modified(change.path, commit.backup.backup_id if commit.backup else None, commit.content_hash)
