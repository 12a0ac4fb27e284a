"""Encodings of text files: the names an agent may write in, and the legacy code page of bytes that are not UTF-8.

Reading a legacy file (:func:`legacy_codec`): charset-normalizer proposes code pages, but on the few dozen bytes
of a short file it has no language evidence and its first guess is close to arbitrary (``café`` in Latin-1 comes
out Big5, ``très`` Baltic). So each candidate reading is also judged as a person would see it (:func:`oddness`),
and Western text keeps its cp1252 reading unless that reading is visibly wrong and another is not:

1. The Western reading (cp1252; Latin-1 when a byte is one cp1252 leaves undefined) wins when at most
   ``_TOLERANCE`` of its non-ASCII characters look odd.
2. Otherwise other readings compete: the regional code pages (Windows Cyrillic, Simplified Chinese, Japanese,
   Korean, Traditional Chinese, KOI8-R, in that order), and charset-normalizer's candidates where it found a
   language or less mess than in the Western reading; ASCII supersets only. One at most a third as odd as the
   Western reading (or within the tolerance) replaces it: the least odd (within the tolerance, all alike), then
   the earliest whose coherence (charset-normalizer's language evidence, real on longer text) is near the best.
3. The winner must give back the exact bytes when its text is encoded again, or the next one is taken; Latin-1
   always does, so any bytes read as text (binary files are told apart before, by a NUL byte).

Short text is where this stays a guess: a lone word in Cyrillic capitals or in Hangul reads as Chinese, a lone
word made only of accented letters (``àéè``) as Cyrillic, a lone Cyrillic letter as an accented Latin one.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from fsguard.core.errors import InvalidParamsError
from fsguard.core.oserrors import shorten

if TYPE_CHECKING:
    import charset_normalizer

_EXAMPLES = "Use a text encoding such as utf-8, utf-16-le, cp1252 or latin-1, or encoding='base64' for raw bytes."
# Text codecs by Python's flag that still cannot hold a file: 'undefined' refuses every string, and
# 'idna' encodes host names (it raises on an empty label, so on ordinary text like "a..b").
_NOT_FOR_FILES = frozenset({"undefined", "idna"})


def text_codec(name: str) -> str:
    """The canonical codecs name of the text encoding ``name`` (``latin-1`` → ``iso8859-1``).

    Raises:
        InvalidParamsError: ``name`` is no codec Python knows, or one that is not a text encoding
            (bytes-to-bytes codecs such as base64_codec, hex, zlib, bz2, uu, quopri; rot13 is str-to-str).
    """
    shown = shorten(name, 60)
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError) as exc:  # ValueError: e.g. an embedded NUL
        raise InvalidParamsError(f"unknown encoding {shown!r}. {_EXAMPLES}", encoding=shown) from exc
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_FOR_FILES:
        raise InvalidParamsError(
            f"{shown!r} names Python's {info.name} codec, not a text encoding a file can be written in. {_EXAMPLES}",
            encoding=shown,
        )
    return info.name


# --- legacy code pages --------------------------------------------------------------------------------------------

_WESTERN = ("cp1252", "iso8859-1")
# Each with the codecs that read the same text, the one to report first; the next is tried when a file's text does
# not encode back to its bytes (cp932 reads both NEC and IBM copies of a kanji, and writes back one of them).
_REGIONAL = (
    ("cp1251",),
    ("gb18030",),
    ("cp932", "shift_jis", "shift_jis_2004"),
    ("cp949", "euc_kr"),
    ("big5", "cp950", "big5hkscs"),
    ("koi8_r",),
)
_TOLERANCE = 0.1
_SAMPLE_BYTES = 8 * 1024
_LEAD_BYTES = 256  # of the ASCII before the first byte past it, kept in the sample: the words around it
_NON_ASCII = re.compile(rb"[\x80-\xff]")
_CANDIDATES_ASKED = 6
_COHERENCE_MARGIN = 0.2
_ASCII = bytes(range(128))


@dataclass(frozen=True)
class _Reading:
    """One way to read the bytes: codec names that decode them alike (the first preferred) and its scores."""

    names: tuple[str, ...]
    oddness: float
    mess: float
    coherence: float
    rank: int

    @property
    def key(self) -> tuple[float, float, int]:
        return (0.0 if self.oddness <= _TOLERANCE else self.oddness, -self.coherence, self.rank)


def legacy_codec(body: bytes) -> str:
    """The canonical codecs name to read ``body`` (text that is not UTF-8, BOM removed) in, by the rules of the
    module docstring."""
    sample, partial = _sample(body)
    # A byte cp1252 leaves undefined (it then reads as Latin-1, which maps every byte) is half odd: a stray one in
    # Western text changes nothing, but it is the lead byte of many a Shift-JIS or GBK character.
    text = sample.decode("cp1252", "surrogateescape")
    western = _Reading(_WESTERN, oddness(text, "cp1252"), _mess(sample.decode("cp1252", "ignore")), 0.0, 0)
    ordered = [western]
    if western.oddness > _TOLERANCE:
        import charset_normalizer  # here, not at the top: start-up never pays for it

        matches = list(charset_normalizer.from_bytes(sample))[:_CANDIDATES_ASKED]
        bar = max(_TOLERANCE, western.oddness / 3)
        others = _ranked(
            reading for reading in _readings(sample, partial, matches, western.mess) if reading.oddness <= bar
        )
        ordered = others + ordered
    for reading in ordered:
        for name in reading.names:
            if _round_trips(body, name):
                return name
    return _WESTERN[-1]  # not reached: Latin-1, the last Western name, maps every byte to itself


def _ranked(readings: Iterable[_Reading]) -> list[_Reading]:
    """Best first: the least odd (within the tolerance, all alike); among those, the earliest whose coherence is
    within ``_COHERENCE_MARGIN`` of the best (charset-normalizer's coherence is noisy: a Mac code page that
    misreads one capital letter can score above the Windows code page that reads them all)."""
    remaining = sorted(readings, key=lambda reading: reading.key)
    ordered: list[_Reading] = []
    while remaining:
        best = remaining[0]
        close = [
            reading
            for reading in remaining
            if reading.key[0] == best.key[0] and reading.coherence >= best.coherence - _COHERENCE_MARGIN
        ]
        chosen = min(close, key=lambda reading: reading.rank)
        ordered.append(chosen)
        remaining.remove(chosen)
    return ordered


def _sample(body: bytes) -> tuple[bytes, bool]:
    """The bytes judged: up to ``_SAMPLE_BYTES`` from a little before the first byte past ASCII, ending after a line
    break when cut short (no multi-byte code page here uses the byte 0A inside a character); whether it is cut short.
    ASCII reads alike in every code page judged, so the bytes before tell nothing: a Shift-JIS file under an 8 KiB
    ASCII header was judged on the header alone, and read as cp1252. The sample starts at an ASCII byte, which in
    every code page judged begins a character, as no byte past ASCII comes before it."""
    found = _NON_ASCII.search(body)
    start = 0 if found is None else max(body.rfind(b"\n", 0, found.start()) + 1, found.start() - _LEAD_BYTES)
    sample = body[start : start + _SAMPLE_BYTES]
    if start + len(sample) >= len(body):
        return sample, False
    end = sample.rfind(b"\n")
    return (sample[: end + 1] if end > 0 else sample), True


def _readings(
    sample: bytes, partial: bool, matches: list[charset_normalizer.CharsetMatch], western_mess: float
) -> Iterator[_Reading]:
    """The readings that compete with the Western one: the regional code pages, then charset-normalizer's
    candidates where it found a language (coherence) or less mess than in the Western reading. Each must be a
    superset of ASCII and decode ``sample``."""
    coherence: dict[str, float] = {}
    for match in matches:
        for name in match.could_be_from_charset:
            coherence.setdefault(_canonical(name), match.coherence)
    seen = set(_WESTERN)
    for rank, group in enumerate([*_REGIONAL, *(match.could_be_from_charset for match in matches)], 1):
        names = tuple(name for name in dict.fromkeys(map(_canonical, group)) if _extends_ascii(name))
        if names and not seen.intersection(names):
            seen.update(names)
            reading = _reading(names, rank, sample, partial, coherence)
            if reading is not None and (rank <= len(_REGIONAL) or reading.coherence or reading.mess < western_mess):
                yield reading


def _reading(
    names: tuple[str, ...], rank: int, sample: bytes, partial: bool, coherence: dict[str, float]
) -> _Reading | None:
    """``sample`` read with the first of ``names`` that decodes it, judged; None when none does."""
    for name in names:
        try:
            # Incremental, so that a character cut at the end of a partial sample is left out, not an error.
            text = codecs.getincrementaldecoder(name)().decode(sample, final=not partial)
        except UnicodeError:
            continue
        mess = _mess(text)
        return _Reading(names[names.index(name) :], oddness(text, name), mess, coherence.get(name, 0.0), rank)
    return None


def _mess(text: str) -> float:
    """charset-normalizer's mess ratio of ``text``."""
    from charset_normalizer.md import mess_ratio  # here, not at the top: start-up never pays for it

    return float(mess_ratio(text, 1.0))


def _canonical(name: str) -> str:
    return codecs.lookup(name).name


@lru_cache(maxsize=256)
def _extends_ascii(name: str) -> bool:
    """Whether ``name`` reads ASCII bytes as ASCII, as every file fsguard treats as text does (not EBCDIC, UTF-16)."""
    try:
        return _ASCII.decode(name) == _ASCII.decode("ascii")
    except UnicodeDecodeError:
        return False


def _round_trips(body: bytes, name: str) -> bool:
    try:
        return body.decode(name).encode(name) == body
    except UnicodeError:
        return False


# --- what looks odd -----------------------------------------------------------------------------------------------

# A word holding a non-ASCII letter (digits and underscores end words); a non-ASCII character that is no letter.
_FOREIGN_WORD = re.compile(r"[^\W\d_]*[^\W\d_\x00-\x7f][^\W\d_]*")
_FOREIGN_SIGN = re.compile(r"[^\w\s\x00-\x7f]|[\x80-\x9f]")
# ASCII control characters that text files do not hold (tab, line and page breaks, and escape they do).
_ASCII_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
# Ideographs with a space between them: Korean spaces its words, Chinese and Japanese do not.
_SPACED_IDEOGRAPHS = re.compile(r"(?<=[\u3400-\u9fff]) +(?=[\u3400-\u9fff])")
# Signs found between two letters of ordinary text: apostrophes and the Catalan middle dot.
_JOINERS = frozenset("\u2019\u2018\u00b7")
# Letters that no Western word uses: ƒ is the lead byte of Shift-JIS katakana read as cp1252.
_ODD_LETTERS = frozenset("\u0192")
_LATIN_SIGNS = frozenset("ªºµ")  # ordinal indicators and micro: letters by category, Western by use
_SCRIPTS = {
    "LATIN": "latin",
    "CYRILLIC": "cyrillic",
    "GREEK": "greek",
    "CJK": "cjk",
    "HIRAGANA": "cjk",
    "KATAKANA": "cjk",
    "KATAKANA-HIRAGANA": "cjk",
    "FULLWIDTH": "cjk",
    "IDEOGRAPHIC": "cjk",
    "HANGUL": "hangul",
    "HALFWIDTH": "halfwidth",
}
_CLOSING = frozenset({"Pe", "Pf", "Po"})
_OPENING = frozenset("¡¿")  # Spanish opens questions and exclamations
_CASED = frozenset({"latin", "cyrillic", "greek"})
_WITH_ASCII = frozenset({"ascii", "latin", "cjk"})
# Which national set's common tier judges an ideograph, by the codec that produced it.
_TIERS = (
    (("gb", "hz"), "gb2312"),
    (("big5", "cp950"), "big5"),
    (("cp932", "shift_jis", "euc_j", "iso2022_jp"), "shift_jis"),
)


def oddness(text: str, codec: str = "") -> float:
    """The share of the non-ASCII characters of ``text`` (read with ``codec``) a reader would find out of place:
    letters of two scripts in one word, Latin words without an ASCII letter, Cyrillic or Greek words in broken
    case, ideographs outside the common tier of ``codec``'s character set, Hangul outside KS X 1001, half-width
    katakana, ideographs spaced like Korean words, control characters, and signs crowded between letters."""
    controls = len(_ASCII_CONTROLS.findall(text))
    foreign = len(text) - len(text.encode("ascii", "ignore")) + controls
    if not foreign:
        return 0.0
    charset = next((name for prefixes, name in _TIERS if codec.startswith(prefixes)), "")
    odd = sum(_odd_letters(word.group(), charset) for word in _FOREIGN_WORD.finditer(text))
    odd += sum(_odd_sign(text, sign.start()) for sign in _FOREIGN_SIGN.finditer(text))
    odd += len(_SPACED_IDEOGRAPHS.findall(text)) + controls
    return min(odd / foreign, 1.0)


def _odd_letters(word: str, charset: str) -> float:
    letters = [_letter(char, charset) for char in word]
    kinds = {script for script, _odd in letters}
    foreign = sum(1 for script, _odd in letters if script != "ascii")
    if len(kinds - {"ascii"}) > 1 or ("ascii" in kinds and not kinds <= _WITH_ASCII):
        return foreign  # two scripts in one word
    if kinds == {"latin"} and len(word) > 1:
        return foreign / 2  # Western words are mostly ASCII letters (a weaker sign than two scripts)
    if kinds & _CASED and "ascii" not in kinds and len(word) > 1:
        if not (word.islower() or word.isupper() or word.istitle()):
            return foreign
        if word.isupper():
            return foreign / 2  # an acronym, or another script's capitals
    return sum(odd for _script, odd in letters)


@lru_cache(maxsize=16384)
def _letter(char: str, charset: str) -> tuple[str, float]:
    """The script of the letter ``char`` (by the first word of its Unicode name), and how odd it is in a text read
    through ``charset``: 1 for a letter that text would not hold, 1/2 for one outside the common tier."""
    if char.isascii():
        return "ascii", 0.0
    if char in _LATIN_SIGNS:
        return "latin", 0.0
    name = unicodedata.name(char, "?")
    script = _SCRIPTS.get(name.split(" ", 1)[0], "other")
    if script == "cjk":
        if name.startswith(("HIRAGANA", "KATAKANA")):  # kana are Japanese: a Chinese reading with them is wrong
            return script, float(charset in ("gb2312", "big5"))
        return script, float(name.startswith("CJK") and not _common_ideograph(char, charset))
    if script == "hangul":  # KS X 1001 holds the 2,350 common syllables (Python composes others in 8 bytes)
        return script, float(len(_encoded(char, "euc_kr")) != 2)
    if script == "cyrillic":  # beyond Russian's 33 letters: Ukrainian, Belarusian, Serbian, Macedonian ones
        return script, 0.0 if "\u0410" <= char <= "\u044f" or char in "Ёё" else 0.5
    return script, float(script == "halfwidth" or char in _ODD_LETTERS)


def _odd_sign(text: str, at: int) -> float:
    """1 for a control character, or a sign that neither stands apart nor joins as punctuation does."""
    char = text[at]
    if "\udc80" <= char <= "\udcff":
        return 0.5  # a byte the code page leaves undefined, escaped
    category = unicodedata.category(char)
    if category in ("Cc", "Co", "Cn", "Cs") or char == "\ufffd":
        return 1.0
    if "\u3000" <= char <= "\u303f" or "\uff00" <= char <= "\uff60" or "\uffe0" <= char <= "\uffef":
        return 0.0  # CJK and fullwidth punctuation sit between ideographs (half-width katakana's do not count)
    before = text[at - 1] if at else " "
    after = text[at + 1] if at + 1 < len(text) else " "
    if before.isspace() or after.isspace():
        return 0.0
    if category == "Pd" or char in _JOINERS:  # apostrophes, middle dots and dashes join letters or digits
        return 0.0 if before.isalnum() and after.isalnum() else 1.0
    if before.isalpha() and after.isalpha():
        return 1.0
    if category in ("Ps", "Pi") or char in _OPENING:  # opening: («x, (“x, .¿x
        return 0.0 if after.isalnum() and before.isascii() else 1.0
    # closing marks and other signs: x”, x»), x…», 5€/, m², 25°C
    return 0.0 if before.isalnum() and (after.isascii() or unicodedata.category(after) in _CLOSING) else 1.0


@lru_cache(maxsize=8192)
def _common_ideograph(char: str, charset: str) -> bool:
    """In the common tier of ``charset`` (any of the three when empty): GB2312 level 1 (lead bytes B0-D7), Big5's
    frequent characters (lead bytes A4-C6), JIS X 0208 level 1 (Shift-JIS below 98 73). Mojibake lands mostly on
    the rare tiers or outside."""
    gb = _encoded(char, "gb2312") if charset in ("", "gb2312") else b""
    big5 = _encoded(char, "big5") if charset in ("", "big5") else b""
    jis = _encoded(char, "shift_jis") if charset in ("", "shift_jis") else b""
    return (gb > b"" and gb[0] < 0xD8) or (big5 > b"" and 0xA4 <= big5[0] <= 0xC6) or b"" < jis < b"\x98\x73"


@lru_cache(maxsize=8192)
def _encoded(char: str, name: str) -> bytes:
    try:
        return char.encode(name)
    except UnicodeEncodeError:
        return b""


def bomless_utf16(data: bytes) -> str:
    """What to tell of a binary file whose first 8 KiB read as UTF-16 text without a byte-order mark (mostly
    ASCII, a NUL beside each letter), which is read as text only with one: the encoding to decode its bytes in."""
    body = data[: min(len(data), 8192) // 2 * 2]
    for encoding, highs in (("utf-16-le", body[1::2]), ("utf-16-be", body[0::2])):
        if len(body) < 4 or highs.count(0) < len(highs) * 0.75:
            continue
        try:
            text = body[:-2].decode(encoding)  # its last two bytes may be half a surrogate pair the cut split
        except UnicodeDecodeError:
            continue
        if not _UTF16_CONTROLS.search(text):
            return f" (it looks like {encoding} text without a byte-order mark; decode the bytes as {encoding})"
    return ""


_UTF16_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
