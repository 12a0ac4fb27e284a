"""The risk note of an edit, as catalog §2.5 words it: its first words say how large the edit is.

The seed's note reads ``note: edit (…)`` below 40 % of the file, ``note: large edit (…)`` from 40 % and ``note: very
large edit (…)`` from 80 %; the words RISK and ⚠ were left out so a model does not roll back by reflex, and calling
a quarter of a file "large" works against that. Both protocol eras, through ``client``; bytes on disk checked.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio

ROWS = "".join(f"row {n:02} of the table\n" for n in range(20))  # 20 lines of 19 bytes: 380 bytes


@pytest.mark.parametrize(
    ("rows", "word"),
    [(5, "note: edit ("), (9, "note: large edit ("), (17, "note: very large edit (")],
    ids=["25 percent", "45 percent", "85 percent"],
)
async def test_the_risk_note_names_the_edit_by_its_share_of_the_file(
    client: Client, root: Path, rows: int, word: str
) -> None:
    (root / "t.txt").write_text(ROWS, encoding="utf-8")
    old = ROWS[: 19 * rows]
    result = structured(
        await client.call_tool("edit_file", {"path": "t.txt", "old_text": old, "new_text": old.upper()})
    )
    assert result["risk_warning"].startswith(word)
    assert (root / "t.txt").read_text(encoding="utf-8") == old.upper() + ROWS[19 * rows :]
