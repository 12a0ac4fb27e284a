"""A raw MCP client over stdio for the benchmarks: one server process, newline-delimited JSON-RPC, one request at a
time, each timed from writing the request to reading its whole answer line.

No SDK on purpose: what is timed is the server, not a client library's own work (bench_scale.py, bench_tokens.py).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOL = "2025-11-25"
Args = dict[str, object]


@dataclass(frozen=True)
class Outcome:
    """One tools/call answer."""

    structured: dict[str, Any]
    text: str
    error: str | None  # fsguard's error code, or the start of the error text
    size: int  # bytes of the response line

    @classmethod
    def parse(cls, line: bytes, message: dict[str, Any]) -> Outcome:
        if "error" in message:
            return cls({}, "", f"JSON-RPC {message['error'].get('code')}", len(line))
        result = message.get("result", {})
        text = "".join(block.get("text", "") for block in result.get("content", []) if isinstance(block, dict))
        error = None
        if result.get("isError"):
            code = (result.get("_meta") or {}).get("fsguard/error", {}).get("code")
            error = str(code) if code else f"error: {text[:60]}"
        return cls(result.get("structuredContent") or {}, text, error, len(line))

    def contains(self, needle: str) -> bool:
        return needle in self.text or needle in json.dumps(self.structured)

    def summary(self) -> str:
        """The answer's scalar fields (fsguard), else its size and first words (the reference: text only)."""
        if self.error:
            return f"{self.error}: {self.text[:160]!r}"
        facts = {k: v for k, v in self.structured.items() if isinstance(v, int | bool) or k == "mode"}
        skipped = {k: v[:3] for k, v in self.structured.items() if "skip" in k and isinstance(v, list)}
        size = f"{self.size / 1024:,.1f} KiB"
        if facts or skipped:
            return f"{size}, {json.dumps(facts)}" + (f", {json.dumps(skipped)}" if skipped else "")
        return f"{size}, text {self.text[:80]!r}"


def proc_status(pid: int, key: str) -> int | None:
    """A kB figure of /proc/PID/status (VmRSS, VmHWM), or None off Linux."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class Server:
    """An MCP server over stdio, one request at a time; a call past the timeout kills it."""

    def __init__(self, command: list[str], timeout: float, log: Path) -> None:
        self.timeout = timeout
        self.timed_out = False
        self.next_id = 0
        self.name = "?"
        with log.open("ab") as sink:
            # Buffered: an unbuffered pipe's readline() makes one syscall per byte.
            self.proc = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sink, bufsize=1 << 20
            )

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> tuple[float, bytes, dict[str, Any]]:
        """Milliseconds from writing the request to reading its whole answer line, the line and its JSON."""
        assert self.proc.stdout is not None
        self.next_id += 1
        watchdog = threading.Timer(self.timeout, self._expire)
        watchdog.start()
        try:
            started = time.perf_counter()
            self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
            while True:
                line = self.proc.stdout.readline()
                elapsed = (time.perf_counter() - started) * 1000
                if not line:
                    raise TimeoutError if self.timed_out else ConnectionError
                message = json.loads(line)
                if message.get("id") == self.next_id and "method" not in message:
                    return elapsed, line, message
                if "method" in message and "id" in message:  # ping or roots/list: answer, never block the server
                    answer: dict[str, object] = {"roots": []} if message["method"] == "roots/list" else {}
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer})
        finally:
            watchdog.cancel()

    def _expire(self) -> None:
        self.timed_out = True
        self.proc.kill()

    def ready(self, warm: tuple[str, Args] | None = None) -> int | None:
        """Handshake, tools/list and the ``warm`` call when given, then reset the peak-RSS mark; the RSS at that
        moment (kB)."""
        client = {"name": "bench_scale", "version": "1"}
        _, _, answer = self.request(
            "initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": client}
        )
        info = answer.get("result", {}).get("serverInfo", {})
        self.name = f"{info.get('name', '?')} {info.get('version', '?')}"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.request("tools/list", {})
        if warm is not None:
            self.call(*warm)
        idle = proc_status(self.proc.pid, "VmRSS")
        with contextlib.suppress(OSError):  # without it the peak counts from start-up
            Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5", encoding="ascii")  # VmHWM := VmRSS
        return idle

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def call(self, tool: str, args: Args) -> tuple[float, Outcome]:
        elapsed, line, message = self.request("tools/call", {"name": tool, "arguments": args})
        return elapsed, Outcome.parse(line, message)
