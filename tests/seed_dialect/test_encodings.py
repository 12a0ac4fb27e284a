"""Files in a legacy encoding, called as prompts written for the seed call the tools (catalog §1.1 read_file,
§1.2 write_file, §1.3 edit_file, §1.4 multi_edit, §1.6 search_files, §1.12 get_file_info).

The seed handed such bytes to the model as they were (a Latin-1 ``é`` is no UTF-8: mojibake, and an edit with
the right text found nothing). fsguard deviates on purpose (SPEC "Byte preservation", issue 12): it reads the text
in the code page a person would recognise and writes it back in that code page, so each seed-shaped call below
works on the words the model sees and leaves every byte it did not edit as it was. The seed's shapes are kept:
``old_str``/``new_str``, ``edits_json`` as a JSON string, ``encoding: "base64"``, the FNV ``content_hash`` of the
bytes on disk as ``expected_hash``. Both protocol eras, through ``client``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.hashing import content_hash
from tests.conftest import structured

pytestmark = pytest.mark.anyio

FRENCH = "Le café est très bon, déjà vu.\r\nÀ bientôt !\r\n"


@pytest.fixture
def latin1(root: Path) -> bytes:
    raw = FRENCH.encode("latin-1")
    (root / "fr.txt").write_bytes(raw)
    return raw


async def test_read_file_with_the_seeds_path_shows_the_words_and_hashes_the_bytes_on_disk(
    client: Client, latin1: bytes
) -> None:
    data = structured(await client.call_tool("read_file", {"path": "fr.txt"}))

    assert data["content"] == FRENCH
    assert data["content_hash"] == content_hash(latin1)


async def test_read_file_with_encoding_base64_gives_the_raw_latin1_bytes(client: Client, latin1: bytes) -> None:
    data = structured(await client.call_tool("read_file", {"path": "fr.txt", "encoding": "base64"}))

    assert base64.b64decode(data["content"]) == latin1


async def test_edit_file_with_old_str_new_str_and_the_read_hash_edits_only_those_bytes(
    client: Client, root: Path, latin1: bytes
) -> None:
    read = structured(await client.call_tool("read_file", {"path": "fr.txt"}))
    arguments = {"path": "fr.txt", "old_str": "très bon", "new_str": "délicieux", "expected_hash": read["content_hash"]}

    structured(await client.call_tool("edit_file", arguments))

    assert (root / "fr.txt").read_bytes() == latin1.replace(b"tr\xe8s bon", b"d\xe9licieux")


async def test_multi_edit_with_edits_json_as_a_string_edits_a_cp1252_file_in_place(client: Client, root: Path) -> None:
    raw = "Prix : 5 €\r\nQualité : bonne\r\n".encode("cp1252")
    (root / "prix.txt").write_bytes(raw)
    edits = json.dumps([{"old_str": "5 €", "new_str": "7 €"}, {"old_text": "bonne", "new_text": "très bonne"}])

    structured(await client.call_tool("multi_edit", {"path": "prix.txt", "edits_json": edits}))

    assert (root / "prix.txt").read_bytes() == raw.replace(b"5 \x80", b"7 \x80").replace(b"bonne", b"tr\xe8s bonne")


async def test_write_file_with_path_and_content_over_a_cp1251_file_keeps_it_cp1251(client: Client, root: Path) -> None:
    (root / "ru.txt").write_bytes("Привет, мир!\n".encode("cp1251"))

    structured(await client.call_tool("write_file", {"path": "ru.txt", "content": "Пока, мир!\n"}))

    assert (root / "ru.txt").read_bytes() == "Пока, мир!\n".encode("cp1251")


async def test_get_file_info_with_the_seeds_path_names_the_encoding(client: Client, latin1: bytes) -> None:
    data = structured(await client.call_tool("get_file_info", {"path": "fr.txt"}))

    assert (data["encoding"], data["size"]) == ("cp1252", len(latin1))


async def test_search_files_with_include_content_finds_an_accented_word_in_a_latin1_file(
    client: Client, root: Path, latin1: bytes
) -> None:
    arguments = {"path": str(root), "pattern": "déjà", "include_content": True}

    data = structured(await client.call_tool("search_files", arguments))

    assert [(m["line_number"], m["line_content"]) for m in data["matches"]] == [(1, "Le café est très bon, déjà vu.")]
    assert (root / "fr.txt").read_bytes() == latin1
