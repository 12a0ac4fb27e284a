"""``fsguard dashboard``: its flags, the token rule off loopback, a real start, and ``fsguard [ROOTS…]`` unchanged."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fsguard.cli import main, parser, settings_from
from fsguard.dashboard import command


def test_the_dashboard_flags_reach_its_settings(tmp_path: Path) -> None:
    args = command.parser().parse_args(
        [str(tmp_path), "--port=9200", "--host=::1", "--auth-token=t", "--state-dir", "s", "--log-dir", "l"]
    )
    hooked = command.settings_from(command.parser().parse_args(["--hooks-config", "hooks.json"]))
    assert hooked.hooks_config == Path("hooks.json")
    settings = command.settings_from(args)
    assert settings.roots == (tmp_path,)
    assert (settings.host, settings.port, settings.auth_token) == ("::1", 9200, "t")
    assert (settings.state_dir, settings.log_dir) == (Path("s"), Path("l"))
    ruled = command.settings_from(
        command.parser().parse_args(["--read-only-root", str(tmp_path), "--deny", "*.secret", "--no-default-deny"])
    )
    assert (ruled.read_only_roots, ruled.deny, ruled.default_deny) == ((tmp_path,), ("*.secret",), False)
    defaults = command.settings_from(command.parser().parse_args([]))
    assert (defaults.host, defaults.port, defaults.log_dir) == ("127.0.0.1", 9100, None)
    assert (defaults.read_only_roots, defaults.deny, defaults.default_deny) == ((), (), True)
    assert not defaults.needs_auth_token


def test_off_loopback_without_a_token_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("FSGUARD_AUTH_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["dashboard", "--host", "0.0.0.0"])
    assert exited.value.code == 2
    assert "needs a token" in capsys.readouterr().err


def test_a_missing_root_exits_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["dashboard", str(tmp_path / "missing"), "--state-dir", str(tmp_path / "s")])
    assert exited.value.code == 2
    assert "is not an existing directory" in capsys.readouterr().err


def test_a_log_dir_that_is_a_file_exits_2_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_bytes(b"")
    with pytest.raises(SystemExit) as exited:
        main(["dashboard", str(tmp_path), "--state-dir", str(tmp_path / "s"), "--log-dir", str(tmp_path / "afile")])
    assert exited.value.code == 2
    said = capsys.readouterr().err
    assert said.startswith(f"fsguard dashboard: --log-dir {tmp_path / 'afile'} cannot hold the audit log")
    assert said.count("\n") == 1


@pytest.mark.parametrize("host", ["127.0.0.1", "", "nosuch.invalid"], ids=["taken-port", "empty-host", "bad-host"])
def test_a_port_or_host_it_cannot_listen_on_exits_2_with_advice_before_printing_a_url_or_touching_the_state_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    # It printed the URL (another program's), ran the start-up recovery, then failed with uvicorn's error, exit 3.
    monkeypatch.setenv("FSGUARD_AUTH_TOKEN", "a-token-long-enough-for-the-check-0123456789")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        with pytest.raises(SystemExit) as exited:
            main(
                [
                    "dashboard",
                    str(tmp_path),
                    "--state-dir",
                    str(tmp_path / "state"),
                    "--host",
                    host,
                    "--port",
                    str(port),
                ]
            )
    said = capsys.readouterr().err
    assert exited.value.code == 2
    assert said.startswith(f"fsguard dashboard: cannot listen on {host or repr(host)} port {port}: ")
    assert ("--port" if host == "127.0.0.1" else "--host") in said
    assert "URL" not in said
    assert not (tmp_path / "state").exists()


def test_the_server_command_line_is_unchanged(tmp_path: Path) -> None:
    # A root that happens to be called "dashboard" is still a root when written as a path.
    settings = settings_from(parser().parse_args(["./dashboard", str(tmp_path), "--port=9000"]))
    assert settings.roots == (Path("dashboard"), tmp_path)
    assert settings.port == 9000
    assert "fsguard dashboard" in parser().format_help()


@contextmanager
def _dashboard(tmp_path: Path, token: str = "") -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A real ``fsguard dashboard`` process on a free port, answering pages; stopped (SIGTERM) on exit."""
    root = tmp_path / "root"
    root.mkdir()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "fsguard", "dashboard", str(root), "--port", str(port)]
    argv += ["--state-dir", str(tmp_path / "state"), "--log-dir", str(tmp_path / "logs")]
    env = {**os.environ, "FSGUARD_AUTH_TOKEN": token}
    process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, encoding="utf-8", env=env)
    try:
        assert process.stderr is not None
        banner = process.stderr.readline() + process.stderr.readline() + process.stderr.readline()
        assert f"URL: http://127.0.0.1:{port}/" in banner
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the dashboard did not listen within 20 s"
                time.sleep(0.05)
        yield process, port
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


def test_fsguard_dashboard_serves_its_pages(tmp_path: Path) -> None:
    with (
        _dashboard(tmp_path) as (_, port),
        urllib.request.urlopen(f"http://127.0.0.1:{port}/activity", timeout=5) as answer,
    ):
        assert answer.status == 200
        assert "Activity" in answer.read().decode("utf-8")


def test_the_token_a_browser_opens_the_dashboard_with_is_not_written_to_its_log(tmp_path: Path) -> None:
    with _dashboard(tmp_path, token="s3cret+tok/en") as (process, port):
        for query in ("token=s3cret%2Btok%2Fen", "token=s3cret+tok/en&tool=x"):
            request = urllib.request.Request(f"http://127.0.0.1:{port}/activity?{query}")
            with pytest.raises(urllib.error.HTTPError):  # the redirect drops the token; urllib keeps no cookie
                urllib.request.urlopen(request, timeout=5)
        process.terminate()
        assert process.stderr is not None
        log = process.stderr.read()
    assert log.count('"GET /activity?token=<token>') == 2
    assert "s3cret" not in log


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_the_dashboard_stopped_by_sigterm_or_ctrl_c_exits_0_without_a_traceback(
    tmp_path: Path, stop: signal.Signals
) -> None:
    # Ctrl+C printed a KeyboardInterrupt traceback and ended the process by the signal (-2).
    with _dashboard(tmp_path) as (process, _):
        process.send_signal(stop)
        assert process.wait(timeout=20) == 0
        assert process.stderr is not None
        assert "Traceback" not in process.stderr.read()
