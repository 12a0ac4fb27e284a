"""Moving lines between files, and appending to one: the batch's extract and write-with-append.

Both files of an extract go through the write sequence (:func:`mutation`): locked in one global order,
pinned, backed up, written atomically, read back. The lines keep their bytes: a new destination gets the
source's encoding, BOM and line endings; an existing one (``append``) keeps its own encoding and gets the
lines with the source's line endings, on a line of their own. Every pre-hook fires before either file is
written, so a refusal leaves both as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.errors import AlreadyExistsError, EncodingError, InvalidParamsError, NotFoundError
from fsguard.core.groups import Change, ChangeLog
from fsguard.core.mutation import Commit, HookCall, Mutation, mutation
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import LINE_BREAK, DecodedText, decode, first_break, split_lines


@dataclass(frozen=True)
class Extracted:
    """What an extract did: the lines' size in the source's encoding, and both files after it."""

    bytes_moved: int
    lines: int
    source: Commit
    destination: Commit


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
        from_file.check(expected_hash)
        decoded = decode(data, source)
        numbered = split_lines(decoded.text)
        if start > len(numbered):
            raise InvalidParamsError(
                f"start_line {start} is past the end of {source} ({len(numbered)} lines). Read it again.",
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
        rest = from_file.fire_pre(edit_hook, old_content=decoded.text, new_content=rest) or rest
        target = _substituted(to_file, write_hook, target)
        written = to_file.commit(_encoded(target, to_file, decoded), write_hook, make_parents=True)
        done.add(_change(to_file, written))
        removed = from_file.commit(_encoded(rest, from_file, decoded), edit_hook)
        done.add(_change(from_file, removed))
    return Extracted(len(block.encode(decoded.encoding)), last - start + 1, removed, written)


def append_text(
    safe: Safeguards, path: Path, text: str, *, expected_hash: str | None, tool: str, done: ChangeLog
) -> Commit:
    """Add ``text`` at the end of ``path`` as it is (no line break added), creating the file if needed.

    The file keeps its encoding and BOM; in a uniformly CRLF file the text's line breaks become CRLF.
    """
    with mutation(safe, path, may_be_missing=True) as change:
        if change.current is None and expected_hash is not None:
            raise NotFoundError(
                f"expected_hash was given but {path} does not exist, so it cannot match. Drop expected_hash "
                "to create the file.",
                path=str(path),
            )
        change.check(expected_hash)
        hook = HookCall("write", tool, f"{tool}:append")
        target = _substituted(change, hook, _appended(change, text, new_file=None, as_lines=False))
        done_commit = change.commit(_encoded(target, change, None), hook, make_parents=True)
        done.add(_change(change, done_commit))
    return done_commit


@contextmanager
def _both(safe: Safeguards, source: Path, destination: Path) -> Iterator[tuple[Mutation, Mutation]]:
    """Both files' mutations, their locks taken in one global order so two callers never deadlock."""
    with ExitStack() as stack:
        opened = {
            path: stack.enter_context(mutation(safe, path, may_be_missing=path == destination))
            for path in sorted((source, destination))
        }
        yield opened[source], opened[destination]


@dataclass(frozen=True)
class _Target:
    text: str
    decoded: DecodedText | None  # how the file is stored now; None for a new file


def _appended(change: Mutation, text: str, *, new_file: DecodedText | None, as_lines: bool) -> _Target:
    if change.current is None:
        return _Target(text, new_file)
    existing = decode(change.current, change.path)
    if not as_lines and existing.line_ending == "crlf":
        text = LINE_BREAK.sub("\r\n", text)  # as write_file does: a CRLF file stays CRLF whatever was typed
    separator = ""
    if as_lines and existing.text and not existing.text.endswith(("\n", "\r")):
        separator = first_break(existing.text, text)  # the lines start on a line of their own
    return _Target(existing.text + separator + text, existing)


def _substituted(change: Mutation, hook: HookCall, target: _Target) -> _Target:
    replaced = change.fire_pre(hook, content=target.text)
    return target if replaced is None else _Target(replaced, target.decoded)


def _encoded(target: _Target | str, change: Mutation, fallback: DecodedText | None) -> bytes:
    text, decoded = (target, fallback) if isinstance(target, str) else (target.text, target.decoded)
    try:
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
