"""A directory swapped for a link after the policy judged a path in it, and before the pinned walk reaches it, never
takes a call into a place the path could not name as judged: a read-only root, a repository's ``.git``, an object
store, or a directory a rule for directories hides (``PathPolicy.screen_link``, asked at every link the walk meets).
Both eras; the bytes on disk and in the answer decide."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fsguard.core.paths import PathPolicy
from tests.conftest import ClientFactory, error_code, structured, text_of, tree
from tests.tools.test_git import committed, make_repo

pytestmark = pytest.mark.anyio

Swap = Callable[[str], None]


@pytest.fixture
def swap_after_judging(root: Path, monkeypatch: pytest.MonkeyPatch) -> Swap:
    """``swap(target)``: from then on ``a/`` (a real directory holding ``keep.txt``) turns into a link to ``target``
    (relative to the root) right after the policy resolved a path in it."""
    (root / "a").mkdir()
    (root / "a" / "keep.txt").write_bytes(b"visible\n")
    targets: list[str] = []

    def swapping(real: Callable[..., Path]) -> Callable[..., Path]:
        def judged(self: PathPolicy, user_path: str, **options: Any) -> Path:
            found = real(self, user_path, **options)
            if targets and user_path.startswith("a/") and not (root / "a").is_symlink():
                (root / "a").rename(root / "was-a")
                (root / "a").symlink_to(targets[0])
            return found

        return judged

    for method in ("resolve", "resolve_entry"):
        monkeypatch.setattr(PathPolicy, method, swapping(getattr(PathPolicy, method)))
    return targets.append


CHANGES = [
    ("write_file", {"path": "a/keep.txt", "content": "overwritten\n"}),
    ("edit_file", {"path": "a/keep.txt", "old_text": "kept", "new_text": "changed"}),
    ("create_directory", {"path": "a/made"}),
    ("delete_file", {"path": "a/keep.txt"}),
    ("write_file", {"path": "a/new.txt", "content": "new\n"}),
]


@pytest.mark.parametrize(("tool", "arguments"), CHANGES)
async def test_a_link_swapped_in_to_a_read_only_root_changes_nothing_there(
    connect: ClientFactory, root: Path, swap_after_judging: Swap, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "ro").mkdir()
    (root / "ro" / "keep.txt").write_bytes(b"kept\n")
    before = tree(root / "ro")
    async with connect(read_only_roots=(root / "ro",)) as client:
        swap_after_judging("ro")
        result = await client.call_tool(tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "read-only root" in text_of(result)
    assert tree(root / "ro") == before


@pytest.mark.parametrize(("tool", "arguments"), CHANGES)
async def test_a_link_swapped_in_to_a_dot_git_changes_nothing_there(
    connect: ClientFactory, root: Path, swap_after_judging: Swap, tool: str, arguments: dict[str, Any]
) -> None:
    make_repo(root)
    (root / ".git" / "keep.txt").write_bytes(b"kept\n")
    before = tree(root / ".git")
    async with connect() as client:
        swap_after_judging(".git")
        result = await client.call_tool(tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "(.git)" in text_of(result)
    assert tree(root / ".git") == before


async def test_a_link_swapped_in_to_an_object_store_reads_nothing_there(
    connect: ClientFactory, root: Path, swap_after_judging: Swap
) -> None:
    name = committed(make_repo(root), "hidden.env", "API_KEY=do-not-print\n")
    (root / "a" / name[2:]).write_bytes(b"decoy\n")  # a file by the object's name, judged before the swap
    async with connect() as client:
        swap_after_judging(f".git/objects/{name[:2]}")
        result = await client.call_tool("read_file", {"path": f"a/{name[2:]}", "encoding": "base64"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "object store" in text_of(result)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"path": "a/", "pattern": "PRIVATE"}),
        ("list_directory", {"path": "a/"}),
        ("read_file", {"path": "a/p.txt"}),
    ],
)
async def test_a_link_swapped_in_to_a_directory_a_rule_for_directories_hides_shows_nothing_of_it(
    connect: ClientFactory, root: Path, swap_after_judging: Swap, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "private").mkdir()
    (root / "private" / "p.txt").write_bytes(b"PRIVATE VALUE\n")
    (root / "a" / "p.txt").write_bytes(b"visible\n")
    async with connect(deny=("private/",)) as client:
        swap_after_judging("private")
        result = await client.call_tool(tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "PRIVATE VALUE" not in text_of(result) + str(result.structured_content)
    assert (root / "private" / "p.txt").read_bytes() == b"PRIVATE VALUE\n"


@pytest.mark.parametrize("target", ["ro/y.txt", ".git/HEAD", "tmp_notes.txt"])
async def test_a_copy_from_a_link_of_the_users_own_reads_what_it_points_to_in_a_guarded_place(
    connect: ClientFactory, root: Path, target: str
) -> None:
    (root / "ro").mkdir()
    (root / "ro" / "y.txt").write_bytes(b"read-only bytes\n")
    make_repo(root)
    (root / "tmp_notes.txt").write_bytes(b"notes\n")
    (root / "link").symlink_to(target)
    async with connect(read_only_roots=(root / "ro",), deny=("tmp*/",)) as client:
        result = await client.call_tool("copy_file", {"source_path": "link", "dest_path": "copied"})
    assert structured(result)["files_copied"] == 1
    assert (root / "copied").read_bytes() == (root / target).read_bytes()
    assert not (root / "copied").is_symlink()
