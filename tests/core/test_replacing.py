"""project_replace's engine without the protocol: stopping it while ripgrep looks for the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsguard.config import Settings
from fsguard.core import replacing
from fsguard.core.replacing import ReplaceRequest
from fsguard.core.search import ripgrep_path
from fsguard.services import Services
from tests.fifo_stall import Cancelled, cancel, made_after_the_walk_beside, run_beside_a_fifo


def test_a_replace_stops_when_waiting_raises_even_while_rg_waits_on_a_fifo_named_gitignore(
    root: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if ripgrep_path() is None:
        pytest.skip("ripgrep is not installed")
    made_after_the_walk_beside(monkeypatch, replacing)
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_bytes(b"old\n")
    services = Services.create(Settings(roots=(root,), state_dir=state_dir))

    def replace() -> object:
        return services.replacer.run(ReplaceRequest(path=str(root), find="old", replace="new"), waiting=cancel)

    assert run_beside_a_fifo(root / "sub" / ".gitignore", replace) == (False, [Cancelled])
    assert (root / "sub" / "a.txt").read_bytes() == b"old\n"
