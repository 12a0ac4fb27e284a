"""edit_file and multi_edit on a file spelling its accents in the other Unicode form (NFD against NFC): refused
with the form named, the line, and the escapes that match, in both protocol eras; the file keeps its bytes."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

DECOMPOSED = unicodedata.normalize("NFD", "titre: café résumé\r\nfin\r\n")


async def test_edit_file_names_the_other_unicode_form_and_the_escapes_then_edits_with_them(
    client: Client, root: Path
) -> None:
    target = root / "notes.txt"
    original = b"\xef\xbb\xbf" + DECOMPOSED.encode()
    target.write_bytes(original)

    refused = await client.call_tool("edit_file", {"path": str(target), "old_text": "café", "new_text": "CAFE"})

    assert error_code(refused) == "no_match"
    assert target.read_bytes() == original
    message = text_of(refused)
    assert "another Unicode form" in message
    assert 'titre: cafe\\u0301 re\\u0301sume\\u0301"' in message
    assert 'mode="replace_range", start_line=1, end_line=1' in message
    assert (refused.meta or {})["fsguard/error"]["unicode_form"] == "NFD"

    quoted = json.loads('"cafe\\u0301"')  # the escapes as the message shows them, sent back
    applied = await client.call_tool("edit_file", {"path": str(target), "old_text": quoted, "new_text": "CAFE"})

    assert structured(applied)["replacements"] == 1
    assert target.read_bytes() == original.replace("cafe\u0301".encode(), b"CAFE")


async def test_multi_edit_refusal_for_the_other_unicode_form_says_what_to_do_on_its_one_line(
    client: Client, root: Path
) -> None:
    target = root / "notes.txt"
    target.write_bytes(DECOMPOSED.encode())

    refused = await client.call_tool(
        "multi_edit", {"path": str(target), "edits": [{"old_text": "résumé", "new_text": "CV"}]}
    )

    assert error_code(refused) == "no_match"
    assert target.read_bytes() == DECOMPOSED.encode()
    assert "another Unicode form" in text_of(refused)
    assert "JSON escapes (\\u0301)" in text_of(refused)


async def test_a_new_text_that_is_a_decomposed_words_base_letters_is_not_called_already_applied(
    client: Client, root: Path
) -> None:
    target = root / "menu.txt"
    target.write_bytes(DECOMPOSED.encode())

    refused = await client.call_tool("edit_file", {"path": str(target), "old_text": "title", "new_text": "cafe"})

    assert error_code(refused) == "no_match"
    assert "already applied" not in text_of(refused)
    assert "already_applied" not in (refused.meta or {})["fsguard/error"]
    assert target.read_bytes() == DECOMPOSED.encode()
