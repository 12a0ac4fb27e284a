"""A path that does not exist is answered with the existing paths it likely meant, in the text and in
``did_you_mean``: an agent that mistyped a name retries at once instead of listing directories to find it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.core import names
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_bytes(b"print('main')\n")
    (root / "README.md").write_bytes(b"# readme\n")
    (root / ".env").write_bytes(b"TOKEN=secret\n")
    return root


def refusal(result: CallToolResult) -> dict[str, Any]:
    assert error_code(result) == "not_found"
    fields: dict[str, Any] = (result.meta or {})["fsguard/error"]
    return fields


@pytest.mark.parametrize(
    ("tool", "arguments", "first", "meant"),
    [
        ("read_file", {"path": "src/mian.py"}, "src/mian.py does not exist.", "src/main.py"),
        ("read_file", {"path": "readme.md"}, "readme.md does not exist.", "README.md"),
        ("get_file_info", {"path": "Src/main.py"}, "Src does not exist.", "src/main.py"),
        ("list_directory", {"path": "srcc"}, "srcc does not exist.", "src"),
        (
            "edit_file",
            {"path": "src/main.pyy", "old_text": "main", "new_text": "x"},
            "src/main.pyy does not exist.",
            "src/main.py",
        ),
        ("copy_file", {"source_path": "src/mian.py", "dest_path": "copy.py"}, "", "src/main.py"),
        ("search_files", {"path": "srcs", "pattern": "*.py"}, "", "src"),
        ("read_file", {"path": "src/main.py:1"}, "src/main.py:1 does not exist.", "src/main.py"),
        ("read_file", {"path": "@src/main.py"}, "@src does not exist.", "src/main.py"),
    ],
)
async def test_a_mistyped_path_is_refused_naming_the_existing_path_it_likely_meant(
    client: Client, project: Path, tool: str, arguments: dict[str, Any], first: str, meant: str
) -> None:
    before = sorted(path.relative_to(project) for path in project.rglob("*"))

    result = await client.call_tool(tool, arguments)

    assert refusal(result)["did_you_mean"] == [str(project / meant)]
    text = text_of(result)
    assert text.startswith(first)
    assert f"Did you mean {meant}? Otherwise check the path with list_directory." in text
    assert sorted(path.relative_to(project) for path in project.rglob("*")) == before
    assert (project / "src" / "main.py").read_bytes() == b"print('main')\n"


async def test_a_directory_missing_on_the_way_names_the_whole_path_asked_for(client: Client, project: Path) -> None:
    fields = refusal(await client.call_tool("read_file", {"path": "Src/main.py"}))
    assert fields["path"] == str(project / "Src")
    assert fields["full_path"] == str(project / "Src" / "main.py")


async def test_a_path_nothing_resembles_is_refused_as_before(client: Client, project: Path) -> None:
    result = await client.call_tool("read_file", {"path": "src/unrelated.py"})

    assert "did_you_mean" not in refusal(result)
    assert text_of(result) == "src/unrelated.py does not exist. Check the path with list_directory."


async def test_a_name_a_deny_rule_hides_is_never_offered(client: Client, project: Path) -> None:
    result = await client.call_tool("read_file", {"path": ".evn"})

    assert "did_you_mean" not in refusal(result)
    assert ".env" not in text_of(result).replace(".evn", "")


async def test_a_name_that_is_not_utf8_copied_from_a_listing_is_not_offered_back_and_the_refusal_says_why(
    client: Client, project: Path
) -> None:
    (project / "src" / os.fsdecode(b"lat\xe9.txt")).write_bytes(b"x\n")
    listed = structured(await client.call_tool("list_directory", {"path": "src"}))
    shown = next(entry["name"] for entry in listed["entries"] if entry["name"].startswith("lat"))  # "lat\ufffd.txt"

    for path in (f"src/{shown}", f"src/{shown}/deeper.txt"):
        result = await client.call_tool("read_file", {"path": path})
        assert "did_you_mean" not in refusal(result)  # it offered the very spelling sent: a loop for an agent
        assert "Did you mean" not in text_of(result)
        assert f"{shown} is how a name that is not UTF-8 is shown" in text_of(result)
        assert "search_files and project_replace in" in text_of(result)
    assert (project / "src" / os.fsdecode(b"lat\xe9.txt")).read_bytes() == b"x\n"


async def test_a_delete_of_a_missing_file_offers_no_other_file_to_delete(client: Client, project: Path) -> None:
    result = await client.call_tool("delete_file", {"path": "src/mian.py"})

    assert "did_you_mean" not in refusal(result)
    assert "main.py" not in text_of(result).replace("mian.py", "")
    assert (project / "src" / "main.py").read_bytes() == b"print('main')\n"


async def test_a_relative_path_that_only_another_root_holds_is_offered_there(
    connect: ClientFactory, project: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "lib").mkdir(parents=True)
    (other / "lib" / "util.py").write_bytes(b"pass\n")

    async with connect(roots=(project, other)) as client:
        plain = await client.call_tool("read_file", {"path": "lib/util.py"})
        named = await client.call_tool("read_file", {"path": "other/lib/util.py"})

    for result in (plain, named):
        assert refusal(result)["did_you_mean"] == [str(other / "lib" / "util.py")]
        assert f"Did you mean {other / 'lib' / 'util.py'}?" in text_of(result)


@pytest.mark.parametrize("tool", ["read_file", "get_file_info"])
async def test_each_missing_path_of_a_several_path_call_names_the_path_it_likely_meant(
    client: Client, project: Path, tool: str
) -> None:
    result = await client.call_tool(tool, {"paths": ["src/mian.py", "README.md"]})

    missing, present = structured(result)["files"]
    assert (missing["error_code"], missing["did_you_mean"]) == ("not_found", [str(project / "src" / "main.py")])
    assert "Did you mean src/main.py? Otherwise check the path with list_directory." in text_of(result)
    assert "did_you_mean" not in present
    assert present["path"] == str(project / "README.md")


@pytest.mark.parametrize(("pattern", "meant"), [("mian.py", "src/main.py"), ("readme.mdd", "README.md")])
async def test_a_name_search_that_finds_nothing_names_the_files_it_likely_misspells(
    client: Client, project: Path, tool_engine: str, pattern: str, meant: str
) -> None:
    result = await client.call_tool("search_files", {"pattern": pattern})

    found = structured(result)
    assert (found["total_matches"], found["did_you_mean"]) == (0, [str(project / meant)])
    assert f"Did you mean {meant}?" in text_of(result)


@pytest.mark.parametrize("pattern", ["*.pyy", "mian\\.py", ".evn", "main.py"])
async def test_a_name_search_offers_nothing_for_a_glob_a_regex_a_hidden_name_or_a_match(
    client: Client, project: Path, tool_engine: str, pattern: str
) -> None:
    result = await client.call_tool("search_files", {"pattern": pattern})

    assert "did_you_mean" not in structured(result)
    assert "Did you mean" not in text_of(result)


async def test_a_name_search_never_offers_a_name_no_path_may_hold(
    client: Client, project: Path, tool_engine: str
) -> None:
    (project / "src" / "mi\u202ean.py").write_bytes(b"x\n")
    (project / "src" / "main.py").unlink()

    result = await client.call_tool("search_files", {"pattern": "mian.py"})

    assert "did_you_mean" not in structured(result)


async def test_a_name_search_that_finds_nothing_walks_the_tree_once_for_its_suggestions_too(
    client: Client, project: Path, tool_engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    walks: list[str] = []
    for name in ("run_spooled", "walk_files"):  # rg's listing, the Python walk's
        walker = getattr(names, name)

        def counted(*args: Any, _walker: Any = walker, _name: str = name, **kwargs: Any) -> Any:
            walks.append(_name)
            return _walker(*args, **kwargs)

        monkeypatch.setattr(names, name, counted)

    result = await client.call_tool("search_files", {"pattern": "mian.py"})

    assert structured(result)["did_you_mean"] == [str(project / "src" / "main.py")]
    assert walks == ["run_spooled" if tool_engine == "ripgrep" else "walk_files"]


async def test_a_name_search_never_offers_a_file_a_deny_rule_hides(
    client: Client, project: Path, tool_engine: str
) -> None:
    result = await client.call_tool("search_files", {"pattern": ".evn", "include_hidden": True})

    assert structured(result)["total_matches"] == 0
    assert "did_you_mean" not in structured(result)
    assert ".env" not in text_of(result)
