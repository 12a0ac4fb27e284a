"""Media sniffing: the format from the first bytes, an image's size from its header, damaged headers refused."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from fsguard.core.errors import BinaryFileError
from fsguard.core.hashing import content_hash
from fsguard.core.media import JPEG_WALK_SEGMENTS, Media, identify, read_media, sniff
from tests import media_samples


def _with_ihdr(data: bytes, width: int, height: int) -> bytes:
    """``data``, a PNG, with another size in its IHDR chunk and that chunk's CRC to match."""
    body = b"IHDR" + struct.pack(">II", width, height) + data[24:29]
    return data[:12] + body + struct.pack(">I", zlib.crc32(body)) + data[33:]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (media_samples.png(640, 480), Media("image", "image/png", 640, 480)),
        (media_samples.jpeg(1920, 1080), Media("image", "image/jpeg", 1920, 1080)),
        (media_samples.photo(4000, 3000), Media("image", "image/jpeg", 4000, 3000)),
        (media_samples.gif(33, 7), Media("image", "image/gif", 33, 7)),
        (media_samples.webp(300, 200, "VP8X"), Media("image", "image/webp", 300, 200)),
        (media_samples.webp(300, 200, "VP8L"), Media("image", "image/webp", 300, 200)),
        (media_samples.webp(300, 200, "VP8 "), Media("image", "image/webp", 300, 200)),
        (media_samples.wav(), Media("audio", "audio/wav")),
        (media_samples.mp3(), Media("audio", "audio/mpeg")),
        (media_samples.mp3(tagged=False), Media("audio", "audio/mpeg")),
        (media_samples.ogg(), Media("audio", "audio/ogg")),
        (media_samples.flac(), Media("audio", "audio/flac")),
    ],
    ids=[
        *("png", "jpeg", "jpeg-thumbnail", "gif", "webp-vp8x", "webp-vp8l", "webp-vp8"),
        *("wav", "mp3-id3", "mp3-frame", "ogg", "flac"),
    ],
)
def test_each_format_is_known_by_its_bytes_with_the_image_size(data: bytes, expected: Media) -> None:
    assert identify(data) == expected


def test_a_png_as_wide_as_its_format_allows_is_an_image() -> None:
    assert identify(_with_ihdr(media_samples.png(5, 5), (1 << 31) - 1, 5)) == Media("image", "image/png", 2**31 - 1, 5)


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",  # cut before the size
        media_samples.png(5, 5)[:29] + b"\x00\x00\x00\x00" + media_samples.png(5, 5)[33:],  # IHDR's CRC wrong
        _with_ihdr(media_samples.png(5, 5), 1 << 31, 5),  # wider than the 2**31 - 1 pixels PNG allows
        b"\xff\xd8\xff\xe0\x00\x10JFIF",  # no frame header
        b"\xff\xd8\xff\xda\x00\x08" + bytes(8),  # scan data before any frame header
        b"GIF89a\x00\x00\x00\x00",  # a zero-pixel image
        b"RIFF\x10\x00\x00\x00WEBPXXXX",  # an unknown first chunk
        media_samples.png(5, 5)[:33],  # cut after the header: no image data, no end
        media_samples.png(5, 5)[:-12],  # no IEND
        media_samples.jpeg(5, 5)[:-2],  # no end of image
        media_samples.photo(5, 5)[:-600],  # cut in its scan data: the only end of image is its EXIF thumbnail's
        b"\xff\xd8" + media_samples.jpeg(5, 5)[2:].split(b"\xff\xda")[0] + b"\xff\xd9",  # a frame, no scan
        b"GIF89a\x05\x00\x05\x00\x00\x00\x00\x00\x00\x00",  # neither an image descriptor nor an extension
        media_samples.gif(5, 5)[:-4],  # cut in its image data
        media_samples.gif(5, 5)[:19] + b"\x21\xfe\x01x\x00\x3b",  # a comment extension, then the trailer: no image
        media_samples.webp(5, 5)[:-4],  # shorter than its RIFF size says
        b"RIFF\x16\x00\x00\x00" + media_samples.webp(5, 5)[8:30],  # its VP8X chunk alone, the RIFF size its own
        b"RIFF\x16\x00\x00\x00WEBPVP8L\x20\x00\x00\x00\x2f" + bytes(9),  # a 32-byte chunk holding 10
    ],
    ids=[
        "png-cut",
        "png-ihdr-crc",
        "png-too-wide",
        "jpeg-no-frame",
        "jpeg-scan-first",
        "gif-empty",
        "webp-unknown",
        "png-after-ihdr",
        "png-no-iend",
        "jpeg-no-eoi",
        "jpeg-cut-after-thumbnail",
        "jpeg-no-scan",
        "gif-no-block",
        "gif-cut-in-image",
        "gif-no-image",
        "webp-riff-past-end",
        "webp-no-image",
        "webp-chunk-past-end",
    ],
)
def test_an_image_whose_header_does_not_parse_is_not_media(data: bytes) -> None:
    assert sniff(data) is not None
    assert identify(data) is None


@pytest.mark.parametrize(
    "data",
    [
        b"hello\n",
        b"",
        b"\x00\x01\x02",
        b"\xff\xf1\x50\x80",
        b"%PDF-1.7",
        b"RIFF\x10\x00\x00\x00AVI LIST",
        b"\xff\xfe" + "utf16 text\n".encode("utf-16-le"),
        b"\xff\xfe\x00\x00" + "utf32\n".encode("utf-32-le"),
        b"GIF89a is the format of animated images.\n",
        b"ID3 tags hold the title of a song.\n",
        b"ID3\x04\x00\x00\x80\x80\x80\x80 a size byte above 7 bits",
        b"OggS is the capture pattern.\n",
        b"fLaC\tthen a tab\n",
        "RIFF\u00e9\u00e9WAVE: na\u00efve text in UTF-8\n".encode(),
        "GIF89a café crème brûlée\n".encode("cp1252"),
        ("GIF89a " + "é" * 40).encode(),  # the sniffed 64 bytes cut an é in two
    ],
    ids=[
        "text",
        "empty",
        "binary",
        "aac-adts",
        "pdf",
        "avi",
        "utf16-bom",
        "utf32-bom",
        "gif-text",
        "id3-text",
        "id3-bad-size",
        "ogg-text",
        "flac-text",
        "riff-text",
        "gif-cp1252-text",
        "gif-utf8-text-cut",
    ],
)
def test_other_files_are_not_media(data: bytes) -> None:
    assert sniff(data) is None


def test_a_file_over_the_budget_is_identified_from_its_header_and_hashed_in_pieces(tmp_path: Path) -> None:
    data = media_samples.jpeg(64, 32) + bytes(3 * (1 << 20))  # trailing bytes past EOI
    path = tmp_path / "big.jpg"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        linked = read_media(fd, st, path, budget=1000, max_file_size=len(data))
        unhashed = read_media(fd, st, path, budget=1000, max_file_size=len(data) - 1)
        inlined = read_media(fd, st, path, budget=len(data), max_file_size=len(data))
    finally:
        os.close(fd)
    assert linked is not None
    assert unhashed is not None
    assert inlined is not None
    assert (linked.data, linked.size, linked.content_hash) == (None, len(data), content_hash(data))
    assert linked.media == Media("image", "image/jpeg", 64, 32)
    assert linked.uri == path.as_uri()
    assert unhashed.content_hash is None
    assert inlined.data == data


def test_an_image_s_header_alone_identifies_it_when_its_end_is_not_read() -> None:
    head = media_samples.png(7, 3)[:33]
    assert identify(head) is None
    assert identify(head, whole=False) == Media("image", "image/png", 7, 3)


def _linked(tmp_path: Path, data: bytes) -> Media | None:
    """The media read_media finds in ``data`` written to a file and linked (a budget below its size)."""
    path = tmp_path / "big.jpg"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        found = read_media(fd, os.fstat(fd), path, budget=100, max_file_size=len(data))
    finally:
        os.close(fd)
    return found.media if found is not None else None


def test_a_linked_jpeg_is_identified_by_a_frame_header_behind_large_app_segments(tmp_path: Path) -> None:
    # Five 64 KiB EXIF-sized segments put the frame header 320 KB in: past the 256 KiB read, it was binary_file.
    app = b"\xff\xe1" + (65002).to_bytes(2, "big") + bytes(65000)
    data = media_samples.jpeg(64, 32)
    data = data[:2] + app * 5 + data[2:] + bytes(1000)
    assert _linked(tmp_path, data) == Media("image", "image/jpeg", 64, 32)


def test_a_jpeg_s_segments_are_walked_a_bounded_number_of_times(tmp_path: Path) -> None:
    empty = b"\xff\xfe\x00\x02"  # a comment segment holding nothing
    data = media_samples.jpeg(64, 32)
    within = data[:2] + empty * (JPEG_WALK_SEGMENTS - 10) + data[2:]
    beyond = data[:2] + empty * JPEG_WALK_SEGMENTS + data[2:]
    assert _linked(tmp_path, within) == Media("image", "image/jpeg", 64, 32)
    with pytest.raises(BinaryFileError, match="its header does not parse"):
        _linked(tmp_path, beyond)


def test_a_gif_may_end_after_a_whole_block_without_its_trailer_but_not_inside_one() -> None:
    # Some encoders leave the trailer out (Python's idlelib icons); decoders read such a file, not a cut one.
    whole = media_samples.gif(5, 5)
    assert identify(whole[:-1]) == Media("image", "image/gif", 5, 5)
    assert identify(whole[:-2]) is None


def test_a_webp_may_hold_bytes_past_its_riff_size_but_not_fewer() -> None:
    # libwebp reads the RIFF size's bytes and leaves any after them.
    whole = media_samples.webp(5, 5, "VP8L")
    assert identify(whole + bytes(6)) == Media("image", "image/webp", 5, 5)
    assert identify(whole[:-2]) is None


def _adts() -> bytes:
    """One AAC ADTS frame: sync, MPEG-4, layer 0, no CRC; LC, 44.1 kHz, stereo; 20 bytes long."""
    length = 20
    header = bytes([0xFF, 0xF1, 0x50, 0x80 | (length >> 11), (length >> 3) & 0xFF, ((length & 7) << 5) | 0x1F, 0xFC])
    return header + bytes(length - 7)


@pytest.mark.parametrize(
    ("stream", "mime"),
    [(media_samples.flac(), "audio/flac"), (_adts(), "audio/aac"), (media_samples.mp3()[10:], "audio/mpeg")],
    ids=["flac", "aac", "mp3"],
)
def test_audio_behind_an_id3_tag_is_labelled_by_the_stream_after_the_tag(stream: bytes, mime: str) -> None:
    # The tag alone said audio/mpeg: an ID3-tagged FLAC or AAC file was sent as MP3.
    tag = b"ID3\x04\x00\x00\x00\x00\x01\x00" + bytes(128)  # a 128-byte tag (size 0x100 in 7-bit bytes: 1 << 7)
    assert identify(tag + stream) == Media("audio", mime)
    assert identify(tag + stream, whole=False) == Media("audio", mime)


@pytest.mark.parametrize(
    "data",
    [
        b"RIFF\x04\x00\x00\x00WAVE",  # the signature alone
        media_samples.wav()[:36],  # the format chunk, no data chunk
        media_samples.flac()[:20],  # STREAMINFO cut
        media_samples.ogg()[:40],  # the first page cut
        b"ID3\x04\x00\x00\x00\x00\x00\x00" + _adts()[:12],  # the first frame after a tag cut
        b"ID3\x04\x00\x00\x00\x00\x01\x00" + bytes(20),  # a tag promising 128 bytes, no stream
        media_samples.aac(1)[:12],  # an untagged AAC's first frame cut
    ],
    ids=["riff stub", "wav without data", "flac cut", "ogg cut", "aac cut", "id3 alone", "untagged aac cut"],
)
def test_an_audio_stub_that_ends_inside_its_first_header_is_not_media(data: bytes) -> None:
    # A 12-byte RIFF....WAVE went out as an audio/wav block a model API cannot decode.
    assert identify(data) is None
