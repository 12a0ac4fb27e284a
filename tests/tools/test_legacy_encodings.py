"""Legacy encodings read right: Western text in Latin-1/cp1252, Shift-JIS, GB18030 and cp1251 files is read as a
person would read it, found by search, and edited in place, leaving the file in its encoding with only the edit's
bytes changed. Every test runs in both protocol eras and checks the bytes on disk."""

# The samples are foreign text on purpose: Cyrillic letters, typographic quotes and dashes, fullwidth punctuation.
# ruff: noqa: RUF001

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.hashing import content_hash
from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

WESTERN = "cp1252"  # reported for Latin-1 too: cp1252 reads every Latin-1 text byte the same, and adds € œ “ ”

SAMPLES = [
    pytest.param(
        "Le café est très bon, déjà vu.\r\nOù est l'hôtel ? À côté.\r\n", "latin-1", WESTERN, id="french-latin1"
    ),
    pytest.param("« Œuvre » : le cœur coûte 5 € — c’est “l’été”.\n", "cp1252", WESTERN, id="french-cp1252"),
    pytest.param("Größe und Gemütlichkeit: Straße, Äpfel, Öl, Übung.\n", "latin-1", WESTERN, id="german-latin1"),
    pytest.param("Schöne Grüße – „Müller“ zahlt 3 € für’s Bier.\n", "cp1252", WESTERN, id="german-cp1252"),
    pytest.param("¿Dónde está el niño? ¡Mañana será otro día!\n", "latin-1", WESTERN, id="spanish-latin1"),
    pytest.param("El señor dijo: “¿Qué pasa?” … cuesta 10 €.\n", "cp1252", WESTERN, id="spanish-cp1252"),
    pytest.param("日本語のテキストです。\nこんにちは、世界！\n", "shift_jis", "cp932", id="japanese-shift-jis"),
    pytest.param("中文文本测试，你好世界。\n这是一个例子。\n", "gb18030", "gb18030", id="chinese-gb18030"),
    pytest.param("Привет, мир! Это пример текста.\nСъешь ещё этих булок.\n", "cp1251", "cp1251", id="russian-cp1251"),
]

ONE_LINERS = [
    pytest.param("café", "latin-1", WESTERN, id="café"),
    pytest.param("Straße", "latin-1", WESTERN, id="Straße"),
    pytest.param("año", "latin-1", WESTERN, id="año"),
    pytest.param("Öl", "latin-1", WESTERN, id="Öl"),
    pytest.param("5 €", "cp1252", WESTERN, id="euro"),
    pytest.param("Привет", "cp1251", "cp1251", id="Привет"),
    pytest.param("Привет, мир!", "cp1251", "cp1251", id="Привет-мир"),
    pytest.param("こんにちは", "shift_jis", "cp932", id="こんにちは"),
    pytest.param("東京", "shift_jis", "cp932", id="東京"),
    pytest.param("中文", "gb18030", "gb18030", id="中文"),
    pytest.param("你好，世界", "gb18030", "gb18030", id="你好世界"),
]


def _edited(original: bytes, old: bytes, new: bytes) -> bytes:
    """``original`` with its one occurrence of ``old`` replaced by ``new``: the bytes an exact edit must leave."""
    assert original.count(old) == 1
    return original.replace(old, new)


@pytest.mark.parametrize(("text", "codec", "reported"), SAMPLES + ONE_LINERS)
async def test_a_legacy_file_reads_as_its_text_in_the_encoding_it_is_in(
    client: Client, root: Path, text: str, codec: str, reported: str
) -> None:
    raw = text.encode(codec)
    (root / "legacy.txt").write_bytes(raw)

    data = structured(await client.call_tool("read_file", {"path": "legacy.txt"}))

    assert (data["content"], data["encoding"]) == (text, reported)
    assert data["content_hash"] == content_hash(raw)
    assert (root / "legacy.txt").read_bytes() == raw


HEADER = "# an ASCII licence header, as source files carry, longer than the sample judged (8 KiB)\n" * 150


@pytest.mark.parametrize(("text", "codec", "reported"), SAMPLES)
async def test_a_legacy_file_under_a_long_ascii_header_reads_and_is_found_in_its_encoding(
    client: Client, root: Path, text: str, codec: str, reported: str
) -> None:
    # The encoding was judged on the first 8 KiB, all ASCII here: every such file read as cp1252.
    raw = (HEADER + text).encode(codec)
    (root / "legacy.txt").write_bytes(raw)

    data = structured(await client.call_tool("read_file", {"path": "legacy.txt"}))
    word = text.split()[1].strip(",.:!?、。，")
    found = structured(
        await client.call_tool("search_files", {"pattern": word, "include_content": True, "literal": True})
    )

    assert (data["content"], data["encoding"]) == (HEADER + text, reported)
    assert found["total_matches"] >= 1
    assert (root / "legacy.txt").read_bytes() == raw


async def test_the_latin1_edit_leaves_a_latin1_file_whose_only_changed_bytes_are_the_edit(
    client: Client, root: Path
) -> None:
    original = "Le café est très bon, déjà vu.\r\nÇa coûte cher.\r\nÀ bientôt !\r\n".encode("latin-1")
    (root / "fr.txt").write_bytes(original)

    result = await client.call_tool("edit_file", {"path": "fr.txt", "old_text": "très bon", "new_text": "délicieux"})

    structured(result)
    after = (root / "fr.txt").read_bytes()
    assert after == _edited(original, "très bon".encode("latin-1"), "délicieux".encode("latin-1"))
    start = original.index(b"tr\xe8s")
    assert after[:start] == original[:start]
    assert after[start:].endswith(original[start + len(b"tr\xe8s bon") :])
    assert after.decode("latin-1") == "Le café est délicieux, déjà vu.\r\nÇa coûte cher.\r\nÀ bientôt !\r\n"


@pytest.mark.parametrize(
    ("text", "codec", "old", "new"),
    [
        pytest.param("Größe: 3 Äpfel, schön.\n", "latin-1", "schön", "schöner", id="german-latin1"),
        pytest.param("« Le cœur » coûte 5 €.\n", "cp1252", "5 €", "7 € – “cher”", id="cp1252-only-signs"),
        pytest.param("¿Dónde está el niño?\n", "latin-1", "niño", "señor", id="spanish-latin1"),
        pytest.param("日本語のテキストです。\n東京\n", "shift_jis", "テキスト", "文書", id="shift-jis"),
        pytest.param("中文文本测试。\n北京\n", "gb18030", "测试", "例子", id="gb18030"),
        pytest.param("Привет, мир!\nМосква\n", "cp1251", "мир", "друг", id="cp1251"),
    ],
)
async def test_an_edit_with_the_right_text_succeeds_and_keeps_the_file_in_its_encoding(
    client: Client, root: Path, text: str, codec: str, old: str, new: str
) -> None:
    original = text.encode(codec)
    (root / "f.txt").write_bytes(original)

    structured(await client.call_tool("edit_file", {"path": "f.txt", "old_text": old, "new_text": new}))

    assert (root / "f.txt").read_bytes() == _edited(original, old.encode(codec), new.encode(codec))


async def test_bytes_cp1252_leaves_undefined_read_as_latin1_and_survive_an_edit(client: Client, root: Path) -> None:
    original = b"Le caf\xe9 est tr\xe8s bon.\r\nodd bytes: \x81 \x8d \x8f \x90 \x9d\r\n"
    (root / "odd.txt").write_bytes(original)

    data = structured(await client.call_tool("read_file", {"path": "odd.txt"}))
    assert data["encoding"] == "iso8859-1"
    assert data["content"] == original.decode("latin-1")
    structured(await client.call_tool("edit_file", {"path": "odd.txt", "old_text": "très bon", "new_text": "bon"}))

    assert (root / "odd.txt").read_bytes() == _edited(original, b"tr\xe8s bon", b"bon")


async def test_multi_edit_on_a_cp1252_file_changes_only_the_edited_bytes(client: Client, root: Path) -> None:
    original = "Prix : 5 €\r\nQualité : “bonne”\r\nDéjà vu\r\n".encode("cp1252")
    (root / "m.txt").write_bytes(original)
    edits = [{"old_text": "5 €", "new_text": "6 €"}, {"old_text": "Déjà vu", "new_text": "Jamais vu"}]

    structured(await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits}))

    assert (root / "m.txt").read_bytes() == original.replace(b"5 \x80", b"6 \x80").replace(b"D\xe9j\xe0", b"Jamais")


async def test_write_file_over_a_latin1_file_writes_latin1(client: Client, root: Path) -> None:
    (root / "w.txt").write_bytes("Grüße aus Köln\n".encode("latin-1"))

    data = structured(
        await client.call_tool("write_file", {"path": "w.txt", "content": "Schöne Grüße aus Düsseldorf\n"})
    )

    assert (root / "w.txt").read_bytes() == "Schöne Grüße aus Düsseldorf\n".encode("latin-1")
    assert data["content_hash"] == content_hash((root / "w.txt").read_bytes())


async def test_a_character_the_legacy_encoding_cannot_hold_is_refused_and_the_file_is_untouched(
    client: Client, root: Path
) -> None:
    original = "Привет, мир!\n".encode("cp1251")
    (root / "ru.txt").write_bytes(original)

    result = await client.call_tool("edit_file", {"path": "ru.txt", "old_text": "мир", "new_text": "世界"})

    assert error_code(result) == "encoding_error"
    assert (root / "ru.txt").read_bytes() == original


async def test_get_file_info_reports_the_legacy_encoding(client: Client, root: Path) -> None:
    (root / "i.txt").write_bytes("Привет, мир!\nЭто пример.\n".encode("cp1251"))

    data = structured(await client.call_tool("get_file_info", {"path": "i.txt"}))

    assert (data["encoding"], data["line_count"]) == ("cp1251", 2)


async def test_read_file_of_a_line_range_in_a_shift_jis_file_gives_those_lines(client: Client, root: Path) -> None:
    text = "一行目です\n二行目です\n三行目です\n"
    (root / "j.txt").write_bytes(text.encode("shift_jis"))

    data = structured(await client.call_tool("read_file", {"path": "j.txt", "start_line": 2, "end_line": 2}))

    assert data["content"].rstrip("\n") == "二行目です"
    assert (root / "j.txt").read_bytes() == text.encode("shift_jis")


async def test_search_files_finds_an_accented_word_in_a_latin1_file(client: Client, root: Path) -> None:
    raw = "Le café est très bon.\nDéjà vu.\n".encode("latin-1")
    (root / "fr.txt").write_bytes(raw)

    data = structured(await client.call_tool("search_files", {"pattern": "très", "include_content": True}))

    assert [(m["file"], m["line_number"], m["line_content"]) for m in data["matches"]] == [
        (str(root / "fr.txt"), 1, "Le café est très bon.")
    ]
    assert (root / "fr.txt").read_bytes() == raw


async def test_project_replace_refuses_before_any_write_when_one_file_cannot_store_the_replacement(
    client: Client, root: Path, tool_engine: str
) -> None:
    files = {
        "a.txt": b"foo one\n",
        "b.txt": "café foo\n".encode("latin-1"),
        "c.txt": b"foo three\n",
    }
    for name, data in files.items():
        (root / name).write_bytes(data)

    for preview in (True, False):
        args = {"find": "foo", "replace": "İ", "preview": preview}
        result = await client.call_tool("project_replace", args)

        assert error_code(result) == "encoding_error"
        assert "b.txt" in text_of(result)
        assert "exclude_paths" in text_of(result)
        assert {name: (root / name).read_bytes() for name in files} == files
    listed = structured(await client.call_tool("backup", {"action": "list"}))
    assert listed["total"] == 0


async def test_a_utf16_file_without_a_bom_is_refused_naming_its_encoding(client: Client, root: Path) -> None:
    raw = "Grüße\r\nzweite Zeile\r\n".encode("utf-16-le")
    (root / "notes.txt").write_bytes(raw)
    result = await client.call_tool("read_file", {"path": "notes.txt"})
    assert error_code(result) == "binary_file"
    assert "it looks like utf-16-le text without a byte-order mark; decode the bytes as utf-16-le" in text_of(result)
    assert (root / "notes.txt").read_bytes() == raw
