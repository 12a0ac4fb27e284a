"""analyze_operation(delete) of a directory counts only what the agent may see: the bytes of a file a deny rule
hides, beside the visible files' sizes, told the secret's exact size. It says how many entries are hidden, as
list_directory does. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio


async def test_a_delete_analysis_of_a_folder_leaves_what_a_deny_rule_hides_out_of_its_counts(
    connect: ClientFactory, root: Path
) -> None:
    (root / "cfg" / "private").mkdir(parents=True)
    (root / "cfg" / "app.toml").write_bytes(b"a=1\n")
    (root / "cfg" / ".env").write_bytes(b"API_KEY=0123456789abcdef\n")
    (root / "cfg" / "private" / "notes.txt").write_bytes(b"twelve bytes")
    async with connect(deny=("private/",)) as client:
        result = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "cfg"}))
    assert result["risk_factors"][:2] == [
        "1 file, 4 bytes",
        "2 more hidden by deny rules (deleted with it, not counted)",
    ]
    assert (root / "cfg" / ".env").read_bytes() == b"API_KEY=0123456789abcdef\n"
