"""Shared fixtures: a root on a real temp dir, servers built from Settings, clients in both protocol eras."""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import subprocess
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from mcp import Client
from mcp.client.session import ClientSession, ElicitationFnT, ListRootsFnT
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.core import locks
from fsguard.core.ripgrep import ripgrep_path
from fsguard.server import build_server

settings.register_profile(
    "fsguard", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.register_profile("ci", parent=settings.get_profile("fsguard"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "fsguard")

MODES = ["auto", "legacy"]
ClientFactory = Callable[..., AbstractAsyncContextManager[Client]]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True, scope="session")
def shared_output_validators() -> Iterator[None]:
    """Every client of the test process validates structured content with one compiled validator per distinct
    output schema. The SDK compiles one per client session, and checks the schema against its metaschema first
    (~0.1 s a tool on a slow machine): with a new client in nearly every test, that check was a third of a tool
    test's time. Each result is still validated against the schema its server published."""
    built: dict[str, Any] = {}
    compile_validator = ClientSession._output_schema_validator

    def validator(session: ClientSession, name: str, output_schema: dict[str, Any]) -> Any:
        key = json.dumps(output_schema, sort_keys=True)
        if key not in built:
            built[key] = compile_validator(session, name, output_schema)
        return built[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ClientSession, "_output_schema_validator", validator)
        yield


@pytest.fixture(autouse=True)
def user_lock_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The lock directory every fsguard of the user shares, one per test: what the servers built in a test lock
    is not left in /dev/shm. (A ``python -m fsguard`` child uses the real one, and sweeps it at shutdown.)"""
    path = tmp_path_factory.mktemp("user-locks")
    monkeypatch.setattr(locks, "_user_lock_dir", lambda: path)
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The one root of the server under test."""
    path = tmp_path / "root"
    path.mkdir()
    return path.resolve()


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def base_settings(root: Path, state_dir: Path) -> Settings:
    return Settings(roots=(root,), state_dir=state_dir)


@pytest.fixture(params=["ripgrep", "python"])
def tool_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The engine the search tools use: ripgrep (skipped when missing), or Python when rg seems missing."""
    if request.param == "python":
        for module in ("search", "names", "replacing"):
            monkeypatch.setattr(f"fsguard.core.{module}.ripgrep_path", lambda: None)
    elif ripgrep_path() is None:
        pytest.skip("rg is not installed")
    return str(request.param)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """Both protocol eras: 2026-07-28 (auto) and the 2025-11-25 handshake (legacy)."""
    return str(request.param)


@pytest.fixture
def connect(base_settings: Settings, mode: str) -> ClientFactory:
    """Open a client in the current era on a fresh server; keyword arguments override Settings fields.

    ``elicitation_callback`` makes the client declare elicitation and answer each question with it;
    ``list_roots_callback`` makes it declare MCP roots and answer roots/list with it."""

    def factory(
        *,
        elicitation_callback: ElicitationFnT | None = None,
        list_roots_callback: ListRootsFnT | None = None,
        **overrides: Any,
    ) -> AbstractAsyncContextManager[Client]:
        fields = {**base_settings.__dict__, **overrides}
        return Client(
            build_server(Settings(**fields)),
            mode=mode,
            elicitation_callback=elicitation_callback,
            list_roots_callback=list_roots_callback,
        )

    return factory


@pytest.fixture
async def client(connect: ClientFactory) -> AsyncIterator[Client]:
    async with connect() as opened:
        yield opened


Mount = Callable[..., Path]


@pytest.fixture
def mount_tmpfs() -> Iterator[Mount]:
    """Mount a tmpfs of ``size`` (with further tmpfs ``options``, such as ``nr_inodes=4``) on a directory; every
    mount is undone at teardown. Root only: the test skips otherwise (fault injection covers ENOSPC without it)."""
    mounted: list[Path] = []

    def mount(directory: Path, size: str = "256k", options: str = "") -> Path:
        if os.geteuid() != 0 or shutil.which("mount") is None:
            pytest.skip("mounting a tmpfs needs root and the mount command")
        directory.mkdir(parents=True, exist_ok=True)
        spelled = ",".join(part for part in (f"size={size}", "mode=0755", options) if part)
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", spelled, "tmpfs", str(directory)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (a container without CAP_SYS_ADMIN?): {done.stderr.strip()}")
        mounted.append(directory)
        return directory

    yield mount
    for directory in reversed(mounted):
        unmount(directory)


@contextmanager
def bind_mounted(source: Path, target: Path) -> Iterator[Path]:
    """``source`` bind-mounted on ``target`` for the block (skips the test where it cannot be), then unmounted."""
    with _mounted(["--bind", str(source)], target, "a bind mount"):
        yield target


@contextmanager
def overlay_mounted(lower: Path, base: Path) -> Iterator[Path]:
    """An overlayfs at ``base / "merged"`` with ``lower`` as its lower layer (a container's root is one), for the
    block; skips the test where it cannot be mounted."""
    upper, work, merged = base / "upper", base / "work", base / "merged"
    for directory in (upper, work, merged):
        directory.mkdir(parents=True)
    options = f"lowerdir={lower},upperdir={upper},workdir={work}"
    with _mounted(["-t", "overlay", "overlay", "-o", options], merged, "an overlay mount"):
        yield merged


@contextmanager
def _mounted(arguments: list[str], target: Path, what: str) -> Iterator[None]:
    """``mount ARGUMENTS TARGET`` for the block, then unmounted; skips the test where it cannot be mounted."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip(f"{what} needs root and the mount command")
    done = subprocess.run(["mount", *arguments, str(target)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make {what} here (a container without CAP_SYS_ADMIN?): {done.stderr!r}")
    try:
        yield
    finally:
        unmount(target)


def unmount(directory: Path) -> None:
    """Undo the mount on ``directory``, lazily if it is still busy."""
    if subprocess.run(["umount", str(directory)], capture_output=True, check=False).returncode != 0:
        subprocess.run(["umount", "-l", str(directory)], capture_output=True, check=True)


def text_of(result: CallToolResult) -> str:
    """The first text block."""
    block = result.content[0]
    assert block.type == "text"
    return block.text


def error_code(result: CallToolResult) -> str:
    """The stable code of an error result; fails if the result is not a well-formed error."""
    assert result.is_error, f"expected an error, got {result.structured_content}"
    assert result.structured_content is None
    meta = result.meta or {}
    return str(meta["fsguard/error"]["code"])


def tree(directory: Path) -> dict[str, bytes | None]:
    """Every entry under ``directory`` with its bytes (None for directories)."""
    return {str(p.relative_to(directory)): None if p.is_dir() else p.read_bytes() for p in sorted(directory.rglob("*"))}


def structured(result: CallToolResult) -> dict[str, Any]:
    """structuredContent of a success."""
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.fixture
def lock_waits(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set once a worker thread of fsguard waits for an exclusive lock another process holds: blocked in flock, or
    told by a try that it is held (a call that may be cancelled waits by trying again)."""
    waiting = threading.Event()
    real = fcntl.flock

    def flock(fd: int, operation: int) -> None:
        exclusive = bool(operation & fcntl.LOCK_EX)
        if exclusive and not operation & fcntl.LOCK_NB:  # blocking
            try:
                real(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return  # free: taken at once
            except BlockingIOError:
                waiting.set()  # held elsewhere: this call blocks
            real(fd, operation)
            return
        try:
            real(fd, operation)
        except BlockingIOError:
            if exclusive and threading.current_thread() is not threading.main_thread():  # not the loop's first try
                waiting.set()
            raise

    monkeypatch.setattr(fcntl, "flock", flock)
    return waiting


@dataclass(frozen=True)
class Contention:
    """What a test of a call that waits for another process's lock needs: the server's settings on one transport,
    the client's era, the lock directory the other process uses, and the event set once a worker thread waits."""

    settings: Settings
    mode: str
    user_lock_dir: Path
    lock_waits: threading.Event


@pytest.fixture(params=["stdio", "http"])
def contention(
    request: pytest.FixtureRequest, base_settings: Settings, mode: str, user_lock_dir: Path, lock_waits: threading.Event
) -> Contention:
    """A :class:`Contention` for each transport's threading of tool calls (stdio's and HTTP's differ) in each era."""
    return Contention(dataclasses.replace(base_settings, transport=request.param), mode, user_lock_dir, lock_waits)
