"""Audio: the stream a file holds past an ID3v2 tag, and whether a file read whole holds more than a signature.

An ID3v2 tag (an MP3's metadata) is put before FLAC and AAC streams too: the tag alone labelled them all
audio/mpeg. A stub that holds a signature and nothing after it (a 12-byte ``RIFF....WAVE``, a tag over no stream)
went out as an audio block a model API cannot decode: as a damaged image is, it is read as a binary file. The
checks are of the first header only (a format chunk, a STREAMINFO block, a first page or frame): no decoder.
"""

from __future__ import annotations

from collections.abc import Callable

Reader = Callable[[int, int], bytes]
"""``read(offset, count)``: at most ``count`` bytes of a file from ``offset``, fewer at its end."""

_WAV_CHUNKS = 64  # chunks walked for the format and data chunks (LIST, bext, JUNK... come before them)


def id3(head: bytes) -> bool:
    """An ID3v2 tag header: version 2-4, then a size of four 7-bit bytes."""
    return len(head) >= 10 and head.startswith(b"ID3") and 2 <= head[3] <= 4 and all(b < 0x80 for b in head[6:10])


def mpeg_frame(head: bytes) -> bool:
    """A layer III frame header (an MP3 without ID3 tag): sync bits, a real version, a real bitrate and rate.

    Layer III only: the UTF-16-LE byte-order mark FF FE reads as a layer I sync word.
    """
    if len(head) < 3 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version, layer = (head[1] >> 3) & 3, (head[1] >> 1) & 3
    bitrate, rate = head[2] >> 4, (head[2] >> 2) & 3
    return version != 1 and layer == 1 and bitrate not in (0, 15) and rate != 3


def adts_frame(head: bytes) -> bool:
    """An AAC ADTS frame header (an AAC file's start, or its stream's after an ID3 tag): the 12 sync bits,
    layer 0, a sampling rate index in the table."""
    return len(head) >= 7 and head[0] == 0xFF and head[1] & 0xF6 == 0xF0 and (head[2] >> 2) & 0xF < 13


def _tag_end(head: bytes) -> int:
    """Where the stream after an ID3v2 tag starts: its header, the size it gives, and a footer where flagged."""
    size = 0
    for byte in head[6:10]:
        size = size << 7 | byte
    return 10 + size + (10 if head[5] & 0x10 else 0)


def audio_type(mime: str, read: Reader, size: int | None) -> str | None:
    """The type of the audio a file whose signature says ``mime`` holds: past an ID3v2 tag, the stream's own
    (FLAC, AAC or MPEG); None when no stream follows the tag, or, read whole (``size`` bytes), its first header is
    not all there."""
    start = 0
    if mime == "audio/mpeg":
        head = read(0, 10)
        start = _tag_end(head) if id3(head) else 0
        stream = read(start, 7)
        if stream.startswith(b"fLaC"):
            mime = "audio/flac"
        elif adts_frame(stream):
            mime = "audio/aac"
        elif not mpeg_frame(stream):
            return None
    if size is None:  # linked, not read whole: its end is not read
        return mime
    return mime if _WHOLE[mime](read, start, size) else None


def _wav(read: Reader, _start: int, size: int) -> bool:
    """A format chunk whole, then a data chunk's header."""
    at, formatted = 12, False
    for _ in range(_WAV_CHUNKS):
        header = read(at, 8)
        if len(header) < 8:
            return False
        length = int.from_bytes(header[4:8], "little")
        if header[:4] == b"data":
            return formatted
        formatted = formatted or (header[:4] == b"fmt " and length >= 16 and at + 8 + length <= size)
        at += 8 + length + (length & 1)
    return False


def _flac(read: Reader, start: int, size: int) -> bool:
    """Its first metadata block, STREAMINFO (34 bytes), whole."""
    block = read(start + 4, 4)
    return len(block) == 4 and block[0] & 0x7F == 0 and int.from_bytes(block[1:4], "big") == 34 and size >= start + 42


def _ogg(read: Reader, start: int, size: int) -> bool:
    """Its first page whole: the header, the segment table, the segments it counts."""
    header = read(start, 27)
    if len(header) < 27:
        return False
    table = read(start + 27, header[26])
    return len(table) == header[26] and start + 27 + len(table) + sum(table) <= size


def _aac(read: Reader, start: int, size: int) -> bool:
    """Its first ADTS frame whole, by the length its header gives."""
    head = read(start, 7)
    length = (head[3] & 3) << 11 | head[4] << 3 | head[5] >> 5
    return length >= 7 and start + length <= size


def _mpeg(read: Reader, start: int, size: int) -> bool:
    """A frame header past the tag, and more than it: the first frame's audio begun."""
    return size > start + 4


_WHOLE: dict[str, Callable[[Reader, int, int], bool]] = {
    "audio/wav": _wav,
    "audio/flac": _flac,
    "audio/ogg": _ogg,
    "audio/aac": _aac,
    "audio/mpeg": _mpeg,
}
