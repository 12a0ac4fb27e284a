"""The limits a media read answers within (--max-media-bytes, --max-file-size, --max-response-bytes), and the
refusals of the reads of an image or audio file that would not show it: a line range, a place among ``paths``, a
base64 text too long for the response or a file too large to load."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from fsguard.core.disk import read_open
from fsguard.core.errors import BinaryFileError, InvalidParamsError, TooLargeError
from fsguard.core.media import Media


@dataclass(frozen=True)
class MediaLimits:
    """The limits a media read answers within: inlined within one, loaded whole or as base64 text within others."""

    media_budget: int  # --max-media-bytes
    max_file_size: int
    response_budget: int  # --max-response-bytes, which a base64 read's text must fit

    @property
    def inline_budget(self) -> int:
        """Most bytes inlined: never a file --max-file-size keeps from being loaded whole."""
        return min(self.media_budget, self.max_file_size)

    @property
    def inline_limit(self) -> str:
        """The limit a linked file is above, as its operator sets it: the smaller one, which linked it."""
        if self.max_file_size < self.media_budget:
            return f"the {self.max_file_size:,}-byte limit (--max-file-size)"
        return f"the media budget (--max-media-bytes {self.media_budget:,})"

    def base64_fits(self, size: int) -> bool:
        """Whether read_file(encoding='base64') answers ``size`` bytes: loaded whole, and its text whole."""
        return size <= self.max_file_size and base64_size(size) <= self.response_budget

    def base64_bytes(self, fd: int, path: Path, size: int, media: Media | None) -> bytes:
        """All of the open ``fd`` (``size`` bytes by its stat) for read_file(encoding='base64'), refused above
        --max-file-size, or above --max-response-bytes as base64 text: no more is read than the answer holds, so a
        file growing meanwhile is not followed past it (the check was of the size from before the read)."""
        fits = size <= self.max_file_size
        if fits and base64_size(size) > self.response_budget:
            self.refuse_base64_text(media, path, size)
        cap = min(self.max_file_size, 3 * (self.response_budget // 4)) if fits else self.max_file_size
        try:
            return read_open(fd, path, cap)[0]
        except TooLargeError:
            if cap == self.max_file_size:
                raise
            self.refuse_base64_text(media, path, None)

    def refuse_range(self, media: Media, path: Path, size: int, given: str | None) -> NoReturn:
        """A read of a media file that does not show it: a line range (``given``: the parameters that asked for it),
        answered with the whole read it takes instead and a base64 read only where one fits; or (None) one of several
        ``paths``."""
        if given is None:
            self.refuse_among(media, path)
        block = f"an {media.kind} block" if size <= self.inline_budget else "a resource_link (too large to inline)"
        raw = ", or read the raw bytes with encoding='base64'" if self.base64_fits(size) else ""
        raise InvalidParamsError(
            f"{path.name} is {media.mime_type} ({media.kind}): it is read whole, as {block}. Drop {given}{raw}.",
            path=str(path),
        )

    def refuse_among(self, media: Media, path: Path) -> NoReturn:
        """A media file among the ``paths`` of a multi-file read, which reads text: the one-file read that shows it."""
        shape = f" {media.width}x{media.height}" if media.width is not None else ""
        sense = "see" if media.kind == "image" else "hear"
        raise BinaryFileError(
            f"{path} is {_noun(media)} ({media.mime_type}{shape}): read_file with paths returns text only. To "
            f'{sense} it, read it on its own: read_file(path="{path}").',
            path=str(path),
        )

    def refuse_base64(self, media: Media, path: Path, size: int) -> NoReturn:
        """A base64 read above --max-file-size: the refusal of other files names line ranges, which this refuses."""
        raise TooLargeError(
            f"{path.name} is {size:,} bytes, above the {self.max_file_size:,}-byte limit (--max-file-size) for "
            f"loading a whole file, and {media.mime_type} is not read in ranges. read_file without encoding links "
            "it; to read its bytes, ask the user to restart fsguard with a larger --max-file-size.",
            path=str(path),
        )

    def refuse_base64_text(self, media: Media | None, path: Path, size: int | None) -> NoReturn:
        """A base64 read whose text passes --max-response-bytes (``size`` bytes; None: it grew past it while it was
        read): an image or audio file read_file inlines is shown by it (the refusal named get_file_info and
        copy_file, never the read that shows the image)."""
        shown = ""
        if media is not None and size is not None and size <= self.inline_budget:
            shown = f"read_file without encoding shows {_noun(media, 'this')} ({media.mime_type}) to you; "
        was = "grew past" if size is None else f"is {size:,} bytes, {base64_size(size):,} as base64: above"
        grew = " while it was read; nothing was changed" if size is None else ""
        raise TooLargeError(
            f"{path.name} {was} the response budget (--max-response-bytes {self.response_budget:,}){grew}. {shown}"
            "get_file_info gives its size and content_hash, copy_file and move_file take its bytes; restart with a "
            f"larger --max-response-bytes to read it{', or retry once it stops growing' if size is None else ''}.",
            path=str(path),
        )


def base64_size(size: int) -> int:
    """The length of ``size`` bytes as base64 text."""
    return 4 * ((size + 2) // 3)


def _noun(media: Media, article: str = "an") -> str:
    """ "an image", "an audio file" (or with another ``article``)."""
    return f"{article} {media.kind if media.kind == 'image' else 'audio file'}"
