"""read_file: whole files, line ranges, head/tail and base64 (several files at once: :mod:`fsguard.core.multiread`)."""

from __future__ import annotations

import base64
import os
from functools import partial
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import Beneath
from fsguard.core.confirmation import plural
from fsguard.core.disk import read_open
from fsguard.core.errors import EncodingError, InvalidParamsError, TooLargeError
from fsguard.core.excerpts import (
    DEFAULT_MAX_LINES,
    KEEP_READING,
    Window,
    above_limit_note,
    column_past_end,
    finish,
    fitting_lines,
    lines_hint,
    read_on_from,
    spliced,
    take,
    window_hint,
)
from fsguard.core.hashing import Fingerprint, FingerprintCache, content_hash
from fsguard.core.hooks import HookRunner
from fsguard.core.media import DEFAULT_MAX_MEDIA_BYTES, SNIFF_BYTES, MediaRead, read_media, sniff
from fsguard.core.medialimits import MediaLimits
from fsguard.core.nearby import NearPaths
from fsguard.core.paths import PathPolicy
from fsguard.core.ranges import (
    STREAM_ABOVE,
    TEXT_SNIFF_BYTES,
    Layout,
    Misread,
    excerpt,
    layout,
    opened,
    rejudged,
    survey,
    unshrunk,
    utf8_size,
)
from fsguard.core.selection import LineSelection
from fsguard.core.session import Session
from fsguard.core.steady import steady, unsteady_note
from fsguard.core.tails import MARKER_ROOM, head_and_tail, streamed_tail, text_tail
from fsguard.core.textio import DecodedText, decode, head_lines, tail_lines
from fsguard.models import ReadFileResult

_ALL = 1 << 62


class FileReader:
    """Reads files under the path policy, recording the hashes it hands out."""

    def __init__(
        self,
        policy: PathPolicy,
        beneath: Beneath,
        cache: FingerprintCache,
        session: Session,
        hooks: HookRunner,
        *,
        max_file_size: int,
        truncate_lines: int,
        response_budget: int = 256 * 1024,
        media_budget: int = DEFAULT_MAX_MEDIA_BYTES,
    ) -> None:
        self._budget = response_budget
        self.media_limits = MediaLimits(media_budget, max_file_size, response_budget)
        self._hooks = hooks
        self._policy = policy
        self._beneath = beneath
        self._cache = cache
        self._session = session
        self.max_file_size = max_file_size  # --max-file-size: a bigger file is read in ranges only
        self._truncate_lines = truncate_lines
        self.near = NearPaths(policy, beneath)  # for the files of a multi-file read that do not exist

    @property
    def budget(self) -> int:
        """Most bytes of text one read_file answer holds (--max-response-bytes)."""
        return self._budget

    def resolve(self, user_path: str) -> Path:
        """The canonical path ``user_path`` names, or the policy's refusal; nothing is opened."""
        return self._policy.resolve(user_path)

    def read(self, user_path: str, selection: LineSelection, *, budget: int | None = None) -> ReadFileResult:
        """Read one file as text: the lines ``selection`` names, in at most ``budget`` bytes (default: all of
        :attr:`budget`; a multi-file read passes what the files before it left)."""
        found = self._read(user_path, selection, media=False, budget=self._budget if budget is None else budget)
        assert isinstance(found, ReadFileResult)
        return found

    def read_one(self, user_path: str, selection: LineSelection) -> ReadFileResult | MediaRead:
        """Read one file: an image or audio file as media (see :mod:`fsguard.core.media`), any other as text."""
        return self._read(user_path, selection, media=True, budget=self._budget)

    def _read(
        self, user_path: str, selection: LineSelection, *, media: bool, budget: int
    ) -> ReadFileResult | MediaRead:
        selection.check()
        path = self._policy.resolve(user_path)
        self._fire("pre", path, "read_file")
        taken = self._cache.now()  # before the stat the read goes by (FingerprintCache.remember)
        with self._session.watching(path), self._beneath.entry(path) as entry, opened(entry) as (fd, st):
            # The media check's bytes, and a text's BOM; above the limit no fingerprint is kept, so a ranged read
            # sniffs the first 64 KiB every time: read once, for both.
            sniffed = TEXT_SNIFF_BYTES if st.st_size > self.max_file_size else SNIFF_BYTES
            head = os.pread(fd, sniffed, 0)
            found = self._media(head, fd, st, path, selection, alone=media)
            if found is not None:
                self._fire("post", path, "read_file")
                return found
            if st.st_size > self.max_file_size and not (selection.is_range or selection.is_window):
                raise TooLargeError(
                    f"{path} is {st.st_size:,} bytes, above the {self.max_file_size:,}-byte limit "
                    "(--max-file-size) for whole-file reads. Read it in ranges: mode='tail' or 'head' with "
                    "max_lines, or start_line/end_line. It cannot be edited: edits load the whole file.",
                    path=str(path),
                )
            if st.st_size > min(STREAM_ABOVE, self.max_file_size):
                streamed = self._steady_streamed(fd, st, path, selection, budget, taken, head)
                self._fire("post", path, "read_file")
                return streamed
            data, stat = read_open(fd, path, self.max_file_size)
        decoded = decode(data, path)
        # Unchanged since it was last hashed (same device, inode, size, mtime and ctime): the hash is known.
        fingerprint = self._cache.lookup(path, stat) if stat is not None else None
        if fingerprint is None or fingerprint.encoding != decoded.encoding:
            fingerprint = Fingerprint.of_decoded(data, decoded)
            self._cache.remember(path, stat, fingerprint, taken)
        self._session.record_hash(path, fingerprint.content_hash)
        self._fire("post", path, "read_file")
        digest = fingerprint.content_hash
        base = ReadFileResult(
            content="",
            content_hash=digest,
            path=str(path),
            size=len(data),
            total_lines=decoded.line_count,
            encoding=decoded.encoding,
            line_ending=decoded.line_ending,
        )
        if selection.is_range:
            result = self._range(base, decoded, path.name, selection)
        elif selection.is_window:
            result = self._window(base, decoded.text, decoded.line_count, selection, budget)
        else:
            result = self._whole(base, decoded, path.name)
        return self._bounded(result, (selection.start_column or 1) - 1, path.name, budget, selection.end_line)

    def _media(
        self, head: bytes, fd: int, st: os.stat_result, path: Path, selection: LineSelection, *, alone: bool
    ) -> MediaRead | None:
        """The file as media when ``head`` says image or audio, read ``alone`` (not among ``paths``, read as text)."""
        if sniff(head) is None:
            return None
        ranged, limits = selection.is_range or selection.is_window, self.media_limits
        hashed = alone and not ranged  # a file refused (among paths, or a range of it) is not hashed whole
        found = read_media(fd, st, path, budget=limits.inline_budget, max_file_size=self.max_file_size, hashed=hashed)
        if found is not None and not hashed:  # a damaged image reads as binary: not refused as an image
            limits.refuse_range(found.media, path, st.st_size, selection.named if ranged else None)
        if found is not None and found.content_hash is not None:
            self._session.record_hash(path, found.content_hash)
        return found

    def _bounded(self, result: ReadFileResult, skip: int, name: str, budget: int, until: int | None) -> ReadFileResult:
        """``result`` within ``budget`` bytes, its first line ``skip`` characters in; ``until``: the end_line asked."""
        if not skip and utf8_size(result.content) <= budget:
            return result
        ex = excerpt([result.content], max_lines=_ALL, budget=budget, skip_columns=skip)
        if ex.short_line is not None:
            line = result.start_line or 1
            raise column_past_end(line, ex.short_line, skip + 1, name, result.total_lines)
        if not ex.full:
            return result.model_copy(update={"content": ex.content})
        if result.start_line is None:  # head + tail around an omission marker
            hint = f"The response budget (--max-response-bytes {self._budget:,}) is reached; read with start_line"
            return result.model_copy(update={"content": ex.content, "truncated": True, "hint": hint})
        return finish(result, ex, result.start_line, _ALL, self._budget, name, until=until)

    def _steady_streamed(
        self, fd: int, st: os.stat_result, path: Path, sel: LineSelection, budget: int, taken: int, head: bytes | None
    ) -> ReadFileResult:
        if st.st_size > self.max_file_size:  # no hash to tear: a busy log's tail is read, never refused for its writes
            return self._streamed(fd, st, path, sel, budget, taken, head)
        # The hash is the OCC token: it and the lines must come from one state of the file (fsguard.core.steady).
        # ``head`` was read under the first stat, so a retry reads its own.
        found: ReadFileResult = steady(
            fd,
            st,
            path,
            lambda now: self._streamed(fd, now, path, sel, budget, taken, head if now is st else None),
            unsteady=partial(_unsteady, name=path.name),
        )
        if found.content_hash is not None:  # none when a retry found the file grown past --max-file-size
            self._session.record_hash(path, found.content_hash)
        return found

    def _streamed(
        self,
        fd: int,
        st: os.stat_result,
        path: Path,
        selection: LineSelection,
        budget: int,
        taken: int,
        head: bytes | None,
    ) -> ReadFileResult:
        known = self._cache.lookup(path, st) if st.st_size <= self.max_file_size else None
        lay = layout(fd, st.st_size, path, known, head)
        if st.st_size <= self.max_file_size:
            if known is None:
                known = survey(lay, hashed=True).fingerprint
                assert known is not None
                self._cache.remember_read(path, fd, st, known, taken)
                lay = layout(fd, st.st_size, path, known, head)  # read as the whole pass judged it, not as its start
            if known.line_count is None:  # its BOM names an encoding the bytes after it are not in
                raise EncodingError(
                    f"{path} does not decode as {lay.encoding}, the encoding its byte order mark names. "
                    "Read it with encoding='base64' to see the raw bytes.",
                    path=str(path),
                )
        base = ReadFileResult(
            content="",
            content_hash=known.content_hash if known else None,
            path=str(path),
            size=st.st_size,
            total_lines=known.line_count if known else None,
            encoding=lay.encoding,
            line_ending=known.line_ending if known else None,
        )
        try:
            result = self._streamed_lines(lay, base, selection, known, path.name, budget)
        except Misread as exc:  # an ASCII start, then Latin-1 (say): read as the bytes met say, as a whole read would
            lay = rejudged(lay, exc.offset)
            base = base.model_copy(update={"encoding": lay.encoding})
            result = self._streamed_lines(lay, base, selection, known, path.name, budget)
        unshrunk(lay, path)
        if known is None:
            note = above_limit_note(path.name, st.st_size, self.max_file_size)
            hint = f"{result.hint}. {note}" if result.hint else note
            result = result.model_copy(update={"hint": hint})  # a tail from line 1 shows it all
        return result

    def _streamed_lines(
        self,
        lay: Layout,
        base: ReadFileResult,
        selection: LineSelection,
        known: Fingerprint | None,
        name: str,
        budget: int,
    ) -> ReadFileResult:
        if lay.start >= lay.size and (selection.start_line or 1) == (selection.start_column or 1) == 1:
            return base  # a byte order mark and nothing after it: no line, as a whole read answers
        then: str | None = None
        if selection.is_range:
            start = selection.start_line or 1
            count = selection.end_line - start + 1 if selection.end_line is not None else _ALL
            window = Window(start, count, skip_columns=(selection.start_column or 1) - 1)
        elif selection.mode in ("head", "tail"):
            count = selection.max_lines or DEFAULT_MAX_LINES
            if selection.mode == "tail":
                return streamed_tail(lay, base, count, known, budget, self._budget, name)
            window, then = Window(1, count), KEEP_READING
        elif selection.max_lines:
            return head_and_tail(lay, base, selection.max_lines, known, name, budget, self._budget)
        else:
            count = self._truncate_lines
            window = Window(1, count)
        ex, first = take(lay, window, budget, name, known)
        ranged, until = selection.is_range, selection.end_line
        return finish(base, ex, first, count, self._budget, name, ranged=ranged, then=then, until=until)

    def read_base64(self, user_path: str) -> ReadFileResult:
        """The raw bytes of one file, base64-encoded."""
        path = self._policy.resolve(user_path)
        self._fire("pre", path, "read_file:base64")
        with self._session.watching(path), self._beneath.entry(path) as entry, opened(entry) as (fd, st):
            kind = sniff(os.pread(fd, SNIFF_BYTES, 0))
            if st.st_size > self.max_file_size and kind is not None:
                self.media_limits.refuse_base64(kind, path, st.st_size)
            data = self.media_limits.base64_bytes(fd, path, st.st_size, kind)
        # Only the hash is needed here: decoding the whole file for a line count would be wasted work.
        digest = content_hash(data)
        self._session.record_hash(path, digest)
        self._fire("post", path, "read_file:base64")
        return ReadFileResult(
            content=base64.b64encode(data).decode("ascii"),
            content_hash=digest,
            path=str(path),
            size=len(data),
            encoding="base64",
        )

    def _fire(self, phase: Literal["pre", "post"], path: Path, operation: str) -> None:
        self._hooks.fire(phase, "read", tool_name="read_file", file_path=str(path), operation=operation)

    def _whole(self, base: ReadFileResult, decoded: DecodedText, name: str) -> ReadFileResult:
        total = decoded.line_count
        if total <= self._truncate_lines:
            return base.model_copy(
                update={"content": decoded.text, "start_line": 1 if total else None, "end_line": total or None}
            )
        shown = self._truncate_lines
        hint = lines_hint(1, shown, total, name, shown - 1)
        return base.model_copy(
            update={
                "content": "".join(head_lines(decoded.text, shown)),
                "start_line": 1,
                "end_line": shown,
                "truncated": True,
                "hint": hint,
            }
        )

    def _range(self, base: ReadFileResult, decoded: DecodedText, name: str, selection: LineSelection) -> ReadFileResult:
        total = decoded.line_count
        start = selection.start_line or 1
        if start > max(total, 1):
            raise InvalidParamsError(
                f"start_line {start} is past the end of {name} ({plural(total, 'line')}). "
                f"Use start_line <= {max(total, 1)}.",
                start_line=start,
            )
        if not total:
            return base  # no line to name: "Lines 1-0 of 0" said less than an empty answer
        end = min(selection.end_line or total, total)
        hint = lines_hint(start, end, total, name, (selection.end_line or end) - start)
        return base.model_copy(
            update={
                # Only the lines up to end are split; the whole file is returned as it is.
                "content": decoded.text
                if start == 1 and end == total
                else "".join(head_lines(decoded.text, end)[start - 1 :]),
                "start_line": start,
                "end_line": end,
                "truncated": start > 1 or end < total,
                "hint": hint,
            }
        )

    def _window(
        self, base: ReadFileResult, text: str, total: int, selection: LineSelection, budget: int
    ) -> ReadFileResult:
        """The head, tail or both of ``text`` (``total`` lines), splitting only the lines shown: a tail of a
        multi-megabyte log costs its last lines, not every line."""
        count = selection.max_lines or DEFAULT_MAX_LINES
        if selection.mode == "tail":  # the end is kept within the budget, not the start of the window as for a head
            return text_tail(base, text, total, count, budget, self._budget)
        if count >= total:
            return base.model_copy(
                update={"content": text, "start_line": 1 if total else None, "end_line": total or None}
            )
        top = head_lines(text, count // 2) if selection.mode == "all" else []
        shown = fitting_lines(top, budget // 2)
        # A head; or, when the first line alone fills half the budget, the first max_lines lines, that line read on
        # by column (the whole text was returned: every line that fitted the budget, max_lines or not).
        if selection.mode == "head" or (top and not shown):
            then = KEEP_READING if selection.mode == "head" else read_on_from(count + 1)
            hint = window_hint("first", count, total, then)
            update = {"content": "".join(head_lines(text, count)), "start_line": 1, "end_line": count}
        else:
            if not top:  # max_lines=1: the tail's one line alone, whose end is shown when it is too long
                return text_tail(base, text, total, count, budget, self._budget)
            bottom = tail_lines(text, count - count // 2)
            room = budget - utf8_size("".join(top[:shown])) - MARKER_ROOM
            kept = fitting_lines(bottom[::-1], room)
            bottom = bottom[len(bottom) - kept :]
            head_text, tail_text = "".join(top[:shown]), "".join(bottom)
            content, hint = spliced(head_text, shown, tail_text, kept, count, total, self._budget)
            update = {"content": content}
        return base.model_copy(update={**update, "truncated": True, "hint": hint})


def _unsteady(read: ReadFileResult, name: str) -> ReadFileResult:
    """A read of a file that never held still: its lines are shown, its hash is not, and the hint says why."""
    note = unsteady_note(name)
    return read.model_copy(update={"content_hash": None, "hint": f"{read.hint}. {note}" if read.hint else note})
