"""A call run beside a FIFO that rg opens and waits on for ever: whether it stopped on its own, and how.

fsguard's walk beside rg looks at every ``.gitignore`` rg reads and stops rg at one that is not a regular file
(:mod:`fsguard.core.sidewalk`), so rg waits on a FIFO only when it appeared after that walk had looked:
:func:`made_after_the_walk_beside` makes a test's FIFO one of those, for a test of how a waiting rg is stopped.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from fsguard.core import sidewalk


class Cancelled(Exception):
    """What a test's progress or waiting callback raises, as a cancelled call's would."""


def cancel(*_args: object) -> None:
    raise Cancelled


def run_beside_a_fifo(fifo: Path, call: Callable[[], object]) -> tuple[bool, list[type[BaseException]]]:
    """Make ``fifo``, run ``call`` on a thread for up to 10 s; whether it was still waiting then (the FIFO is then
    opened for writing and closed, again each time a reader waits on it, so each rg goes on and the thread ends)
    and the exceptions it raised."""
    os.mkfifo(fifo)  # rg opens it and waits for a writer
    raised: list[type[BaseException]] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the test thread
            raised.append(type(exc))

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=10)
    waiting = worker.is_alive()
    while worker.is_alive():
        with contextlib.suppress(OSError):  # ENXIO: no reader waits on it at this moment
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=0.1)
    return waiting, raised


def made_after_the_walk_beside(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
    """Let ``module``'s walk beside rg miss every ``.gitignore`` that is not a regular file, as if each had been made
    just after it looked: rg meets it, and only a cancelled call stops rg."""
    monkeypatch.setattr(module, "walk_beside", functools.partial(sidewalk.walk_beside, screen=False))
