""".gitignore lines the Python engine once read otherwise than git, through the tools in both eras and with both
engines: a lone "/", a "[" that never closes, and patterns meeting a name that holds a line break. What each test
expects is what ``git status --ignored`` says of the same tree; the bytes on disk say what was rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


def files_of(found: dict[str, object], root: Path) -> list[str]:
    listed = found["files"]
    assert isinstance(listed, list)
    paths = [entry["path"] if isinstance(entry, dict) else entry for entry in listed]
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


def plant(root: Path, gitignore: bytes, names: list[str]) -> None:
    (root / ".gitignore").write_bytes(gitignore)
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"needle\n")


async def found_by_every_tool(client: Client, root: Path) -> tuple[list[str], list[str], list[str]]:
    """What a name search, a content search and a project_replace (which rewrites) find; neither search says how
    many secrets it left out."""
    names = structured(await client.call_tool("search_files", {"pattern": "*"}))
    content = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    replaced = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "thread"}))
    assert "denied" not in names
    assert "denied" not in content
    return files_of(names, root), files_of(content, root), files_of(replaced, root)


@pytest.mark.parametrize("line", [b"/", b"/ "])
async def test_a_gitignore_line_of_a_lone_slash_hides_nothing(
    client: Client, root: Path, tool_engine: str, line: bytes
) -> None:
    # pathspec read "/" as "**", every file hidden; git names nothing by it (nor by "!/", below).
    plant(root, line + b"\n", ["a.txt", "sub/b.txt"])
    expected = ["a.txt", "sub/b.txt"]
    assert await found_by_every_tool(client, root) == (expected, expected, expected)
    assert (root / "a.txt").read_bytes() == (root / "sub" / "b.txt").read_bytes() == b"thread\n"


async def test_a_negated_lone_slash_lets_no_ignored_file_back_in(client: Client, root: Path, tool_engine: str) -> None:
    plant(root, b"*.log\n!/\n", ["a.txt", "x.log", "sub/y.log"])
    assert await found_by_every_tool(client, root) == (["a.txt"], ["a.txt"], ["a.txt"])
    assert ((root / "x.log").read_bytes(), (root / "sub" / "y.log").read_bytes()) == (b"needle\n", b"needle\n")


async def test_a_gitignore_line_whose_bracket_never_closes_hides_nothing_and_secrets_stay_denied(
    client: Client, root: Path, tool_engine: str
) -> None:
    # git's wildmatch fails a pattern whose "[" never closes, rg drops it as an invalid glob: no file is hidden
    # by "[", "d[" or "*[". pathspec read the "[" literally and hid the files so named.
    plant(root, b"[\nd[\n*[\n", ["[", "x[", "d[/note.txt", "d[/key.pem"])
    expected = ["[", "d[/note.txt", "x["]
    assert await found_by_every_tool(client, root) == (expected, expected, expected)
    assert (root / "d[" / "key.pem").read_bytes() == b"needle\n"
    assert (root / "[").read_bytes() == (root / "d[" / "note.txt").read_bytes() == b"thread\n"


async def test_a_negated_line_whose_bracket_never_closes_lets_no_ignored_file_back_in(
    client: Client, root: Path, tool_engine: str
) -> None:
    plant(root, b"*.log\n![*\n", ["a.txt", "[a.log"])
    assert await found_by_every_tool(client, root) == (["a.txt"], ["a.txt"], ["a.txt"])
    assert (root / "[a.log").read_bytes() == b"needle\n"


async def test_every_pattern_shape_applies_below_a_directory_whose_name_holds_a_line_break(
    client: Client, root: Path, tool_engine: str
) -> None:
    # pathspec spells "**" (and the directories before an unanchored pattern) ".+", which stopped at a line break.
    gitignore = b"*.TXT\n?.md\n[xy].py\n**/deep/\ntop/**/log.c\n/*line/anchored.c\nbuild/\n**/out/**\n"
    ignored = ["a\nb.TXT", "new\nline/d.TXT", "new\nline/e.md", "new\nline/x.py", "new\nline/deep/z.c"]
    ignored += ["top/a\nb/log.c", "new\nline/anchored.c", "new\nline/build/o.c", "new\nline/out/p.c"]
    kept = ["in/new\nline/anchored.c", "new\nline/keep.rs", "top/a\nb/keep.c"]
    plant(root, gitignore, ignored + kept)
    assert await found_by_every_tool(client, root) == (sorted(kept), sorted(kept), sorted(kept))
    assert [(root / name).read_bytes() for name in ignored] == [b"needle\n"] * len(ignored)
    assert [(root / name).read_bytes() for name in kept] == [b"thread\n"] * len(kept)


async def test_a_gitignore_pattern_ending_in_a_letter_whose_last_byte_is_a_space_to_pathspec_hides_that_name(
    client: Client, root: Path, tool_engine: str
) -> None:
    # Matched byte-wise, "voilà" ends in "\xa0", which pathspec stripped as trailing whitespace: "voil\xc3" named
    # nothing. A tab ends a pattern too (git strips spaces alone), which rg trims: that file is the Python engine's.
    plant(root, "voil\u00e0\n\u0160\ntab\t\n".encode(), ["voil\u00e0", "\u0160", "tab\t", "voil", "tab", "keep.txt"])
    kept = ["keep.txt", "tab", "voil"]
    assert await found_by_every_tool(client, root) == (kept, kept, kept)
    assert [(root / name).read_bytes() for name in ("voil\u00e0", "\u0160", "tab\t")] == [b"needle\n"] * 3
