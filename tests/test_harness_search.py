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
from tests.test_harness import REPO_ROOT, assert_every_step_passed, load_scenario, run_strict, scenario_file_bytes

pytestmark = pytest.mark.harness

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "search.json"
FLAGS = {"default": (), "compact": ("--compact-mode",)}
CHANGED = {
    "rep/b.txt": b"$1 \\1 new $1 \\1 new\n",
    "rx/v.txt": b"v1-2\nv3-4\n",
}


def scenario() -> dict[str, Any]:
    return load_scenario(SCENARIO)


def run_search_scenario(tmp_path: Path, *flags: str) -> tuple[Path, Path, dict[str, Any]]:
    root = (tmp_path / "root").resolve()
    root.mkdir()
    state = tmp_path / "state"
    return root, state, run_strict(tmp_path, SCENARIO, root, state, flags)


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
def test_search_scenario_passes_the_strict_client_and_changes_only_the_replaced_files(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    root, state, report = run_search_scenario(tmp_path, *flags)
    assert_every_step_passed(report, scenario())
    for relative in scenario()["files"]:
        expected = CHANGED.get(relative) or scenario_file_bytes(scenario(), relative)
        assert (root / relative).read_bytes() == expected, relative
    # rep/a.txt was replaced, then restored by undo_last; its backup holds the replaced bytes no more.
    store = Services.create(Settings(roots=(root,), state_dir=state)).backups
    replaced = sorted(r.path for r in store.records() if r.operation == "project_replace")
    assert replaced == [str(root / "rep" / "a.txt"), str(root / "rep" / "b.txt"), str(root / "rx" / "v.txt")]
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
