"""Images and audio: what a file is by its first bytes (never its name), and an image's size from its header.

read_file hands a multimodal model an image or audio block instead of base64 text. The kind comes from the
magic bytes, so a PNG named ``.jpg`` is sent as image/png. An image counts only when its header parses and, read
whole, its structure is there to its end (a PNG's IDAT and IEND, a JPEG's end of image, a GIF's image and trailer,
a WebP's chunks as its RIFF size counts them): a block a model API cannot decode would fail the whole request
there, so a damaged image is read as a binary file, as before (a stub of audio too: :mod:`fsguard.core.audio`).
Small readers per format: no imaging library is needed to find two integers.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.audio import adts_frame, audio_type, id3, mpeg_frame
from fsguard.core.charsets import legacy_codec
from fsguard.core.disk import read_all
from fsguard.core.errors import BinaryFileError
from fsguard.core.hashing import content_hash, hash_open_file
from fsguard.core.steady import steady
from fsguard.core.textio import BINARY_SNIFF_BYTES, is_binary

MediaKind = Literal["image", "audio"]
Reader = Callable[[int, int], bytes]
"""``read(offset, count)``: at most ``count`` bytes of a file from ``offset``, fewer at its end."""

SNIFF_BYTES = 64
"""Enough of the start of a file to recognise each format."""
JPEG_WALK_SEGMENTS = 1024
JPEG_WALK_BYTES = 16 * 1024 * 1024
"""How far a JPEG's segments are walked to its frame header: EXIF, XMP and ICC segments (64 KiB at most each) can
fill hundreds of KiB before it; a file of junk lengths is given up on, not walked to its end."""
DEFAULT_MAX_MEDIA_BYTES = 3 * 1024 * 1024
"""Inline at most this many bytes (4 MiB once base64-encoded); a larger file is sent as a resource link."""

# C0 controls but tab and line breaks, and DEL: the same bytes in UTF-8 and every code page, and no text's.
_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# JPEG start-of-frame markers: C0-CF except DHT (C4), JPG (C8) and DAC (CC), which share the range.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers without a length field: TEM, RST0-7, SOI.
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})
_U32 = struct.Struct(">I")


@dataclass(frozen=True)
class Media:
    """A recognised image or audio file."""

    kind: MediaKind
    mime_type: str
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class MediaRead:
    """A media file read for read_file: its bytes when they are inlined, else the URI to link."""

    path: Path
    media: Media
    size: int
    content_hash: str | None  # None above --max-file-size: such a file is never hashed whole
    data: bytes | None  # None when above the media budget

    @property
    def uri(self) -> str:
        return self.path.as_uri()


def sniff(head: bytes) -> Media | None:
    """The format the first bytes announce (dimensions not yet read), or None for anything else.

    A text file that merely starts with a signature ("GIF89a is…", "ID3 tags…") stays text, in UTF-8 or a legacy
    code page: every real header holds a control byte within its first bytes (sizes, versions, flags).
    """
    media = _signature(head[:SNIFF_BYTES])
    if media is None or _printable(head[:SNIFF_BYTES]):
        return None
    return media


def _printable(head: bytes) -> bool:
    """Whether ``head`` reads as text: in UTF-8, else in the code page a read would take it in (a cp1252 file
    starting "GIF89a café" was sent as a 25376x26209 GIF), neither holding a control character."""
    if _CONTROL.search(head):  # every real header: asked first, so an image never waits on a code page guess
        return False
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:  # also a character the sniffed bytes cut in two: it reads as code page text
        text = head.decode(legacy_codec(head))
    return all(char in "\t\n\r" or (char >= " " and not "\x7f" <= char <= "\x9f") for char in text)


def _signature(head: bytes) -> Media | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return Media("image", "image/png")
    if head.startswith(b"\xff\xd8\xff"):
        return Media("image", "image/jpeg")
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return Media("image", "image/gif")
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return Media("image", "image/webp")
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return Media("audio", "audio/wav")
    if head.startswith(b"OggS\x00"):  # capture pattern, then stream structure version 0
        return Media("audio", "audio/ogg")
    if head.startswith(b"fLaC"):
        return Media("audio", "audio/flac")
    if id3(head) or mpeg_frame(head) or adts_frame(head):  # audio_type tells the stream (AAC, FLAC) past a tag
        return Media("audio", "audio/mpeg")
    return None


def identify(data: bytes, *, whole: bool = True, read: Reader | None = None) -> Media | None:
    """The media ``data`` (a whole file, else its first bytes, the rest read by ``read``) holds, with an image's
    size.

    None when it is no supported format, or an image whose header does not parse or, ``whole``, that ends early.
    """
    found = sniff(data[:SNIFF_BYTES])
    reader = read or (lambda at, count: data[at : at + count])
    if found is None or found.kind == "audio":  # audio checked as images are: its type past a tag, no bare stub
        mime = found and audio_type(found.mime_type, reader, len(data) if whole else None)
        return Media("audio", mime) if mime else None
    size = _IMAGE_SIZES[found.mime_type](reader)
    if size is None or min(size) <= 0:
        return None
    if whole and not _IMAGE_ENDS.get(found.mime_type, _any_end)(data):
        return None
    return Media(found.kind, found.mime_type, *size)


def read_media(
    fd: int, st: os.stat_result, path: Path, *, budget: int, max_file_size: int, hashed: bool = True
) -> MediaRead | None:
    """Read the open file ``fd`` as media: whole when within ``budget``, else its header and, ``hashed``, a streamed
    hash (not to refuse a range of it). None when it is no media; a damaged image is refused (BinaryFileError)."""
    if st.st_size <= budget:
        data = read_all(fd, st.st_size, budget)  # not followed far past the budget if it grows meanwhile
        if len(data) <= budget:
            media = identify(data)
            if media is None:
                _refuse_damaged(data, path, ended=identify(data, whole=False) is not None)
                return None
            return MediaRead(path, media, len(data), content_hash(data), data)
        st = os.fstat(fd)  # grown past the budget while it was read (it was inlined whole): linked at its new size
    # Linked, not inlined: its end is not read, and its header is read where it is (a JPEG's far in, maybe).
    media = identify(os.pread(fd, SNIFF_BYTES, 0), whole=False, read=lambda at, count: os.pread(fd, count, at))
    if media is None:
        _refuse_damaged(os.pread(fd, BINARY_SNIFF_BYTES, 0), path, ended=False)
        return None
    if st.st_size > max_file_size or not hashed:
        return MediaRead(path, media, st.st_size, None, None)
    # Hashed in many reads: a file rewritten meanwhile gave a hash of bytes never on disk together (steady's doc).
    digest = steady(fd, st, path, lambda _: hash_open_file(fd), unsteady=lambda _: None)  # still written: no hash
    return MediaRead(path, media, st.st_size, digest, None)


def _refuse_damaged(head: bytes, path: Path, *, ended: bool) -> None:
    """Refuse an image cut short or damaged (its ``head`` holds a NUL) as a binary file that says so, not just "a
    binary file"; a file whose signature says image but reads as text is left to be read as text."""
    kind = sniff(head)
    if kind is None or kind.kind != "image" or not is_binary(head):
        return
    flaw = "ends early" if ended else "its header does not parse"
    raise BinaryFileError(
        f"{path} starts as an image ({kind.mime_type}) but {flaw}: cut short or damaged, so it is not sent as one. "
        "Read its bytes with read_file(encoding='base64') (a file up to --max-file-size), or inspect it with "
        "get_file_info.",
        path=str(path),
    )


def _png_size(read: Reader) -> tuple[int, int] | None:
    """The IHDR chunk's size, where the chunk is whole and its CRC holds (decoders refuse the file otherwise) and
    each side within the 2**31 - 1 pixels PNG allows."""
    data = read(0, 33)
    if len(data) < 33 or data[8:16] != b"\x00\x00\x00\x0dIHDR" or zlib.crc32(data[12:29]) != _U32.unpack(data[29:])[0]:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return (width, height) if max(width, height) < 1 << 31 else None


def _gif_size(read: Reader) -> tuple[int, int] | None:
    """The logical screen's size, where an image descriptor or an extension follows it and its colour table: six
    letters of "GIF89a" text and any four after them passed for a size."""
    data = read(0, 13 + 768 + 1)  # the screen, the largest colour table, the next block's introducer
    if len(data) < 13:
        return None
    width, height, flags = struct.unpack("<HHB", data[6:11])
    table = 3 << ((flags & 7) + 1) if flags & 0x80 else 0
    if len(data) <= 13 + table or data[13 + table] not in (0x2C, 0x21):
        return None
    return width, height


def _webp_size(read: Reader) -> tuple[int, int] | None:
    data = read(0, 30)
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    return None


def _jpeg_markers(read: Reader) -> Iterator[tuple[int, int, bytes]]:
    """Each marker segment's offset, marker and first 9 bytes, walked from the start of the image: a few bytes read
    per segment, never its body, so a frame header far in costs no memory (see :data:`JPEG_WALK_BYTES`). The walk
    stops at the first scan (SOS), the end of the image, or bytes that are no marker."""
    at = 2
    for _ in range(JPEG_WALK_SEGMENTS):
        head = read(at, 9) if at <= JPEG_WALK_BYTES else b""
        if len(head) < 4 or head[0] != 0xFF:
            return
        marker = head[1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
            continue
        if marker in _STANDALONE:
            at += 2
            continue
        yield at, marker, head
        if marker in (0xD9, 0xDA):  # end of image, or the first scan: its data has no segments to walk
            return
        at += 2 + int.from_bytes(head[2:4], "big")


def _jpeg_size(read: Reader) -> tuple[int, int] | None:
    """The first start-of-frame's height and width, before any scan."""
    for _, marker, head in _jpeg_markers(read):
        if marker in _SOF and len(head) == 9:
            height, width = struct.unpack(">HH", head[5:9])
            return width, height
    return None


def _png_complete(data: bytes) -> bool:
    """Whether the chunks run whole from the header to IEND with image data (IDAT) among them."""
    at, seen_data = 8, False
    while at + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        at += 12 + length
        if kind == b"IEND":
            return seen_data and at <= len(data)
        seen_data = seen_data or kind == b"IDAT"
    return False


def _jpeg_complete(data: bytes) -> bool:
    """Whether an end-of-image marker follows the first scan (bytes may trail it). One before it ends the thumbnail
    in an EXIF segment, which a photo cut in its scan data still holds."""
    scans = [at for at, marker, _ in _jpeg_markers(lambda at, count: data[at : at + count]) if marker == 0xDA]
    return bool(scans) and data.rfind(b"\xff\xd9") > scans[0]


def _gif_complete(data: bytes) -> bool:
    """Whether the blocks run whole from the screen to the trailer (0x3B), an image among them (bytes may trail).

    A block is an image descriptor (its local colour table, its LZW code size) or an extension (its label), then
    data sub-blocks, each its length first, ended by an empty one. A file may end after a whole block instead of
    the trailer: some encoders leave it out (Python's idlelib icons) and decoders do without it; a file cut
    inside a block is what cannot be decoded.
    """
    flags = data[10]
    at, seen_image = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0), False
    while at < len(data) and data[at] != 0x3B:
        if data[at] == 0x2C and at + 10 <= len(data):
            local = data[at + 9]
            at += 11 + (3 << ((local & 7) + 1) if local & 0x80 else 0)
            seen_image = True
        elif data[at] == 0x21:
            at += 2
        else:
            return False
        while at < len(data) and data[at]:
            at += 1 + data[at]
        at += 1  # the empty sub-block; past the end when it is missing
    return seen_image and at <= len(data)


def _webp_complete(data: bytes) -> bool:
    """Whether the file holds its RIFF chunk (its size counts the bytes after it; bytes may trail, as libwebp
    reads them) and each chunk in it whole, image data (VP8, VP8L, an animation's frames) among them."""
    end = 8 + int.from_bytes(data[4:8], "little")
    if end > len(data):
        return False
    at, seen_image = 12, False
    while at + 8 <= end:
        kind, size = data[at : at + 4], int.from_bytes(data[at + 4 : at + 8], "little")
        if at + 8 + size > end:
            return False
        seen_image = seen_image or kind in (b"VP8 ", b"VP8L", b"ANMF")
        at += 8 + size + (size & 1)  # odd chunks are padded to an even size
    return seen_image and at >= end


def _any_end(_data: bytes) -> bool:
    return True


_IMAGE_ENDS = {
    "image/png": _png_complete,
    "image/jpeg": _jpeg_complete,
    "image/gif": _gif_complete,
    "image/webp": _webp_complete,
}

_IMAGE_SIZES = {
    "image/png": _png_size,
    "image/jpeg": _jpeg_size,
    "image/gif": _gif_size,
    "image/webp": _webp_size,
}
