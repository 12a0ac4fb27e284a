"""The command line: flags reach Settings, configuration errors exit 2 with a message."""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from fsguard import __version__
from fsguard.cli import client_config, main, parser, settings_from
from fsguard.config import url_host
from fsguard.dashboard import command
from fsguard.dashboard.csrf import host_refusal
from fsguard.http import loopback_security
from fsguard.services import Services
from tests.conftest import Mount


def test_every_flag_reaches_settings(tmp_path: Path) -> None:
    args = parser().parse_args(
        [
            str(tmp_path),
            "--transport=http",
            "--host=127.0.0.1",
            "--port=9000",
            "--auth-token=t",
            "--read-only",
            "--state-dir",
            str(tmp_path / "s"),
            "--compact-mode",
            "--max-file-size=1000",
            "--max-list-items=20",
            "--wsl-mount-root",
            str(tmp_path),
            "--git-hooks",
        ]
    )
    settings = settings_from(args)
    assert settings.roots == (tmp_path,)
    assert (settings.transport, settings.port, settings.auth_token, settings.read_only) == ("http", 9000, "t", True)
    assert (settings.max_file_size, settings.max_list_items, settings.state_dir) == (1000, 20, tmp_path / "s")
    assert settings.compact_mode
    assert settings.wsl_mount_root == tmp_path
    assert settings.git_hooks
    assert not settings_from(parser().parse_args([str(tmp_path)])).git_hooks


def test_the_token_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FSGUARD_AUTH_TOKEN", "from-env")
    assert settings_from(parser().parse_args([])).auth_token == "from-env"


def test_no_roots_means_the_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    assert settings_from(parser().parse_args([])).effective_roots() == (tmp_path,)


def test_version_prints_the_package_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "fsguard", "--version"], capture_output=True, text=True, encoding="utf-8", check=True
    )
    assert done.stdout.strip() == f"fsguard {__version__}"


def test_a_missing_root_exits_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "missing"), "--state-dir", str(tmp_path / "s")])
    assert stopped.value.code == 2
    assert "is not an existing directory" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("given", "why"),
    [("afile", "something other than a directory is there"), ("afile/logs", "not a directory")],
)
def test_a_log_dir_that_cannot_be_made_exits_2_with_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, why: str
) -> None:
    (tmp_path / "afile").write_bytes(b"")
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path), "--state-dir", str(tmp_path / "s"), "--log-dir", str(tmp_path / given)])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert said.startswith(f"fsguard: --log-dir {tmp_path / given} cannot hold the audit log (")
    assert why in said
    assert said.count("\n") == 1
    assert (tmp_path / "afile").read_bytes() == b""


@pytest.mark.parametrize("spelled", ["absolute", "relative"])
def test_a_read_only_state_dir_exits_2_naming_it_as_the_state_dir(
    tmp_path: Path,
    mount_tmpfs: Mount,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    spelled: str,
) -> None:
    state = mount_tmpfs(tmp_path / "ro")
    subprocess.run(["mount", "-o", "remount,ro", str(state)], capture_output=True, check=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path), "--state-dir", str(state / "s") if spelled == "absolute" else "ro/s"])
    assert stopped.value.code == 2
    said = capsys.readouterr().err
    assert "cannot hold fsguard's backups, trash and locks (its filesystem is read-only: " in said
    assert "Pass --state-dir a directory this user may create and write to" in said
    assert "Write under a root" not in said


@pytest.mark.parametrize("command", [[], ["dashboard"]], ids=["fsguard", "dashboard"])
@pytest.mark.parametrize("where", ["a file", "/proc"])
def test_an_unusable_state_dir_exits_2_naming_the_flag_and_what_to_pass_not_a_tool_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], where: str
) -> None:
    # It said "Check the path with list_directory" (an agent's next step), or nothing to do at all.
    (tmp_path / "afile").write_bytes(b"")
    state = tmp_path / "afile" if where == "a file" else Path("/proc/fsguard-no-such-dir")
    with socket.socket() as probe:  # the dashboard binds before it builds: a port no one listens on
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    flags = [str(tmp_path), "--state-dir", str(state)] + (["--port", port] if command else [])
    with pytest.raises(SystemExit) as stopped:
        main([*command, *flags])
    said = capsys.readouterr().err
    assert stopped.value.code == 2
    program = "fsguard dashboard" if command else "fsguard"
    assert said.startswith(f"{program}: --state-dir {state} cannot hold fsguard's backups, trash and locks (")
    assert "Pass --state-dir a directory this user may create and write to" in said
    assert "list_directory" not in said
    assert "get_file_info" not in said
    assert (tmp_path / "afile").read_bytes() == b""


def test_a_file_where_the_state_dir_keeps_its_locks_exits_2_naming_it_and_to_move_it_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said only to pass another --state-dir, where moving the stray file aside is the fix.
    state = tmp_path / "state"
    state.mkdir()
    (state / "locks").write_bytes(b"stray")
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path), "--state-dir", str(state)])
    said = capsys.readouterr().err
    assert stopped.value.code == 2
    assert said.count("\n") == 1
    assert f"(a file is in the way: {state / 'locks'}). Move {state / 'locks'} out of the way" in said
    assert (state / "locks").read_bytes() == b"stray"


def test_a_directory_named_like_a_backup_journal_is_no_journal_and_the_server_still_builds(tmp_path: Path) -> None:
    # Retention at start-up opened it as a journal: "is a directory", and no server.
    root, state = tmp_path / "root", tmp_path / "state"
    root.mkdir()
    (state / "backups" / "journal" / "x.jsonl").mkdir(parents=True)
    (state / "backups" / "journal" / "x.jsonl" / "inside").write_bytes(b"kept")
    Services.create(settings_from(parser().parse_args([str(root), "--state-dir", str(state)])))
    assert (state / "backups" / "journal" / "x.jsonl" / "inside").read_bytes() == b"kept"


def test_client_config_is_valid_json_for_both_transports(tmp_path: Path) -> None:
    http = settings_from(parser().parse_args([str(tmp_path), "--transport", "http", "--port", "9001"]))
    stdio = settings_from(parser().parse_args([str(tmp_path)]))
    assert json.loads(client_config(http))["mcpServers"]["fsguard"]["url"] == "http://127.0.0.1:9001/mcp"
    on_ipv6 = replace(http, host="::1")
    assert json.loads(client_config(on_ipv6))["mcpServers"]["fsguard"]["url"] == "http://[::1]:9001/mcp"
    assert json.loads(client_config(stdio))["mcpServers"]["fsguard"]["args"] == [str(tmp_path)]


def test_the_wsl_flags_reach_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("FSGUARD_WSL", "FSGUARD_WSL_WINDOWS_HOME", "FSGUARD_WSL_AUTOSYNC"):
        monkeypatch.delenv(name, raising=False)
    args = ["--wsl", "--wsl-windows-home", "C:\\Users\\me", "--wsl-autosync", "--state-dir", str(tmp_path)]
    settings = settings_from(parser().parse_args(args))
    assert (settings.wsl, settings.wsl_windows_home, settings.wsl_autosync) == (True, "C:\\Users\\me", True)
    assert settings.wsl_autosync_config == tmp_path / "wsl" / "autosync.json"
    assert settings_from(parser().parse_args(["--no-wsl"])).wsl is False
    unset = settings_from(parser().parse_args([]))
    assert (unset.wsl, unset.wsl_windows_home, unset.wsl_autosync) == (None, None, False)


def test_the_wsl_settings_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FSGUARD_WSL", "1")
    monkeypatch.setenv("FSGUARD_WSL_WINDOWS_HOME", "D:\\Home")
    monkeypatch.setenv("FSGUARD_WSL_AUTOSYNC", "true")
    settings = settings_from(parser().parse_args([]))
    assert (settings.wsl, settings.wsl_windows_home, settings.wsl_autosync) == (True, "D:\\Home", True)
    monkeypatch.setenv("FSGUARD_WSL", "0")
    assert settings_from(parser().parse_args([])).wsl is False
    assert settings_from(parser().parse_args(["--wsl"])).wsl is True  # the flag beats the environment


def test_max_media_bytes_reaches_settings_with_a_3_mib_default(tmp_path: Path) -> None:
    assert settings_from(parser().parse_args([str(tmp_path), "--max-media-bytes=1024"])).max_media_bytes == 1024
    assert settings_from(parser().parse_args([str(tmp_path)])).max_media_bytes == 3 * 1024 * 1024


def test_the_confirm_flag_reaches_settings_and_defaults_to_risky(tmp_path: Path) -> None:
    assert settings_from(parser().parse_args([str(tmp_path)])).confirm == "risky"
    for mode in ("off", "risky", "irreversible"):
        assert settings_from(parser().parse_args([str(tmp_path), "--confirm", mode])).confirm == mode
    with pytest.raises(SystemExit):
        parser().parse_args([str(tmp_path), "--confirm", "always"])


def test_the_least_privilege_flags_reach_settings(tmp_path: Path) -> None:
    docs, vendor = tmp_path / "docs", tmp_path / "vendor"
    args = [str(tmp_path), "--read-only-root", str(docs), "--read-only-root", str(vendor), "--deny", "*.sqlite"]
    settings = settings_from(
        parser().parse_args([*args, "--deny", "!.npmrc", "--no-default-deny", "--no-client-roots"])
    )
    assert settings.read_only_roots == (docs, vendor)
    assert settings.deny == ("*.sqlite", "!.npmrc")
    assert (settings.default_deny, settings.client_roots) == (False, False)
    defaults = settings_from(parser().parse_args([]))
    assert (defaults.read_only_roots, defaults.deny, defaults.default_deny, defaults.client_roots) == (
        (),
        (),
        True,
        True,
    )


def test_read_only_roots_alone_serve_no_current_directory(tmp_path: Path) -> None:
    settings = settings_from(parser().parse_args(["--read-only-root", str(tmp_path)]))
    assert settings.effective_roots() == ()
    assert Services.create(replace(settings, state_dir=tmp_path / "state")).policy.roots == (tmp_path.resolve(),)


def test_an_invalid_deny_glob_exits_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), "--state-dir", str(tmp_path / "state"), "--deny", "a\\"])
    assert exited.value.code == 2
    assert "deny rule" in capsys.readouterr().err


@pytest.mark.parametrize("home", ["relative/dir", "\\\\wsl$\\Other\\home", "/home/me", "C:Users"])
def test_a_windows_home_on_no_windows_drive_exits_2_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], home: str
) -> None:
    flags = ["--wsl", "--wsl-mount-root", str(tmp_path), "--wsl-windows-home", home]
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), *flags, "--state-dir", str(tmp_path / "state")])
    assert exited.value.code == 2
    assert "--wsl-windows-home" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--max-list-items", "-5", "-5 is below the least it takes, 1"),
        ("--max-list-items", "0", "0 is below the least it takes, 1"),
        ("--max-search-results", "0", "0 is below the least it takes, 1"),
        ("--max-file-size", "-1", "-1 is below the least it takes, 1"),
        ("--max-response-bytes", "100", "100 is below the least it takes, 1024"),
        ("--max-media-bytes", "-1", "-1 is below the least it takes, 0"),
        ("--backup-max-count", "ten", "'ten' is not a whole number"),
        ("--backup-max-age", "-3", "-3 is below the least it takes, 0"),
        ("--risk-threshold-high", "nan", "'nan' is not a number"),
        ("--risk-threshold-medium", "150", "150 is outside 0-100"),
        ("--risk-occurrences-high", "0", "0 is below the least it takes, 1"),
        ("--port", "70000", "70000 is not a port (1-65535)"),
        ("--port", "0", "0 is below the least it takes, 1"),
    ],
)
def test_a_numeric_flag_out_of_its_range_exits_2_naming_the_flag_and_what_it_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, said: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), f"{flag}={value}", "--state-dir", str(tmp_path / "state")])
    assert exited.value.code == 2
    assert f"argument {flag}: {said}" in capsys.readouterr().err
    assert not (tmp_path / "state").exists()  # nothing was started


def test_a_medium_risk_threshold_above_the_high_one_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main([str(tmp_path), "--risk-threshold-medium=80"])
    assert exited.value.code == 2
    assert "--risk-threshold-medium (80%) is above --risk-threshold-high (75%)" in capsys.readouterr().err


def test_the_numeric_flags_take_their_edge_values(tmp_path: Path) -> None:
    edges = ["--max-list-items=1", "--max-response-bytes=1024", "--max-media-bytes=0", "--port=65535"]
    settings = settings_from(parser().parse_args([str(tmp_path), *edges, "--backup-max-age=inf"]))
    assert (settings.max_list_items, settings.max_response_bytes, settings.max_media_bytes) == (1, 1024, 0)
    assert (settings.port, settings.backup_max_age_days) == (65535, float("inf"))


def test_a_server_started_with_a_low_open_file_limit_lifts_it_to_the_hard_one(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip("the hard open-file limit leaves nothing to lift")
    (tmp_path / "root").mkdir()
    command = [sys.executable, "-m", "fsguard", str(tmp_path / "root"), "--state-dir", str(tmp_path / "state")]
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))  # the child starts with it, as under a stingy shell
    try:
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        process.stdin.write(json.dumps(initialize).encode() + b"\n")
        process.stdin.flush()
        assert b'"id":1' in process.stdout.readline()  # started: the limit is lifted before serving
        limits = Path(f"/proc/{process.pid}/limits").read_text(encoding="utf-8")
    finally:
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()
    fields = next(line for line in limits.splitlines() if line.startswith("Max open files")).split()
    assert fields[3] == fields[4]  # soft, hard
    assert fields[3] != "256"


@pytest.mark.parametrize("token", ["ключ-123", "caf\u00e9", "tab\there", " padded"])
@pytest.mark.parametrize("program", [[], ["dashboard"]])
def test_a_token_no_http_header_or_cookie_can_carry_exits_2_before_serving(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str,
    program: list[str],
) -> None:
    served: list[object] = []
    monkeypatch.setattr("uvicorn.Server.run", lambda self, *args, **kwargs: served.append(self))
    flags = [str(tmp_path), "--state-dir", str(tmp_path / "state"), "--auth-token", token]
    with pytest.raises(SystemExit) as exited:
        main([*program, *flags, *([] if program else ["--transport", "http"])])
    assert exited.value.code == 2
    assert "--auth-token must be printable ASCII" in capsys.readouterr().err
    assert served == []


@pytest.mark.parametrize("host", ["LOCALHOST", "127.0.0.2", "0:0:0:0:0:0:0:1"])
def test_any_spelling_of_a_loopback_address_needs_no_token_and_its_host_header_is_let_in(host: str) -> None:
    # "beyond loopback needs a bearer token" was said of these, which are loopback.
    settings = settings_from(parser().parse_args(["--transport", "http", "--host", host]))
    assert not settings.needs_auth_token
    assert not command.settings_from(command.parser().parse_args(["--host", host])).needs_auth_token
    allowed = loopback_security(host).allowed_hosts
    addressed = url_host(host.lower())  # the Host a client sends for it
    assert f"{addressed}:*" in allowed
    assert host_refusal({"host": f"{addressed}:9100"}, host) is None
    assert host_refusal({"host": "attacker.example:9100"}, host) is not None
    assert settings_from(parser().parse_args(["--transport", "http", "--host", "127.1.0.0.1x"])).needs_auth_token


def test_a_root_named_dashboard_after_a_flag_is_refused_with_how_to_start_the_dashboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["--state-dir", str(tmp_path / "s"), "dashboard", str(tmp_path)])
    assert stopped.value.code == 2
    assert "put `dashboard` first: fsguard dashboard" in capsys.readouterr().err


def test_a_missing_read_only_root_is_named_by_its_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path), "--state-dir", str(tmp_path / "s"), "--read-only-root", str(missing)])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.startswith(f"fsguard: --read-only-root {missing} is not an existing directory")


@pytest.mark.parametrize("dashboard", [True, False], ids=["dashboard", "fsguard"])
def test_a_flags_prefix_is_not_taken_for_another_flag(dashboard: bool) -> None:
    # `fsguard dashboard --read-only x` ran with --read-only-root x.
    flags = command.parser() if dashboard else parser()
    with pytest.raises(SystemExit) as stopped:
        flags.parse_args(["--read-only" if dashboard else "--read-only-r", "somewhere"])
    assert stopped.value.code == 2


def test_unrestricted_help_says_the_deny_rules_stay_on() -> None:
    """It said only "the character and name checks stay on", as if --unrestricted dropped the deny rules too."""
    (unrestricted,) = [action for action in parser()._actions if "--unrestricted" in action.option_strings]
    assert "deny rules" in (unrestricted.help or "")
