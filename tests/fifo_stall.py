"""A call run beside a FIFO that rg opens and waits on for ever: whether it stopped on its own, and how."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path


class Cancelled(Exception):
    """What a test's progress or waiting callback raises, as a cancelled call's would."""


def cancel(*_args: object) -> None:
    raise Cancelled


def run_beside_a_fifo(fifo: Path, call: Callable[[], object]) -> tuple[bool, list[type[BaseException]]]:
    """Make ``fifo``, run ``call`` on a thread for up to 10 s; whether it was still waiting then (the FIFO is then
    opened for writing and closed, so rg goes on and the thread ends) and the exceptions it raised."""
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
    if waiting:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
    return waiting, raised
