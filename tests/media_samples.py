"""Small, well-formed image and audio files for the media tests, built from their format specifications."""

from __future__ import annotations

import io
import struct
import wave
import zlib


def png(width: int, height: int) -> bytes:
    """A real RGB PNG (decodable), red pixels."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def jpeg(width: int, height: int) -> bytes:
    """The segments up to a baseline frame header, behind a JFIF and an EXIF-sized APP1 segment, then a scan
    header, a few bytes of scan data and EOI."""
    jfif = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    app1 = b"\xff\xe1" + struct.pack(">H", 2 + 300) + b"Exif\x00\x00" + bytes(294)
    components = b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + components
    sos = b"\xff\xda" + struct.pack(">H", 12) + b"\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00"
    return b"\xff\xd8" + jfif + app1 + sof + sos + b"\x12\x34\x56" + b"\xff\xd9"


def photo(width: int, height: int) -> bytes:
    """A camera-style JPEG: its EXIF segment holds a thumbnail (a whole JPEG, end of image included) before the
    frame header, and its scan data runs on past it."""
    thumbnail = jpeg(16, 12)
    exif = b"\xff\xe1" + struct.pack(">H", 2 + 6 + len(thumbnail)) + b"Exif\x00\x00" + thumbnail
    main = jpeg(width, height)
    return main[:2] + exif + main[2:-2] + b"\x12\x34" * 500 + main[-2:]


def gif(width: int, height: int) -> bytes:
    """A GIF89a with a one-pixel image and a two-colour palette."""
    screen = struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return b"GIF89a" + screen + image + b"\x3b"


def webp(width: int, height: int, chunk: str = "VP8X") -> bytes:
    """A RIFF/WEBP file whose first chunk is ``chunk`` (VP8X, VP8L or ``VP8 ``) holding the size; a VP8X chunk is
    followed by the image's VP8L chunk."""
    lossless = b"\x2f" + ((width - 1) | (height - 1) << 14).to_bytes(4, "little") + bytes(5)
    if chunk == "VP8X":
        body = b"\x00\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    elif chunk == "VP8L":
        body = lossless
    else:
        body = b"\x30\x01\x00\x9d\x01\x2a" + struct.pack("<HH", width, height) + bytes(8)
    data = chunk.encode("ascii") + struct.pack("<I", len(body)) + body
    if chunk == "VP8X":
        data += b"VP8L" + struct.pack("<I", len(lossless)) + lossless
    return b"RIFF" + struct.pack("<I", 4 + len(data)) + b"WEBP" + data


def wav(frames: int = 200) -> bytes:
    """A real 8 kHz mono 16-bit WAV."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(bytes(range(256)) * (frames * 2 // 256) + bytes(frames * 2 % 256))
    return buffer.getvalue()


def mp3(tagged: bool = True) -> bytes:
    """MPEG-1 layer III frames (128 kbit/s, 44.1 kHz), behind an ID3v2 tag when ``tagged``."""
    frame = b"\xff\xfb\x90\x64" + bytes(413)
    tag = b"ID3\x04\x00\x00\x00\x00\x00\x00" if tagged else b""
    return tag + frame * 3


def aac(frames: int = 3) -> bytes:
    """AAC ADTS frames with no ID3 tag: sync, MPEG-4, layer 0, no CRC; LC, 44.1 kHz, stereo; 20 bytes each."""
    length = 20
    header = bytes([0xFF, 0xF1, 0x50, 0x80 | (length >> 11), (length >> 3) & 0xFF, ((length & 7) << 5) | 0x1F, 0xFC])
    return (header + bytes(length - 7)) * frames


def ogg() -> bytes:
    """An Ogg page header and a Vorbis identification header."""
    return b"OggS\x00\x02" + bytes(20) + b"\x01\x1e\x01vorbis" + bytes(40)


def flac() -> bytes:
    """The fLaC marker and a STREAMINFO block."""
    return b"fLaC\x80\x00\x00\x22" + bytes(34)
