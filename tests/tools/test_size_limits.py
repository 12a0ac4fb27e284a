"""--max-file-size on the way in: content over the limit is refused before anything is written or backed up."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from fsguard.core import disk
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

LIMIT = 1000


def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*") if p.is_file())


async def test_write_file_over_the_limit_is_too_large_and_creates_nothing(connect: ClientFactory, root: Path) -> None:
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool("write_file", {"path": "big.txt", "content": "x" * (LIMIT + 1)})
    assert error_code(result) == "too_large"
    assert _files(root) == []


async def test_write_file_whose_encoded_bytes_pass_the_limit_is_too_large_and_leaves_the_file(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    (root / "f.txt").write_bytes(b"old\n")
    async with connect(max_file_size=LIMIT) as client:
        # 600 characters, 1,200 bytes in UTF-8: the limit is on bytes.
        result = await client.call_tool("write_file", {"path": "f.txt", "content": "é" * 600})
    assert error_code(result) == "too_large"
    assert (root / "f.txt").read_bytes() == b"old\n"
    assert _files(state_dir / "backups" / "blobs") == []


async def test_base64_content_over_the_limit_is_too_large(connect: ClientFactory, root: Path) -> None:
    payload = base64.b64encode(b"\x00" * (LIMIT + 1)).decode()
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool("write_file", {"path": "blob.bin", "content_base64": payload})
    assert error_code(result) == "too_large"
    assert _files(root) == []


async def test_an_edit_that_grows_a_file_past_the_limit_is_too_large_and_takes_no_backup(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    (root / "grow.txt").write_bytes(b"seed\n")
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool(
            "edit_file", {"path": "grow.txt", "old_text": "seed", "new_text": "y" * (LIMIT + 1)}
        )
    assert error_code(result) == "too_large"
    assert (root / "grow.txt").read_bytes() == b"seed\n"
    assert _files(state_dir / "backups" / "blobs") == []


async def test_a_write_at_the_limit_is_written(connect: ClientFactory, root: Path) -> None:
    async with connect(max_file_size=LIMIT) as client:
        data = structured(await client.call_tool("write_file", {"path": "edge.txt", "content": "z" * LIMIT}))
    assert data["bytes_written"] == LIMIT
    assert (root / "edge.txt").read_bytes() == b"z" * LIMIT


async def test_an_artifact_over_the_limit_is_not_captured(connect: ClientFactory, root: Path) -> None:
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool(
            "server_info", {"action": "artifact", "sub_action": "capture", "content": "a" * (LIMIT + 1)}
        )
        info = structured(await client.call_tool("server_info", {"action": "artifact"}))
    assert error_code(result) == "too_large"
    assert _files(root) == []
    assert info["artifact"]["captured"] is False


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "big.js", "old_text": "line", "new_text": "row", "replace_all": True}),
        ("minify_js", {"path": "big.js"}),
    ],
    ids=["edit_file", "minify_js"],
)
async def test_a_change_to_a_file_over_the_limit_says_read_file_still_reads_it_in_ranges_and_leaves_it(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, object]
) -> None:
    original = b"var line = 1;\n" * 100
    (root / "big.js").write_bytes(original)
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool(tool, arguments)
        followed = await client.call_tool("read_file", {"path": "big.js", "start_line": 1, "end_line": 2})
    assert error_code(result) == "too_large"
    assert "read in ranges: read_file(start_line=..., end_line=...)" in text_of(result)
    assert "--max-file-size" in text_of(result)
    assert "to read it" not in text_of(result)
    assert structured(followed)["content"] == "var line = 1;\nvar line = 1;\n"  # the advice works
    assert (root / "big.js").read_bytes() == original


async def test_the_refusals_of_a_binary_file_over_the_limit_never_send_the_agent_to_a_read_refused_just_before(
    connect: ClientFactory, root: Path
) -> None:
    blob = bytes(range(256)) * 20  # NULs: binary, and 5,120 bytes, above the limit
    (root / "b.bin").write_bytes(blob)
    async with connect(max_file_size=LIMIT) as client:
        ranged = await client.call_tool("read_file", {"path": "b.bin", "start_line": 1, "end_line": 2})
        raw = await client.call_tool("read_file", {"path": "b.bin", "encoding": "base64"})
    assert error_code(ranged) == "binary_file"
    assert "encoding='base64') (a file up to --max-file-size)" in text_of(ranged)
    assert error_code(raw) == "too_large"
    assert "A text file can still be read in ranges" in text_of(raw)
    assert (root / "b.bin").read_bytes() == blob


async def test_a_file_growing_during_a_base64_read_is_never_answered_past_the_response_budget(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The budget was checked against the size from before the read, and all that came in was sent.
    (root / "grow.bin").write_bytes(b"\x00" * 600)
    real = disk.read_all

    def growing(fd: int, size_hint: int, limit: int | None = None) -> bytes:
        with (root / "grow.bin").open("ab") as f:
            f.write(b"\x01" * 5000)  # another program appends while fsguard reads
        return real(fd, size_hint, limit)

    monkeypatch.setattr(disk, "read_all", growing)
    async with connect(max_file_size=100_000, max_response_bytes=LIMIT) as client:
        result = await client.call_tool("read_file", {"path": "grow.bin", "encoding": "base64"})
    assert error_code(result) == "too_large"
    assert text_of(result).startswith(
        "grow.bin grew past the response budget (--max-response-bytes 1,000) while it was read; nothing was changed."
    )
    assert (root / "grow.bin").read_bytes() == b"\x00" * 600 + b"\x01" * 5000
