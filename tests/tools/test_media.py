"""read_file of images and audio, in both protocol eras: image/audio blocks holding the file's bytes, resource links
above --max-media-bytes, base64 text unchanged, and results valid against read_file's outputSchema."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import AudioContent, CallToolResult, ImageContent, ResourceLink

from fsguard.core import media
from fsguard.core.disk import read_all
from fsguard.core.hashing import content_hash
from tests import media_samples
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def _valid(client: Client, result: CallToolResult) -> dict[str, object]:
    """The structured result, checked (again, explicitly) against read_file's outputSchema by the client."""
    data = structured(result)
    await client.session.validate_tool_result("read_file", result)
    return data


async def test_an_image_read_gives_an_image_block_whose_bytes_are_the_file(client: Client, root: Path) -> None:
    raw = media_samples.png(40, 30)
    (root / "logo.png").write_bytes(raw)
    result = await client.call_tool("read_file", {"path": "logo.png"})
    assert len(result.content) == 2
    block = result.content[1]
    assert isinstance(block, ImageContent)
    assert base64.b64decode(block.data) == raw == (root / "logo.png").read_bytes()
    assert block.mime_type == "image/png"
    data = await _valid(client, result)
    assert data["media"] == "image"
    assert (data["mime_type"], data["width"], data["height"]) == ("image/png", 40, 30)
    assert (data["size"], data["content_hash"], data["path"]) == (len(raw), content_hash(raw), str(root / "logo.png"))
    assert data["content"] == ""
    assert "uri" not in data
    assert "image/png 40x30" in text_of(result)


@pytest.mark.parametrize(
    ("name", "raw", "mime", "size"),
    [
        ("photo.jpeg", media_samples.jpeg(800, 600), "image/jpeg", (800, 600)),
        ("anim.gif", media_samples.gif(16, 9), "image/gif", (16, 9)),
        ("pic.webp", media_samples.webp(123, 45), "image/webp", (123, 45)),
    ],
    ids=["jpeg", "gif", "webp"],
)
async def test_every_image_format_gives_its_mime_type_and_size(
    client: Client, root: Path, name: str, raw: bytes, mime: str, size: tuple[int, int]
) -> None:
    (root / name).write_bytes(raw)
    result = await client.call_tool("read_file", {"path": name})
    block = result.content[1]
    assert isinstance(block, ImageContent)
    assert (base64.b64decode(block.data), block.mime_type) == (raw, mime)
    data = await _valid(client, result)
    assert (data["width"], data["height"]) == size


@pytest.mark.parametrize(
    ("name", "raw", "mime"),
    [
        ("voice.wav", media_samples.wav(), "audio/wav"),
        ("song.mp3", media_samples.mp3(), "audio/mpeg"),
        ("clip.ogg", media_samples.ogg(), "audio/ogg"),
        ("take.flac", media_samples.flac(), "audio/flac"),
        ("talk.aac", media_samples.aac(), "audio/aac"),  # no ID3 tag: it read as a binary file
    ],
    ids=["wav", "mp3", "ogg", "flac", "aac"],
)
async def test_an_audio_read_gives_an_audio_block_whose_bytes_are_the_file(
    client: Client, root: Path, name: str, raw: bytes, mime: str
) -> None:
    (root / name).write_bytes(raw)
    result = await client.call_tool("read_file", {"path": name})
    block = result.content[1]
    assert isinstance(block, AudioContent)
    assert base64.b64decode(block.data) == (root / name).read_bytes()
    assert block.mime_type == mime
    data = await _valid(client, result)
    assert (data["media"], data["mime_type"], data["content_hash"]) == ("audio", mime, content_hash(raw))
    assert "width" not in data


async def test_the_mime_type_comes_from_the_bytes_not_the_name(client: Client, root: Path) -> None:
    raw = media_samples.png(2, 2)
    (root / "really-a-png.jpg").write_bytes(raw)
    (root / "noext").write_bytes(media_samples.gif(3, 3))
    result = await client.call_tool("read_file", {"path": "really-a-png.jpg"})
    block = result.content[1]
    assert isinstance(block, ImageContent)
    assert block.mime_type == "image/png"
    assert structured(result)["mime_type"] == "image/png"
    assert structured(await client.call_tool("read_file", {"path": "noext"}))["mime_type"] == "image/gif"


async def test_a_text_file_named_like_an_image_is_read_as_text(client: Client, root: Path) -> None:
    (root / "fake.png").write_text("not an image\n", encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "fake.png"})
    assert len(result.content) == 1
    assert structured(result)["content"] == "not an image\n"
    assert "media" not in structured(result)


async def test_a_media_file_over_the_budget_is_a_resource_link(connect: ClientFactory, root: Path) -> None:
    raw = media_samples.png(64, 64)
    (root / "big.png").write_bytes(raw)
    async with connect(max_media_bytes=len(raw) - 1) as client:
        result = await client.call_tool("read_file", {"path": "big.png"})
        link = result.content[1]
        assert isinstance(link, ResourceLink)
        assert (link.uri, link.name, link.mime_type, link.size) == (
            (root / "big.png").as_uri(),
            "big.png",
            "image/png",
            len(raw),
        )
        assert not any(isinstance(block, ImageContent) for block in result.content)
        data = await _valid(client, result)
        assert data["uri"] == (root / "big.png").as_uri()
        assert (data["width"], data["height"], data["content_hash"]) == (64, 64, content_hash(raw))
        assert "--max-media-bytes" in text_of(result)
        assert "encoding='base64'" in str(data["hint"])


async def test_encoding_base64_still_returns_the_bytes_as_base64_text(client: Client, root: Path) -> None:
    raw = media_samples.png(5, 5)
    (root / "p.png").write_bytes(raw)
    result = await client.call_tool("read_file", {"path": "p.png", "encoding": "base64"})
    assert len(result.content) == 1
    data = await _valid(client, result)
    assert base64.b64decode(str(data["content"])) == raw
    assert (data["encoding"], data["size"]) == ("base64", len(raw))
    assert "media" not in data


async def test_a_base64_read_too_long_for_the_response_names_the_read_that_shows_the_image(
    connect: ClientFactory, root: Path
) -> None:
    raw = media_samples.png(60, 60)
    (root / "p.png").write_bytes(raw)
    (root / "blob.bin").write_bytes(bytes(len(raw)))
    async with connect(max_response_bytes=len(raw)) as client:
        refused = await client.call_tool("read_file", {"path": "p.png", "encoding": "base64"})
        other = await client.call_tool("read_file", {"path": "blob.bin", "encoding": "base64"})
        shown = await client.call_tool("read_file", {"path": "p.png"})
    assert error_code(refused) == error_code(other) == "too_large"
    # It named get_file_info and copy_file only, never the read that shows the image within the media budget.
    assert "read_file without encoding shows this image (image/png) to you" in text_of(refused)
    assert "read_file without encoding" not in text_of(other)
    block = shown.content[1]
    assert isinstance(block, ImageContent)
    assert base64.b64decode(block.data) == raw == (root / "p.png").read_bytes()


async def test_a_line_range_of_an_image_is_refused_naming_the_whole_read(client: Client, root: Path) -> None:
    (root / "p.png").write_bytes(media_samples.png(5, 5))
    result = await client.call_tool("read_file", {"path": "p.png", "start_line": 1, "end_line": 2})
    assert error_code(result) == "invalid_params"
    assert "image/png" in text_of(result)
    assert "encoding='base64'" in text_of(result)


@pytest.mark.parametrize(
    "arguments", [{"start_line": 1, "end_line": 2}, {"max_lines": 3, "mode": "tail"}], ids=["range", "window"]
)
async def test_a_line_range_of_a_damaged_image_is_not_refused_as_an_image_s(
    client: Client, root: Path, arguments: dict[str, object]
) -> None:
    # It was told to drop the range to get the image block, and then answered binary_file: never an image block.
    (root / "cut.png").write_bytes(media_samples.png(5, 5)[:-12])
    ranged = await client.call_tool("read_file", {"path": "cut.png", **arguments})
    whole = await client.call_tool("read_file", {"path": "cut.png"})
    assert error_code(ranged) == error_code(whole) == "binary_file"
    assert "image block" not in text_of(ranged)


async def test_a_damaged_image_is_a_binary_file_not_an_image_block(client: Client, root: Path) -> None:
    (root / "cut.png").write_bytes(media_samples.png(5, 5)[:20])
    assert error_code(await client.call_tool("read_file", {"path": "cut.png"})) == "binary_file"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("cut.png", media_samples.png(5, 5)[:33]),
        ("cut.jpg", media_samples.jpeg(5, 5)[:-2]),
        ("photo.jpg", media_samples.photo(5, 5)[:-600]),
        ("cut.gif", media_samples.gif(5, 5)[:-4]),
        ("cut.webp", media_samples.webp(5, 5)[:-4]),
    ],
    ids=["png-after-ihdr", "jpeg-no-eoi", "jpeg-cut-after-thumbnail", "gif-in-image-data", "webp-short-of-riff-size"],
)
async def test_an_image_that_ends_early_is_a_binary_file_not_an_image_block(
    client: Client, root: Path, name: str, data: bytes
) -> None:
    # Its header parsed, so it was inlined: a block a model API cannot decode fails the whole request there.
    (root / name).write_bytes(data)
    result = await client.call_tool("read_file", {"path": name})
    assert error_code(result) == "binary_file"
    # It said "a binary file", as of any other: not that the image is cut short.
    assert f"{name} starts as an image (image/" in text_of(result)
    assert "ends early: cut short or damaged" in text_of(result)


async def test_a_linked_image_whose_header_does_not_parse_says_so(connect: ClientFactory, root: Path) -> None:
    (root / "big.png").write_bytes(media_samples.png(5, 5)[:16] + bytes(5000))  # cut inside its IHDR
    async with connect(max_media_bytes=1000) as client:
        result = await client.call_tool("read_file", {"path": "big.png"})
    assert error_code(result) == "binary_file"
    assert "big.png starts as an image (image/png) but its header does not parse" in text_of(result)


async def test_a_code_page_text_file_starting_with_an_image_signature_is_read_as_text(
    client: Client, root: Path
) -> None:
    # Its non-UTF-8 bytes made it no text to the sniff, and "GIF89a" and any four bytes a 25376x26209 GIF.
    (root / "notes.txt").write_bytes("GIF89a café crème brûlée\n".encode("cp1252"))
    data = structured(await client.call_tool("read_file", {"path": "notes.txt"}))
    assert (data["content"], data["encoding"]) == ("GIF89a café crème brûlée\n", "cp1252")


async def test_the_hash_of_an_image_read_is_the_expected_hash_for_a_write(client: Client, root: Path) -> None:
    (root / "p.png").write_bytes(media_samples.png(5, 5))
    digest = structured(await client.call_tool("read_file", {"path": "p.png"}))["content_hash"]
    new = media_samples.png(6, 6)
    arguments = {"path": "p.png", "content_base64": base64.b64encode(new).decode(), "expected_hash": digest}
    written = structured(await client.call_tool("write_file", arguments))
    assert written["content_hash"] == content_hash(new)
    assert (root / "p.png").read_bytes() == new


async def test_several_paths_read_an_image_as_a_binary_file_in_place(client: Client, root: Path) -> None:
    (root / "p.png").write_bytes(media_samples.png(5, 5))
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    data = structured(await client.call_tool("read_file", {"paths": ["a.txt", "p.png"]}))
    files = data["files"]
    assert files[0]["content"] == "alpha\n"
    assert files[1]["error_code"] == "binary_file"


async def test_an_image_or_audio_file_among_paths_names_the_one_file_read_that_shows_it(
    connect: ClientFactory, root: Path
) -> None:
    (root / "p.png").write_bytes(media_samples.png(5, 4))
    (root / "v.wav").write_bytes(media_samples.wav())
    (root / "big.png").write_bytes(media_samples.png(300, 300))
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    async with connect(max_media_bytes=500) as client:
        result = await client.call_tool("read_file", {"paths": ["p.png", "v.wav", "big.png", "a.txt"]})
    files = structured(result)["files"]
    assert [entry.get("error_code") for entry in files] == ["binary_file"] * 3 + [None]
    # It said "a binary file. Read it with read_file(encoding='base64')": the one-file read shows it instead.
    assert files[0]["error"] == (
        f"{root / 'p.png'} is an image (image/png 5x4): read_file with paths returns text only. To see it, read it "
        f'on its own: read_file(path="{root / "p.png"}").'
    )
    assert "an audio file (audio/wav): read_file with paths returns text only. To hear it" in files[1]["error"]
    assert "an image (image/png 300x300)" in files[2]["error"]
    assert 'read it on its own: read_file(path="p.png")' in text_of(result)


async def test_an_image_above_the_file_size_limit_is_linked_without_a_hash(connect: ClientFactory, root: Path) -> None:
    raw = media_samples.png(8, 8)
    (root / "p.png").write_bytes(raw)
    async with connect(max_file_size=len(raw) - 1, max_media_bytes=10 * len(raw)) as client:
        result = await client.call_tool("read_file", {"path": "p.png"})
        assert isinstance(result.content[1], ResourceLink)
        data = await _valid(client, result)
    assert "content_hash" not in data
    assert (data["size"], data["width"]) == (len(raw), 8)
    assert "not hashed" in text_of(result)


async def test_an_image_that_grows_past_the_media_budget_while_read_is_linked_not_inlined(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = media_samples.png(8, 8)
    (root / "p.png").write_bytes(raw)

    def growing(fd: int, size_hint: int, limit: int | None = None) -> bytes:
        with (root / "p.png").open("ab") as out:  # another program appends as the read begins
            out.write(bytes(5000))
        return read_all(fd, size_hint, limit)

    monkeypatch.setattr(media, "read_all", growing)
    async with connect(max_media_bytes=1000) as client:
        result = await client.call_tool("read_file", {"path": "p.png"})
        data = await _valid(client, result)
    # It was inlined whole, 5 times the budget the block is held to.
    assert isinstance(result.content[1], ResourceLink)
    assert data["size"] == len(raw) + 5000 == (root / "p.png").stat().st_size
    assert data["content_hash"] == content_hash((root / "p.png").read_bytes())


async def test_a_linked_image_written_to_while_hashed_says_so_not_that_it_is_too_large(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never_steady(fd: int, first: object, path: object, attempt: Any, unsteady: Any = None) -> Any:
        return unsteady(attempt(first))  # another program writes to it during every pass

    monkeypatch.setattr("fsguard.core.media.steady", never_steady)
    raw = media_samples.png(8, 8)
    (root / "p.png").write_bytes(raw)
    async with connect(max_media_bytes=10) as client:
        result = await client.call_tool("read_file", {"path": "p.png"})
        data = await _valid(client, result)
    assert "content_hash" not in data
    # It said "not hashed (above --max-file-size)" of a file far below that limit.
    assert "not hashed (written to while read; read again for one)" in text_of(result)
    assert "--max-file-size" not in text_of(result)
    assert "p.png was written to while it was read" in str(data["hint"])
    assert (root / "p.png").read_bytes() == raw


async def test_an_image_linked_for_the_file_size_limit_names_it_and_no_read_that_would_be_refused(
    connect: ClientFactory, root: Path
) -> None:
    # Linked by min(--max-media-bytes, --max-file-size): the hint named the media budget and a base64 read, which
    # was refused as too large pointing to line ranges, which a media file refuses pointing back to base64.
    raw = media_samples.png(8, 8)
    (root / "p.png").write_bytes(raw)
    async with connect(max_file_size=len(raw) - 1, max_media_bytes=10 * len(raw)) as client:
        hint = str(structured(await client.call_tool("read_file", {"path": "p.png"}))["hint"])
        as_base64 = await client.call_tool("read_file", {"path": "p.png", "encoding": "base64"})
        ranged = await client.call_tool("read_file", {"path": "p.png", "start_line": 1, "end_line": 2})
    assert f"above the {len(raw) - 1:,}-byte limit (--max-file-size)" in hint
    assert "--max-media-bytes" not in hint
    assert "base64" not in hint
    assert error_code(as_base64) == "too_large"
    assert "start_line" not in text_of(as_base64)
    assert "larger --max-file-size" in text_of(as_base64)
    assert error_code(ranged) == "invalid_params"
    assert "base64" not in text_of(ranged)
    assert "resource_link" in text_of(ranged)


async def test_a_linked_image_above_both_limits_names_the_media_budget_and_the_file_size_limit(
    connect: ClientFactory, root: Path
) -> None:
    raw = media_samples.png(8, 8)
    (root / "p.png").write_bytes(raw)
    async with connect(max_file_size=len(raw) - 1, max_media_bytes=10) as client:
        hint = str(structured(await client.call_tool("read_file", {"path": "p.png"}))["hint"])
    assert "above the media budget (--max-media-bytes 10)" in hint
    assert f"above the {len(raw) - 1:,}-byte limit (--max-file-size): no read loads it whole" in hint
    assert "base64" not in hint


async def test_a_jpeg_over_the_budget_whose_frame_header_is_far_in_is_linked(
    connect: ClientFactory, root: Path
) -> None:
    app = b"\xff\xe1" + (65002).to_bytes(2, "big") + bytes(65000)  # EXIF-sized segments: 320 KB before the frame
    raw = media_samples.jpeg(64, 32)
    raw = raw[:2] + app * 5 + raw[2:]
    (root / "photo.jpg").write_bytes(raw)
    async with connect(max_media_bytes=len(raw) - 1) as client:
        result = await client.call_tool("read_file", {"path": "photo.jpg"})
        assert isinstance(result.content[1], ResourceLink)
        data = await _valid(client, result)
    assert (data["mime_type"], data["width"], data["height"]) == ("image/jpeg", 64, 32)
    assert data["content_hash"] == content_hash(raw)


async def test_a_truncated_audio_stub_is_a_binary_file_and_id3_tagged_flac_is_flac(client: Client, root: Path) -> None:
    # The stub went out as audio/wav, and the tagged FLAC as audio/mpeg: the signature alone was looked at.
    (root / "stub.wav").write_bytes(b"RIFF\x04\x00\x00\x00WAVE")
    tagged = b"ID3\x04\x00\x00\x00\x00\x00\x10" + bytes(16) + media_samples.flac()
    (root / "tagged.flac").write_bytes(tagged)
    stub = await client.call_tool("read_file", {"path": "stub.wav"})
    assert error_code(stub) == "binary_file"
    result = await client.call_tool("read_file", {"path": "tagged.flac"})
    block = result.content[1]
    assert isinstance(block, AudioContent)
    assert block.mime_type == "audio/flac"
    assert base64.b64decode(block.data) == (root / "tagged.flac").read_bytes() == tagged
    assert (root / "stub.wav").read_bytes() == b"RIFF\x04\x00\x00\x00WAVE"


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("stub.wav", b"RIFF\x04\x00\x00\x00WAVE", "stub.wav is a binary file."),
        ("cut.png", media_samples.png(5, 5)[:33], "cut.png starts as an image (image/png) but ends early"),
        ("t.flac", b"ID3\x04\x00\x00\x00\x00\x00\x00" + media_samples.flac(), "t.flac is audio/flac (audio)"),
    ],
    ids=["audio stub", "damaged image", "tagged flac"],
)
async def test_a_line_range_of_a_media_file_is_refused_as_what_a_whole_read_finds_it_is(
    client: Client, root: Path, name: str, data: bytes, said: str
) -> None:
    # It was refused by the signature alone: "is audio/wav: it is read whole, as an audio block", which a whole
    # read then refused as a binary file; a tagged FLAC was named audio/mpeg.
    (root / name).write_bytes(data)
    refused = await client.call_tool("read_file", {"path": name, "start_line": 1})
    assert refused.is_error
    assert text_of(refused).startswith(said)
    assert (root / name).read_bytes() == data
