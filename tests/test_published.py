"""The stored tool list: a warm start publishes exactly what the built tools publish, and builds them on the
first call; a stale or damaged list is never published; start-up still does its chores."""

from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.groundwork import Groundwork
from fsguard.server import FsguardServer, build_server
from fsguard.tools import _published
from fsguard.tools._published import PublishedTool
from tests.conftest import structured

pytestmark = pytest.mark.anyio

TEMP_MARK = ".fsguard-tmp-"  # what core/disk.py marks its temp files with


@pytest.fixture(autouse=True)
def nothing_known(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts as a fresh process would: no list read or built yet."""
    monkeypatch.setattr(_published, "_KNOWN", {})
    monkeypatch.setattr(_published, "_BUILT", {})


def forget() -> None:
    _published._KNOWN.clear()
    _published._BUILT.clear()


def built_list(settings: Settings) -> list[PublishedTool]:
    """What the real tools publish under ``settings``, never from a stored list."""
    server = FsguardServer(Groundwork.lay(settings))
    server.build_tools()
    return [_published.of_tool(tool) for tool in server._tool_manager.list_tools()]


def stored_file(settings: Settings) -> Path:
    return _published.location(settings, _published.key(settings))


def dumped(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(mode="json", by_alias=True, exclude_unset=True) for tool in tools]


async def test_a_warm_start_publishes_exactly_the_list_the_built_tools_publish(
    base_settings: Settings, mode: str
) -> None:
    cold = build_server(base_settings)
    assert cold._built  # nothing stored yet: built at once, and the list stored
    assert stored_file(base_settings).is_file()
    forget()  # the next server reads the stored file, as a restarted process would
    warm = build_server(base_settings)
    assert not warm._built
    async with Client(cold, mode=mode) as first, Client(warm, mode=mode) as second:
        published_cold = dumped((await first.list_tools()).tools)
        published_warm = dumped((await second.list_tools()).tools)
        assert len(published_warm) == 20
        assert published_warm == published_cold
        assert not warm._built  # tools/list builds nothing
        info = await second.call_tool("server_info", {"action": "stats"})
        assert warm._built
        assert dumped((await second.list_tools()).tools) == published_cold  # the built tools say the same
    assert not info.is_error, info


async def test_the_first_call_on_a_warm_server_builds_the_engine_and_edits_the_file(
    base_settings: Settings, root: Path, mode: str
) -> None:
    build_server(base_settings)
    forget()
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    server = build_server(base_settings)
    assert server._services is None
    async with Client(server, mode=mode) as client:
        edit = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "two", "new_text": "deux"})
        unknown = await client.call_tool("read_file", {"path": "a.txt", "no_such_argument": 1})
    assert not edit.is_error, edit
    assert (root / "a.txt").read_bytes() == b"one\ndeux\n"
    assert unknown.is_error
    assert server._services is not None
    assert server.services.stats.snapshot()[0] == {"edit_file": 1, "read_file": 1}


def test_a_damaged_stored_list_is_refused_and_rebuilt(
    base_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    build_server(base_settings)
    path = stored_file(base_settings)
    good = path.read_bytes()
    for damage in (good[: len(good) // 2], b"\x00" * 64, b"[]", b'{"key": 1}'):
        path.write_bytes(damage)
        forget()
        with caplog.at_level(logging.WARNING, logger="fsguard.tools._published"):
            server = build_server(base_settings)
        assert server._built, damage[:20]
        assert "ignoring the stored tool list" in caplog.text
        assert path.read_bytes() == good  # rebuilt and stored again
        caplog.clear()


def test_a_stored_list_whose_content_was_altered_is_never_published(base_settings: Settings) -> None:
    build_server(base_settings)
    path = stored_file(base_settings)
    header, listed = path.read_bytes().split(b"\n", 1)
    tools = json.loads(listed)
    tools[0]["description"] = "An old description."
    path.write_bytes(header + b"\n" + json.dumps(tools).encode())
    forget()

    assert _published.load(base_settings) is None
    server = build_server(base_settings)
    assert server._built
    assert "An old description." not in path.read_text(encoding="utf-8")


def test_a_list_stored_under_another_key_is_never_published(base_settings: Settings) -> None:
    """A list is found by its key's name and must carry that key: one stored for other code is refused."""
    build_server(base_settings)
    path = stored_file(base_settings)
    header, listed = path.read_bytes().split(b"\n", 1)
    stored = json.loads(header)
    stored["key"] = "0" * 64  # e.g. copied from a server of another version
    path.write_bytes(json.dumps(stored).encode() + b"\n" + listed)
    forget()

    assert _published.load(base_settings) is None


def test_changed_source_builders_or_publishing_settings_change_the_key(
    base_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _published.key(base_settings)
    assert _published.key(dataclasses.replace(base_settings, read_only=True)) != key
    assert _published.key(dataclasses.replace(base_settings, backup_max_age_days=3.0)) != key
    assert _published.key(dataclasses.replace(base_settings, max_file_size=1)) == key
    monkeypatch.setattr(_published, "source_digest", lambda: "an edited module")
    assert _published.key(base_settings) != key
    monkeypatch.undo()
    monkeypatch.setattr(_published, "builder_versions", lambda: ("pydantic==9",))
    assert _published.key(base_settings) != key


def test_the_source_digest_covers_every_module_of_the_package() -> None:
    """An edit anywhere in fsguard (a docstring, a model field) changes the key; read from disk, not memory."""
    package = Path(_published.__file__).parent.parent
    modules = sorted(package.rglob("*.py"))
    assert len(modules) > 100
    assert _published.source_digest() == _published.source_digest.__wrapped__()


# Every Settings field except PUBLISHING_SETTINGS, with a value other than the default: none may change the list.
def variants(tmp_path: Path) -> dict[str, Any]:
    other = tmp_path / "other"
    other.mkdir()
    hooks = tmp_path / "hooks.json"
    hooks.write_text('{"hooks": {}}', encoding="utf-8")
    return {
        "roots": (other,),
        "unrestricted": True,
        "compact_mode": True,
        "transport": "http",
        "host": "0.0.0.0",
        "port": 1,
        "auth_token": "secret",
        "state_dir": tmp_path / "other-state",
        "backup_max_count": 3,
        "auto_occ": "block",
        "risk_threshold_medium": 1.0,
        "risk_threshold_high": 2.0,
        "risk_occurrences_medium": 1,
        "risk_occurrences_high": 2,
        "log_dir": tmp_path / "logs",
        "hooks_config": hooks,
        "log_level": "DEBUG",
        "max_file_size": 1000,
        "max_response_bytes": 1000,
        "max_list_items": 3,
        "max_search_results": 3,
        "wsl_mount_root": tmp_path,
        "wsl": True,
        "wsl_home": tmp_path,
        "wsl_windows_home": "C:\\Users\\someone",
        "wsl_autosync": True,
        "git_hooks": True,
        "read_truncate_lines": 3,
        "max_media_bytes": 0,
        "confirm": "off",
        "read_only_roots": (other,),
        "deny": ("*.log",),
        "default_deny": False,
        "client_roots": False,
    }


def test_only_the_publishing_settings_change_the_published_list(base_settings: Settings, tmp_path: Path) -> None:
    changes = variants(tmp_path)
    fields = {field.name for field in dataclasses.fields(Settings)}
    # A new Settings field must get a variant here, or be named in PUBLISHING_SETTINGS if it changes the list.
    assert set(changes) == fields - set(_published.PUBLISHING_SETTINGS)
    reference = built_list(base_settings)
    moved = [
        name
        for name, value in changes.items()
        if built_list(dataclasses.replace(base_settings, **{name: value})) != reference
    ]
    assert moved == []
    publishing: dict[str, Any] = {"read_only": True, "backup_max_age_days": 3.0}
    for name, value in publishing.items():
        assert built_list(dataclasses.replace(base_settings, **{name: value})) != reference, name


def test_a_state_dir_that_cannot_take_the_list_costs_only_speed(
    base_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    base_settings.state_dir.mkdir(parents=True, exist_ok=True)
    (base_settings.state_dir / _published.DIRECTORY).write_bytes(b"a file where the directory goes")
    with caplog.at_level(logging.WARNING, logger="fsguard.tools._published"):
        server = build_server(base_settings)
    assert server._built
    assert "could not store the tool list" in caplog.text


def test_old_lists_are_pruned_but_the_newest_kept(base_settings: Settings) -> None:
    directory = base_settings.state_dir / _published.DIRECTORY
    directory.mkdir(parents=True)
    for number in range(_published.KEPT + 3):
        (directory / f"tools-{number:032x}.json").write_bytes(b"{}")
    build_server(base_settings)
    kept = sorted(directory.glob("tools-*.json"))
    assert len(kept) == _published.KEPT
    assert stored_file(base_settings) in kept


async def test_a_warm_start_still_sweeps_crash_leftovers(base_settings: Settings, root: Path) -> None:
    build_server(base_settings)
    forget()
    (root / "notes.txt").write_bytes(b"the real file")
    stray = root / f".notes.txt{TEMP_MARK}0123456789abcdef0123456789abcdef"
    stray.write_bytes(b"half writ")
    inflight = base_settings.state_dir / "inflight"
    (inflight / "0123456789abcdef0123456789abcdef").write_text(str(stray), encoding="utf-8")

    server = build_server(base_settings)

    assert not server._built
    assert sorted(entry.name for entry in root.iterdir()) == ["notes.txt"]
    assert list(inflight.iterdir()) == []


DEFERRED = (
    "fsguard.services",
    "fsguard.models",
    "fsguard.voice",
    "fsguard.tools._params",
    "fsguard.tools.reading",
    "fsguard.tools.search",
    "fsguard.core.editing",
    "fsguard.core.search",
    "fsguard.core.mutation",
    "pathspec",
    "fsguard.core.hooks",
    "fsguard.core.hashing",
    "fsguard.core.charsets",
    "fsguard.core.wsllayout",
    "re2",
    "charset_normalizer",
    "tree_sitter",
    "rjsmin",
)
PROBE = """
import sys
from pathlib import Path
from fsguard.config import Settings
from fsguard.server import build_server
settings = Settings(roots=(Path(sys.argv[1]),), state_dir=Path(sys.argv[2]))
server = build_server(settings)
loaded = [name for name in sys.argv[3:] if name in sys.modules]
server.build_tools()
print(server._built, loaded, [name for name in ("fsguard.services", "fsguard.models") if name in sys.modules])
"""


def test_a_warm_start_imports_none_of_the_deferred_modules(root: Path, state_dir: Path) -> None:
    command = [sys.executable, "-c", PROBE, str(root), str(state_dir), *DEFERRED]
    subprocess.run(command, check=True, capture_output=True, timeout=60)  # stores the list
    done = subprocess.run(command, check=True, capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert done.stdout.strip() == "True [] ['fsguard.services', 'fsguard.models']", done.stderr[-2000:]


HANDSHAKE = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a.txt"}},
    },
]


def stdio_session(root: Path, state_dir: Path) -> dict[int, bytes]:
    """The raw answer lines of one stdio server to HANDSHAKE, by request id (stdin open until the last)."""
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    assert process.stdout is not None
    answers: dict[int, bytes] = {}
    try:
        process.stdin.write("".join(json.dumps(message) + "\n" for message in HANDSHAKE).encode())
        process.stdin.flush()
        while len(answers) < 3 and (line := process.stdout.readline()):
            answers[json.loads(line)["id"]] = line
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
    assert set(answers) == {1, 2, 3}
    return answers


def test_cold_and_warm_stdio_starts_answer_with_the_same_bytes(root: Path, state_dir: Path) -> None:
    (root / "a.txt").write_bytes(b"alpha\nbeta\n")
    cold = stdio_session(root, state_dir)
    assert stored_file(Settings(roots=(root,), state_dir=state_dir)).is_file()
    warm = stdio_session(root, state_dir)
    assert warm[2] == cold[2]
    assert warm[3] == cold[3]
    assert json.loads(warm[3])["result"]["structuredContent"]["content_hash"] == "d4d8adf9"


async def test_a_warm_http_server_serves_its_first_call(base_settings: Settings, root: Path, mode: str) -> None:
    from tests.test_transports import http_server

    (root / "a.txt").write_bytes(b"hello world")
    settings = dataclasses.replace(base_settings, transport="http")
    build_server(settings)
    forget()
    with anyio.fail_after(30):
        async with http_server(settings) as url, Client(url, mode=mode) as client:
            tools = (await client.list_tools()).tools
            read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert len(tools) == 20
    assert read["content_hash"] == "d58b3fa7"


def test_tools_built_on_the_first_call_are_kept_out_of_the_cyclic_collector_like_start_up(
    base_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_server(base_settings)
    forget()
    server = build_server(base_settings)
    frozen: list[bool] = []
    monkeypatch.setattr("fsguard.server.gc.freeze", lambda: frozen.append(True))
    server.freeze_when_built = True  # what the CLI sets after its own gc.freeze()
    server.build_tools()
    server.build_tools()
    assert frozen == [True]


def test_the_strict_client_accepts_a_warm_servers_schemas_and_passes_the_foundation_scenario(tmp_path: Path) -> None:
    from tests.test_harness import SCENARIO, assert_scenario_effects, run_strict

    root = (tmp_path / "root").resolve()
    root.mkdir()
    state = tmp_path / "state"
    build_server(Settings(roots=(root,), state_dir=state))  # a cold start, which publishes its list
    assert list((state / _published.DIRECTORY).glob("tools-*.json"))  # the next server starts warm
    # The strict client checks every tool's schemas before the scenario's steps; any failure fails the run.
    report = run_strict(tmp_path, SCENARIO, root, state, ())
    assert_scenario_effects(tmp_path, root, state, report)


@pytest.mark.parametrize("reach", ["state dir inside the root", "unrestricted"])
def test_a_state_dir_agents_can_reach_never_supplies_the_tool_list(root: Path, tmp_path: Path, reach: str) -> None:
    """An agent could write a list there: its descriptions would reach the next client as the server's own."""
    if reach == "unrestricted":
        settings = Settings(roots=(root,), state_dir=tmp_path / "state", unrestricted=True)
    else:
        settings = Settings(roots=(root,), state_dir=root / ".fsguard-state")
    first = build_server(settings)
    forget()
    second = build_server(settings)
    assert first._built
    assert second._built
    assert not (settings.state_dir / _published.DIRECTORY).exists()
