"""search_files and project_replace over real stdio, checked by the external strict TypeScript client.

``tests/scenarios/search.json`` searches a tree with a ``.gitignore``, nested directories, a binary, a CRLF and
a UTF-16 file in every mode, then runs project_replace (preview, a literal ``$1 \\1`` replacement, a regex with
groups) and undoes one replaced file. The test checks the bytes on disk afterwards: what was replaced, what was
restored, and that gitignored, previewed and searched files were never touched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fsguard.config import Settings
from fsguard.services import Services
from tests.conftest import MODES
from tests.test_harness import (
    REPO_ROOT,
    assert_every_step_passed,
    load_scenario,
    replay_compact,
    run_strict,
    scenario_dirs,
    scenario_file_bytes,
)

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "search.json"
CHANGED = {
    "rep/b.txt": b"$1 \\1 new $1 \\1 new\n",
    "rx/v.txt": b"v1-2\nv3-4\n",
}


def scenario() -> dict[str, Any]:
    return load_scenario(SCENARIO)


@pytest.mark.harness
def test_search_scenario_passes_the_strict_client_and_changes_only_the_replaced_files(tmp_path: Path) -> None:
    root, state = scenario_dirs(tmp_path)
    report = run_strict(tmp_path, SCENARIO, root, state, ())
    assert_every_step_passed(report, scenario())
    assert_only_the_replaced_files_changed(root, state)


@pytest.mark.anyio
@pytest.mark.parametrize("era", MODES)
async def test_search_scenario_replayed_in_the_compact_voice_in_both_eras_changes_the_same_files(
    tmp_path: Path, era: str
) -> None:
    root, state = scenario_dirs(tmp_path)
    await replay_compact(scenario(), root, state, era)
    assert_only_the_replaced_files_changed(root, state)


def assert_only_the_replaced_files_changed(root: Path, state: Path) -> None:
    for relative in scenario()["files"]:
        expected = CHANGED.get(relative) or scenario_file_bytes(scenario(), relative)
        assert (root / relative).read_bytes() == expected, relative
    # rep/a.txt was replaced, then restored by undo_last; its backup holds the replaced bytes no more.
    store = Services.create(Settings(roots=(root,), state_dir=state)).backups
    replaced = sorted(r.path for r in store.records() if r.operation == "project_replace")
    assert replaced == [str(root / "rep" / "a.txt"), str(root / "rep" / "b.txt"), str(root / "rx" / "v.txt")]
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
