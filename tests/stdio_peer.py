"""``python -m fsguard`` as a child, spoken to in raw newline-delimited JSON-RPC (the legacy handshake).

Nothing but the server itself stands between a SIGKILL and the bytes on disk, which is what the crash tests
need (the shape of the external harness's bench_stdio.py).
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Container, Sequence
from pathlib import Path
from typing import IO, Any

WAIT_S = 30.0


class RawStdioServer:
    """``python -m fsguard`` as a child, spoken to in raw JSON-RPC lines; a thread collects the answers."""

    def __init__(self, roots: Path | Sequence[Path], state_dir: Path, stderr_path: Path) -> None:
        self._stderr_path = stderr_path
        self._stderr: IO[bytes] = stderr_path.open("ab")
        served = [roots] if isinstance(roots, Path) else list(roots)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fsguard", *map(str, served), "--state-dir", str(state_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
        )
        self.responses: dict[int, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self.garbage: list[bytes] = []  # complete stdout lines that were not JSON-RPC
        self._arrived = threading.Condition()
        self._eof = False
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, name="fsguard-stdout", daemon=True)
        self._reader.start()

    def _read_loop(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for line in stdout:
                if not line.endswith(b"\n"):
                    break  # the tail of a frame the kill cut short
                try:
                    message = json.loads(line)
                except ValueError:
                    self.garbage.append(line[:200])
                    continue
                with self._arrived:
                    if "id" in message and "method" not in message:
                        self.responses[int(message["id"])] = message
                    elif "id" not in message:
                        self.notifications.append(message)
                    self._arrived.notify_all()
        finally:
            with self._arrived:
                self._eof = True
                self._arrived.notify_all()

    def send(self, message: dict[str, Any]) -> None:
        """Write one frame; raises BrokenPipeError once the child is dead or its pipe closed."""
        stdin = self.process.stdin
        assert stdin is not None
        data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        with self._write_lock:
            try:
                stdin.write(data)
                stdin.flush()
            except ValueError:  # close() shut the pipe of the killed child between two frames
                if stdin.closed:
                    raise BrokenPipeError("the child's stdin is closed") from None
                raise

    def wait_until(self, predicate: Callable[[dict[int, dict[str, Any]]], bool], timeout: float = WAIT_S) -> bool:
        """Whether ``predicate(responses)`` came true within ``timeout`` (False also when stdout closed first)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: predicate(self.responses) or self._eof, timeout) and predicate(
                self.responses
            )

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if not self.wait_until(lambda answers: request_id in answers):
            raise AssertionError(f"no answer to {method} (id {request_id}); server stderr:\n{self.stderr_tail()}")
        with self._arrived:
            return self.responses[request_id]

    def answers_to(self, request_ids: Container[int]) -> dict[int, dict[str, Any]]:
        """The answers that have arrived so far to any of ``request_ids``."""
        with self._arrived:
            return {i: answer for i, answer in self.responses.items() if i in request_ids}

    def first_notification(self, method: str, timeout: float = WAIT_S) -> dict[str, Any] | None:
        """The first notification of ``method``, waiting up to ``timeout`` for it (None if none came)."""

        def found() -> dict[str, Any] | None:
            return next((note for note in self.notifications if note.get("method") == method), None)

        with self._arrived:
            self._arrived.wait_for(lambda: found() is not None or self._eof, timeout)
            return found()

    def call(self, request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call, answered: its result."""
        answer = self.request(request_id, "tools/call", {"name": tool, "arguments": arguments})
        return dict(answer["result"])

    def initialize(self) -> None:
        answer = self.request(
            0,
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "durability", "version": "1"}},
        )
        assert answer["result"]["protocolVersion"] == "2025-11-25", answer
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=WAIT_S)

    def stderr_tail(self) -> str:
        self._stderr.flush()
        return self._stderr_path.read_text(encoding="utf-8", errors="replace")[-3000:]

    def close(self, *, graceful: bool = True) -> None:
        """Stop the child (EOF on stdin, else SIGKILL) and release every pipe; safe to call after kill()."""
        try:
            if graceful and self.process.poll() is None:
                try:
                    self._close_stdin()
                    self.process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=10)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(timeout=10)
            self._close_stdin()
            self._reader.join(timeout=10)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self._stderr.close()

    def _close_stdin(self) -> None:
        if self.process.stdin is not None:
            with contextlib.suppress(OSError):  # unflushed bytes of a frame the dead child never read
                self.process.stdin.close()
