# ruff: noqa: E501
"""Snapshots of the text blocks of media reads and write_file append, in both voices.

The rig, the normalisation and how to update the snapshots are those of ``tests/tools/test_texts_snapshot.py``.
"""

from __future__ import annotations

import pytest
from inline_snapshot import snapshot

from tests import media_samples
from tests.tools.test_texts_snapshot import Rig, anyio_backend, rig

__all__ = ["anyio_backend", "rig"]  # the shared rig's fixtures, used here by name

pytestmark = pytest.mark.anyio


async def test_read_file_of_an_image_names_its_type_size_and_the_block(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("logo.png")), files={"logo.png": media_samples.png(40, 30)}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Image logo.png: image/png 40x30, 98 B, hash 3ef61129. The image is in the next content block.\
""",
            "compact": """\
ok
IMAGE logo.png | image/png 40x30 | 98 B | hash 3ef61129\
""",
        }
    )


async def test_read_file_of_audio_names_its_type(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("read_file", path=c.rel("v.wav")), files={"v.wav": media_samples.wav()})
    assert texts == snapshot(
        {
            "verbose": """\
ok
Audio v.wav: audio/wav, 444 B, hash 3b4d4545. The audio is in the next content block.\
""",
            "compact": """\
ok
AUDIO v.wav | audio/wav | 444 B | hash 3b4d4545\
""",
        }
    )


async def test_read_file_of_an_image_over_the_budget_says_it_is_linked_and_why(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("big.png")),
        files={"big.png": media_samples.png(8, 8)},
        fresh=True,
        max_media_bytes=10,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Image big.png: image/png 8x8, 75 B, hash 8ca18284.
[big.png (75 B) is above the media budget (--max-media-bytes 10), so it is linked, not inlined. encoding='base64' returns its bytes as text]\
""",
            "compact": """\
ok
IMAGE big.png | image/png 8x8 | 75 B | hash 8ca18284 | linked file://<root>/big.png (over --max-media-bytes)\
""",
        }
    )


async def test_read_file_of_a_line_range_of_an_image_is_refused(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("p.png"), start_line=1, end_line=3),
        files={"p.png": media_samples.png(2, 2)},
    )
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
p.png is image/png (image): it is read whole, as an image block. Drop start_line and end_line, or read the raw bytes with encoding='base64'.\
"""
        }
    )


async def test_write_file_append_says_what_it_added_and_how_to_undo(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("write_file", path=c.rel("log.txt"), content="second\n", append=True),
        files={"log.txt": "first\n"},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Appended to log.txt (+7 bytes, now 13 bytes, utf-8), verified, hash 01496e49.
Undo: backup(action="undo_last", file_path="log.txt") · backup <backup_id:1>\
""",
            "compact": """\
ok
APPENDED log.txt | +7B -> 13B | hash 01496e49 | undo:<backup_id:1>\
""",
        }
    )


async def test_write_file_append_to_a_file_without_a_final_newline_says_a_line_break_was_added(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("write_file", path=c.rel("log.txt"), content="second\n", append=True),
        files={"log.txt": "first"},
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Appended to log.txt (+8 bytes, now 13 bytes, utf-8), verified, hash 01496e49. Its last line had no line break, so one was added before the text.
Undo: backup(action="undo_last", file_path="log.txt") · backup <backup_id:1>\
""",
            "compact": """\
ok
APPENDED log.txt | +8B -> 13B | line break added first (the file ended with no line break) | hash 01496e49 | undo:<backup_id:1>\
""",
        }
    )


async def test_write_file_append_to_a_missing_file_says_created(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("write_file", path=c.rel("new.md"), content="- a\n", append=True))
    assert texts == snapshot(
        {
            "verbose": """\
ok
Created new.md (4 bytes, utf-8), verified, hash c07f4893.\
""",
            "compact": """\
ok
CREATED new.md | +4B -> 4B | hash c07f4893\
""",
        }
    )


async def test_write_file_append_of_nothing_says_unchanged(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("write_file", path=c.rel("log.txt"), content="", append=True), files={"log.txt": "first\n"}
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Nothing to append: content is empty; log.txt is unchanged (hash 6f677e11).\
""",
            "compact": """\
ok
UNCHANGED log.txt | +0B -> 6B | hash 6f677e11\
""",
        }
    )


async def test_read_file_of_an_image_above_the_file_size_limit_names_that_limit(rig: Rig) -> None:
    texts = await rig.texts(
        lambda c: c.call("read_file", path=c.rel("big.png")),
        files={"big.png": media_samples.png(8, 8)},
        fresh=True,
        max_file_size=10,
    )
    assert texts == snapshot(
        {
            "verbose": """\
ok
Image big.png: image/png 8x8, 75 B, not hashed (above --max-file-size).
[big.png (75 B) is above the 10-byte limit (--max-file-size), so it is linked, not inlined: no read loads it whole. To read its bytes, ask the user to restart fsguard with a larger --max-file-size]\
""",
            "compact": """\
ok
IMAGE big.png | image/png 8x8 | 75 B | not hashed (above --max-file-size) | linked file://<root>/big.png (over --max-file-size)\
""",
        }
    )
