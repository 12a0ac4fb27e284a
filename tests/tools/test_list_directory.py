"""list_directory through the in-memory Client, in both protocol eras."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.listing import DirectoryLister
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n", encoding="utf-8")
    (root / "src" / "main.py").write_text("print()\n", encoding="utf-8")
    (root / "b.txt").write_bytes(b"b" * 2048)
    (root / "a.txt").write_bytes(b"a")
    (root / ".envrc").write_text("SECRET=1\n", encoding="utf-8")
    return root


async def test_lists_directories_first_then_files_by_name_with_sizes(client: Client, tree: Path) -> None:
    data = structured(await client.call_tool("list_directory", {"path": ".", "output_format": "json"}))
    assert [(e["name"], e["type"]) for e in data["entries"]] == [
        ("src", "directory"),
        (".envrc", "file"),
        ("a.txt", "file"),
        ("b.txt", "file"),
    ]
    assert [e.get("size") for e in data["entries"]] == [None, 9, 1, 2048]
    assert (data["total"], data["truncated"], data["path"]) == (4, False, str(tree))


async def test_json_format_text_block_is_the_structured_content(client: Client, tree: Path) -> None:
    result = await client.call_tool("list_directory", {"output_format": "json"})
    assert json.loads(text_of(result)) == structured(result)


async def test_json_format_in_compact_mode_is_unindented_json_of_the_structured_content(
    connect: ClientFactory, tree: Path
) -> None:
    async with connect(compact_mode=True) as client:
        for tool, arguments in (("list_directory", {}), ("search_files", {"pattern": "*.txt"})):
            result = await client.call_tool(tool, {**arguments, "output_format": "json"})
            assert json.loads(text_of(result)) == structured(result)
            assert "\n" not in text_of(result)
            assert '": ' not in text_of(result)


async def test_hidden_entries_can_be_left_out(client: Client, tree: Path) -> None:
    data = structured(await client.call_tool("list_directory", {"include_hidden": False}))
    assert ".envrc" not in [e["name"] for e in data["entries"]]


async def test_another_writes_temp_file_is_not_listed_but_a_user_file_of_a_like_name_is(
    client: Client, tree: Path
) -> None:
    # What another fsguard's write holds for a moment before it renames it over its file (one a crash left is swept
    # at the next start): listed, an agent took it for a file of the project.
    temp = tree / "src" / (".fsguard-tmp-" + "0123456789abcdef" * 2)
    temp.write_bytes(b"half of main.py's next bytes")
    (tree / "src" / ".fsguard-tmp-notes").write_bytes(b"mine")
    page = structured(await client.call_tool("list_directory", {"path": "src", "output_format": "json"}))
    whole = structured(await client.call_tool("list_directory", {"max_depth": 3, "output_format": "tree"}))
    assert [e["name"] for e in page["entries"]] == ["pkg", ".fsguard-tmp-notes", "main.py"]
    assert page["total"] == 3
    assert temp.name not in json.dumps(whole)
    assert ".fsguard-tmp-notes" in json.dumps(whole)
    assert temp.read_bytes() == b"half of main.py's next bytes"


async def test_pages_with_offset_and_limit_cover_everything_once(client: Client, tree: Path) -> None:
    first = structured(await client.call_tool("list_directory", {"limit": 3}))
    second = structured(await client.call_tool("list_directory", {"limit": 3, "offset": first["next_offset"]}))
    assert (first["truncated"], first["next_offset"]) == (True, 3)
    assert (second["truncated"], second.get("next_offset")) == (False, None)
    names = [e["name"] for e in first["entries"] + second["entries"]]
    assert names == ["src", ".envrc", "a.txt", "b.txt"]
    assert "note" not in second  # nothing changed between the pages


async def test_a_later_page_of_a_directory_that_gained_an_entry_says_entries_may_have_moved(
    client: Client, tree: Path
) -> None:
    first = structured(await client.call_tool("list_directory", {"limit": 2}))
    (tree / "0new.txt").write_bytes(b"")  # sorts before the next page's names: they move one down
    later = await client.call_tool("list_directory", {"limit": 2, "offset": first["next_offset"]})
    data = structured(later)
    assert data["note"] == (
        f"{tree} changed since your previous page of it (4 entries then, 5 now): entries may have moved between "
        "pages. List it again from offset 0 to see each entry once."
    )
    assert "changed since your previous page" in text_of(later)
    again = [structured(await client.call_tool("list_directory", {"limit": 2, "offset": n})) for n in (0, 2, 4)]
    assert all("note" not in page for page in again)  # listed anew from offset 0: its pages agree again
    assert [e["name"] for page in again for e in page["entries"]] == ["src", ".envrc", "0new.txt", "a.txt", "b.txt"]


async def test_a_later_page_of_a_directory_whose_entry_was_renamed_says_entries_may_have_moved(
    connect: ClientFactory, tree: Path
) -> None:
    async with connect(compact_mode=True) as client:
        first = structured(await client.call_tool("list_directory", {"limit": 2}))
        (tree / "b.txt").rename(tree / "0b.txt")  # as many entries as before, in another order
        stamp = tree.stat()
        os.utime(tree, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))  # a clock tick apart, always
        later = await client.call_tool("list_directory", {"limit": 2, "offset": first["next_offset"]})
    assert "(4 entries then, 4 now)" in structured(later)["note"]
    assert text_of(later).endswith("List it again from offset 0 to see each entry once.]")


async def test_a_later_page_after_a_links_target_turned_from_a_directory_into_a_file_says_entries_may_have_moved(
    client: Client, tree: Path
) -> None:
    (tree / "target").mkdir()
    (tree / "src" / "zlink").symlink_to(tree / "target")  # sorts with the directories: [pkg, zlink], [main.py]
    first = structured(await client.call_tool("list_directory", {"path": "src", "limit": 2}))
    (tree / "target").rmdir()
    (tree / "target").write_text("now a file", encoding="utf-8")  # src itself unchanged: zlink now sorts last
    later = structured(await client.call_tool("list_directory", {"path": "src", "limit": 2, "offset": 2}))
    assert [e["name"] for e in first["entries"] + later["entries"]] == ["pkg", "zlink", "zlink"]
    assert "(3 entries then, 3 now)" in later["note"]
    assert (tree / "src" / "zlink").read_text(encoding="utf-8") == "now a file"


async def test_a_first_page_or_other_listing_options_never_note_a_change(client: Client, tree: Path) -> None:
    await client.call_tool("list_directory", {"limit": 2})
    (tree / "0new.txt").write_bytes(b"")
    first = structured(await client.call_tool("list_directory", {"limit": 2}))
    hidden = structured(await client.call_tool("list_directory", {"limit": 2, "offset": 2, "include_hidden": False}))
    assert "note" not in first  # a listing of its own, not a page after the other
    assert "note" not in hidden


async def test_the_item_cap_truncates_and_points_at_the_next_page(connect: ClientFactory, root: Path) -> None:
    for i in range(7):
        (root / f"f{i}").write_text("", encoding="utf-8")
    async with connect(max_list_items=5) as client:
        data = structured(await client.call_tool("list_directory", {"limit": 100}))
    assert (len(data["entries"]), data["total"], data["truncated"], data["next_offset"]) == (5, 7, True, 5)


async def test_tree_nests_down_to_max_depth(client: Client, tree: Path) -> None:
    result = await client.call_tool("list_directory", {"output_format": "tree", "max_depth": 2})
    node = structured(result)["tree"]
    src = next(child for child in node["children"] if child["name"] == "src")
    pkg = next(child for child in src["children"] if child["name"] == "pkg")
    assert "children" not in pkg
    assert "  pkg/" in text_of(result)
    deeper = structured(await client.call_tool("list_directory", {"output_format": "tree", "max_depth": 3}))
    src3 = next(child for child in deeper["tree"]["children"] if child["name"] == "src")
    assert [c["name"] for c in next(c for c in src3["children"] if c["name"] == "pkg")["children"]] == ["mod.py"]


async def test_a_tree_marks_a_directory_max_depth_stopped_at_apart_from_an_empty_one_and_says_how_to_see_in(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "empty").mkdir()
    asked = {"output_format": "tree", "max_depth": 2}
    async with connect() as verbose, connect(compact_mode=True) as compact:
        long = await verbose.call_tool("list_directory", asked)
        short = text_of(await compact.call_tool("list_directory", asked))
    data = structured(long)
    assert data["truncated"] is False  # max_depth is the shape asked for, not a cut
    a, empty = data["tree"]["children"]
    assert ("children" not in a["children"][0], empty["children"]) == (True, [])
    assert text_of(long).splitlines()[1:] == [
        "a/",
        "  b/ …",
        "empty/",
        "[… marks 1 directory not entered at max_depth: raise it, or list one with list_directory]",
    ]
    assert short.splitlines()[1:] == [
        "a/b/: …",
        "empty/:",
        "[…: 1 dir not entered (max_depth); raise it or list_directory one]",
    ]


async def test_symlink_leaving_the_root_is_listed_but_not_followed(client: Client, root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "big").write_bytes(b"x" * 100)
    (root / "door").symlink_to(tmp_path / "outside")
    entry = structured(await client.call_tool("list_directory", {"output_format": "json"}))["entries"][0]
    assert (entry["name"], entry["type"], entry["is_symlink"]) == ("door", "symlink", True)
    tree = structured(await client.call_tool("list_directory", {"output_format": "tree"}))["tree"]
    assert "children" not in tree["children"][0]


async def test_the_listing_footer_counts_links_and_special_files_too(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "gone").symlink_to(root / "missing")  # dangling: listed as a link
    os.mkfifo(root / "pipe")
    text = text_of(await client.call_tool("list_directory", {}))
    rows = text.splitlines()
    assert rows[-1] == f"--- | 0 dirs, 1 file, 1 link, 1 other | {root}"
    assert len(rows) - 1 == 3


async def test_verbose_and_compact_voices_name_the_same_entries(connect: ClientFactory, tree: Path) -> None:
    async with connect() as verbose, connect(compact_mode=True) as compact:
        long = text_of(await verbose.call_tool("list_directory", {}))
        short = text_of(await compact.call_tool("list_directory", {}))
    assert "DIR  src/" in long
    assert "FILE b.txt 2.0 KB" in long
    assert long.endswith(f"--- | 1 dir, 3 files | {tree}")
    assert short == f"{tree} | src/ .envrc a.txt b.txt(2.0 KB) | 4/4"


async def test_a_compact_page_names_the_range_of_entries_it_holds_as_verbose_does(
    connect: ClientFactory, tree: Path
) -> None:
    async with connect() as verbose, connect(compact_mode=True) as compact:
        pages = [
            (
                text_of(await verbose.call_tool("list_directory", asked)),
                text_of(await compact.call_tool("list_directory", asked)),
            )
            for asked in ({"limit": 3}, {"limit": 3, "offset": 3})
        ]
    assert f"| {tree} | entries 1-3 of 4 | more: offset=3" in pages[0][0]
    assert pages[0][1] == f"{tree} | src/ .envrc a.txt | 1-3/4 | more: offset=3"
    assert pages[1][0].endswith(f"| {tree} | entries 4-4 of 4")
    assert pages[1][1] == f"{tree} | b.txt(2.0 KB) | 4-4/4"


async def test_a_dangling_link_and_a_pipe_are_named_link_and_other_in_the_text(client: Client, root: Path) -> None:
    (root / "gone").symlink_to(root / "missing")
    os.mkfifo(root / "pipe")
    result = await client.call_tool("list_directory", {})
    kinds = {e["name"]: e["type"] for e in structured(result)["entries"]}
    assert kinds == {"gone": "symlink", "pipe": "other"}
    assert text_of(result).splitlines()[:2] == ["LINK gone", "OTHER pipe"]


async def test_a_file_is_not_a_directory(client: Client, tree: Path) -> None:
    assert error_code(await client.call_tool("list_directory", {"path": "a.txt"})) == "not_a_directory"


async def test_missing_directory_is_not_found(client: Client) -> None:
    assert error_code(await client.call_tool("list_directory", {"path": "nope"})) == "not_found"


async def test_an_offset_past_the_end_is_refused_with_the_count(client: Client, tree: Path) -> None:
    result = await client.call_tool("list_directory", {"offset": 99})
    assert error_code(result) == "invalid_params"
    assert "(4 entries)" in text_of(result)


async def test_a_page_at_the_end_says_no_entries_follow_not_that_the_directory_is_empty(
    client: Client, tree: Path
) -> None:
    result = await client.call_tool("list_directory", {"offset": 4})
    data = structured(result)
    assert (data["entries"], data["total"], data["truncated"], data.get("next_offset")) == ([], 4, False, None)
    assert text_of(result) == f"--- | no entries past the first 4 (4 in all) | {tree}"
    assert sorted(path.name for path in tree.iterdir()) == [".envrc", "a.txt", "b.txt", "src"]


async def test_an_offset_past_the_end_of_a_one_entry_directory_says_one_entry(client: Client, root: Path) -> None:
    (root / "only").mkdir()
    (root / "only" / "a.txt").write_bytes(b"a")
    result = await client.call_tool("list_directory", {"path": "only", "offset": 5})
    assert error_code(result) == "invalid_params"
    assert "(1 entry). Use an offset <= 1." in text_of(result)


async def test_hidden_entries_left_out_are_counted_and_the_flag_named(client: Client, tree: Path) -> None:
    result = await client.call_tool("list_directory", {"include_hidden": False, "output_format": "json"})
    data = structured(result)
    assert (data["total"], data["hidden"]) == (3, 1)
    verbose = await client.call_tool("list_directory", {"include_hidden": False})
    assert "1 hidden not shown (include_hidden=true shows them)" in text_of(verbose)


async def test_pages_of_a_gitignored_directory_add_up_to_the_whole_listing(connect: ClientFactory, root: Path) -> None:
    (root / ".gitignore").write_text("*.log\n!keep.log\nbuild/\n", encoding="utf-8")
    for name in ["b.txt", "A.txt", "a.log", "keep.log", "c.py", "Z.md"]:
        (root / name).write_text(name, encoding="utf-8")
    for name in ["build", "docs", "Src"]:
        (root / name).mkdir()
    async with connect(max_list_items=100) as client:
        whole = structured(await client.call_tool("list_directory", {"output_format": "json"}))
        pages: list[dict[str, Any]] = []
        offset: int | None = 0
        while offset is not None:
            page = structured(await client.call_tool("list_directory", {"offset": offset, "limit": 2}))
            assert (page["total"], page["ignored"]) == (whole["total"], whole["ignored"])
            pages.append(page)
            offset = page.get("next_offset")
    names = [entry["name"] for entry in whole["entries"]]
    assert names == ["docs", "Src", ".gitignore", "A.txt", "b.txt", "c.py", "keep.log", "Z.md"]
    assert (whole["total"], whole["ignored"]) == (8, 2)
    assert [entry["name"] for page in pages for entry in page["entries"]] == names


async def test_a_tree_is_capped_by_the_item_limit(connect: ClientFactory, root: Path) -> None:
    for index in range(20):
        (root / f"d{index:02}").mkdir()
        (root / f"d{index:02}" / "f.txt").write_text("x", encoding="utf-8")
    async with connect(max_list_items=6) as client:
        result = await client.call_tool("list_directory", {"output_format": "tree", "max_depth": 2})
    data = structured(result)
    assert (data["total"], data["truncated"]) == (6, True)
    assert [child["name"] for child in data["tree"]["children"]] == ["d00", "d01", "d02"]
    assert data["tree"]["cut"] == 17  # d03 to d19
    assert "[tree cut at 6 entries (limit, at most --max-list-items)" in text_of(result)
    assert text_of(result).splitlines()[-2] == "+17 more"


async def test_a_directory_the_tree_cut_part_way_says_how_many_entries_it_left_out(
    connect: ClientFactory, root: Path
) -> None:
    for sub in ("sub0", "sub1", "sub2"):
        (root / sub).mkdir()
        for index in range(8):
            (root / sub / f"g{index}").write_text("y", encoding="utf-8")
    for index in range(5):
        (root / f"f{index}").write_text("x", encoding="utf-8")
    async with connect(max_list_items=12, compact_mode=True) as client:
        result = await client.call_tool("list_directory", {"output_format": "tree", "max_depth": 2})
        limited = structured(await client.call_tool("list_directory", {"output_format": "tree", "limit": 3}))
        paged = await client.call_tool("list_directory", {"output_format": "tree", "offset": 12})
    tree = structured(result)["tree"]
    sub0, sub1 = tree["children"]
    assert ("cut" not in sub0, len(sub0["children"]), sub1["cut"], len(sub1["children"])) == (True, 8, 6, 2)
    assert tree["cut"] == 6  # sub2 and the five files, absent from the tree
    assert "sub1/: g0 g1 +6 more" in text_of(result)
    assert ("./: +6 more" in text_of(result)) is True
    assert (limited["total"], limited["tree"]["cut"]) == (3, 7)  # sub0, g0, g1; sub0 cut at 6
    assert error_code(paged) == "invalid_params"


async def test_a_link_to_a_denied_file_or_directory_shows_no_size_or_type_of_it(
    connect: ClientFactory, root: Path
) -> None:
    (root / "private").mkdir()
    (root / "private" / "keys.txt").write_bytes(b"k" * 600)
    (root / "shown.txt").write_bytes(b"s" * 7)
    for name, target in (("to_dir", "private"), ("to_file", "private/keys.txt"), ("to_shown", "shown.txt")):
        (root / name).symlink_to(target)
    async with connect(deny=("private/",)) as client:
        flat = structured(await client.call_tool("list_directory", {"output_format": "json"}))
        tree = await client.call_tool("list_directory", {"output_format": "tree"})
        refused = await client.call_tool("get_file_info", {"path": "to_file"})
    shown = [(e["name"], e["type"], e.get("size"), e["is_symlink"]) for e in flat["entries"]]
    assert shown == [
        ("shown.txt", "file", 7, False),
        ("to_dir", "symlink", None, True),
        ("to_file", "symlink", None, True),
        ("to_shown", "file", 7, True),
    ]
    assert (flat["total"], flat["denied"]) == (4, 1)
    assert "600" not in text_of(tree)
    assert error_code(refused) == "access_denied"
    assert (root / "private" / "keys.txt").read_bytes() == b"k" * 600


async def test_a_gitignore_line_that_is_no_valid_pattern_is_dropped_not_a_failure(client: Client, root: Path) -> None:
    (root / ".gitignore").write_bytes(b"[[:upper:]]*\nb\\\n[c-a]\n*.log\n")
    for name in ("A", "b", "c", "x.log", "u]"):
        (root / name).write_text(name, encoding="utf-8")
    listed = structured(await client.call_tool("list_directory", {"include_hidden": False}))
    found = structured(await client.call_tool("search_files", {"pattern": "*"}))
    assert [entry["name"] for entry in listed["entries"]] == ["A", "b", "c"]
    assert (listed["ignored"], [Path(file).name for file in found["files"]]) == (2, ["A", "b", "c"])
    assert (root / "x.log").read_bytes() == b"x.log"


async def test_a_tree_counts_the_hidden_and_gitignored_entries_it_leaves_out_at_every_level(
    client: Client, root: Path
) -> None:
    (root / ".gitignore").write_text("*.log\n", encoding="utf-8")
    for name in ("a.txt", "a.log", ".env.example", "src/b.py", "src/b.log", "src/.cache.txt", "src/deep/c.log"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name, encoding="utf-8")
    args = {"output_format": "tree", "max_depth": 3, "include_hidden": False}
    result = await client.call_tool("list_directory", args)
    data = structured(result)
    assert (data["total"], data["hidden"], data["ignored"]) == (4, 3, 3)  # .gitignore is hidden too
    assert "[3 gitignored not shown (respect_gitignore=false shows them)]" in text_of(result)
    assert "[3 hidden not shown (include_hidden=true shows them)]" in text_of(result)
    assert (root / "src" / "deep" / "c.log").read_bytes() == b"src/deep/c.log"


async def test_a_name_holding_a_line_break_or_an_invisible_character_is_one_escaped_row_of_the_text(
    client: Client, root: Path
) -> None:
    (root / "d\nDIR  evil").mkdir()
    (root / "n\nFILE fake.txt 1 B").write_bytes(b"x")
    (root / "\u202etxt.exe").write_bytes(b"x")

    listed = await client.call_tool("list_directory", {"path": "."})
    tree = await client.call_tool("list_directory", {"path": ".", "output_format": "tree"})
    found = await client.call_tool("search_files", {"pattern": "*"})

    assert text_of(listed).splitlines()[:3] == [
        "DIR  d\\u000aDIR  evil/",
        "FILE n\\u000aFILE fake.txt 1 B 1 B",
        "FILE \\u202etxt.exe 1 B",
    ]
    assert text_of(tree).splitlines()[1:] == [
        "d\\u000aDIR  evil/",
        "n\\u000aFILE fake.txt 1 B (1 B)",
        "\\u202etxt.exe (1 B)",
    ]
    assert text_of(found).splitlines()[:2] == ["n\\u000aFILE fake.txt 1 B", "\\u202etxt.exe"]
    assert [entry["name"] for entry in structured(listed)["entries"]] == [
        "d\nDIR  evil",
        "n\nFILE fake.txt 1 B",
        "\u202etxt.exe",
    ]
    assert (root / "n\nFILE fake.txt 1 B").read_bytes() == b"x"


@pytest.mark.parametrize("target", ["outside", "loop"])
async def test_a_tree_whose_subdirectory_becomes_a_symlink_meanwhile_shows_it_unentered(
    client: Client, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_bytes(b"x")
    (root / "z.txt").write_bytes(b"z")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_bytes(b"s")
    real = DirectoryLister._scan

    def scan_then_swap(self: DirectoryLister, directory: Path, *args: Any) -> Any:
        found = real(self, directory, *args)
        if directory == root and (root / "sub").is_dir() and not (root / "sub").is_symlink():
            # Another process replaces the directory by a link after the root's names were read.
            (root / "sub" / "inner.txt").unlink()
            (root / "sub").rmdir()
            (root / "sub").symlink_to(tmp_path / "outside" if target == "outside" else "sub")
        return found

    monkeypatch.setattr(DirectoryLister, "_scan", scan_then_swap)
    data = structured(await client.call_tool("list_directory", {"output_format": "tree", "max_depth": 3}))
    children = data["tree"]["children"]
    assert [(node["name"], node["type"], node.get("children")) for node in children] == [
        ("sub", "directory", None),
        ("z.txt", "file", None),
    ]
    assert "secret.txt" not in json.dumps(data)
    assert (root / "sub").is_symlink()  # the swap happened: the answer came from the tree as it then was
