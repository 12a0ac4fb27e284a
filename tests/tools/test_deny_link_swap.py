"""A directory swapped for a link to a place a deny rule hides, after the rules judged the path and before the
pinned walk reaches it, never lets a tool read or write there: the walk asks the rules at every link it follows
(``PathPolicy.screen_link``). Both eras; the bytes on disk and in the answer decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fsguard.core.paths import PathPolicy
from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio

SECRET = b"SECRET VALUE\n"


@pytest.fixture
def swapped_after_judging(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``a/`` turns into a link to the hidden ``secrets/`` right after the policy resolved a path in it."""
    (root / "secrets").mkdir()
    (root / "secrets" / "k.txt").write_bytes(SECRET)
    (root / "a").mkdir()
    (root / "a" / "k.txt").write_bytes(b"visible\n")
    real = PathPolicy.resolve

    def resolve(self: PathPolicy, user_path: str, **options: Any) -> Path:
        found = real(self, user_path, **options)
        if user_path.startswith("a/") and not (root / "a").is_symlink():
            (root / "a").rename(root / "was-a")
            (root / "a").symlink_to("secrets")
        return found

    monkeypatch.setattr(PathPolicy, "resolve", resolve)
    return root


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "a/k.txt"}),
        ("read_file", {"path": "a/k.txt", "mode": "tail", "max_lines": 5}),
        ("get_file_info", {"path": "a/k.txt"}),
        ("write_file", {"path": "a/k.txt", "content": "overwritten\n"}),
        ("edit_file", {"path": "a/k.txt", "old_text": "SECRET", "new_text": "LEAKED"}),
    ],
)
async def test_a_link_swapped_in_to_a_hidden_place_is_refused_and_nothing_there_is_read_or_changed(
    connect: ClientFactory, swapped_after_judging: Path, tool: str, arguments: dict[str, Any]
) -> None:
    root = swapped_after_judging
    async with connect(deny=("secrets/",)) as client:
        result = await client.call_tool(tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "deny rule 'secrets/'" in text_of(result)
    assert "SECRET" not in text_of(result) + str(result.structured_content)
    assert (root / "secrets" / "k.txt").read_bytes() == SECRET
    assert (root / "was-a" / "k.txt").read_bytes() == b"visible\n"
