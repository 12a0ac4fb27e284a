"""read_file with ``paths``: several whole files in one answer, under one response budget.

Each file gets what the files before it left of --max-response-bytes, so the answer is no bigger than a one-file
read; a file that gets nothing is named with the call that reads it on its own. An entry's ``content`` is the
file's text exactly as a one-file read returns it: the read-more hint sits in the entry's own fields (and in the
text block), never inside ``content``, where an agent writing the content back would write the hint into the file.
"""

from __future__ import annotations

from pathlib import Path

from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.pathforms import absolute_or_given
from fsguard.core.ranges import CUT_FLOOR, utf8_size
from fsguard.core.reading import FileReader
from fsguard.core.selection import LineSelection
from fsguard.core.shortlist import SHOWN, SLACK
from fsguard.models import ReadFileEntry, ReadFileResult

_SPARE_FLOOR = 64 * 1024  # headings and errors of a few hundred files, even under a small budget


def read_many(reader: FileReader, user_paths: list[str]) -> ReadFileResult:
    """Several whole files; one failing file is reported in place and does not fail the call."""
    if not user_paths:
        raise InvalidParamsError('paths array is empty. Pass at least one path, e.g. paths=["a.txt", "b.txt"].')
    entries: list[ReadFileEntry] = []
    # left: for the files' text, as in a one-file read; spare: for what the answer holds besides, headings,
    # hints and errors, so that thousands of missing or empty files cannot flood it where their text would not.
    left, spare = reader.budget, max(reader.budget, _SPARE_FLOOR)
    for user_path in user_paths:
        entry = _entry(reader, user_path, left if spare > 0 else 0)
        size = utf8_size(entry.content or "")
        left -= size
        spare -= utf8_size(_section(entry)) - size
        entries.append(entry)
    cut = sum(entry.truncated for entry in entries)
    hint = f"{cut} of {len(entries)} files cut or left out; the hint of each says how to read the rest" if cut else None
    listed, hidden = shown_files(entries)
    content = "\n".join([*(_section(entry) for entry in listed), *([left_out_note(hidden)] if hidden else [])])
    return ReadFileResult(content=content, files=entries, truncated=bool(cut), hint=hint)


def shown_files(entries: list[ReadFileEntry]) -> tuple[list[ReadFileEntry], int]:
    """The entries an answer shows, and how many it only counts: every file up to the first one the budget left
    out, then a few of the rest (all of a short list), those that failed first: a path refused after the budget
    was spent is an error to show, not a file to read in a smaller group."""
    first = next((number for number, entry in enumerate(entries) if _is_left_out(entry)), len(entries))
    rest = entries[first:]
    if len(rest) <= SHOWN + SLACK:
        return entries, 0
    failed = [number for number, entry in enumerate(rest) if entry.error is not None][:SHOWN]
    others = [number for number, entry in enumerate(rest) if entry.error is None][: SHOWN - len(failed)]
    picked = sorted(failed + others)
    return entries[:first] + [rest[number] for number in picked], len(rest) - len(picked)


def left_out_note(hidden: int) -> str:
    """The line that stands for the files left out and not named in the text."""
    return (
        f"[… and {hidden:,} more files left out: the response budget is spent. Read them in smaller groups; "
        "every one is named in the result's files list]\n"
    )


def _is_left_out(entry: ReadFileEntry) -> bool:
    return entry.content is None and entry.error is None and entry.truncated is True


def _entry(reader: FileReader, user_path: str, budget: int) -> ReadFileEntry:
    try:
        # Too little room to cut a line and keep its marker within the budget (a cut there fills all of it): only a
        # file no bigger than that room is read (as text it can come out a little longer, in a legacy code page; a
        # cut line then passes the budget by its marker).
        if budget <= CUT_FLOOR:
            path = reader.resolve(user_path)
            size = _size(path)
            if budget <= 0 or size > budget:
                return _left_out(path, size, reader)
        result = reader.read(user_path, LineSelection(), budget=budget)
    except FsguardError as exc:
        message, meant = reader.near.refusal(exc)
        shown = absolute_or_given(reader.resolve, user_path)
        return ReadFileEntry(path=shown, error=message, error_code=exc.code, did_you_mean=meant)
    assert result.path is not None
    return ReadFileEntry(
        path=result.path,
        content=result.content,
        content_hash=result.content_hash,
        total_lines=result.total_lines,
        start_line=result.start_line,
        end_line=result.end_line,
        truncated=result.truncated,
        hint=result.hint,
    )


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # read as usual: its error is reported in place


def _left_out(path: Path, size: int, reader: FileReader) -> ReadFileEntry:
    """A file the budget had no room for: not opened (so not counted as read), only named, with the call that reads
    it alone: a ranged one above --max-file-size, where a whole read is refused."""
    hint = f"Left out: the files before it filled the response budget (--max-response-bytes {reader.budget:,}). "
    limit = reader.max_file_size
    if size > limit:
        hint += (
            f"It is {size:,} bytes, above --max-file-size ({limit:,}): read it on its own in ranges, e.g. "
            f'read_file(path="{path}", mode="tail", max_lines=100), or with mode="head" or start_line/end_line'
        )
    else:
        hint += f'Read it on its own: read_file(path="{path}")'
    return ReadFileEntry(path=str(path), truncated=True, hint=hint)


def _section(entry: ReadFileEntry) -> str:
    """One file under its absolute path, as the seed's combined ``content`` shows it, with its hint after it."""
    body = entry.content or "" if entry.error is None else f"ERROR: {entry.error}"
    if entry.hint is not None:
        body = after_text(body, f"[{entry.hint}]")
    return f"=== {entry.path} ===\n{body}" + ("" if body.endswith("\n") else "\n")


def after_text(text: str, note: str) -> str:
    """``note`` after ``text``, one blank line between them, as a one-file read puts its hint after the lines."""
    if not text:
        return note
    return text + ("\n" if text.endswith("\n") else "\n\n") + note
