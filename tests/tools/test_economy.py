"""Agent economy (issue 17): fewer bytes per fact in text blocks, and no heuristic message that is not true.

Text blocks name paths relative to the first root (structured results keep them absolute), search results sit
under one heading per file, long lists stop at ten with the count, "already applied" is said only when it is so,
and help() and the server instructions stay inside a byte budget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.voice.paths import naming_under, shortened, shortened_error, shown
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

HELP_LINE_BYTES = 120  # one catalog line of help(): "- name: when to use it."
HELP_HEADER_BYTES = 80
INSTRUCTIONS_BYTES = 200  # the server instructions, besides the list of roots


@pytest.fixture
def shop(root: Path) -> Path:
    (root / "shop").mkdir()
    (root / "shop" / "orders.py").write_text(
        "from shop.pricing import discount\n\ndef a():\n    return discount(1)\n\ndef b():\n    return discount(1)\n",
        encoding="utf-8",
    )
    (root / "shop" / "pricing.py").write_text("def discount(x):\n    return x\n", encoding="utf-8")
    return root


async def test_search_text_groups_matches_under_root_relative_headings(client: Client, shop: Path) -> None:
    (shop / "shop" / "cart.py").write_text("total = discount(2)\nrest = discount(3)\n", encoding="utf-8")
    result = await client.call_tool("search_files", {"pattern": "discount", "include_content": True})
    assert text_of(result) == (
        f"6 matches in 3 files under {shop}:\n"
        "shop/cart.py\n"
        "1:9:total = discount(2)\n"
        "2:8:rest = discount(3)\n"
        "shop/orders.py\n"
        "1:26:from shop.pricing import discount\n"
        "4:12:    return discount(1)\n"
        "7:12:    return discount(1)\n"
        "shop/pricing.py\n"
        "1:5:def discount(x):"
    )
    files = {match["file"] for match in structured(result)["matches"]}
    assert files == {str(shop / "shop" / name) for name in ("cart.py", "orders.py", "pricing.py")}


async def test_five_matches_or_fewer_are_listed_one_path_line_text_each(client: Client, shop: Path) -> None:
    # As rg prints into a pipe, and as the seed printed them: a few matches need no headings.
    result = await client.call_tool("search_files", {"pattern": "discount", "include_content": True})
    assert text_of(result) == (
        f"4 matches in 2 files under {shop}:\n"
        "shop/orders.py:1:from shop.pricing import discount\n"
        "shop/orders.py:4:    return discount(1)\n"
        "shop/orders.py:7:    return discount(1)\n"
        "shop/pricing.py:1:def discount(x):"
    )


async def test_compact_search_text_puts_lines_that_read_the_same_on_one_row(connect: ClientFactory, shop: Path) -> None:
    (shop / "shop" / "orders.py").write_text(
        (shop / "shop" / "orders.py").read_text(encoding="utf-8") + "\ndef c():\n    return discount(1)\n"
        "\ndef d():\n    return discount(1)\n",
        encoding="utf-8",
    )
    async with connect(compact_mode=True) as client:
        result = await client.call_tool("search_files", {"pattern": "discount", "include_content": True})
    assert text_of(result) == (
        "shop/orders.py\n"
        "1:from shop.pricing import discount\n"
        "4,7,10,13:return discount(1)\n"
        "shop/pricing.py\n"
        "1:def discount(x):"
    )
    assert [m["line_number"] for m in structured(result)["matches"]] == [1, 4, 7, 10, 13, 1]


async def test_a_path_under_another_root_stays_absolute_so_it_can_be_typed_back(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("discount\n", encoding="utf-8")
    async with connect(roots=(root, other)) as client:
        arguments = {"pattern": "discount", "path": str(other), "include_content": True}
        text = text_of(await client.call_tool("search_files", arguments))
    assert f"\n{other / 'notes.txt'}:1:discount" in text


async def test_error_texts_name_the_path_from_the_root_and_the_error_fields_keep_it_whole(
    client: Client, shop: Path
) -> None:
    result = await client.call_tool("read_file", {"path": "shop/missing.py"})
    assert text_of(result).startswith("shop/missing.py does not exist.")
    assert (result.meta or {})["fsguard/error"]["path"] == str(shop / "shop" / "missing.py")


async def test_an_ambiguous_edit_lists_ten_lines_and_how_many_more(client: Client, root: Path) -> None:
    (root / "hits.txt").write_text("hit\n" * 111, encoding="utf-8")
    await client.call_tool("read_file", {"path": "hits.txt"})  # read first: no one-time STALE_READ hint in the size
    result = await client.call_tool("edit_file", {"path": "hits.txt", "old_text": "hit", "new_text": "miss"})
    assert error_code(result) == "ambiguous_match"
    text = text_of(result)
    assert (
        "old_text matches 111 times (expected 1) in hits.txt (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 101 more"
        in text
    )
    assert len(text.encode()) < 400
    assert (result.meta or {})["fsguard/error"]["lines"] == list(range(1, 112))
    assert (root / "hits.txt").read_text(encoding="utf-8") == "hit\n" * 111


async def test_project_replace_text_lists_ten_files_and_how_many_more(client: Client, root: Path) -> None:
    for number in range(13):
        (root / f"f{number:02}.txt").write_text("TODO\n", encoding="utf-8")
    result = await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE", "preview": True})
    text = text_of(result)
    assert "    1 f09.txt\n  and 3 more files, all in the result's files list" in text
    assert "f10.txt" not in text
    assert len(structured(result)["files"]) == 13
    assert (root / "f12.txt").read_text(encoding="utf-8") == "TODO\n"


async def test_a_short_new_text_found_elsewhere_is_not_called_already_applied(client: Client, root: Path) -> None:
    """The issue's false positive: a one-character new_text occurs somewhere, old_text nowhere."""
    content = "".join(f"x{i} = {i}\n" for i in range(1, 100)) + "y = x\n"
    (root / "vars.py").write_text(content, encoding="utf-8")
    result = await client.call_tool("edit_file", {"path": "vars.py", "old_text": "x100 = 999", "new_text": "x"})
    assert error_code(result) == "no_match"
    assert "already applied" not in text_of(result)
    assert "already_applied" not in (result.meta or {})["fsguard/error"]
    assert (root / "vars.py").read_text(encoding="utf-8") == content


async def test_an_edit_retried_after_it_succeeded_is_called_already_applied(client: Client, root: Path) -> None:
    (root / "calc.py").write_text("import os\n\ndef total(a):\n    return a\n", encoding="utf-8")
    edit: dict[str, Any] = {
        "path": "calc.py",
        "old_text": "def total(a):\n    return a\n",
        "new_text": "def total(a, b):\n    return a + b\n",
    }
    first = await client.call_tool("edit_file", edit)
    assert not first.is_error
    retried = await client.call_tool("edit_file", edit)
    assert error_code(retried) == "no_match"
    assert "calc.py, but new_text is, at line 3: the edit looks already applied" in text_of(retried)
    assert (retried.meta or {})["fsguard/error"]["already_applied"] is True
    assert (root / "calc.py").read_text(encoding="utf-8") == "import os\n\ndef total(a, b):\n    return a + b\n"


async def test_help_and_instructions_stay_inside_their_byte_budget(client: Client, root: Path) -> None:
    """Budget: help() at most 80 bytes of header plus 120 per tool line; instructions at most 200 bytes besides
    the roots. Both are read at the start of every session, so every byte is paid again each time."""
    result = await client.call_tool("help", {})
    text = text_of(result)
    tools = structured(result)["tools"]
    assert len(text.encode()) <= HELP_HEADER_BYTES + HELP_LINE_BYTES * len(tools)
    for line in text.splitlines()[1:]:
        assert len(line.encode()) <= HELP_LINE_BYTES, line
    instructions: Any = client.instructions
    assert len(instructions.replace(str(root), "").encode()) <= INSTRUCTIONS_BYTES
    # What an agent must not mistake (the seed's help and instructions say it): changes here are real.
    assert "real host filesystem (not a sandbox)" in instructions
    assert text.startswith(f"{len(tools)} tools on the real host filesystem.")


async def test_every_tool_description_starts_with_one_sentence_that_names_its_place(client: Client) -> None:
    """The first sentence (what help() lists) is short; tools with a near neighbour name it there."""
    described = {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}
    summaries = {entry["name"]: entry["summary"] for entry in structured(await client.call_tool("help", {}))["tools"]}
    for name, summary in summaries.items():
        assert described[name].split()[: len(summary.split())] == summary.split(), name
        assert len(summary) <= HELP_LINE_BYTES - len(f"- {name}: "), name
    neighbours = {
        "read_file": "search_files",
        "write_file": "edit_file",
        "edit_file": "multi_edit",
        "multi_edit": "edit_file",
        "project_replace": "edit_file",
        "list_directory": "search_files",
        "get_file_info": "read_file",
        "move_file": "copy_file",
        "copy_file": "move_file",
        "create_directory": "write_file",
        "batch_operations": "multi_edit",
    }
    for name, other in neighbours.items():
        assert other in summaries[name], name


def test_paths_are_shown_from_the_first_root_and_messages_keep_file_content_alone(tmp_path: Path) -> None:
    root = tmp_path / "root"
    with naming_under([root]):
        assert shown(str(root / "a" / "b.py")) == "a/b.py"
        assert shown(str(root)) == str(root)
        assert shown(str(tmp_path / "rootless.py")) == str(tmp_path / "rootless.py")
        assert shortened(f'undo: backup(file_path="{root}/a.py")') == 'undo: backup(file_path="a.py")'
        quoted = f"old_text was not found in {root}/a.py.\n    3: path = '{root}/a.py'"
        assert shortened_error(quoted) == f"old_text was not found in a.py.\n    3: path = '{root}/a.py'"
    with naming_under([Path("/")]):
        assert shortened("see https://example.org/x") == "see https://example.org/x"
        assert shown("/etc/hosts") == "/etc/hosts"
    assert shown(str(root / "a.py")) == str(root / "a.py")  # outside a call: as given


async def test_compact_search_lists_a_line_with_two_matches_once(connect: ClientFactory, root: Path) -> None:
    (root / "b.txt").write_text("old old\nold\n", encoding="utf-8")
    async with connect(compact_mode=True) as client:
        result = await client.call_tool("search_files", {"pattern": "old", "include_content": True})
    assert text_of(result) == "b.txt:1:old old\nb.txt:2:old"
    assert len(structured(result)["matches"]) == 3


async def test_a_multi_file_read_heads_each_file_from_the_root(client: Client, shop: Path) -> None:
    result = await client.call_tool("read_file", {"paths": ["shop/pricing.py", "shop/gone.py"]})
    assert text_of(result) == (
        "=== shop/pricing.py ===\ndef discount(x):\n    return x\n\n"
        "=== shop/gone.py ===\nERROR: shop/gone.py does not exist. Check the path with list_directory.\n"
    )
    assert structured(result)["files"][0]["path"] == str(shop / "shop" / "pricing.py")


async def test_every_tool_description_that_offers_undo_last_names_its_file_path(client: Client) -> None:
    """backup(action="undo_last") without file_path is refused: a description offering it must show the call whole."""
    for tool in (await client.list_tools()).tools:
        for offered in (tool.description or "").split('backup(action="undo_last"')[1:]:
            assert offered.startswith(", file_path="), tool.name
