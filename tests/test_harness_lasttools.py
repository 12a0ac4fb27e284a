"""batch_operations, git, minify_js and wsl: one scenario, run by the external strict client and replayed in both eras.

``tests/scenarios/lasttools.json`` covers every action of the four tools and the refusals an agent meets. The strict
TypeScript client (official TS SDK + Ajv, found as in ``tests/test_harness.py``) runs it over real stdio; it speaks
the 2025-11-25 handshake. The same steps are then replayed through the Python SDK's client in both protocol eras and
both voices (that client validates every structuredContent against the published outputSchema with jsonschema).
Each run ends by checking the bytes on disk and what git recorded.

What a scenario's "files" cannot express is prepared beforehand: the git repository with a bare remote, and the
server's WSL settings (a fake mount tree inside the root).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import rjsmin

from fsguard.config import Settings
from tests.conftest import MODES
from tests.test_harness import (
    REPO_ROOT,
    assert_every_step_passed,
    load_scenario,
    replay,
    run_strict,
    scenario_file_bytes,
    write_scenario_files,
)

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "lasttools.json"
VOICES = ("default", "compact")
WINDOWS_HOME = "C:\\Users\\me"
APP_JS = "js/app.js"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, encoding="utf-8")
    return done.stdout


def prepare(root: Path, *, write_files: bool) -> dict[str, Any]:
    """The repository and remote the git steps use (and, for a replay, the scenario's files)."""
    scenario = load_scenario(SCENARIO)
    if write_files:
        write_scenario_files(root, scenario)
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    repo = root / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Tester"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        git(repo, "config", key, value)
    for name in ("a.txt", "b.txt", "c.txt"):
        (repo / name).write_bytes(f"{name} v1\n".encode())
    git(repo, "add", "a.txt", "b.txt", "c.txt")
    git(repo, "commit", "-q", "-m", "init")
    git(repo, "remote", "add", "origin", str(remote))
    (repo / "a.txt").write_bytes(b"a.txt v1\nsecond line\n")
    (repo / "b.txt").write_bytes(b"b.txt scribbled\n")
    (repo / "c.txt").write_bytes(b"c.txt v2\n")
    (repo / "new.txt").write_bytes(b"new\n")
    return scenario


def wsl_flags(root: Path) -> tuple[str, ...]:
    return ("--wsl", "--wsl-mount-root", str(root / "mnt"), "--wsl-windows-home", WINDOWS_HOME)


def assert_disk_after_scenario(root: Path, scenario: dict[str, Any]) -> None:
    """What every step left on disk: the bytes of each file, the names, and what git recorded."""
    batch = root / "batch"
    assert (batch / "new" / "made.txt").read_bytes() == b"made\n"
    assert (batch / "crlf.txt").read_bytes() == b"one\r\nTWO\r\n"
    assert (batch / "new" / "moved.txt").read_bytes() == b"moving\n"
    assert not (batch / "move-me.txt").exists()
    # the failed atomic batch changed nothing, and validate_only wrote nothing
    assert (batch / "keep.txt").read_bytes() == b"keep\n"
    assert not (batch / "fail").exists()
    assert not (batch / "made-again.txt").exists()
    assert not (batch / "validated.txt").exists()
    assert (batch / "from-text.txt").read_bytes() == b"t\n"

    assert (root / "pipe" / "a.py").read_bytes() == b"new_api()\nnew_api()\n"
    assert (root / "pipe" / "b.py").read_bytes() == b"x = new_api\n"
    assert (root / "pipe" / "c.txt").read_bytes() == b"nothing here\n"

    assert sorted(p.name for p in (root / "ren").iterdir()) == ["IMG_1.jpg", "IMG_2.jpg", "notes.txt"]
    assert (root / "ren" / "IMG_2.jpg").read_bytes() == b"two\n"
    assert sorted(p.name for p in (root / "clash").iterdir()) == ["B.TXT", "b.txt"]

    original_js = scenario_file_bytes(scenario, APP_JS).decode()
    shebang, body = original_js.split("\n", 1)
    minified = f"{shebang}\n{rjsmin.jsmin(body)}".encode()
    assert (root / "js" / "app.min.js").read_bytes() == minified
    assert (root / APP_JS).read_bytes() == minified
    assert (root / "js" / "taken.js").read_bytes() == b"taken\n"

    windows = root / "mnt" / "c" / "Users" / "me" / "claude"
    assert (windows / "linux.md").read_bytes() == b"from linux\n"
    assert (root / "home" / "me" / "claude" / "win.txt").read_bytes() == b"from windows\n"
    assert not (windows / "copy.md").exists()

    repo = root / "repo"
    assert git(repo, "log", "-1", "--format=%s").strip() == 'second: a & b | "quoted"'
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.txt", "new.txt"]
    assert git(root / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "main")
    assert "feature" in git(repo, "branch", "--list", "feature")
    assert (repo / "b.txt").read_bytes() == b"b.txt v1\n"
    assert (repo / "c.txt").read_bytes() == b"c.txt v2\n"  # unstaged, its working-tree bytes kept
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert (root / "newrepo" / ".git" / "HEAD").is_file()


@pytest.mark.harness
def test_last_tools_scenario_passes_the_strict_client(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    scenario = prepare(root, write_files=False)
    report = run_strict(tmp_path, SCENARIO, root, tmp_path / "state", wsl_flags(root))
    assert_every_step_passed(report, scenario)
    assert_disk_after_scenario(root, scenario)


@pytest.mark.anyio
@pytest.mark.parametrize("voice", VOICES)
@pytest.mark.parametrize("era", MODES)
async def test_last_tools_scenario_replayed_in_both_eras(tmp_path: Path, era: str, voice: str) -> None:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    scenario = prepare(root, write_files=True)
    settings = Settings(
        roots=(root,),
        state_dir=tmp_path / "state",
        compact_mode=voice == "compact",
        wsl=True,
        wsl_mount_root=root / "mnt",
        wsl_windows_home=WINDOWS_HOME,
    )
    await replay(scenario, settings, era)
    assert_disk_after_scenario(root, scenario)
