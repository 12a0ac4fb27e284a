"""OpenTelemetry: the SDK's span per message is kept when a tracer provider is installed, dropped when none is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp.shared._otel
import pytest
from mcp import Client
from opentelemetry import trace

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio


class RecordingTracer(trace.NoOpTracer):
    """A tracer that notes the name of every span it starts (``start_as_current_span`` starts them here too)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> trace.Span:
        self.names.append(name)
        return trace.INVALID_SPAN


@pytest.fixture
def tracer(monkeypatch: pytest.MonkeyPatch) -> RecordingTracer:
    recording = RecordingTracer()
    monkeypatch.setattr(mcp.shared._otel, "_tracer", recording)
    return recording


async def _read(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    result = await client.call_tool("read_file", {"path": "a.txt"})
    assert structured(result)["content"] == "one\n"


async def test_a_tool_call_is_traced_when_a_tracer_provider_is_installed(
    connect: ClientFactory, root: Path, tracer: RecordingTracer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", trace.NoOpTracerProvider)
    async with connect() as client:
        await _read(client, root)
    assert "tools/call read_file" in tracer.names


async def test_no_span_is_made_for_a_tool_call_without_a_tracer_provider(
    connect: ClientFactory, root: Path, tracer: RecordingTracer
) -> None:
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    async with connect() as client:
        await _read(client, root)
    assert not [name for name in tracer.names if name.startswith("tools/call")]
