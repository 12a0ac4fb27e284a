"""fsguard over real stdio, checked by the strict TypeScript client (official TS SDK + Ajv).

The client lives in this repository, ``tests/strict_client/run.sh``, its packages installed by ``make strict-client``
(``make test`` does it); ``$FSGUARD_HARNESS`` (a run.sh with the same ``strict`` interface, such as the external
harness's, or the folder holding it) runs another. A missing client fails these tests: they are the proof that a
TypeScript-SDK host accepts every schema and result, so silently skipping them would hide a regression.

The strict client runs each scenario once, in the default voice (what it checks of a schema or a structuredContent
does not change with the voice). The compact voice's text is checked by ``replay``: the same steps and expectations
through the Python SDK's client, in both protocol eras, on an in-process server (a second of work, not a node start
and a server start each).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import MODES
from tests.test_contract import TOOLS

REPO_ROOT = Path(__file__).resolve().parent.parent
SCENARIO = REPO_ROOT / "tests" / "scenarios" / "foundation.json"
STRICT_CLIENT = REPO_ROOT / "tests" / "strict_client"
TIMEOUT_S = 300
TAIL_CHARS = 4000
# What the scenario captures with server_info artifact and then writes to made/notes.md.
ARTIFACT_BYTES = b"# Notes\nline two\n"


def harness_script() -> Path:
    """run.sh of the strict client (``$FSGUARD_HARNESS``, else the in-repo one), or a failure naming the fix."""
    configured = os.environ.get("FSGUARD_HARNESS")
    if not configured:
        return in_repo_client()
    script = Path(configured).expanduser()
    if script.is_dir():
        script = script / "run.sh"
    if not script.is_file():
        pytest.fail(
            f"harness not found: {script} (from FSGUARD_HARNESS) does not exist. Point FSGUARD_HARNESS at a run.sh "
            "with the strict interface, or unset it to use tests/strict_client.",
            pytrace=False,
        )
    return script


def in_repo_client() -> Path:
    """tests/strict_client/run.sh, once node is on PATH and ``make strict-client`` has installed its packages."""
    if shutil.which("node") is None:
        pytest.fail(
            "node is not on PATH: the strict-client tests need Node.js 20 or newer and npm (Debian: apt-get install "
            "nodejs npm), then `make strict-client`.",
            pytrace=False,
        )
    if not (STRICT_CLIENT / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail(
            f"the strict client's packages are not installed: {STRICT_CLIENT / 'node_modules'} is missing. Run "
            "`make strict-client` (npm ci in tests/strict_client); `make test` does it.",
            pytrace=False,
        )
    return STRICT_CLIENT / "run.sh"


def server_command(root: Path, state: Path, *flags: str) -> list[str]:
    """fsguard from this interpreter's environment, serving ``root`` over stdio."""
    return [str(Path(sys.executable).parent / "fsguard"), str(root), "--state-dir", str(state), *flags]


def load_scenario(path: Path) -> dict[str, Any]:
    """A scenario file: its "files" and "steps"."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def assert_every_step_passed(report: dict[str, Any], scenario: dict[str, Any]) -> None:
    """The strict client ran every step, all passed, and exactly the expected refusals were refusals."""
    steps = scenario["steps"]
    assert report["failures"] == 0
    assert len(report["steps"]) == len(steps), "the strict client did not run every step of the scenario"
    assert failed_steps(report) == []
    expected_errors = [step.get("expect", {}).get("isError", False) for step in steps]
    assert [step["isError"] for step in report["steps"]] == expected_errors


def scenario_file_bytes(scenario: dict[str, Any], relative: str) -> bytes:
    """A file of a scenario's "files", as the strict client writes it: text, or ``{"base64": ...}``."""
    body = scenario["files"][relative]
    return body.encode() if isinstance(body, str) else base64.b64decode(body["base64"])


def scenario_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A fresh root to serve (made, resolved) and the state dir beside it (made by the server)."""
    root = (tmp_path / "root").resolve()
    root.mkdir()
    return root, tmp_path / "state"


def write_scenario_files(root: Path, scenario: dict[str, Any]) -> None:
    """The scenario's "files" under ``root``, as the strict client writes them under ${TMP} before the server starts."""
    for relative in scenario["files"]:
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(scenario_file_bytes(scenario, relative))


async def replay(scenario: dict[str, Any], settings: Settings, era: str, **variables: str) -> None:
    """Every step of ``scenario`` through the Python SDK's client in ``era``, on an in-process server, checked as the
    strict client checks a step: isError, a text block, structured_has and text_includes (the Python client itself
    validates each structuredContent against the published outputSchema). ${TMP} is the server's first root; each
    keyword is a ``--var``. The scenario's files must already be written (write_scenario_files)."""
    values = {"TMP": str(settings.roots[0]), **variables}
    async with Client(build_server(settings), mode=era) as client:
        for number, step in enumerate(scenario["steps"], 1):
            arguments = _with_variables(step.get("arguments", {}), values)
            expect = _with_variables(step.get("expect", {}), values)
            result = await client.call_tool(step["tool"], arguments)
            text = _texts(result)
            label = f"step {number} {step.get('name', step['tool'])}: {text[:600]}"
            assert result.is_error == expect.get("isError", False), label
            assert text or expect.get("text") is False, f"{label}\nno text block"
            for dotted in expect.get("structured_has", []):
                assert _has_field(result.structured_content, dotted), f"{label}\nmissing {dotted}"
            assert expect.get("text_includes", "") in text, label


async def replay_compact(
    scenario: dict[str, Any], root: Path, state: Path, era: str, variables: dict[str, str] | None = None, **fields: Any
) -> None:
    """The scenario's files written under ``root``, then its steps replayed (:func:`replay`) on a server in the
    compact voice serving ``root`` with ``state``; ``fields`` are further Settings fields."""
    write_scenario_files(root, scenario)
    settings = Settings(roots=(root,), state_dir=state, compact_mode=True, **fields)
    await replay(scenario, settings, era, **(variables or {}))


def _with_variables(value: Any, values: dict[str, str]) -> Any:
    """``value`` with each ${NAME} in its strings replaced, as the strict client's --var does."""
    text = json.dumps(value)
    for name, replacement in values.items():
        text = text.replace("${" + name + "}", json.dumps(replacement)[1:-1])
    return json.loads(text)


def _texts(result: CallToolResult) -> str:
    """The result's text blocks, joined as the strict client joins them for text_includes."""
    return "\n".join(block.text for block in result.content if block.type == "text")


def _has_field(data: Any, dotted: str) -> bool:
    """Whether ``data`` has the dotted field (``files.0.path``), as the strict client's structured_has checks it."""
    for part in dotted.split("."):
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return False
    return True


def _tail(stream: str | bytes | None) -> str:
    if stream is None:
        return ""
    text = stream.decode(errors="replace") if isinstance(stream, bytes) else stream
    return text[-TAIL_CHARS:]


def run_harness(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``run.sh ARGS`` with its temp files kept under ``tmp_path``; a timeout fails the test with the output so far."""
    command = ["bash", str(harness_script()), *args]
    scratch = tmp_path / "harness-tmp"
    scratch.mkdir(exist_ok=True)
    try:
        return subprocess.run(
            command,
            cwd=REPO_ROOT,
            env={**os.environ, "TMPDIR": str(scratch)},
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(
            f"harness timed out after {TIMEOUT_S} s: {' '.join(command)}\n"
            f"--- stdout (tail) ---\n{_tail(exc.stdout)}\n--- stderr (tail) ---\n{_tail(exc.stderr)}",
            pytrace=False,
        )


def assert_passed(proc: subprocess.CompletedProcess[str]) -> None:
    """Exit status 0, or a failure showing the end of both streams."""
    assert proc.returncode == 0, (
        f"harness exited {proc.returncode}: {' '.join(proc.args)}\n"
        f"--- stdout (tail) ---\n{_tail(proc.stdout)}\n--- stderr (tail) ---\n{_tail(proc.stderr)}"
    )


def run_strict(
    tmp_path: Path, scenario: Path, root: Path, state: Path, flags: tuple[str, ...], **variables: str
) -> dict[str, Any]:
    """Run ``scenario`` with the strict client against fsguard serving ``root``; returns the client's report.

    ``--var TMP=<root>`` (and one ``--var`` per keyword) makes the client write the scenario's files into the very
    directory the server serves, and leave it in place afterwards so the bytes on disk can be checked. A failure
    names the failed steps: the output's tail is mostly PASS lines.
    """
    report_path = tmp_path / "strict-report.json"
    named = [arg for name, value in {"TMP": str(root), **variables}.items() for arg in ("--var", f"{name}={value}")]
    proc = run_harness(
        tmp_path,
        "strict",
        *("--scenario", str(scenario), *named, "--report", str(report_path), "--"),
        *server_command(root, state, *flags),
    )
    if proc.returncode != 0 and report_path.is_file():
        failed = failed_steps(json.loads(report_path.read_text(encoding="utf-8")))
        if failed:
            pytest.fail(f"{len(failed)} scenario step(s) failed:\n" + "\n".join(failed), pytrace=False)
    assert_passed(proc)
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    return report


def failed_steps(report: dict[str, Any]) -> list[str]:
    """``label: errors`` of every step of the report that did not pass."""
    return [f"{step['label']}: {' | '.join(step.get('errors', []))}" for step in report["steps"] if not step["ok"]]


def run_scenario(tmp_path: Path, *flags: str) -> tuple[Path, Path, dict[str, Any]]:
    """Run foundation.json against fsguard serving a fresh root; returns the root, the state dir and the report."""
    root, state = scenario_dirs(tmp_path)
    return root, state, run_strict(tmp_path, SCENARIO, root, state, flags)


def assert_scenario_effects(tmp_path: Path, root: Path, state: Path, report: dict[str, Any]) -> None:
    """Every step ran and passed, and the disk shows exactly what the scenario did."""
    assert_every_step_passed(report, load_scenario(SCENARIO))
    assert_effects_on_disk(tmp_path, root, state)


def assert_effects_on_disk(tmp_path: Path, root: Path, state: Path) -> None:
    """What foundation.json leaves on disk, whoever ran it."""
    assert (root / "made" / "deep").is_dir()
    assert (root / "made" / "notes.md").read_bytes() == ARTIFACT_BYTES
    # The refused writes left nothing behind: no file outside the root, no replaced artifact, no temp files.
    assert not (tmp_path / "fsguard-outside-artifact.md").exists()
    assert (root / "a-file.txt").read_bytes() == b"not a directory\n"
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
    assert list((state / "inflight").iterdir()) == []


@pytest.mark.harness
def test_foundation_scenario_passes_the_strict_client_and_writes_the_artifact(tmp_path: Path) -> None:
    root, state, report = run_scenario(tmp_path)
    assert_scenario_effects(tmp_path, root, state, report)
    # Before any step, the client checked every tool's schemas against their metaschemas, and compiled them.
    assert len(report["tools"]) == len(TOOLS)
    assert {check["tool"] for check in report["schemaChecks"]} == TOOLS
    assert all(check["ok"] for check in report["schemaChecks"])


@pytest.mark.anyio
@pytest.mark.parametrize("era", MODES)
async def test_foundation_scenario_replayed_in_the_compact_voice_in_both_eras(tmp_path: Path, era: str) -> None:
    root, state = scenario_dirs(tmp_path)
    await replay_compact(load_scenario(SCENARIO), root, state, era)
    assert_effects_on_disk(tmp_path, root, state)
