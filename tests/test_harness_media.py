"""Media reads and write_file append over real stdio, checked by the strict TypeScript client.

``tests/scenarios/media.json`` reads a PNG, a PNG named .jpg, a WAV (image and audio blocks), a PNG and an MP3
above the 300-byte media budget the server is started with (resource_link blocks), a PNG as base64 text, and
appends to files (CRLF, no final newline, missing, stale hash, bytes). The client checks every result parses as
an MCP CallToolResult (so the image, audio and resource_link blocks are well-formed for a TypeScript-SDK host)
and every structuredContent against read_file's and write_file's outputSchema. The test then checks the bytes on
disk. The harness is found as in ``tests/test_harness.py``; a missing harness fails. The compact voice is checked by
replaying the scenario in both eras (``replay``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODES
from tests.test_harness import (
    REPO_ROOT,
    assert_every_step_passed,
    load_scenario,
    replay_compact,
    run_strict,
    scenario_dirs,
    scenario_file_bytes,
)

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "media.json"
MEDIA_BUDGET = 300


@pytest.mark.harness
def test_media_scenario_passes_the_strict_client(tmp_path: Path) -> None:
    root, state = scenario_dirs(tmp_path)
    scenario = load_scenario(SCENARIO)
    report = run_strict(tmp_path, SCENARIO, root, state, ("--max-media-bytes", str(MEDIA_BUDGET)))
    assert_every_step_passed(report, scenario)
    assert_bytes_after_scenario(root, scenario)


@pytest.mark.anyio
@pytest.mark.parametrize("era", MODES)
async def test_media_scenario_replayed_in_the_compact_voice_in_both_eras(tmp_path: Path, era: str) -> None:
    root, state = scenario_dirs(tmp_path)
    scenario = load_scenario(SCENARIO)
    await replay_compact(scenario, root, state, era, max_media_bytes=MEDIA_BUDGET)
    assert_bytes_after_scenario(root, scenario)


def assert_bytes_after_scenario(root: Path, scenario: dict[str, Any]) -> None:
    # Two appends, the second undone: LF text in CRLF.
    assert (root / "log" / "crlf.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert (root / "log" / "open.txt").read_bytes() == b"a\nb\n"
    assert (root / "log" / "new" / "made.md").read_bytes() == b"- made\n"
    for unchanged in ("log/keep.txt", "media/small.png", "media/big.png", "media/voice.wav", "media/song.mp3"):
        assert (root / unchanged).read_bytes() == scenario_file_bytes(scenario, unchanged)
