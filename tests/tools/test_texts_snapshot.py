# ruff: noqa: E501
"""Snapshots of every tool's text block, success and main refusals, in both voices: a wording change is a diff.

Each test runs one scenario through the in-memory Client and compares the text block (``content[0].text``) with
an inline snapshot, as ``{"verbose": …, "compact": …}``, or ``{"both": …}`` when the two voices say the same
thing (most refusals). An error's text starts with ``error <code>`` (``_meta["fsguard/error"]["code"]``), a
success's with ``ok``.

Eras: every scenario runs in both protocol eras (2026-07-28 ``auto`` and 2025-11-25 ``legacy``) and must give
the same text in both; one snapshot per voice covers them.

Speed (~10 s for the file): building a server costs ~0.2 s and opening a client makes it check every output
schema, so the module shares one server per voice and settings (:data:`SHARED_SETTINGS`), with one client per era
open for the whole module, and each scenario works in its own case directory ``<root>/caseN``, named relative to
the root. Scenarios that read server-wide state (cleanup, stats, the artifact) get servers of their own
(``fresh=True``).

Normalisation (:func:`normalise`), so the snapshots hold only what a wording change can change:

- the case directory and the server root, absolute, become ``<root>``; the case directory's name in front of a
  relative path (``caseN/a.txt``, as text blocks name paths) is dropped and ``caseN`` alone becomes ``<root>``, so
  every text reads as if the case had the root to itself; the state directory becomes ``<state>``;
- backup ids and trash ids become ``<backup_id:1>``, ``<sd_id:1>``…, numbered by first appearance in the text,
  so a text that names two different backups still shows which is which;
- ISO times become ``<time>``, durations in milliseconds ``<ms>``;
- only in the stats test: the version, the uptime and the memory, which change from run to run.

Content hashes, crc32s and sizes stay: they are fixed by the fixed content. A text that still holds the temporary
directory or a case name after normalisation fails the test (the normaliser missed something).

Snapshot lines are as long as the texts they hold, hence the file-wide ``noqa: E501``.

Updating after a reviewed wording change::

    .venv/bin/pytest tests/tools/test_texts_snapshot.py --inline-snapshot=fix
    .venv/bin/ruff format tests/tools/test_texts_snapshot.py

(``--inline-snapshot=create`` fills a new empty ``snapshot()``.) Without a flag a mismatch fails and is only
reported. In CI (``CI=true``) inline-snapshot turns itself off: ``snapshot(x)`` is plain ``x``, so a mismatch is an
ordinary failed assertion and nothing is ever rewritten.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from inline_snapshot import snapshot
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.server import FsguardServer, build_server

pytestmark = pytest.mark.anyio

ERAS = ("auto", "legacy")
VOICES = {"verbose": False, "compact": True}

_SD_ID = re.compile(r"\bsd-\d{8}-\d{6}-[0-9a-f]{16}\b")
_BACKUP_ID = re.compile(r"(?<![\w-])\d{8}-\d{6}-[0-9a-f]{16}\b")
_ISO_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_DURATION = re.compile(r"\b\d+(?:\.\d+)? ?ms\b")


def normalise(text: str, *, case_dir: Path, root: Path, state: Path) -> str:
    """The text with paths, ids, times and durations replaced by placeholders (see the module docstring)."""
    text = text.replace(str(case_dir), "<root>").replace(str(root), "<root>").replace(str(state), "<state>")
    text = re.sub(rf"(?<![\w.-]){re.escape(case_dir.name)}/", "", text)
    text = re.sub(rf"(?<![\w.-]){re.escape(case_dir.name)}(?![\w-])", "<root>", text)  # the case dir, relative
    text = _numbered(_BACKUP_ID, "backup_id", _numbered(_SD_ID, "sd_id", text))
    return _DURATION.sub("<ms>", _ISO_TIME.sub("<time>", text))


def _numbered(pattern: re.Pattern[str], name: str, text: str) -> str:
    """Each distinct match of ``pattern`` as ``<name:N>``, N counting from 1 in order of first appearance."""
    seen: dict[str, str] = {}
    return pattern.sub(lambda match: seen.setdefault(match[0], f"<{name}:{len(seen) + 1}>"), text)


def render(result: CallToolResult) -> str:
    """``ok`` or ``error <code>``, then the text block."""
    block = result.content[0]
    assert block.type == "text"
    if result.is_error:
        assert result.structured_content is None
        return f"error {(result.meta or {})['fsguard/error']['code']}\n{block.text}"
    assert isinstance(result.structured_content, dict)
    return f"ok\n{block.text}"


@dataclass
class Case:
    """One scenario's client and directory; paths given as ``rel(name)`` resolve against the server's root."""

    client: Client
    dir: Path

    def rel(self, name: str = "") -> str:
        """``name`` inside the case directory, relative to the root (what a model would type)."""
        return f"{self.dir.name}/{name}" if name else self.dir.name

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    async def call(self, tool: str, /, **arguments: Any) -> CallToolResult:
        return await self.client.call_tool(tool, arguments)

    async def ok(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """structuredContent of a call that must succeed (a setup step)."""
        result = await self.call(tool, **arguments)
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content


Scenario = Callable[[Case], Awaitable[CallToolResult]]


SHARED_SETTINGS: tuple[dict[str, Any], ...] = ({}, {"max_file_size": 64}, {"auto_occ": "block"}, {"read_only": True})
"""The settings overrides of the shared servers; a scenario with other overrides needs ``fresh=True``."""


@dataclass
class Served:
    """A server, its root and state directory, and one open client per era."""

    server: FsguardServer
    root: Path
    state: Path
    clients: dict[str, Client] = field(default_factory=dict)


def _key(compact: bool, overrides: Mapping[str, Any]) -> tuple[bool, tuple[tuple[str, Any], ...]]:
    return compact, tuple(sorted(overrides.items()))


@dataclass
class Rig:
    """The module's shared servers (clients open for the whole module), and fresh servers on request.

    Keeping the clients open matters: a new client checks every tool's output schema again (~50 ms a tool).
    """

    base: Path
    shared: dict[tuple[bool, tuple[tuple[str, Any], ...]], Served] = field(default_factory=dict)
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def build(self, compact: bool, overrides: Mapping[str, Any]) -> Served:
        home = self.base / f"server{next(self.counter)}"
        root = home / "root"
        root.mkdir(parents=True)
        root = root.resolve()
        settings = Settings(roots=(root,), state_dir=home / "state", compact_mode=compact, **overrides)
        return Served(build_server(settings), root, home / "state")

    async def texts(
        self,
        scenario: Scenario,
        *,
        files: Mapping[str, str | bytes] | None = None,
        fresh: bool = False,
        scrub: Callable[[str], str] = lambda text: text,
        **overrides: Any,
    ) -> dict[str, str]:
        """The normalised text of ``scenario`` per voice; it must not differ between eras."""
        texts: dict[str, str] = {}
        for voice, compact in VOICES.items():
            by_era: dict[str, str] = {}
            for era in ERAS:
                if fresh:
                    served = self.build(compact, overrides)
                    async with Client(served.server, mode=era) as client:
                        raw = await self._run(scenario, client, served, files)
                else:
                    served = self.shared[_key(compact, overrides)]
                    raw = await self._run(scenario, served.clients[era], served, files)
                by_era[era] = scrub(raw)
            assert len(set(by_era.values())) == 1, f"{voice} text differs between eras: {by_era}"
            texts[voice] = by_era[ERAS[0]]
        if texts["verbose"] == texts["compact"]:
            return {"both": texts["verbose"]}
        return texts

    async def _run(
        self, scenario: Scenario, client: Client, served: Served, files: Mapping[str, str | bytes] | None
    ) -> str:
        case = Case(client, served.root / f"case{next(self.counter)}")
        case.dir.mkdir()
        for name, content in (files or {}).items():
            case.write(name, content)
        text = normalise(render(await scenario(case)), case_dir=case.dir, root=served.root, state=served.state)
        assert str(self.base) not in text, f"normaliser missed a path:\n{text}"
        assert case.dir.name not in text, f"normaliser missed the case name:\n{text}"
        return text


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide, so the shared clients below live across tests (one event loop for the module)."""
    return "asyncio"


@pytest.fixture(scope="module")
async def rig(tmp_path_factory: pytest.TempPathFactory, anyio_backend: str) -> AsyncIterator[Rig]:
    rig = Rig(tmp_path_factory.mktemp("texts").resolve())
    async with AsyncExitStack() as stack:
        for compact in VOICES.values():
            for overrides in SHARED_SETTINGS:
                served = rig.shared[_key(compact, overrides)] = rig.build(compact, overrides)
                for era in ERAS:
                    served.clients[era] = await stack.enter_async_context(Client(served.server, mode=era))
        yield rig


TEN_LINES = "".join(f"line {i}\n" for i in range(1, 11))


async def read_then(case: Case, name: str) -> None:
    """Read ``name`` first, so an edit carries no STALE_READ hint."""
    await case.ok("read_file", path=case.rel(name))


# -- read_file ---------------------------------------------------------------------------------------------------


async def test_read_file_returns_the_lines_asked_for_and_how_to_read_the_rest(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("a.txt"), max_lines=2, mode="head"), files={"a.txt": TEN_LINES}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
line 1
line 2

[Truncated: showing first 2 of 10 lines. Use mode=all or increase max_lines to see more]\
""",
            "compact": """\
ok
line 1
line 2

[lines 1-2 of 10; next: start_line=3]\
""",
        }
    )


async def test_read_file_of_several_paths_shares_one_budget_and_gives_each_cut_file_its_hint(rig: Rig) -> None:
    files = {"a.txt": TEN_LINES, "b.txt": "short\n", "c.txt": "w" * 300 + "\n", "d.txt": "x" * 100 + "\n"}
    texts = await rig.texts(
        lambda c: c.call("read_file", paths=[c.rel(name) for name in files]),
        files=files,
        fresh=True,
        max_response_bytes=200,
        read_truncate_lines=3,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
=== a.txt ===
line 1
line 2
line 3

[Lines 1-3 of 10 total lines in a.txt — use start_line/end_line to read more, e.g. start_line=4 end_line=6]

=== b.txt ===
short

=== c.txt ===
wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww… [line 1 cut at 109 characters]

[Line 1 of c.txt cut at 109 characters (--max-response-bytes 200): read on with start_line=1 start_column=110]

=== d.txt ===
[Left out: the files before it filled the response budget (--max-response-bytes 200). Read it on its own: read_file(path="d.txt")]
""",
            "compact": """\
ok
=== a.txt ===
line 1
line 2
line 3

[lines 1-3 of 10; next: start_line=4]

=== b.txt ===
short

=== c.txt ===
wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww… [line 1 cut at 109 characters]

[Line 1 of c.txt cut at 109 characters (--max-response-bytes 200): read on with start_line=1 start_column=110]

=== d.txt ===
[left out: response budget used; read_file(path="d.txt")]
""",
        }
    )


async def test_read_file_of_a_tail_the_budget_cut_says_so_and_names_the_earlier_lines_in_both_voices(rig: Rig) -> None:
    lines = "".join(f"{i:02} " + "x" * 40 + "\n" for i in range(1, 13))
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("t.txt"), max_lines=10, mode="tail"),
        files={"t.txt": lines},
        fresh=True,
        max_response_bytes=200,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
09 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
10 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
11 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
12 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx

[Lines 9-12 of 12 total lines in t.txt (10 asked: the response budget (--max-response-bytes 200) holds no more; read the earlier ones with start_line=3 end_line=8)]\
""",
            "compact": """\
ok
09 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
10 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
11 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
12 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx

[lines 9-12 of 12; response budget full; earlier: start_line=3 end_line=8]\
""",
        }
    )


async def test_read_file_of_a_tail_names_the_way_to_the_lines_before_it_in_both_voices(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("a.txt"), max_lines=3, mode="tail"), files={"a.txt": TEN_LINES}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
line 8
line 9
line 10

[Truncated: showing last 3 of 10 lines. Use mode=all or increase max_lines to see more]\
""",
            "compact": """\
ok
line 8
line 9
line 10

[lines 8-10 of 10; earlier: start_line=5 end_line=7]\
""",
        }
    )


async def test_read_file_in_base64_heads_the_bytes_with_the_path_only_in_the_verbose_voice(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("b.bin"), encoding="base64"), files={"b.bin": b"\x00\x01\x02"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
# File: b.bin (3 bytes)
# Base64 encoded:
AAEC\
""",
            "compact": """\
ok
AAEC\
""",
        }
    )


async def test_read_file_of_a_missing_file_is_not_found(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("read_file", path=c.rel("missing.txt"))) == snapshot(
        {
            "both": """\
error not_found
missing.txt does not exist. Check the path with list_directory.\
"""
        }
    )


async def test_read_file_of_a_directory_is_is_directory(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("read_file", path=c.rel("d")), files={"d/x.txt": "x"}) == snapshot(
        {
            "both": """\
error is_directory
d is a directory, not a file. Use list_directory for directories.\
"""
        }
    )


async def test_read_file_of_binary_bytes_is_binary_file_with_the_base64_hint(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("read_file", path=c.rel("b.bin")), files={"b.bin": b"\x00\x01abc"})
    assert texts == snapshot(
        {
            "both": """\
error binary_file
b.bin is a binary file. Read it with read_file(encoding='base64') (a file up to --max-file-size), or inspect it with get_file_info.\
"""
        }
    )


async def test_read_file_over_the_size_limit_is_too_large(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("big.txt")), files={"big.txt": "x" * 100}, max_file_size=64
    )
    assert texts == snapshot(
        {
            "both": """\
error too_large
big.txt is 100 bytes, above the 64-byte limit (--max-file-size) for whole-file reads. Read it in ranges: mode='tail' or 'head' with max_lines, or start_line/end_line. It cannot be edited: edits load the whole file.\
"""
        }
    )


async def test_read_file_outside_the_roots_is_access_denied(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("read_file", path="/etc/passwd")) == snapshot(
        {
            "both": """\
error access_denied
access denied: /etc/passwd is outside allowed directories: <root>. Use a path under one of these roots.\
"""
        }
    )


async def test_read_file_without_a_path_is_invalid_params_with_an_example(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("read_file")) == snapshot(
        {
            "both": """\
error invalid_params
read_file: invalid arguments:
• missing required parameter "path" (or pass paths)
Example: read_file(path="src/app.py").\
"""
        }
    )


# -- write_file --------------------------------------------------------------------------------------------------


async def test_write_file_of_a_new_file_says_created(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("write_file", path=c.rel("new/n.txt"), content="hello\n")) == snapshot(
        {
            "verbose": """\
ok
Created new/n.txt (6 bytes, utf-8), verified, hash f8934173.\
""",
            "compact": """\
ok
CREATED new/n.txt | 6B | hash f8934173\
""",
        }
    )


async def test_write_file_over_a_file_says_written_and_how_to_undo(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "w.txt")
        return await c.call("write_file", path=c.rel("w.txt"), content="new text\n")

    assert await rig.texts(scenario, files={"w.txt": "old text\n"}) == snapshot(
        {
            "verbose": """\
ok
Wrote w.txt (9 bytes, utf-8), verified, hash e74ae34a.
Undo: backup(action="undo_last", file_path="w.txt") · backup <backup_id:1>\
""",
            "compact": """\
ok
WRITTEN w.txt | 9B | hash e74ae34a | undo:<backup_id:1>\
""",
        }
    )


async def test_write_file_of_the_same_content_says_unchanged(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("write_file", path=c.rel("s.txt"), content="same\n"), files={"s.txt": "same\n"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
s.txt already holds exactly this content; nothing was written (hash fb58cb23).\
""",
            "compact": """\
ok
UNCHANGED s.txt | 5B | hash fb58cb23\
""",
        }
    )


async def test_write_file_of_much_less_than_the_file_held_explains_the_guard_and_the_undo(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "t.txt")
        return await c.call("write_file", path=c.rel("t.txt"), content="short\n")

    assert await rig.texts(scenario, files={"t.txt": TEN_LINES * 3}) == snapshot(
        {
            "verbose": """\
ok
Wrote t.txt (6 bytes, utf-8), verified, hash e32fd00d.
Undo: backup(action="undo_last", file_path="t.txt") · backup <backup_id:1>
new content (6 B) is less than 50% of existing file (213 B). Looks like accidental truncation. Written anyway because the previous version was backed up first.\
""",
            "compact": """\
ok
WRITTEN t.txt | 6B | hash e32fd00d | undo:<backup_id:1>
new content (6 B) is less than 50% of existing file (213 B). Looks like accidental truncation. Written anyway because the previous version was backed up first.\
""",
        }
    )


async def test_write_file_after_an_external_change_notes_it(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "x.txt")
        c.write("x.txt", "changed elsewhere\n")
        return await c.call("write_file", path=c.rel("x.txt"), content="my own new text\n")

    assert await rig.texts(scenario, files={"x.txt": "first\n"}) == snapshot(
        {
            "verbose": """\
ok
Wrote x.txt (16 bytes, utf-8), verified, hash e68f28c6.
Undo: backup(action="undo_last", file_path="x.txt") · backup <backup_id:1>
file changed on disk since this session last saw it (known hash 6f677e11, on-disk 583e213f) — another process may have modified it: x.txt.\
""",
            "compact": """\
ok
WRITTEN x.txt | 16B | hash e68f28c6 | undo:<backup_id:1>
file changed on disk since this session last saw it (known hash 6f677e11, on-disk 583e213f) — another process may have modified it: x.txt.\
""",
        }
    )


async def test_write_file_with_a_stale_expected_hash_is_stale_edit(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("write_file", path=c.rel("s.txt"), content="x\n", expected_hash="deadbeef"),
        files={"s.txt": "old\n"},
    )
    assert texts == snapshot(
        {
            "both": """\
error stale_edit
stale edit: file content changed since read (expected hash: deadbeef, actual: a7a65b54). Re-read the file with read_file to get the current content_hash, then retry. Nothing was written to s.txt; retry with expected_hash='a7a65b54' if your change still applies to the current content.\
"""
        }
    )


async def test_write_file_onto_a_directory_is_is_directory(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("write_file", path=c.rel("d"), content="x"), files={"d/x.txt": "x"})
    assert texts == snapshot(
        {
            "both": """\
error is_directory
d is a directory, not a file. Use list_directory for directories.\
"""
        }
    )


async def test_write_file_under_a_file_is_not_a_directory(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("write_file", path=c.rel("f/x.txt"), content="x"), files={"f": "file"})
    assert texts == snapshot(
        {
            "both": """\
error not_a_directory
f is a file, not a directory: nothing can be below it. Check the path with list_directory.\
"""
        }
    )


async def test_write_file_outside_the_roots_is_access_denied(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("write_file", path="/etc/fsguard-test.txt", content="x")) == snapshot(
        {
            "both": """\
error access_denied
access denied: /etc/fsguard-test.txt is outside allowed directories: <root>. Use a path under one of these roots.\
"""
        }
    )


async def test_write_file_with_bad_base64_is_invalid_params(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("write_file", path=c.rel("b.bin"), content_base64="%%%")) == snapshot(
        {
            "both": """\
error invalid_params
Invalid base64: content_base64 is not valid base64 (Only base64 data is allowed). Nothing was written. Send the bytes as standard base64 (A-Z a-z 0-9 + / with = padding), or send text in content.\
"""
        }
    )


async def test_write_file_over_the_size_limit_is_too_large(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("write_file", path=c.rel("big.txt"), content="x" * 100), max_file_size=64)
    assert texts == snapshot(
        {
            "both": """\
error too_large
the content for big.txt is at least 100 bytes, above the 64-byte limit (--max-file-size); nothing was written. Write a smaller file, or restart fsguard with a larger --max-file-size.\
"""
        }
    )


# -- edit_file ---------------------------------------------------------------------------------------------------


async def test_edit_file_reports_the_change_the_undo_and_the_diff(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5\n", new_text="line five\n")

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
M e.txt | 1 replacement (exact) | +1 -1 | 10 lines | hash c8b3537a
Undo: backup(action="undo_last", file_path="e.txt") · backup <backup_id:1>

--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+line five
 line 6
 line 7
 line 8\
""",
            "compact": """\
ok
M e.txt | 1@+1-1 | 10L | hash c8b3537a | undo:<backup_id:1>
@@ -5 +5 @@
-line 5
+line five\
""",
        }
    )


async def test_edit_file_of_an_unread_file_adds_the_stale_read_hint(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="line 5\n", new_text="line five\n"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
M e.txt | 1 replacement (exact) | +1 -1 | 10 lines | hash c8b3537a
Undo: backup(action="undo_last", file_path="e.txt") · backup <backup_id:1>
[STALE_READ] File was not read in the current session before editing (e.txt, in the last 10 minutes): read it (or pass expected_hash) so edits are checked against what you saw.

--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+line five
 line 6
 line 7
 line 8\
""",
            "compact": """\
ok
M e.txt | 1@+1-1 | 10L | hash c8b3537a | undo:<backup_id:1>
[STALE_READ] File was not read in the current session before editing (e.txt, in the last 10 minutes): read it (or pass expected_hash) so edits are checked against what you saw.
@@ -5 +5 @@
-line 5
+line five\
""",
        }
    )


async def test_edit_file_after_an_external_change_notes_it(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        c.write("e.txt", TEN_LINES + "line 11\n")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5\n", new_text="line five\n")

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
M e.txt | 1 replacement (exact) | +1 -1 | 11 lines | hash 590e7e3c
Undo: backup(action="undo_last", file_path="e.txt") · backup <backup_id:1>
file changed on disk since this session last saw it (known hash e9711641, on-disk 2680ecbb) — another process may have modified it: e.txt.

--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+line five
 line 6
 line 7
 line 8\
""",
            "compact": """\
ok
M e.txt | 1@+1-1 | 11L | hash 590e7e3c | undo:<backup_id:1>
file changed on disk since this session last saw it (known hash e9711641, on-disk 2680ecbb) — another process may have modified it: e.txt.
@@ -5 +5 @@
-line 5
+line five\
""",
        }
    )


async def test_edit_file_of_most_of_a_file_adds_the_risk_note_and_the_integrity_detail(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "h.txt")
        return await c.call("edit_file", path=c.rel("h.txt"), old_text="x" * 70, new_text="y")

    assert await rig.texts(scenario, files={"h.txt": "k\n" * 10 + "x" * 70 + "\n"}) == snapshot(
        {
            "verbose": """\
ok
M h.txt | 1 replacement (exact) | +1 -1 | 11 lines | hash dfa301d6
Undo: backup(action="undo_last", file_path="h.txt") · backup <backup_id:1>
note: large edit (~70 bytes affected, 1 replacement, 77% of file). backup:<backup_id:1> — verify with read_file("h.txt", mode="tail") if needed
integrity WARNING: crc32 e725a162, 11 lines, 22 bytes; file is only 22 bytes after a 77% change — verify its content

--- a/h.txt
+++ b/h.txt
@@ -8,4 +8,4 @@
 k
 k
 k
-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
+y\
""",
            "compact": """\
ok
M h.txt | 1@+1-1 | 11L | hash dfa301d6 | undo:<backup_id:1>
note: large edit (~70 bytes affected, 1 replacement, 77% of file). backup:<backup_id:1> — verify with read_file("h.txt", mode="tail") if needed
integrity WARNING: crc32 e725a162, 11 lines, 22 bytes; file is only 22 bytes after a 77% change — verify its content
@@ -11 +11 @@
-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
+y\
""",
        }
    )


async def test_edit_file_that_breaks_python_syntax_adds_the_structure_warning(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "m.py")
        return await c.call("edit_file", path=c.rel("m.py"), old_text="(x + 1)", new_text="(x + 1")

    assert await rig.texts(scenario, files={"m.py": "def f(x):\n    return (x + 1)\n"}) == snapshot(
        {
            "verbose": """\
ok
M m.py | 1 replacement (exact) | +1 -1 | 2 lines | hash d542e0d7
Undo: backup(action="undo_last", file_path="m.py") · backup <backup_id:1>
note: edit on small file (2 lines, ~7 bytes affected, 1 replacement). backup:<backup_id:1>
structure: Python syntax error introduced at line 2, column 5 (unexpected 'return (x + 1'). The file parsed cleanly before this edit; check the edit before running it.

--- a/m.py
+++ b/m.py
@@ -1,2 +1,2 @@
 def f(x):
-    return (x + 1)
+    return (x + 1\
""",
            "compact": """\
ok
M m.py | 1@+1-1 | 2L | hash d542e0d7 | undo:<backup_id:1>
note: edit on small file (2 lines, ~7 bytes affected, 1 replacement). backup:<backup_id:1>
structure: Python syntax error introduced at line 2, column 5 (unexpected 'return (x + 1'). The file parsed cleanly before this edit; check the edit before running it.
@@ -2 +2 @@
-    return (x + 1)
+    return (x + 1\
""",
        }
    )


async def test_edit_file_dry_run_shows_the_diff_and_writes_nothing(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5", new_text="LINE 5", dry_run=True)

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
DRY RUN, nothing written: e.txt | 1 replacement (exact) | +1 -1 would change

--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+LINE 5
 line 6
 line 7
 line 8\
""",
            "compact": """\
ok
DRY RUN e.txt | 1@+1-1 | nothing written
@@ -5 +5 @@
-line 5
+LINE 5\
""",
        }
    )


async def test_edit_file_with_the_same_text_writes_nothing(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5", new_text="line 5")

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
e.txt already has this content; nothing was written (hash e9711641).\
""",
            "compact": """\
ok
UNCHANGED e.txt | 1@+0-0 | nothing written | hash e9711641\
""",
        }
    )


async def test_edit_file_of_a_missing_file_is_not_found(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("edit_file", path=c.rel("missing.txt"), old_text="a", new_text="b"))
    assert texts == snapshot(
        {
            "both": """\
error not_found
missing.txt does not exist. Check the path with list_directory.\
"""
        }
    )


async def test_edit_file_with_text_not_in_the_file_is_no_match_showing_the_file(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="line 55\n", new_text="x\n"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "both": """\
error no_match
edit failed: no matches found for text: "line 55\\n" — old_text was not found in e.txt (tried: exact, escape_fixed, trailing_whitespace, indentation, line_endings). Nothing was written.
The whole file (10 lines):
    1: line 1
    2: line 2
    3: line 3
    4: line 4
    5: line 5
    6: line 6
    7: line 7
    8: line 8
    9: line 9
   10: line 10
[STALE_READ] File was not read in the current session before editing (e.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.
Copy the exact text from read_file and retry, or pass tolerant_whitespace=true if only tabs/spaces or line endings differ.\
"""
        }
    )


async def test_edit_file_already_applied_is_no_match_saying_so(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="line 0", new_text="line 1"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "both": """\
error no_match
edit failed: no matches found for text: "line 0" — old_text is not in e.txt, but new_text is, at line 1: the edit looks already applied if that line is where it goes: "line 1". Re-read the file before changing it again.
[STALE_READ] File was not read in the current session before editing (e.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.\
"""
        }
    )


async def test_edit_file_with_occurrence_and_replace_all_is_invalid_params_naming_both(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("x.txt"), old_text="x", new_text="y", occurrence=2, replace_all=True),
        files={"x.txt": "x x x\n"},
    )
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
occurrence=2 changes one match and replace_all=true changes every match. Pass one of them, not both.\
"""
        }
    )


async def test_edit_file_with_text_found_twice_is_ambiguous_match_naming_the_lines(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="line 1", new_text="x"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "both": """\
error ambiguous_match
old_text matches 2 times (expected 1) in e.txt (at lines 1, 10; tier exact). Nothing was written. Add surrounding lines to old_text so it matches once, pass occurrence=N to pick one, or replace_all=true to change every one.
[STALE_READ] File was not read in the current session before editing (e.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.\
"""
        }
    )


async def test_edit_file_with_a_stale_expected_hash_is_stale_edit(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="line 1\n", new_text="x\n", expected_hash="0"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "both": """\
error stale_edit
stale edit: file content changed since read (expected hash: 0, actual: e9711641). Re-read the file with read_file to get the current content_hash, then retry. Nothing was written to e.txt; retry with expected_hash='e9711641' if your change still applies to the current content.\
"""
        }
    )


async def test_edit_file_pasting_a_whole_file_over_one_line_is_rewrite_blocked(rig: Rig) -> None:
    body = "".join(f"line {i} of a long file\n" for i in range(150))
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("big.txt"), old_text="line 0 of a long file\n", new_text=body),
        files={"big.txt": body},
    )
    assert texts == snapshot(
        {
            "both": """\
error rewrite_blocked
edit_file blocked: looks like an accidental full-file rewrite. old_text is 22 characters (1% of the 3,490-character file) but new_text is 3,490 characters (100% of the file). edit_file only swaps the matched block, so the rest of the file (~3,468 characters) would remain around new_text, usually below it, duplicating much of it. To replace the whole file, use write_file; if you really mean to swap just this block, call edit_file again with allow_rewrite=true.\
"""
        }
    )


async def test_edit_file_after_an_external_change_in_block_mode_is_external_change(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        c.write("e.txt", TEN_LINES + "line 11\n")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5\n", new_text="line five\n")

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}, auto_occ="block") == snapshot(
        {
            "both": """\
error external_change
edit_file blocked: file changed on disk since this session last read it: e.txt (known hash e9711641, on-disk 2680ecbb) — another process may have modified it. Nothing was written. Re-read the file, or pass expected_hash='2680ecbb' to edit the current content deliberately.\
"""
        }
    )


async def test_edit_file_of_binary_bytes_is_binary_file(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("edit_file", path=c.rel("b.bin"), old_text="abc", new_text="x"), files={"b.bin": b"\0\1abc"}
    )
    assert texts == snapshot(
        {
            "both": """\
error binary_file
b.bin is a binary file. Read it with read_file(encoding='base64') (a file up to --max-file-size), or inspect it with get_file_info.\
"""
        }
    )


async def test_edit_file_without_new_text_is_invalid_params_naming_it(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("edit_file", path=c.rel("e.txt"), old_text="a"), files={"e.txt": "a"})
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
mode 'replace' needs new_text (use "" to delete old_text).\
"""
        }
    )


# -- multi_edit --------------------------------------------------------------------------------------------------


async def test_multi_edit_reports_each_edit_and_the_undo(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "m.txt")
        edits = [{"old_text": "line 2\n", "new_text": "two\n"}, {"old_text": "line 9\n", "new_text": "nine\n"}]
        return await c.call("multi_edit", path=c.rel("m.txt"), edits=edits)

    assert await rig.texts(scenario, files={"m.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
M m.txt | 2/2 edits | +2 -2 | hash 65855ba0
Undo: backup(action="undo_last", file_path="m.txt") · backup <backup_id:1>
  edit 1: applied (exact, line 2)
  edit 2: applied (exact, line 9)

--- a/m.txt
+++ b/m.txt
@@ -1,10 +1,10 @@
 line 1
-line 2
+two
 line 3
 line 4
 line 5
 line 6
 line 7
 line 8
-line 9
+nine
 line 10\
""",
            "compact": """\
ok
M m.txt | 2/2 edits | +2 -2 | 10L | hash 65855ba0 | undo:<backup_id:1>
@@ -2 +2 @@
-line 2
+two
@@ -9 +9 @@
-line 9
+nine\
""",
        }
    )


async def test_multi_edit_whose_edits_leave_the_text_as_it_was_says_nothing_was_written(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "m.txt")
        edits = [{"old_text": "line 2", "new_text": "line 2"}, {"old_text": "line 9", "new_text": "line 9"}]
        return await c.call("multi_edit", path=c.rel("m.txt"), edits=edits)

    assert await rig.texts(scenario, files={"m.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
m.txt already has this content (2/2 edits | +0 -0); nothing was written (hash e9711641).
  edit 1: applied (exact, line 2)
  edit 2: applied (exact, line 9)\
""",
            "compact": """\
ok
UNCHANGED m.txt | 2/2 edits | +0 -0 | nothing written | hash e9711641\
""",
        }
    )


async def test_multi_edit_of_most_of_a_file_adds_the_risk_note_and_the_integrity_detail_as_edit_file_does(
    rig: Rig,
) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "h.txt")
        return await c.call("multi_edit", path=c.rel("h.txt"), edits=[{"old_text": "x" * 70, "new_text": "y"}])

    assert await rig.texts(scenario, files={"h.txt": "k\n" * 10 + "x" * 70 + "\n"}) == snapshot(
        {
            "verbose": """\
ok
M h.txt | 1/1 edits | +1 -1 | hash dfa301d6
Undo: backup(action="undo_last", file_path="h.txt") · backup <backup_id:1>
  edit 1: applied (exact, line 11)
note: large edit (~70 bytes affected, 1 replacement, 77% of file). backup:<backup_id:1> — verify with read_file("h.txt", mode="tail") if needed
integrity WARNING: crc32 e725a162, 11 lines, 22 bytes; file is only 22 bytes after a 77% change — verify its content

--- a/h.txt
+++ b/h.txt
@@ -8,4 +8,4 @@
 k
 k
 k
-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
+y\
""",
            "compact": """\
ok
M h.txt | 1/1 edits | +1 -1 | 11L | hash dfa301d6 | undo:<backup_id:1>
note: large edit (~70 bytes affected, 1 replacement, 77% of file). backup:<backup_id:1> — verify with read_file("h.txt", mode="tail") if needed
integrity WARNING: crc32 e725a162, 11 lines, 22 bytes; file is only 22 bytes after a 77% change — verify its content
@@ -11 +11 @@
-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
+y\
""",
        }
    )


async def test_multi_edit_with_one_edit_not_found_is_no_match_listing_every_edit(rig: Rig) -> None:
    edits = [{"old_text": "line 2\n", "new_text": "two\n"}, {"old_text": "line 99\n", "new_text": "x\n"}]
    texts = await rig.texts(
        lambda c: c.call("multi_edit", path=c.rel("m.txt"), edits=edits), files={"m.txt": TEN_LINES}
    )
    assert texts == snapshot(
        {
            "both": """\
error no_match
Multi-edit ROLLED BACK (file unchanged): atomic rollback: 1 of 2 edits failed — file NOT modified (m.txt).
  edit 1: applied
  edit 2: failed — edit failed: no matches found for text: "line 99\\n" — old_text was not found in m.txt (tried: exact, escape_fixed, trailing_whitespace, indentation, line_endings). Nothing was written.
[STALE_READ] File was not read in the current session before editing (m.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.
Fix the failing old_text (copy it from read_file) and retry.\
"""
        }
    )


async def test_multi_edit_with_one_edit_found_twice_is_ambiguous_match(rig: Rig) -> None:
    edits = [{"old_text": "line 1", "new_text": "one"}]
    texts = await rig.texts(
        lambda c: c.call("multi_edit", path=c.rel("m.txt"), edits=edits), files={"m.txt": TEN_LINES}
    )
    assert texts == snapshot(
        {
            "both": """\
error ambiguous_match
Multi-edit ROLLED BACK (file unchanged): atomic rollback: 1 of 1 edits failed — file NOT modified (m.txt).
  edit 1: ambiguous match: old_text for edit 1 matches 2 times (expected 1) in m.txt (at lines 1, 10; tier exact). Nothing was written. Add surrounding lines to old_text so it matches once, pass occurrence=N to pick one, or replace_all=true to change every one.
[STALE_READ] File was not read in the current session before editing (m.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.
Fix the failing old_text (copy it from read_file) and retry.\
"""
        }
    )


async def test_multi_edit_whose_old_text_is_gone_but_new_text_is_there_is_ambiguous(rig: Rig) -> None:
    edits = [{"old_text": "line one", "new_text": "line 1"}, {"old_text": "line 2", "new_text": "two"}]
    texts = await rig.texts(
        lambda c: c.call("multi_edit", path=c.rel("m.txt"), edits=edits), files={"m.txt": "line 1\nline 2\n"}
    )
    assert texts == snapshot(
        {
            "both": """\
error no_match
Multi-edit ROLLED BACK (file unchanged): atomic rollback: 1 of 2 edits failed — file NOT modified (m.txt).
  edit 1: ambiguous — old_text is not in the file but new_text is: made before this call, or old_text is wrong? Re-read the file; drop this edit if its change is there
  edit 2: applied
[STALE_READ] File was not read in the current session before editing (m.txt, in the last 10 minutes): read it (or pass expected_hash) first, and quote what it holds.
Fix the failing old_text (copy it from read_file) and retry.\
"""
        }
    )


async def test_multi_edit_without_edits_is_invalid_params_with_the_shape(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("multi_edit", path=c.rel("m.txt")), files={"m.txt": TEN_LINES})
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
multi_edit needs edits_json: [{"old_text": "...", "new_text": "..."}, ...].\
"""
        }
    )


# -- list_directory ----------------------------------------------------------------------------------------------


LISTED: dict[str, str | bytes] = {
    "src/app.py": "print()\n",
    "big.bin": b"\0" * 2048,
    "notes.md": "# n\n",
    ".gitignore": "*.log\n",
    "x.log": "",
}


async def test_list_directory_lists_dirs_then_files_and_counts_the_gitignored(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("list_directory", path=str(c.dir)), files=LISTED) == snapshot(
        {
            "verbose": """\
ok
DIR  src/
FILE .gitignore 6 B
FILE big.bin 2.0 KB
FILE notes.md 4 B
--- | 1 dir, 3 files | <root> | 1 gitignored not shown (respect_gitignore=false shows them)\
""",
            "compact": """\
ok
<root> | src/ .gitignore big.bin(2.0 KB) notes.md | 4/4 | 1 gitignored not shown (respect_gitignore=false shows them)\
""",
        }
    )


async def test_list_directory_page_says_how_to_get_the_next_one(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("list_directory", path=str(c.dir), limit=2), files=LISTED)
    assert texts == snapshot(
        {
            "verbose": """\
ok
DIR  src/
FILE .gitignore 6 B
--- | 1 dir, 1 file | <root> | entries 1-2 of 4 | more: offset=2 | 1 gitignored not shown (respect_gitignore=false shows them)\
""",
            "compact": """\
ok
<root> | src/ .gitignore | 1-2/4 | more: offset=2 | 1 gitignored not shown (respect_gitignore=false shows them)\
""",
        }
    )


async def test_list_directory_as_a_tree_indents_the_levels(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("list_directory", path=str(c.dir), output_format="tree"), files=LISTED)
    assert texts == snapshot(
        {
            "verbose": """\
ok

src/
  app.py (8 B)
.gitignore (6 B)
big.bin (2.0 KB)
notes.md (4 B)
[1 gitignored not shown (respect_gitignore=false shows them)]\
""",
            "compact": """\
ok

./: .gitignore big.bin(2.0 KB) notes.md
src/: app.py
[1 gitignored not shown (respect_gitignore=false shows them)]\
""",
        }
    )


async def test_list_directory_as_a_tree_marks_the_directories_max_depth_stopped_at_apart_from_empty_ones(
    rig: Rig,
) -> None:
    async def scenario(case: Case) -> CallToolResult:
        (case.dir / "empty").mkdir()
        return await case.call("list_directory", path=str(case.dir), output_format="tree", max_depth=2)

    texts = await rig.texts(scenario, files={"src/app.py": "print()\n", "src/lib/util.py": "x = 1\n"})
    assert texts == snapshot(
        {
            "verbose": """\
ok

empty/
src/
  lib/ …
  app.py (8 B)
[… marks 1 directory not entered at max_depth: raise it, or list one with list_directory]\
""",
            "compact": """\
ok

empty/:
src/: app.py
src/lib/: …
[…: 1 dir not entered (max_depth); raise it or list_directory one]\
""",
        }
    )


async def test_list_directory_of_a_missing_path_is_not_found(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("list_directory", path=c.rel("nope"))) == snapshot(
        {
            "both": """\
error not_found
nope does not exist. Check the path with list_directory.\
"""
        }
    )


async def test_list_directory_of_a_file_is_not_a_directory(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("list_directory", path=c.rel("f")), files={"f": "x"}) == snapshot(
        {
            "both": """\
error not_a_directory
f is a file, not a directory. Use read_file or get_file_info for files.\
"""
        }
    )


# -- get_file_info -----------------------------------------------------------------------------------------------


async def test_get_file_info_reports_size_permissions_hash_lines_and_encoding(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        c.write("i.txt", TEN_LINES).chmod(0o644)
        return await c.call("get_file_info", path=c.rel("i.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
Path: i.txt
Type: file
Size: 71 B (71 bytes)
Permissions: -rw-r--r-- (0644)
Modified: <time>
Created: <time>
Accessed: <time>
Content hash: e9711641
Lines: 10
Encoding: utf-8\
""",
            "compact": """\
ok
file: i.txt | 71 B | <time> | hash e9711641 | 10 lines\
""",
        }
    )


async def test_get_file_info_of_several_paths_reports_a_missing_one_in_place(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        c.write("i.txt", "one line\n").chmod(0o644)
        return await c.call("get_file_info", paths=[c.rel("i.txt"), c.rel("missing.txt")])

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
=== i.txt ===
Path: i.txt
Type: file
Size: 9 B (9 bytes)
Permissions: -rw-r--r-- (0644)
Modified: <time>
Created: <time>
Accessed: <time>
Content hash: 9ee1b09f
Lines: 1
Encoding: utf-8

=== missing.txt ===
ERROR: missing.txt does not exist. Check the path with list_directory.\
""",
            "compact": """\
ok
=== i.txt ===
file: i.txt | 9 B | <time> | hash 9ee1b09f | 1 line

=== missing.txt ===
ERROR: missing.txt does not exist. Check the path with list_directory.\
""",
        }
    )


async def test_get_file_info_of_a_missing_path_is_not_found(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("get_file_info", path=c.rel("missing.txt"))) == snapshot(
        {
            "both": """\
error not_found
missing.txt does not exist. Check the path with list_directory.\
"""
        }
    )


# -- create_directory --------------------------------------------------------------------------------------------


async def test_create_directory_says_created(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("create_directory", path=c.rel("a/b"))) == snapshot(
        {
            "verbose": """\
ok
Created directory a/b\
""",
            "compact": """\
ok
OK: a/b created\
""",
        }
    )


async def test_create_directory_that_exists_is_success_with_nothing_to_do(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("create_directory", path=c.rel("d")), files={"d/x": "x"}) == snapshot(
        {
            "verbose": """\
ok
directory already exists: d; nothing to do.\
""",
            "compact": """\
ok
OK: d exists\
""",
        }
    )


async def test_create_directory_where_a_file_is_is_already_exists(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("create_directory", path=c.rel("f")), files={"f": "x"}) == snapshot(
        {
            "both": """\
error already_exists
a file with that name already exists: f (not a directory). Choose another name, or inspect it with get_file_info.\
"""
        }
    )


async def test_create_directory_under_a_file_is_not_a_directory(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("create_directory", path=c.rel("f/sub")), files={"f": "x"}) == snapshot(
        {
            "both": """\
error not_a_directory
f is a file, not a directory: nothing can be below it. Check the path with list_directory.\
"""
        }
    )


# -- delete_file -------------------------------------------------------------------------------------------------


async def test_delete_file_moves_it_to_the_trash_and_says_how_to_restore(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("delete_file", path=c.rel("a.txt")), files={"a.txt": "a\n"}) == snapshot(
        {
            "verbose": """\
ok
Moved a.txt to the trash. Restore: backup(action="restore_trash", sd_id="<sd_id:1>")\
""",
            "compact": """\
ok
D a.txt | trash <sd_id:1>\
""",
        }
    )


async def test_delete_file_permanent_keeps_a_backup_to_restore(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("delete_file", path=c.rel("a.txt"), permanent=True), files={"a.txt": "a\n"}
    )
    assert texts == snapshot(
        {
            "both": """\
ok
Deleted a.txt permanently | undo: backup(action="restore", backup_id="<backup_id:1>")\
"""
        }
    )


async def test_delete_file_of_several_paths_reports_each_and_the_tally(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("delete_file", paths=[c.rel("a.txt"), c.rel("missing.txt")]), files={"a.txt": "a\n"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Moved a.txt to the trash. Restore: backup(action="restore_trash", sd_id="<sd_id:1>")
FAILED missing.txt: file does not exist: missing.txt; nothing was deleted.
1/2 succeeded\
""",
            "compact": """\
ok
D a.txt | trash <sd_id:1>
FAILED missing.txt: file does not exist: missing.txt; nothing was deleted.
1/2 succeeded\
""",
        }
    )


async def test_delete_file_of_a_missing_file_is_not_found(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("delete_file", path=c.rel("missing.txt"))) == snapshot(
        {
            "both": """\
error not_found
file does not exist: missing.txt; nothing was deleted.\
"""
        }
    )


async def test_delete_file_of_a_non_empty_directory_needs_recursive(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("delete_file", path=c.rel("d")), files={"d/x.txt": "x"}) == snapshot(
        {
            "both": """\
error invalid_params
d is a non-empty directory. Pass recursive=true to delete it with everything inside (soft delete keeps it whole in the trash).\
"""
        }
    )


async def test_delete_file_of_a_root_is_access_denied(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("delete_file", path=str(c.dir.parent))) == snapshot(
        {
            "both": """\
error access_denied
access denied: cannot delete allowed-path root '<root>': it is a root of this server and can never be deleted. Delete what is inside it instead.\
"""
        }
    )


async def test_delete_file_with_a_stale_expected_hash_is_stale_edit(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("delete_file", path=c.rel("a.txt"), expected_hash="deadbeef"), files={"a.txt": "a\n"}
    )
    assert texts == snapshot(
        {
            "both": """\
error stale_edit
stale edit: file content changed since read (expected hash: deadbeef, actual: 2524c6d2). Re-read the file with read_file to get the current content_hash, then retry. Nothing was written to a.txt; retry with expected_hash='2524c6d2' if your change still applies to the current content.\
"""
        }
    )


# -- move_file and copy_file -------------------------------------------------------------------------------------


async def test_move_file_says_where_it_went(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("move_file", source_path=c.rel("a.txt"), dest_path=c.rel("b.txt")), files={"a.txt": "a"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Moved a.txt to b.txt.\
""",
            "compact": """\
ok
MOVED a.txt -> b.txt\
""",
        }
    )


async def test_move_file_onto_an_existing_file_is_already_exists(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("move_file", source_path=c.rel("a.txt"), dest_path=c.rel("b.txt")),
        files={"a.txt": "a", "b.txt": "b"},
    )
    assert texts == snapshot(
        {
            "both": """\
error already_exists
destination already exists: b.txt; move_file and copy_file never overwrite. Choose another destination, or delete_file it first (it goes to the trash).\
"""
        }
    )


async def test_move_file_of_a_missing_file_is_not_found(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("move_file", source_path=c.rel("missing"), dest_path=c.rel("b")))
    assert texts == snapshot(
        {
            "both": """\
error not_found
source does not exist: missing. Check the path with list_directory.\
"""
        }
    )


async def test_move_file_of_a_root_is_access_denied(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("move_file", source_path=str(c.dir.parent), dest_path=c.rel("r")))
    assert texts == snapshot(
        {
            "both": """\
error access_denied
access denied: cannot move allowed-path root '<root>': it is a root of this server and can never be moved. Move what is inside it instead.\
"""
        }
    )


async def test_move_file_into_itself_is_invalid_params(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("move_file", source_path=c.rel("d"), dest_path=c.rel("d/inner")), files={"d/x": "x"}
    )
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
cannot move d into itself (d/inner). Choose a destination outside it.\
"""
        }
    )


async def test_copy_file_says_how_many_files_and_bytes(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("copy_file", source_path=c.rel("a.txt"), dest_path=c.rel("b.txt")), files={"a.txt": "abc\n"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Copied a.txt to b.txt: 1 file, 4 B.\
""",
            "compact": """\
ok
COPIED a.txt -> b.txt | 1 file, 4 B\
""",
        }
    )


async def test_copy_file_of_a_tree_lists_the_symlinks_it_skipped(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        c.write("d/a.txt", "a\n")
        (c.dir / "d" / "link").symlink_to("a.txt")
        return await c.call("copy_file", source_path=c.rel("d"), dest_path=c.rel("e"))

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
Copied d to e: 1 file, 2 B; 1 symlink skipped.\
""",
            "compact": """\
ok
COPIED d -> e | 1 file, 2 B; 1 symlink skipped\
""",
        }
    )


async def test_copy_file_onto_an_existing_file_is_already_exists(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("copy_file", source_path=c.rel("a.txt"), dest_path=c.rel("b.txt")),
        files={"a.txt": "a", "b.txt": "b"},
    )
    assert texts == snapshot(
        {
            "both": """\
error already_exists
destination already exists: b.txt; move_file and copy_file never overwrite. Choose another destination, or delete_file it first (it goes to the trash).\
"""
        }
    )


async def test_copy_file_of_a_missing_file_is_not_found(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("copy_file", source_path=c.rel("missing"), dest_path=c.rel("b")))
    assert texts == snapshot(
        {
            "both": """\
error not_found
source does not exist: missing. Check the path with list_directory.\
"""
        }
    )


# -- search_files ------------------------------------------------------------------------------------------------


SEARCHED = {
    "src/app.py": "import os\n\ndef main():\n    # TODO: parse\n    return 0\n",
    "src/util.py": "def helper():\n    # TODO: test\n    pass\n",
    "README.md": "# Demo\nTODO: docs\n",
}


async def test_search_files_by_name_lists_the_paths(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("search_files", pattern="*.py", path=str(c.dir)), files=SEARCHED)
    assert texts == snapshot(
        {
            "both": """\
ok
src/app.py
src/util.py\
"""
        }
    )


async def test_search_files_in_content_lists_path_line_column_and_context(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call(
            "search_files", pattern="TODO", path=str(c.dir), include_content=True, include_context=True, context_lines=1
        ),
        files=SEARCHED,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
3 matches in 3 files under <root>:
README.md
1-# Demo
2:1:TODO: docs
src/app.py
3-def main():
4:7:    # TODO: parse
5-    return 0
src/util.py
1-def helper():
2:7:    # TODO: test
3-    pass\
""",
            "compact": """\
ok
README.md
1-# Demo
2:TODO: docs
src/app.py
3-def main():
4:    # TODO: parse
5-    return 0
src/util.py
1-def helper():
2:    # TODO: test
3-    pass\
""",
        }
    )


async def test_search_files_count_only_gives_counts_per_file_and_their_lines(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("search_files", pattern="TODO", path=str(c.dir), count_only=True, return_lines=True),
        files=SEARCHED,
    )
    assert texts == snapshot(
        {
            "both": """\
ok
3 matches in 3 files for 'TODO'
     1 README.md at lines: 2
     1 src/app.py at lines: 4
     1 src/util.py at lines: 2\
"""
        }
    )


async def test_search_files_cut_at_max_results_says_how_many_more(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("search_files", pattern="TODO", path=str(c.dir), include_content=True, max_results=1),
        files=SEARCHED,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
3 matches in 3 files under <root>:
README.md:2:TODO: docs
[truncated: 2 more not shown; narrow the search or raise max_results]\
""",
            "compact": """\
ok
README.md:2:TODO: docs
[truncated: 2 more not shown; narrow the search or raise max_results]\
""",
        }
    )


async def test_search_files_with_no_name_match_says_so(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("search_files", pattern="*.rs", path=str(c.dir)), files=SEARCHED)
    assert texts == snapshot(
        {
            "both": """\
ok
No file name matches '*.rs' under <root>. File contents were not searched: pass include_content=true to search inside files.\
"""
        }
    )


async def test_search_files_with_no_content_match_says_so(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("search_files", pattern="FIXME", path=str(c.dir), include_content=True), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
ok
No matches found for 'FIXME' under <root>.\
"""
        }
    )


async def test_search_files_in_a_gitignored_directory_says_how_to_search_it(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("search_files", pattern="TODO", path=c.rel("build"), include_content=True),
        files={".gitignore": "build/\n", "build/out.py": "# TODO\n"},
    )
    assert texts == snapshot(
        {
            "both": """\
ok
No matches found for 'TODO' under build.
build is excluded by a .gitignore: search it with respect_gitignore=false.\
"""
        }
    )


async def test_search_files_with_a_bad_regex_is_invalid_params(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("search_files", pattern="(unclosed", path=str(c.dir), include_content=True), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
invalid regex '(unclosed': missing ): (unclosed. Pass literal=true to search plain text.\
"""
        }
    )


async def test_search_files_under_a_missing_directory_is_not_found(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("search_files", pattern="x", path=c.rel("nope"))) == snapshot(
        {
            "both": """\
error not_found
nope does not exist. Check the path with list_directory.\
"""
        }
    )


# -- project_replace ---------------------------------------------------------------------------------------------


async def test_project_replace_preview_counts_per_file_and_writes_nothing(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("project_replace", find="TODO", replace="DONE", path=str(c.dir), preview=True), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
ok
Would replace 3 occurrences in 3 files (risk LOW).
    1 README.md
    1 src/app.py
    1 src/util.py
Nothing was written. Run again without preview to apply.\
"""
        }
    )


async def test_project_replace_gives_the_restore_of_every_file_and_the_undo_of_one(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("project_replace", find="TODO", replace="DONE", path=str(c.dir)), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
ok
Replaced 3 occurrences in 3 files (risk LOW).
    1 README.md
    1 src/app.py
    1 src/util.py
Undo every file at once: backup(action="restore", backup_id="<backup_id:1>"); one file: backup(action="undo_last", file_path=...).\
"""
        }
    )


async def test_project_replace_with_nothing_to_replace_says_zero(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("project_replace", find="FIXME", replace="DONE", path=str(c.dir)), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
ok
Replaced 0 occurrences in 0 files (risk LOW).\
"""
        }
    )


async def test_project_replace_of_many_files_is_risk_blocked_without_force(rig: Rig) -> None:
    many: dict[str, str | bytes] = {f"m{i:02}.txt": "old\n" for i in range(60)}
    texts = await rig.texts(lambda c: c.call("project_replace", find="old", replace="new", path=str(c.dir)), files=many)
    assert texts == snapshot(
        {
            "both": """\
error risk_blocked
project_replace would change 60 files, 60 occurrences: risk HIGH. Nothing was written. Run it with preview=true to see every file, narrow it with file_types/exclude_paths, or pass force=true (each file is backed up and undoable).\
"""
        }
    )


async def test_project_replace_with_a_bad_regex_is_invalid_params(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("project_replace", find="(x", replace="y", literal=False, path=str(c.dir)), files=SEARCHED
    )
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
invalid regex pattern '(x': missing ): (x (RE2 syntax: no backreferences or lookaround). Fix it, or drop literal=false to replace the text as typed.\
"""
        }
    )


async def test_project_replace_names_the_files_changed_on_disk_since_they_were_read(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "a.txt")
        c.write("a.txt", "TODO a, edited elsewhere\n")
        return await c.call("project_replace", find="TODO", replace="DONE", path=str(c.dir))

    assert await rig.texts(scenario, files={"a.txt": "TODO a\n", "b.txt": "TODO b\n"}) == snapshot(
        {
            "both": """\
ok
Replaced 2 occurrences in 2 files (risk LOW).
    1 a.txt
    1 b.txt
Undo every file at once: backup(action="restore", backup_id="<backup_id:1>"); one file: backup(action="undo_last", file_path=...).
Changed on disk since this session last saw them (another process): a.txt.\
"""
        }
    )


async def test_project_replace_after_an_external_change_in_block_mode_is_external_change(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "a.txt")
        c.write("a.txt", "TODO a, edited elsewhere\n")
        return await c.call("project_replace", find="TODO", replace="DONE", path=str(c.dir))

    files = {"a.txt": "TODO a\n", "b.txt": "TODO b\n"}
    assert await rig.texts(scenario, files=files, auto_occ="block") == snapshot(
        {
            "both": """\
error external_change
1 file changed on disk since this session last saw it (another process modified it): a.txt (known hash 13ad6ee8, now f41dc487). Nothing was written. Re-read it with read_file, then run it again.\
"""
        }
    )


# -- backup ------------------------------------------------------------------------------------------------------


async def edited(c: Case, name: str = "f.txt") -> dict[str, Any]:
    """Two edits of ``name`` ("v0" → "v1" → "v2"); the second edit's structuredContent."""
    c.write(name, "v0\n")
    await read_then(c, name)
    await c.ok("edit_file", path=c.rel(name), old_text="v0", new_text="v1")
    return await c.ok("edit_file", path=c.rel(name), old_text="v1", new_text="v2")


async def test_backup_list_shows_id_time_operation_path_and_size(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        return await c.call("backup", action="list", file_path=c.rel("f.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
2 backups
<backup_id:1> | <time> | edit_file:replace | f.txt | 3 B
<backup_id:2> | <time> | edit_file:replace | f.txt | 3 B\
"""
        }
    )


async def test_backup_info_names_the_operation_hash_and_previous_step(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        done = await edited(c)
        return await c.call("backup", action="info", backup_id=done["backup_id"])

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
Backup <backup_id:1> of f.txt: edit_file:replace at <time>, 3 B, hash d2eccc46, previous step <backup_id:2>.\
"""
        }
    )


async def test_backup_compare_shows_the_diff_to_the_file_now(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        done = await edited(c)
        return await c.call("backup", action="compare", backup_id=done["backup_id"])

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
From backup <backup_id:1> to the file now:
--- a/f.txt
+++ b/f.txt
@@ -1 +1 @@
-v1
+v2\
"""
        }
    )


async def test_backup_undo_last_restores_and_says_how_to_redo(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        return await c.call("backup", action="undo_last", file_path=c.rel("f.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
Restored f.txt from backup <backup_id:1> (verified, hash d2eccc46). Next undo_last reverts <backup_id:2>.
Redo: backup(action="restore", backup_id="<backup_id:3>")\
""",
            "compact": """\
ok
RESTORED f.txt <- <backup_id:1> | hash d2eccc46
Redo: backup(action="restore", backup_id="<backup_id:2>")\
""",
        }
    )


async def test_backup_undo_last_preview_shows_the_diff_and_writes_nothing(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        return await c.call("backup", action="undo_last", file_path=c.rel("f.txt"), preview=True)

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
DRY RUN, nothing written: undo_last would put backup <backup_id:1> back into f.txt.
--- a/f.txt
+++ b/f.txt
@@ -1 +1 @@
-v2
+v1\
"""
        }
    )


async def test_backup_undo_chain_lists_the_steps_newest_first(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        return await c.call("backup", action="undo_chain", file_path=c.rel("f.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
Undo chain, newest first (undo_last reverts the first):
<backup_id:1> | <time> | edit_file:replace | f.txt | 3 B
<backup_id:2> | <time> | edit_file:replace | f.txt | 3 B\
"""
        }
    )


async def test_backup_undo_chain_of_an_untouched_file_says_there_is_none(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("backup", action="undo_chain", file_path=c.rel("f.txt")), files={"f.txt": "x"}
    )
    assert texts == snapshot(
        {
            "both": """\
ok
No undo chain: no operation through fsguard is left to undo for this file.\
"""
        }
    )


async def test_backup_restore_puts_a_version_back_and_says_how_to_redo(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        done = await edited(c)
        return await c.call("backup", action="restore", backup_id=done["backup_id"])

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
Restored f.txt from backup <backup_id:1> (verified, hash d2eccc46).
Undo this restore: backup(action="undo_last", file_path="f.txt") or backup(action="restore", backup_id="<backup_id:2>")\
""",
            "compact": """\
ok
RESTORED f.txt <- <backup_id:1> | hash d2eccc46
Undo this restore: backup(action="undo_last", file_path="f.txt") or backup(action="restore", backup_id="<backup_id:2>")\
""",
        }
    )


async def test_backup_cleanup_dry_run_counts_what_it_would_remove(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        return await c.call("backup", action="cleanup", older_than_days=0)

    def scrub(text: str) -> str:  # the journal's bytes vary with the times it records
        return re.sub(r"about \d+ B", "about N B", text)

    assert await rig.texts(scenario, fresh=True, scrub=scrub) == snapshot(
        {
            "both": """\
ok
Would remove 2 backups, freeing about N B on disk. Run with dry_run=false to remove them.\
"""
        }
    )


async def test_backup_list_trash_shows_the_deleted_entries(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await c.ok("delete_file", path=c.rel("a.txt"))
        return await c.call("backup", action="list_trash", filter_path=c.dir.name + "/")

    assert await rig.texts(scenario, files={"a.txt": "a\n"}) == snapshot(
        {
            "both": """\
ok
1 trash entry
<sd_id:1> | <time> | file | a.txt | 2 B\
"""
        }
    )


async def test_backup_restore_trash_says_what_came_back(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        deleted = await c.ok("delete_file", path=c.rel("a.txt"))
        return await c.call("backup", action="restore_trash", sd_id=deleted["results"][0]["sd_id"])

    assert await rig.texts(scenario, files={"a.txt": "a\n"}) == snapshot(
        {
            "both": """\
ok
Restored a.txt from the trash (<sd_id:1>).\
"""
        }
    )


async def test_backup_purge_trash_dry_run_says_what_it_would_purge(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        deleted = await c.ok("delete_file", path=c.rel("a.txt"))
        return await c.call("backup", action="purge_trash", sd_id=deleted["results"][0]["sd_id"])

    assert await rig.texts(scenario, files={"a.txt": "a\n"}) == snapshot(
        {
            "both": """\
ok
Would purge 1 trash entry, 2 B. Run with dry_run=false to purge them for good.
<sd_id:1> | <time> | file | a.txt | 2 B\
"""
        }
    )


async def test_backup_undo_last_with_nothing_left_is_nothing_to_undo(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("backup", action="undo_last", file_path=c.rel("f.txt")), files={"f.txt": "x"}
    )
    assert texts == snapshot(
        {
            "both": """\
error nothing_to_undo
No backups found. Nothing to undo. No operation through fsguard on f.txt is left in its undo chain; see its versions with backup(action='list', filter_path=...) and restore one by id.\
"""
        }
    )


async def test_backup_undo_last_after_an_external_change_is_undo_conflict(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await edited(c)
        c.write("f.txt", "changed by someone else\n")
        return await c.call("backup", action="undo_last", file_path=c.rel("f.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
error undo_conflict
f.txt changed after the edit_file:replace being reverted: that operation left hash 54f454b1, the file now has hash 9cd324c5. Nothing was written. Compare first with backup(action='compare', backup_id='<backup_id:1>'), then retry undo_last with force=true (the current bytes are backed up before they are replaced).\
"""
        }
    )


async def test_backup_restore_without_a_backup_id_is_invalid_params(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("backup", action="restore")) == snapshot(
        {
            "both": """\
error invalid_params
backup_id is required: backup(action='restore') needs it, e.g. backup_id="<backup_id:1>" (ids: backup(action="list")).\
"""
        }
    )


async def test_backup_info_of_an_unknown_backup_is_not_found(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("backup", action="info", backup_id="20260101-000000-0123456789abcdef"))
    assert texts == snapshot(
        {
            "both": """\
error not_found
no backup <backup_id:1> (never made, or removed by retention). List them with backup(action='list').\
"""
        }
    )


async def test_backup_info_of_a_malformed_id_is_invalid_params(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("backup", action="info", backup_id="nonsense")) == snapshot(
        {
            "both": """\
error invalid_params
invalid backup ID 'nonsense': expected YYYYMMDD-HHMMSS-<16 hex>. List backups with backup(action='list').\
"""
        }
    )


async def test_backup_restore_trash_of_a_malformed_sd_id_is_invalid_params(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("backup", action="restore_trash", sd_id="nonsense")) == snapshot(
        {
            "both": """\
error invalid_params
invalid sd_id 'nonsense': expected sd-YYYYMMDD-HHMMSS-<16 hex>. List entries with backup(action='list_trash').\
"""
        }
    )


async def test_backup_restore_into_another_file_is_refused(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        done = await edited(c)
        c.write("other.txt", "other\n")
        return await c.call("backup", action="restore", backup_id=done["backup_id"], file_path=c.rel("other.txt"))

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
error invalid_params
backup <backup_id:1> holds f.txt, not other.txt; a restore never writes another file.\
"""
        }
    )


# -- analyze_operation -------------------------------------------------------------------------------------------


async def test_analyze_operation_of_an_edit_gives_risk_and_the_diff(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("analyze_operation", operation="edit", path=c.rel("e.txt"), old_text="line 5", new_text="5"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Plan only, nothing was changed. edit e.txt: risk LOW.
- deletes text
Suggestion: A backup is taken before the change; undo it with backup(action="undo_last", file_path="e.txt").
--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+5
 line 6
 line 7
 line 8\
""",
            "compact": """\
ok
edit e.txt: risk LOW | deletes text
--- a/e.txt
+++ b/e.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+5
 line 6
 line 7
 line 8\
""",
        }
    )


async def test_analyze_operation_of_a_write_gives_risk_factors_and_advice(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("analyze_operation", operation="write", path=c.rel("e.txt"), content="short\n"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Plan only, nothing was changed. write e.txt: risk CRITICAL.
- new content (6 B) is less than 50% of existing file (71 B). Looks like accidental truncation.
- 100% of the file changes
- deletes text
Suggestion: Most of the file changes: prefer edit_file for the parts that really change.
Suggestion: A backup is taken before the change; undo it with backup(action="undo_last", file_path="e.txt").
--- a/e.txt
+++ b/e.txt
@@ -1,10 +1 @@
-line 1
-line 2
-line 3
-line 4
-line 5
-line 6
-line 7
-line 8
-line 9
-line 10
+short\
""",
            "compact": """\
ok
write e.txt: risk CRITICAL | new content (6 B) is less than 50% of existing file (71 B). Looks like accidental truncation. | 100% of the file changes | deletes text
--- a/e.txt
+++ b/e.txt
@@ -1,10 +1 @@
-line 1
-line 2
-line 3
-line 4
-line 5
-line 6
-line 7
-line 8
-line 9
-line 10
+short\
""",
        }
    )


async def test_analyze_operation_of_a_delete_gives_the_plan(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("analyze_operation", operation="delete", path=c.rel("e.txt")), files={"e.txt": TEN_LINES}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Plan only, nothing was changed. delete e.txt: risk MEDIUM.
- 1 file, 71 bytes
Suggestion: delete_file(path="e.txt") moves it to the trash; backup(action="restore_trash", sd_id=...) restores it, with the sd_id the delete returns (or one from backup(action="list_trash")).\
""",
            "compact": """\
ok
delete e.txt: risk MEDIUM | 1 file, 71 bytes\
""",
        }
    )


async def test_analyze_operation_of_a_missing_file_says_it_does_not_exist(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("analyze_operation", operation="write", path=c.rel("new.txt"), content="x\n")
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Plan only, nothing was changed. write new.txt: risk LOW (does not exist).
- creates a new file: nothing existing is overwritten
Suggestion: write_file creates it, and any missing parent directories.
--- a/new.txt
+++ b/new.txt
@@ -0,0 +1 @@
+x\
""",
            "compact": """\
ok
write new.txt: risk LOW (does not exist) | creates a new file: nothing existing is overwritten
--- a/new.txt
+++ b/new.txt
@@ -0,0 +1 @@
+x\
""",
        }
    )


async def test_analyze_operation_of_an_edit_that_cannot_be_placed_says_so_as_a_high_risk(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("analyze_operation", operation="edit", path=c.rel("e.txt"), old_text="nope", new_text="x"),
        files={"e.txt": TEN_LINES},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Plan only, nothing was changed. edit e.txt: risk HIGH.
- the edit cannot be placed: edit failed: no matches found for text: "nope" — old_text was not found in e.txt (tried: exact, escape_fixed, trailing_whitespace, indentation). Nothing was written.
Suggestion: Copy old_text exactly from read_file(path="e.txt"), adding lines until it matches once.\
""",
            "compact": """\
ok
edit e.txt: risk HIGH | the edit cannot be placed: edit failed: no matches found for text: "nope" — old_text was not found in e.txt (tried: exact, escape_fixed, trailing_whitespace, indentation). Nothing was written.\
""",
        }
    )


async def test_analyze_operation_outside_the_roots_is_access_denied(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("analyze_operation", operation="file", path="/etc/passwd")) == snapshot(
        {
            "both": """\
error access_denied
access denied: /etc/passwd is outside allowed directories: <root>. Use a path under one of these roots.\
"""
        }
    )


# -- server_info and help ----------------------------------------------------------------------------------------


async def test_server_info_help_gives_the_overview_with_the_roots(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("server_info", action="help")) == snapshot(
        {
            "both": """\
ok
fsguard gives typed, safe access to the real host filesystem (not a sandbox) under these roots: <root>.
Every result has structuredContent (see help(tool=...) for its schema) and a text block.
Paths may be absolute or relative to the first root; C:\\x forms are translated to the WSL mount.
Topics: overview, workflow, tools, paths, read, write, edit, search, batch, recovery, errors, tips, examples, all.\
"""
        }
    )


async def test_server_info_stats_counts_calls_and_errors(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await c.call("read_file", path=c.rel("missing.txt"))
        return await c.call("server_info", action="stats")

    def scrub(text: str) -> str:  # version, uptime and memory vary; the rest is fixed by the scenario
        text = re.sub(r"fsguard \S+?(,| up)", r"fsguard <version>\1", text)
        text = re.sub(r"(up:? ?)\d+( ?s)", r"\1<n>\2", text)
        return re.sub(r"\d+(\.\d+)? MB", "<n> MB", text)

    assert await rig.texts(scenario, fresh=True, scrub=scrub) == snapshot(
        {
            "verbose": """\
ok
fsguard <version>, up <n> s
Calls: 1 (read_file 1)
Errors: 1 (not_found 1)
Hash cache hit rate: 0%
Memory: <n> MB
Backups: 0 (0 B) in <state>/backups\
""",
            "compact": """\
ok
fsguard <version> up:<n>s ops:1 err:1 hit:0% mem:<n> MB backups:0\
""",
        }
    )


async def test_server_info_artifact_capture_says_how_much_it_holds(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("server_info", action="artifact", sub_action="capture", content="a\nb\n"))
    assert texts == snapshot(
        {
            "both": """\
ok
Captured artifact: 4 bytes, 2 lines\
"""
        }
    )


async def test_server_info_artifact_info_without_a_capture_says_none(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("server_info", action="artifact"), fresh=True) == snapshot(
        {
            "both": """\
ok
No artifact captured\
"""
        }
    )


async def test_server_info_artifact_write_says_where_it_went(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await c.ok("server_info", action="artifact", sub_action="capture", content="# Notes\n")
        return await c.call("server_info", action="artifact", sub_action="write", path=c.rel("notes.md"))

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
Wrote artifact (8 bytes, 1 line) to notes.md\
"""
        }
    )


async def test_server_info_artifact_write_onto_a_file_is_already_exists(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await c.ok("server_info", action="artifact", sub_action="capture", content="# Notes\n")
        return await c.call("server_info", action="artifact", sub_action="write", path=c.rel("notes.md"))

    assert await rig.texts(scenario, files={"notes.md": "mine\n"}) == snapshot(
        {
            "both": """\
error already_exists
notes.md already exists; an artifact is only written to a new file. Choose another path.\
"""
        }
    )


async def test_server_info_artifact_write_on_a_read_only_server_is_read_only(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("server_info", action="artifact", sub_action="write", path=c.rel("n.md")), read_only=True
    )
    assert texts == snapshot(
        {
            "both": """\
error read_only
fsguard runs with --read-only; artifact write is disabled. Restart without it.\
"""
        }
    )


async def test_server_info_artifact_capture_without_content_is_invalid_params(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("server_info", action="artifact", sub_action="capture")) == snapshot(
        {
            "both": """\
error invalid_params
artifact capture needs content: the text to hold.\
"""
        }
    )


async def test_server_info_help_of_an_unknown_topic_lists_the_topics(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("server_info", topic="nonsense")) == snapshot(
        {
            "both": """\
error invalid_params
no help topic 'nonsense'. Topics: overview, workflow, tools, paths, read, write, edit, search, batch, recovery, errors, tips, examples, all.\
"""
        }
    )


async def test_help_lists_every_tool_with_its_summary(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("help")) == snapshot(
        {
            "verbose": """\
ok
20 tools on the real host filesystem. Call help(tool="name") for parameters and examples.
- analyze_operation: Check a write, edit or delete before making it: risk, diff and advice, nothing changed.
- backup: Undo an operation or restore a saved version of a file (or a trashed one) instead of rewriting it.
- batch_operations: Run operations on several files as one all-or-nothing unit; one file's edits: multi_edit.
- copy_file: Copy a file or directory tree, never overwriting; to relocate instead use move_file.
- create_directory: Create a directory and its parents (write_file makes a file's parents itself).
- delete_file: Remove files or directories, to the trash by default (restorable for days).
- edit_file: Change one place in a file; several in one file: multi_edit; the same text in many: project_replace.
- get_file_info: A path's facts (type, size, times, hash, lines) without reading it; content: read_file.
- git: Run git in a repository under the roots (status, diff, log, commit, push…) with typed results.
- help: List the tools, or describe one (parameters, result schema, examples).
- list_directory: See one directory (or a tree); to find files by name or content use search_files.
- minify_js: Shrink a JavaScript file with rjsmin, in place (undoable) or into a new file.
- move_file: Move or rename a file or directory, never overwriting; to keep the source use copy_file.
- multi_edit: Make several edits to one file in one call, all or nothing; for one edit use edit_file.
- project_replace: Replace the same text in many files at once, each undoable; for one file use edit_file.
- read_file: Read a file's text, whole or a line range, with its content_hash; to find text use search_files.
- search_files: Find files by name or text under a directory (ripgrep) instead of listing or reading to look.
- server_info: Usage guides by topic, counters since start-up (stats), or keep and save a text (artifact).
- write_file: Create a file or replace all of it (old one backed up); to change part of it use edit_file.
- wsl: On WSL, copy or sync files between the Linux and Windows sides; other tools act on one side.\
""",
            "compact": """\
ok
20 tools on the real host filesystem; help(tool="name"): parameters, examples.
- analyze_operation: Check a write, edit or delete before making it: risk, diff and advice, nothing changed.
- backup: Undo an operation or restore a saved version of a file (or a trashed one) instead of rewriting it.
- batch_operations: Run operations on several files as one all-or-nothing unit; one file's edits: multi_edit.
- copy_file: Copy a file or directory tree, never overwriting; to relocate instead use move_file.
- create_directory: Create a directory and its parents (write_file makes a file's parents itself).
- delete_file: Remove files or directories, to the trash by default (restorable for days).
- edit_file: Change one place in a file; several in one file: multi_edit; the same text in many: project_replace.
- get_file_info: A path's facts (type, size, times, hash, lines) without reading it; content: read_file.
- git: Run git in a repository under the roots (status, diff, log, commit, push…) with typed results.
- help: List the tools, or describe one (parameters, result schema, examples).
- list_directory: See one directory (or a tree); to find files by name or content use search_files.
- minify_js: Shrink a JavaScript file with rjsmin, in place (undoable) or into a new file.
- move_file: Move or rename a file or directory, never overwriting; to keep the source use copy_file.
- multi_edit: Make several edits to one file in one call, all or nothing; for one edit use edit_file.
- project_replace: Replace the same text in many files at once, each undoable; for one file use edit_file.
- read_file: Read a file's text, whole or a line range, with its content_hash; to find text use search_files.
- search_files: Find files by name or text under a directory (ripgrep) instead of listing or reading to look.
- server_info: Usage guides by topic, counters since start-up (stats), or keep and save a text (artifact).
- write_file: Create a file or replace all of it (old one backed up); to change part of it use edit_file.
- wsl: On WSL, copy or sync files between the Linux and Windows sides; other tools act on one side.\
""",
        }
    )


async def test_help_of_an_unknown_tool_suggests_the_closest_name(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("help", tool="read_fil")) == snapshot(
        {
            "both": """\
error invalid_params
no tool named "read_fil" registered on this server. Did you mean 'read_file'? Call help() for the catalog.\
"""
        }
    )


# -- refusals before a tool runs ---------------------------------------------------------------------------------


# An unknown tool has no text block: it is JSON-RPC -32602 (tests/test_protocol_edges.py).


async def test_an_unknown_parameter_is_unknown_param_with_the_closest_name(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("edit_file", path=c.rel("e.txt"), old_txt="a", new_text="b"))
    assert texts == snapshot(
        {
            "both": """\
error unknown_param
edit_file: unknown parameter "old_txt" (did you mean "old_text"?). Valid parameters: allow_rewrite, anchor, case_sensitive, create_backup, diff_format, dry_run, end_line, expected_hash, force, mode, new_text, occurrence, old_text, path, pattern, patterns_json, position, replace_all, replacement, start_line, tolerant_whitespace, whole_word.\
"""
        }
    )


async def test_an_argument_of_the_wrong_shape_is_invalid_params_per_parameter(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("read_file", path=c.rel("a.txt"), start_line=-1)) == snapshot(
        {
            "both": """\
error invalid_params
read_file: invalid arguments:
• parameter "start_line": Input should be greater than or equal to 1
Call help(tool='read_file') for the parameters.\
"""
        }
    )


async def test_a_missing_required_argument_is_named_as_the_seed_names_it(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("edit_file", old_text="a", new_text="b")) == snapshot(
        {
            "both": """\
error invalid_params
edit_file: invalid arguments:
• missing required parameter "path"
Call help(tool='edit_file') for the parameters.\
"""
        }
    )


async def test_an_edit_file_dry_run_with_the_same_text_says_the_edit_would_write_nothing(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        await read_then(c, "e.txt")
        return await c.call("edit_file", path=c.rel("e.txt"), old_text="line 5", new_text="line 5", dry_run=True)

    assert await rig.texts(scenario, files={"e.txt": TEN_LINES}) == snapshot(
        {
            "verbose": """\
ok
DRY RUN, nothing written: e.txt | 1 replacement (exact) | +0 -0: the file already has this text, so the edit would write nothing\
""",
            "compact": """\
ok
DRY RUN e.txt | 1@+0-0 | no change\
""",
        }
    )
