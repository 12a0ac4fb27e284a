"""Edges where the ripgrep and Python engines once answered differently, through the tools in both eras and with
both engines: a search of one file whose name ends in whitespace, a binary secret and a secret in a legacy code
page left out alike, a path through a loop of symbolic links, refused alike by every tool, a file
project_replace cannot decode, read as search reads it, and lines as read_file counts them (a lone CR ends one; an
empty match at the end of an unterminated last line is none)."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.denial import DenyRules, HiddenFiles, root_prefixes
from fsguard.core.errors import AccessDeniedError, SymlinkLoopError
from fsguard.core.ignore import WalkOptions
from fsguard.core.oserrors import followed_os_error, from_os_error
from fsguard.core.ripgrep import ripgrep_path
from fsguard.core.search import ContentRequest, search_content
from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

# rg reads a --glob as a .gitignore line, whose trailing whitespace it drops: Rust's whitespace, NBSP included.
ENDINGS = ["y ", "nb\u00a0", "em\u2003", "t\t", "c\r", "n\n"]


def files_of(found: dict[str, object], root: Path) -> list[str]:
    listed = found["files"]
    assert isinstance(listed, list)
    paths = [entry["path"] if isinstance(entry, dict) else entry for entry in listed]
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


@pytest.mark.parametrize("name", ENDINGS, ids=repr)
async def test_a_search_of_one_file_whose_name_ends_in_whitespace_finds_its_matches(
    client: Client, root: Path, tool_engine: str, name: str
) -> None:
    (root / name).write_bytes(b"needle\n")
    (root / name.rstrip()).write_bytes(b"other\n")  # the name rg searched instead
    (root / "link").symlink_to(name)
    # A path argument may not hold a control character: such a name is reached through the link.
    paths = ["link"] if name[-1] < " " else [name, "link"]
    for path in paths:
        found = structured(
            await client.call_tool("search_files", {"path": path, "pattern": "needle", "include_content": True})
        )
        assert (files_of(found, root), found["total_matches"]) == ([name], 1), path
    replaced = structured(
        await client.call_tool("project_replace", {"path": "link", "find": "needle", "replace": "thread"})
    )
    assert files_of(replaced, root) == [name]
    assert (root / name).read_bytes() == b"thread\n"


async def test_a_binary_secret_holding_the_pattern_is_left_out_of_skipped_binary_uncounted(
    client: Client, root: Path, tool_engine: str
) -> None:
    # A binary file holding a match is named in skipped_binary: a secret one is left out of it, and not counted.
    (root / ".env").mkdir()
    (root / ".env" / "x.txt").write_bytes(b"x\x00needle\n")
    (root / "public.bin").write_bytes(b"y\x00needle\n")
    (root / ".env" / "y.txt").write_bytes(b"x\x00thread\n")
    found = structured(
        await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "include_hidden": True})
    )
    assert (found["files"], found["skipped_binary_paths"], found.get("denied")) == ([], ["public.bin"], None)


async def test_a_secret_in_a_legacy_code_page_matching_once_decoded_is_left_out_uncounted(
    client: Client, root: Path, tool_engine: str
) -> None:
    # rg reads Latin-1 as raw bytes, where "très" is not found: the file is searched decoded, as read_file shows it.
    (root / "key.pem").write_bytes(b"tr\xe8s needle\n")
    (root / "other.pem").write_bytes(b"caf\xe9 without it\n")
    (root / "notes.txt").write_bytes(b"tr\xe8s bien\n")
    found = structured(await client.call_tool("search_files", {"pattern": "très", "include_content": True}))
    assert (files_of(found, root), found.get("denied")) == (["notes.txt"], None)


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
def test_without_the_pinned_walk_both_engines_leave_the_same_hidden_secrets_out(tmp_path: Path, engine: str) -> None:
    if engine == "ripgrep" and ripgrep_path() is None:
        pytest.skip("rg is not installed")
    root = tmp_path.resolve()
    (root / ".env").mkdir()
    (root / ".env" / "x.txt").write_bytes(b"x\x00needle\n")
    (root / "key.pem").write_bytes(b"tr\xe8s needle\n")
    (root / "other.pem").write_bytes(b"caf\xe9 without it\n")
    (root / "notes.txt").write_bytes(b"tr\xe8s needle\n")
    hide = HiddenFiles(DenyRules.create([]), root_prefixes([root]))
    for pattern in ("needle", "très"):
        request = ContentRequest(pattern=pattern, engine=engine)  # type: ignore[arg-type]
        found = search_content(root, request, WalkOptions(include_hidden=True), hide=hide)
        assert ([hit.file for hit in found.matches], found.binary) == ([str(root / "notes.txt")], ()), pattern


LOOP_CALLS: list[tuple[str, dict[str, object]]] = [
    ("read_file", {}),
    ("list_directory", {}),
    ("get_file_info", {}),
    ("search_files", {"pattern": "*"}),
    ("search_files", {"pattern": "needle", "include_content": True}),
    ("project_replace", {"find": "needle", "replace": "thread"}),
    ("project_replace", {"find": "need.e", "replace": "thread", "literal": False}),
    ("write_file", {"content": "x"}),
    ("edit_file", {"old_text": "a", "new_text": "b"}),
]


@pytest.mark.parametrize("path", ["loop", "ping", "loop/x"])
async def test_a_path_through_a_loop_of_symbolic_links_is_refused_as_a_loop_by_every_tool(
    client: Client, root: Path, tool_engine: str, path: str
) -> None:
    (root / "loop").symlink_to("loop")
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    for tool, arguments in LOOP_CALLS:
        result = await client.call_tool(tool, {"path": path, **arguments})
        assert error_code(result) == "access_denied", tool
        assert text_of(result).startswith(f"{path} leads through a loop of symbolic links"), (tool, text_of(result))
        assert "permission" not in text_of(result), tool


def test_eloop_from_a_lookup_that_follows_links_is_a_loop_and_from_other_calls_still_a_refusal(
    tmp_path: Path,
) -> None:
    looped = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    loop = followed_os_error(looped, tmp_path / "loop")
    assert type(loop) is SymlinkLoopError
    assert loop.code == "access_denied"
    # An open with O_NOFOLLOW meets ELOOP at a link swapped in for the file: no loop there.
    refused = from_os_error(looped, tmp_path / "f.txt")
    assert type(refused) is AccessDeniedError
    assert type(followed_os_error(FileNotFoundError(errno.ENOENT, "gone"), tmp_path)) is type(
        from_os_error(FileNotFoundError(errno.ENOENT, "gone"), tmp_path)
    )


@pytest.mark.parametrize("path", ["loop/x", "ping/x"])
async def test_a_source_plan_or_repository_through_a_loop_of_symbolic_links_is_refused_as_a_loop(
    client: Client, root: Path, path: str
) -> None:
    (root / "loop").symlink_to("loop")
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    (root / "a.txt").write_bytes(b"kept\n")
    calls: list[tuple[str, dict[str, object]]] = [
        ("copy_file", {"source_path": path, "dest_path": "b.txt"}),
        ("move_file", {"source_path": path, "dest_path": "b.txt"}),
        ("analyze_operation", {"operation": "delete", "path": path}),
        ("analyze_operation", {"operation": "file", "path": path}),
        ("analyze_operation", {"operation": "write", "path": path, "content": "x"}),
        ("git", {"action": "status", "path": path}),  # not "no repository here; init one in loop"
    ]
    for tool, arguments in calls:
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "access_denied", tool
        assert text_of(result).startswith(f"{path} leads through a loop of symbolic links"), (tool, text_of(result))
    assert sorted(entry.name for entry in root.iterdir()) == ["a.txt", "loop", "ping", "pong"]


@pytest.mark.parametrize("target", ["loop", "nowhere"])
async def test_a_plan_to_delete_a_link_that_leads_nowhere_finds_the_link_delete_file_removes(
    client: Client, root: Path, target: str
) -> None:
    (root / "loop").symlink_to(target)
    planned = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "loop"}))
    assert planned["exists"] is True
    deleted = await client.call_tool("delete_file", {"path": "loop"})
    assert not deleted.is_error, text_of(deleted)
    assert not (root / "loop").is_symlink()


@pytest.mark.parametrize("path", [".", "odd.txt"])
async def test_a_file_whose_utf16_bom_is_followed_by_no_utf16_is_read_by_project_replace_as_search_reads_it(
    client: Client, root: Path, tool_engine: str, path: str
) -> None:
    # rg transcodes after the BOM (an odd byte count: U+FFFD at the end) and finds nothing; the Python engine once
    # looked at the raw bytes and named the file in skipped_binary over a directory (rg did not), then both did
    # over the file alone. A file holding the text between NULs is still named.
    (root / "odd.txt").write_bytes(b"\xff\xfeneedle\n")
    (root / "bin.dat").write_bytes(b"\0needle\n")
    found = structured(
        await client.call_tool("search_files", {"path": path, "pattern": "needle", "include_content": True})
    )
    replaced = structured(await client.call_tool("project_replace", {"path": path, "find": "needle", "replace": "x"}))
    assert (found["total_matches"], replaced["total_replacements"]) == (0, 0)
    assert replaced.get("skipped_binary_paths", []) == ([] if path == "odd.txt" else ["bin.dat"])
    assert ((root / "odd.txt").read_bytes(), (root / "bin.dat").read_bytes()) == (b"\xff\xfeneedle\n", b"\0needle\n")


async def test_a_file_removed_while_rg_runs_leaves_the_other_matches_to_ripgrep(
    client: Client, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ripgrep_path()
    if real is None:
        pytest.skip("rg is not installed")
    # rg as it answers when a file it listed is deleted before it opens it: its other results, that file named on
    # stderr, exit status 2.
    wrapper = tmp_path / "rg"
    wrapper.write_bytes(
        b'#!/bin/sh\n"%s" "$@"\necho "rg: ./gone.txt: No such file or directory (os error 2)" >&2\nexit 2\n'
        % os.fsencode(real)
    )
    wrapper.chmod(0o755)
    monkeypatch.setattr("fsguard.core.search.ripgrep_path", lambda: wrapper)
    for name in ("a.txt", "b/c.txt"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_bytes(b"x\nneedle\n")
    found = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    assert (found["engine"], files_of(found, root), found["total_matches"]) == ("ripgrep", ["a.txt", "b/c.txt"], 2)


@pytest.mark.parametrize("literal", [True, False])
async def test_a_pattern_holding_a_nul_is_searched_and_replaced_by_both_engines_without_a_failure(
    client: Client, root: Path, tool_engine: str, literal: bool
) -> None:
    # No process argument can hold a NUL: ripgrep's command line raised ValueError, an internal_error.
    (root / "a.txt").write_bytes(b"hello\n")
    found = structured(
        await client.call_tool("search_files", {"pattern": "l\x00", "include_content": True, "literal": literal})
    )
    preview = structured(
        await client.call_tool("project_replace", {"find": "\x00", "replace": "", "literal": literal, "preview": True})
    )
    assert (found["total_matches"], preview["total_replacements"]) == (0, 0)
    assert (root / "a.txt").read_bytes() == b"hello\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": "hello", "include_content": True, "file_types": ".t\x00xt"}),
        ("search_files", {"pattern": "hello", "include_content": True, "include": "*\x00"}),
        ("search_files", {"pattern": "*.txt", "file_types": ["py", "\x00"]}),
        ("project_replace", {"find": "hello", "replace": "bye", "file_types": "\x00"}),
        ("project_replace", {"find": "hello", "replace": "bye", "exclude_paths": ["a\x00"]}),
    ],
    ids=["search-file_types", "search-include", "name-search", "replace-file_types", "replace-exclude_paths"],
)
async def test_a_glob_holding_a_nul_is_refused_by_both_engines_and_nothing_is_replaced(
    client: Client, root: Path, tool_engine: str, tool: str, arguments: dict[str, object]
) -> None:
    (root / "a.txt").write_bytes(b"hello\n")
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "invalid_params"
    assert "a glob holds a NUL character" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"hello\n"


# Lines are read_file's: a lone CR ends one, as CRLF and LF do; an empty match at the end of a last line no line
# break ends is none. (line, start, end) per match, for a search of the file and of its directory.
LINE_CASES: list[tuple[bytes, str, list[tuple[int, int, int]]]] = [
    ("alpha ü needle\r\nbeta\rgamma needle\rdelta\n".encode(), "needle$", [(1, 8, 14), (3, 6, 12)]),
    ("alpha ü needle\r\nbeta\rgamma needle\rdelta\n".encode(), "^gamma", [(3, 0, 5)]),
    ("alpha ü needle\r\nbeta\rgamma needle\rdelta\n".encode(), "beta.gamma", []),
    (b"beta\rgamma needle\rdelta\n", "needle$", [(2, 6, 12)]),
    (b"beta\rgamma needle\rdelta\n", "^gamma", [(2, 0, 5)]),
    (b"beta\rgamma needle\rdelta\n", r"beta\sgamma", []),
    (b"abc\r", "c$", [(1, 2, 3)]),
    (b"one\ntwo", "$", [(1, 3, 3)]),
    (b"one\ntwo", "x*", [(1, 0, 0), (1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 0, 0), (2, 1, 1), (2, 2, 2)]),
    (b"two", "$", []),
    (b"one\r\ntwo\r\n", "o$", [(2, 2, 3)]),
    (b"one\r\ntwo", "$", [(1, 3, 3)]),
]


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file counts as settled: a file written moments ago is otherwise searched again in Python to confirm
    it (fsguard.core.provenance), which hid what rg itself answered."""
    monkeypatch.setattr("fsguard.core.provenance._MARGIN_NS", -(10**12))


@pytest.mark.parametrize(("data", "pattern", "expected"), LINE_CASES, ids=repr)
async def test_both_engines_find_the_same_matches_on_the_lines_read_file_counts(
    client: Client,
    root: Path,
    tool_engine: str,
    settled: None,
    data: bytes,
    pattern: str,
    expected: list[tuple[int, int, int]],
) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(data)
    for path in ("d", "d/f.txt"):
        asked: dict[str, object] = {"path": path, "pattern": pattern, "include_content": True, "case_sensitive": True}
        found = structured(await client.call_tool("search_files", asked))
        spans = [(match["line_number"], match["match_start"], match["match_end"]) for match in found["matches"]]
        assert (found["engine"], spans) == (tool_engine, expected), path
        assert (found["total_matches"], found["files_with_matches"]) == (len(expected), int(bool(expected))), path
    for number, start, end in expected:
        lines: dict[str, object] = {"path": "d/f.txt", "start_line": number, "end_line": number}
        line = structured(await client.call_tool("read_file", lines))["content"].rstrip("\r\n")
        assert line[start:end] == (pattern.strip("^$") if end > start else "")  # offsets count characters


@pytest.mark.parametrize("engine", ["ripgrep", "python"])
def test_files_past_the_matches_shown_count_alike_in_both_engines_a_lone_cr_ending_a_line(
    tmp_path: Path, engine: str
) -> None:
    if engine == "ripgrep" and ripgrep_path() is None:
        pytest.skip("rg is not installed")
    root = tmp_path.resolve()
    (root / "a.txt").write_bytes(b"needle\r\n")
    (root / "b.txt").write_bytes(b"x needle\rneedle y\rneedle\n")  # counted, never shown
    (root / "c.txt").write_bytes(b"one\ntwo")
    (root / "d.txt").write_bytes(b"zzz")  # only "$" at the end of an unterminated last line: no match
    request = ContentRequest(pattern="needle$|^needle|two$|$", max_results=1, engine=engine)  # type: ignore[arg-type]
    found = search_content(root, request, WalkOptions())
    assert [(hit.file, hit.line_number, hit.match_start) for hit in found.matches] == [(str(root / "a.txt"), 1, 0)]
    # an empty match right after a match is skipped: one in a.txt, one per line of b.txt but for "needle y"
    assert found.counts == {str(root / "a.txt"): 1, str(root / "b.txt"): 4, str(root / "c.txt"): 2}
    assert (found.total_matches, found.files_with_matches) == (7, 3)
