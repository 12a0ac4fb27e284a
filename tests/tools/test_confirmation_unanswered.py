"""A question nobody answers: on 2025-11-25 the call waits for the answer in the middle of the call, and a client
that never answers (a dialog lost behind a window) held it forever (found by a probe); it is declined after
``ANSWER_WAIT_S``, the question cancelled on the client, nothing changed. On 2026-07-28 the server never waits: the
question is a result, and nothing runs until the client calls again with its answer. Both eras; bytes on disk."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from fsguard.tools import _confirm
from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio


async def test_a_question_never_answered_is_declined_and_changes_nothing(
    connect: ClientFactory, root: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_confirm, "ANSWER_WAIT_S", 0.5, raising=False)
    target = root / "a.txt"
    target.write_bytes(b"keep me\n")
    asked: list[str] = []

    async def walked_away(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        asked.append(getattr(params, "message", ""))
        await anyio.sleep_forever()
        raise AssertionError("never answered")

    arguments = {"path": "a.txt", "permanent": True}
    with anyio.fail_after(30):
        async with connect(elicitation_callback=walked_away) as client:
            if mode == "legacy":
                result = await client.call_tool("delete_file", arguments)
                assert error_code(result) == "declined", text_of(result)
                assert "no answer within" in text_of(result)
            else:  # the question comes back as the result: the server holds nothing while nobody answers
                first = await client.session.call_tool("delete_file", arguments, allow_input_required=True)
                assert first.result_type == "input_required"
            listed = await client.call_tool("list_directory", {"path": "."})
            assert not listed.is_error, text_of(listed)
    assert len(asked) == (1 if mode == "legacy" else 0)
    assert target.read_bytes() == b"keep me\n"
