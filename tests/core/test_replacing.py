"""project_replace's engine without the protocol: stopping it while ripgrep looks for the files."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from fsguard.config import Settings
from fsguard.core.replacing import ReplaceRequest
from fsguard.core.search import ripgrep_path
from fsguard.services import Services


class Cancelled(Exception):
    pass


def test_a_replace_stops_when_waiting_raises_even_while_rg_waits_on_a_fifo_named_gitignore(
    root: Path, state_dir: Path
) -> None:
    if ripgrep_path() is None:
        pytest.skip("ripgrep is not installed")
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_bytes(b"old\n")
    os.mkfifo(root / "sub" / ".gitignore")  # rg opens it and waits for a writer
    services = Services.create(Settings(roots=(root,), state_dir=state_dir))

    def cancelled() -> None:
        raise Cancelled

    outcome: list[BaseException] = []

    def replace() -> None:
        try:
            services.replacer.run(ReplaceRequest(path=str(root), find="old", replace="new"), waiting=cancelled)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=replace, daemon=True)
    worker.start()
    worker.join(timeout=10)
    waiting = worker.is_alive()
    if waiting:  # let rg go: a writer opens the pipe and closes it
        os.close(os.open(root / "sub" / ".gitignore", os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
    assert (waiting, [type(exc) for exc in outcome]) == (False, [Cancelled])
    assert (root / "sub" / "a.txt").read_bytes() == b"old\n"
