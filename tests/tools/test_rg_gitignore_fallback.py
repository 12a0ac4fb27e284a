"""A ``.gitignore`` rg reads otherwise than git (a pattern of a name ending in ".", braces, a lone "!", a line that
is not UTF-8, a byte order mark) is read as git reads it by both engines: rg gives way to the Python engine. Minified
names ending in "." are searched by both. Through search_files (by name and content) and project_replace (preview and
apply), in both eras; git's own verdicts are checked in a throwaway repository where git is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.ignore import WalkOptions
from fsguard.core.rgreading import rg_reads_otherwise
from fsguard.core.sidewalk import GitignoreReadOtherwise, walk_beside
from tests.conftest import structured

pytestmark = pytest.mark.anyio

CAFE = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8


def files_of(found: dict[str, object], root: Path) -> list[str]:
    listed = found["files"]
    assert isinstance(listed, list)
    paths = [entry["path"] if isinstance(entry, dict) else entry for entry in listed]
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


def make(root: Path, tree: dict[str, bytes]) -> None:
    for name, content in tree.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


async def found_everywhere(client: Client, root: Path) -> list[str]:
    """The files holding ``needle`` by a name search, a content search and a preview, which must agree; then the
    files project_replace rewrites, whose bytes are checked."""
    names = structured(await client.call_tool("search_files", {"pattern": "*"}))
    named = [name for name in files_of(names, root) if not name.endswith(".gitignore")]
    content = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    preview = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "x", "preview": True}))
    assert named == files_of(content, root) == files_of(preview, root)
    applied = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "thread"}))
    assert files_of(applied, root) == named
    for name in named:
        assert (root / name).read_bytes() == b"thread\n"
    return named


def git_ignores(root: Path, names: list[str]) -> list[str]:
    """Which of ``names`` git ignores in a copy of ``root`` made a repository (skips the test without git)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("git is not installed")
    repo = root.parent / "repo"
    shutil.copytree(root, repo, symlinks=True)
    subprocess.run([git, "init", "-q", str(repo)], check=True)
    checked = subprocess.run(
        [git, "-C", str(repo), "check-ignore", "--no-index", "--stdin", "-z"],
        input=b"".join(os.fsencode(name) + b"\0" for name in names),
        capture_output=True,
        check=False,
    )
    return sorted(os.fsdecode(name) for name in checked.stdout.split(b"\0") if name)


async def test_a_gitignore_pattern_of_a_name_ending_in_a_dot_hides_that_name_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    tree = {".gitignore": b"x.txt.\nd/*.\n", "x.txt.": b"needle\n", "x.txt": b"needle\n", "d/a.": b"needle\n"}
    make(root, {**tree, "d/a.b": b"needle\n", "e/x.txt.": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["d/a.b", "x.txt"]
    assert git_ignores(root, ["x.txt.", "x.txt", "d/a.", "d/a.b", "e/x.txt."]) == ["d/a.", "e/x.txt.", "x.txt."]


async def test_a_gitignore_with_braces_hides_the_literal_name_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    make(root, {".gitignore": b"{x,y}\nz}\n", "{x,y}": b"needle\n", "x": b"needle\n"})
    make(root, {"z}": b"needle\n", "z": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["x", "z"]
    assert git_ignores(root, ["{x,y}", "x", "z}", "z"]) == ["z}", "{x,y}"]


async def test_a_lone_exclamation_mark_in_a_gitignore_re_includes_nothing_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    make(root, {".gitignore": b"*.log\n", "a/.gitignore": b"!\n", "a/z.log": b"needle\n", "a/z.txt": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["a/z.txt"]
    assert git_ignores(root, ["a/z.log", "a/z.txt"]) == ["a/z.log"]


async def test_a_gitignore_line_that_is_not_utf8_leaves_the_other_lines_standing_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    # rg drops the file from that line on; git reads the line as bytes, naming the file of those bytes
    make(root, {".gitignore": b"caf\xe9\n*.log\n", CAFE: b"needle\n", "b.log": b"needle\n", "c.txt": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["c.txt"]
    assert git_ignores(root, [CAFE, "b.log", "c.txt"]) == ["b.log", CAFE]


async def test_a_gitignore_starting_with_a_byte_order_mark_hides_what_its_first_pattern_names_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    make(root, {".gitignore": b"\xef\xbb\xbf*.log\n", "b.log": b"needle\n", "c.txt": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["c.txt"]
    assert git_ignores(root, ["b.log", "c.txt"]) == ["b.log"]


async def test_an_ordinary_gitignore_is_left_to_rg(client: Client, root: Path, tool_engine: str) -> None:
    make(root, {".gitignore": b"# logs\n*.log\nbuild/\n!keep.log\n/x.txt.\n", "a.log": b"needle\n"})
    make(root, {"keep.log": b"needle\n", "build/o.txt": b"needle\n", "x.txt.": b"needle\n", "y.txt.": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["keep.log", "y.txt."]
    found = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    assert found["engine"] == tool_engine


async def test_minified_names_ending_in_a_dot_are_searched_by_both_engines_and_not_reported_skipped(
    client: Client, root: Path, tool_engine: str
) -> None:
    make(root, {"c.min.": b"needle\n", "a.min.js.": b"needle\n", "a.min.js": b"needle\n", "b.map": b"needle\n"})
    content = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    preview = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "x", "preview": True}))
    applied = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "thread"}))
    for found in (content, preview, applied):
        assert files_of(found, root) == ["a.min.js.", "c.min."]
        assert found["default_skipped_paths"] == ["a.min.js", "b.map"]
    assert [(root / name).read_bytes() for name in ("c.min.", "a.min.js.", "a.min.js")] == [
        b"thread\n",
        b"thread\n",
        b"needle\n",
    ]


@pytest.mark.parametrize(
    "line",
    [
        *("x.txt.", "*.", "a?.", "[a].", "d/*.", "**/a.", "/**/a.", "d/**/a.", "a./", "!a.", "\\!a.", "a.\t", "a\\."),
        *("{x,y}", "{x", "x}", "!", "! ", "caf\udce9", "#caf\udce9", "x\u00a0", "y\t", "z \t ", "\t"),
        *("x\\  ", "x\\\\ ", "*\\   "),  # an escaped space then spaces; an escaped backslash then a space
    ],
)
def test_a_gitignore_line_rg_reads_its_own_way_is_told(line: str) -> None:
    assert rg_reads_otherwise(["*.log", line, "build/"]) is not None


@pytest.mark.parametrize(("first", "told"), [("\ufeff*.log", True), ("\ufeff# logs", False), ("\ufeff", False)])
def test_a_byte_order_mark_is_told_unless_a_comment_or_blank_line_follows_it(first: str, told: bool) -> None:
    assert (rg_reads_otherwise([first, "*.tmp"]) is not None) is told


@pytest.mark.parametrize(
    "line",
    [
        *("*.log", "build/", "!keep.log", "# a.", "", "*.min.*", "a.*", "a[.]", "/x.txt.", "d/x.txt.", "**/d/a."),
        *("/g./", ".", "..", "\\{x,y\\}", "a,b", "!/", "a.\\ ", "é.txt", "x\ufeff", "x  ", "x\\ "),
    ],
)
def test_a_gitignore_line_rg_reads_as_git_does_is_left_to_rg(line: str) -> None:
    assert rg_reads_otherwise([line]) is None


def test_a_gitignore_rg_reads_beside_the_way_is_looked_at_too(tmp_path: Path) -> None:
    # Searching sub, rg walks from the top and enters other, which the negation names: it reads other/.gitignore.
    make(tmp_path, {".gitignore": b"*\n!*/\n!*.txt\n", "sub/a.txt": b"", "other/.gitignore": b"{x,y}\n"})
    options = WalkOptions(rules_from=tmp_path)
    with pytest.raises(GitignoreReadOtherwise, match=re.escape("other/.gitignore holds '{x,y}'")):
        walk_beside(tmp_path / "sub", options)
    (tmp_path / "other" / ".gitignore").write_bytes(b"x\n")
    walk_beside(tmp_path / "sub", options)


async def test_trailing_spaces_after_a_backslash_are_trimmed_as_git_trims_them_in_both_engines(
    client: Client, root: Path, tool_engine: str
) -> None:
    # "x\  " is "x " to git (an escaped space; the unescaped one goes), "x\" to rg; "y\\ " is "y\" to git (an
    # escaped backslash; the space goes), "y\ " to rg.
    make(root, {".gitignore": b"x\\  \ny\\\\ \n", "x ": b"needle\n", "y\\": b"needle\n", "y\\ ": b"needle\n"})
    make(root, {"x": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["x", "y\\ "]
    assert git_ignores(root, ["x ", "x", "y\\", "y\\ "]) == ["x ", "y\\"]


async def test_a_gitignore_that_is_a_symbolic_link_is_read_as_no_rules_as_git_reads_it(
    client: Client, root: Path, tool_engine: str
) -> None:
    # git (since 2.32) never follows a .gitignore that is a link; rg does.
    make(root, {".cfg/rules": b"*.log\n", "keep/.gitignore": b"*.tmp\n"})
    make(root, {"a.log": b"needle\n", "sub/b.log": b"needle\n"})
    (root / ".gitignore").symlink_to(".cfg/rules")
    (root / "sub" / ".gitignore").symlink_to("../keep/.gitignore")
    make(root, {"sub/c.tmp": b"needle\n"})
    assert await found_everywhere(root=root, client=client) == ["a.log", "sub/b.log", "sub/c.tmp"]
    assert git_ignores(root, ["a.log", "sub/b.log", "sub/c.tmp"]) == []


def test_the_walk_beside_rg_names_a_gitignore_that_is_a_link_as_a_link(tmp_path: Path) -> None:
    make(tmp_path, {"rules": b"*.log\n", "a.txt": b""})
    (tmp_path / ".gitignore").symlink_to("rules")
    with pytest.raises(GitignoreReadOtherwise, match=re.escape(".gitignore is a symbolic link, which rg follows")):
        walk_beside(tmp_path, WalkOptions())
