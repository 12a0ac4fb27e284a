"""An old_text the file holds in another Unicode form (NFC against NFD) is refused with what differs, and the
escaped spelling the refusal shows is one that edits the file: only those bytes change."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import unicodedata
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from fsguard.core.editing import EditOptions
from fsguard.core.errors import NoMatchError
from fsguard.core.matching import Replacement
from fsguard.core.modes import replace
from fsguard.core.unicodeforms import other_form
from tests.core.test_editing_properties import services_for
from tests.strategies import Encoding, accented_words, encodings

_SHOWN = re.compile(r'^ +(\d+): (".*")$', re.MULTILINE)


@given(
    word=accented_words(),
    encoding=encodings(),
    file_form=st.sampled_from(["NFC", "NFD"]),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_an_old_text_in_the_other_unicode_form_is_refused_byte_identical_and_its_shown_escapes_edit_the_span(
    word: str, encoding: Encoding, file_form: Literal["NFC", "NFD"], ending: str
) -> None:
    old_form: Literal["NFC", "NFD"] = "NFD" if file_form == "NFC" else "NFC"
    in_file = unicodedata.normalize(file_form, word)
    typed = unicodedata.normalize(old_form, word)
    if in_file == typed:  # a Hangul syllable alone composes back the same way: no other form to type
        return
    text = ending.join(["first line", f"say {in_file} here\t ", "last"]) + ending
    base = Path(tempfile.mkdtemp())
    try:
        services = services_for(base)
        target = base / "root" / "f.txt"
        original = encoding.encode(text)
        target.write_bytes(original)
        note(repr((text, typed)))

        with pytest.raises(NoMatchError) as refused:
            services.editor.run(
                str(target),
                replace(Replacement(typed, "X"), tolerant=False, path=str(target)),
                EditOptions(tool="test"),
            )

        assert target.read_bytes() == original
        assert refused.value.fields["line"] == 2
        assert refused.value.fields["unicode_form"] == file_form
        assert 'mode="replace_range", start_line=2, end_line=2' in refused.value.message
        ((number, shown),) = _SHOWN.findall(refused.value.message)
        assert number == "2"
        assert json.loads(shown) == f"say {in_file} here\t "
        quoted = json.loads(shown)[len("say ") : -len(" here\t ")]
        services.editor.run(
            str(target), replace(Replacement(quoted, "X"), tolerant=False, path=str(target)), EditOptions(tool="test")
        )
        assert target.read_bytes() == original.replace(
            encoding.encode(in_file)[len(encoding.bom) :], encoding.encode("X")[len(encoding.bom) :]
        )
    finally:
        shutil.rmtree(base)


@pytest.mark.parametrize(
    ("text", "old"),
    [
        pytest.param("cafe\u0301\n", "cafe", id="a-letter-before-its-combining-mark-is-no-letter"),
        pytest.param("caf\u00e9\n", "cafe", id="a-composed-letter-holds-no-ascii-base"),
        pytest.param("caf\u00e9\n", "naive", id="nothing-alike"),
        pytest.param("plain ascii\n", "ascii!", id="both-composed-already"),
    ],
)
def test_no_other_form_is_claimed_where_the_text_differs_by_more_than_its_form(text: str, old: str) -> None:
    assert other_form(text, old) is None


def test_the_other_form_spans_the_lines_old_text_spans_whatever_their_endings() -> None:
    text = "a\r\nb cafe\u0301\r\nre\u0301sume\u0301 c\r\nd\r\n"

    found = other_form(text, "caf\u00e9\nr\u00e9sum\u00e9")

    assert found is not None
    assert (found.first_line, found.last_line, found.file_decomposed) == (2, 3, True)


def test_a_text_over_the_looked_at_size_is_not_composed_for_a_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    # Composing a 45 MB file took 7-13 s on a failed edit: a large file gets the closest lines alone.
    text = "x\n" * 10 + "cafe\u0301\n"
    assert other_form(text, "caf\u00e9") is not None
    monkeypatch.setattr("fsguard.core.unicodeforms.LOOKED_AT", len(text) - 1)
    assert other_form(text, "caf\u00e9") is None
