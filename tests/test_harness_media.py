"""Media reads and write_file append over real stdio, checked by the strict TypeScript client.

``tests/scenarios/media.json`` reads a PNG, a PNG named .jpg, a WAV (image and audio blocks), a PNG and an MP3
above the 300-byte media budget the server is started with (resource_link blocks), a PNG as base64 text, and
appends to files (CRLF, no final newline, missing, stale hash, bytes). The client checks every result parses as
an MCP CallToolResult (so the image, audio and resource_link blocks are well-formed for a TypeScript-SDK host)
and every structuredContent against read_file's and write_file's outputSchema. The test then checks the bytes on
disk. The harness is found as in ``tests/test_harness.py``; a missing harness fails.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_harness import REPO_ROOT, assert_every_step_passed, load_scenario, run_strict, scenario_file_bytes

pytestmark = pytest.mark.harness

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "media.json"
VOICES = {"default": (), "compact": ("--compact-mode",)}
MEDIA_BUDGET = ("--max-media-bytes", "300")


@pytest.mark.parametrize("flags", list(VOICES.values()), ids=list(VOICES))
def test_media_scenario_passes_the_strict_client(tmp_path: Path, flags: tuple[str, ...]) -> None:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    scenario = load_scenario(SCENARIO)
    report = run_strict(tmp_path, SCENARIO, root, tmp_path / "state", (*MEDIA_BUDGET, *flags))
    assert_every_step_passed(report, scenario)
    # Two appends, the second undone: LF text in CRLF.
    assert (root / "log" / "crlf.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert (root / "log" / "open.txt").read_bytes() == b"a\nb\n"
    assert (root / "log" / "new" / "made.md").read_bytes() == b"- made\n"
    for unchanged in ("log/keep.txt", "media/small.png", "media/big.png", "media/voice.wav", "media/song.mp3"):
        assert (root / unchanged).read_bytes() == scenario_file_bytes(scenario, unchanged)
