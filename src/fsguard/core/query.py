"""A content search's pattern, compiled for both engines: RE2 for the Python engine (and for confirming
ripgrep's lines), and the Rust-regex spelling ripgrep reads the same way; and the order in which matches on a
line are found, as ripgrep finds them. The rules themselves are listed in :mod:`fsguard.core.search`.

Whether a pattern is ``bytewise`` tells the ripgrep engine which files in a legacy code page it must decode and
search itself (:mod:`fsguard.core.haystack`): ripgrep reads their bytes as they are, which a bytewise pattern
matches wherever it matches the decoded text, so among those files only the ones ripgrep counts can match.
Whether it is ``rawwise`` tells a search whether to name the binary files holding a match (:mod:`fsguard.core.search`).
"""

from __future__ import annotations

import re
import re._constants as sre  # type: ignore[import-not-found]  # re's own parser (sre_parse, deprecated so named):
import re._parser as sre_parse  # type: ignore[import-not-found]  # typeshed has no stubs under these names
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fsguard.core.errors import InvalidParamsError
from fsguard.core.patterns import compile_re2

# Rust's Unicode \w (Alphabetic, M, Nd, Pc, Join_Control) as RE2 can spell it; Other_Alphabetic symbols listed.
_WORD = (
    r"\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}"
    r"\x{24B6}-\x{24E9}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189}"
)
_OTHER_ALPHABETIC = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def is_word_char(char: str) -> bool:
    """Whether ``char`` is a word character as :data:`_WORD` (Rust's Unicode ``\\w``) says: an edit's whole_word
    judges its edges as a search's does, so an accent written as a combining mark (e + U+0301) is part of its word."""
    category = unicodedata.category(char)
    if category[0] in "LM" or category in ("Nd", "Nl", "Pc") or char in "\u200c\u200d":
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _OTHER_ALPHABETIC)


# Multi-line whole-file search can miss a line's match only through \A, \z or a flag turned off, e.g. (?-m).
_NO_PREFILTER = re.compile(r"\\[Az]|\(\?[a-zA-Z]*-")
_ASCII_CLASSES = {"w": "0-9A-Za-z_", "d": "0-9", "s": r"\t\n\f\r "}
_ASCII_ESCAPES = frozenset("dsnrtfvaAz")  # escapes that match ASCII or nothing, whatever bytes are around
_FOLDING = frozenset("kKsS")  # case-insensitive, these match U+212A and U+017F too (GB18030 holds both)
_HEX = re.compile(r"\\x(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2}))")
_INLINE_FOLD = re.compile(r"\(\?[a-zA-Z-]*i")
_ESCAPE = re.compile(r"\\(?:[pP](?:\{[^}]*\}|.)|x(?:\{[^}]*\}|[0-9A-Fa-f]{2})|[0-7]{1,3}|.)", re.DOTALL)
_CLASS_ESCAPES = frozenset("dDsSwWpP")  # a class escape: no range can start or end at it
_CARRIAGE_RETURN = re.compile(r"\r|\\(?:r|x0[dD]|x\{0*[dD]\}|0*15)")
_LINE_EDGES = {"^": "(?m:^)", "$": "(?m:$)", r"\A": "(?m:^)", r"\z": "(?m:$)"}


@dataclass(frozen=True)
class Query:
    """A pattern ready for both engines: RE2 regexes over a line's UTF-8 bytes, and ``rust`` for ripgrep."""

    regex: Any  # re2 pattern; the match is group 1 for whole words, else group 0
    rest: Any  # the same, for searches that start past the line's start
    group: int
    prefilter: Any | None  # the same pattern over a whole file, multi-line; None when that could miss a match
    rust: str
    bytewise: bool = False  # every match is ASCII text, found alike in any ASCII-compatible code page's bytes
    # In any bytes (a binary file's) rg finds a match wherever RE2 does: alike, or for whole words more often, as
    # rg reads some undecodable neighbours as no word character, so RE2 has the last word (fsguard.core.search).
    rawwise: bool = False

    @property
    def whole_word(self) -> bool:
        return self.group == 1


def _compile(pattern: str) -> Any:
    """An RE2 regex over UTF-8 bytes (offsets are byte offsets, as ripgrep reports them)."""
    return compile_re2(pattern, as_bytes=True, advice=". Pass literal=true to search plain text.")


def _escape(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" or not ch.isascii() else f"\\x{{{ord(ch):x}}}" for ch in text)


def prepare_query(pattern: str, literal: bool, case_sensitive: bool, whole_word: bool) -> Query:
    """The query for a search's pattern and flags.

    Raises:
        InvalidParamsError: the pattern is empty, holds a line break, or is not valid RE2.
    """
    if not pattern:
        raise InvalidParamsError("the search pattern is empty.")
    breaks = InvalidParamsError("the pattern contains a line break; searches match within one line.")
    if "\n" in pattern or "\r" in pattern:
        raise breaks
    body = _escape(pattern) if literal else pattern
    _compile(body)  # reports the user's own syntax errors, not those of the wrapper below
    if not literal and _names_line_break(body):  # decided here: rg refuses it, and no fallback search runs
        raise breaks
    body = body if literal else word_edges(body)
    flags = "" if case_sensitive else "(?i)"
    if whole_word:
        python = f"{flags}(?:^|[^{_WORD}])({body})(?:[^{_WORD}]|$)"
        rest = f"{flags}[^{_WORD}]({body})(?:[^{_WORD}]|$)"
        rust = rf"{flags}\b{{start-half}}(?:{_to_rust(body)})\b{{end-half}}"
    else:
        python, rust = f"{flags}(?:{body})", f"{flags}(?:{_to_rust(body)})"
        rest = python
    prefilter = None if _NO_PREFILTER.search(body) else _compile("(?m)" + python)
    regex = _compile(python)
    bytewise = not whole_word and _bytewise(body, folds=not case_sensitive)
    rawwise = _bytewise(body, folds=False, code_pages=False)
    group = 1 if whole_word else 0
    return Query(regex, regex if rest == python else _compile(rest), group, prefilter, rust, bytewise, rawwise)


_BREAKS = frozenset((0x0A, 0x0D))
_GROUP_OPENING = re.compile(r"\?(?:[a-zA-Z-]*[:)]|<(?=[^=!]))")  # after "(": flags, or a name RE2 spells (?<name>


def _names_line_break(pattern: str) -> bool:
    """Whether the RE2 ``pattern`` names a line break itself: LF or CR as an escape (``\\n``, ``\\x0a``,
    ``\\x{D}``, ``\\012``) or a class of nothing else (``[\\n]``, ``[\\r\\n]``). No line a search reads holds
    one, and rg refuses them, which made a search re-run in Python and answer no match; ``\\s`` or ``[^a]``, which
    merely could match a break, are searched. Decided on Python's parse of the pattern respelled in Python's
    dialect (close to RE2's); a pattern it cannot read is left to the engines."""
    try:
        parsed = sre_parse.parse(_to_python(pattern))
    except (re.error, OverflowError, RecursionError):
        return False
    return _holds_break(parsed)


def _holds_break(items: Any) -> bool:
    """Whether parsed ``items`` (``op, argument`` pairs) hold a line break literal or a class of only breaks."""
    for op, argument in items:
        if op is sre.LITERAL and argument in _BREAKS:
            return True
        if op is sre.IN and all(_only_breaks(kind, value) for kind, value in argument):
            return True
        if op is sre.BRANCH:
            subs = list(argument[1])
        elif op is sre.IN or not isinstance(argument, tuple):
            subs = [argument] if isinstance(argument, sre_parse.SubPattern) else []
        else:  # a group, a repetition, an assertion: the pattern inside
            subs = [part for part in argument if isinstance(part, sre_parse.SubPattern)]
        if any(_holds_break(sub) for sub in subs):
            return True
    return False


def _only_breaks(kind: Any, value: Any) -> bool:
    if kind is sre.LITERAL:
        return value in _BREAKS
    if kind is sre.RANGE:
        return set(range(value[0], value[1] + 1)) <= _BREAKS
    return False  # a negation or a category: more than line breaks


def _to_python(pattern: str) -> str:
    """The RE2 ``pattern`` respelled for Python's parser where their dialects differ, as far as it decides whether
    it names a line break: hex and octal escapes as characters, ``\\Q…\\E`` escaped, Unicode and POSIX classes
    (never only breaks) as ``\\w``, ``\\z`` and ``\\C`` as ``\\Z`` and ``.``, ``(?<name>`` as ``(?P<name>``,
    no flags (none changes what a break is; Python refuses some RE2 takes: ``U``, a global one mid-pattern), and
    a class's literal ``[ & ~ | -`` escaped."""
    pieces = list(_pieces(pattern))
    hyphens = _range_hyphens(pieces)
    out: list[str] = []
    skip = 0
    for index, (piece, in_class) in enumerate(pieces):
        hexed = _HEX.fullmatch(piece)
        opening = None
        if piece == "(" and not in_class:
            opening = _GROUP_OPENING.match("".join(following for following, _ in pieces[index + 1 : index + 64]))
        if skip:
            skip -= 1
        elif hexed or (piece[:1] == "\\" and piece[1:].isdigit()):
            code = int(hexed.group(1) or hexed.group(2), 16) if hexed else int(piece[1:], 8)
            out.append(f"\\U{code:08x}")
        elif piece.startswith("\\Q"):
            out.append(re.escape(piece[2:].removesuffix(r"\E")))
        elif piece[:2] in (r"\p", r"\P") or piece.startswith("[:"):
            out.append(r"\w")
        elif piece in (r"\z", r"\C"):
            out.append(r"\Z" if piece == r"\z" else ".")
        elif opening:
            head = opening.group()
            out.append("(?P<" if head == "?<" else "(?:" if head.endswith(":") else "")
            skip = len(head)
        elif in_class and piece in ("[", "&", "~", "|", "-") and index not in hyphens:
            out.append("\\" + piece)  # literal in RE2; doubled, Python warns it may read a set operator one day
        else:
            out.append(piece)
    return "".join(out)


def _bytewise(body: str, *, folds: bool, code_pages: bool = True) -> bool:
    """Whether every match of the RE2 pattern ``body`` is ASCII text that depends on nothing but its own characters
    and line breaks, so that in the raw bytes of a file in an ASCII-compatible code page (each ASCII character its
    own byte) it matches wherever it matches the decoded text. It may match more there (an ASCII byte can be the
    second of a Shift-JIS character): that only makes ripgrep count a file that is decoded anyway.

    Conservative, False for anything not known to qualify: ``.``, negated classes, ``\\b`` (a neighbour's last
    byte may be ASCII), Unicode classes, characters past ASCII, and with case folding ``k``, ``s`` or any class.
    Without ``code_pages``, for bytes read as UTF-8 (a binary file's), case folding is no concern: both engines
    fold ``k`` to U+212A and ``s`` to U+017F there alike.
    """
    if not body.isascii() or "[^" in body or ":^" in body:
        return False
    folds = code_pages and (folds or _INLINE_FOLD.search(body) is not None)
    at = 0
    while at < len(body):
        char = body[at]
        if char == "\\" and (hexed := _HEX.match(body, at)):
            value = int(hexed.group(1) or hexed.group(2), 16)
            if value >= 0x80 or (folds and chr(value) in _FOLDING):
                return False
            at = hexed.end()
            continue
        if char == "\\":
            escaped = body[at + 1 : at + 2]
            if escaped.isalnum() and escaped not in _ASCII_ESCAPES and (folds or escaped != "w"):
                return False
            at += 2
            continue
        if char == "." or (folds and (char in _FOLDING or char == "[")):
            return False
        at += 1
    return True


def word_edges(pattern: str) -> str:
    """``pattern`` with GNU grep's word edges ``\\<`` and ``\\>`` (outside a class) read as ``\\b``: ripgrep reads
    them as word edges, RE2 as the characters ``<`` and ``>``; RE2 has no lookaround to tell a word's start from
    its end, so both engines get ``\\b``."""
    return "".join("\\b" if piece in ("\\<", "\\>") and not in_class else piece for piece, in_class in _pieces(pattern))


def names_carriage_return(pattern: str) -> bool:
    """Whether the RE2 ``pattern`` names a carriage return itself: ``\\r``, ``\\x0d``, ``\\015`` or the character."""
    pieces = (piece for piece, _ in _pieces(pattern))
    return any(_CARRIAGE_RETURN.fullmatch(piece) or (piece.startswith("\\Q") and "\r" in piece) for piece in pieces)


def _pieces(pattern: str) -> Iterator[tuple[str, bool]]:
    """The RE2 ``pattern`` in pieces, each with whether it lies inside a class: an escape whole (``\\x{41}``,
    ``\\p{Greek}``, ``\\015``), a ``\\Q…\\E`` span whole, a class's opening (``[``, ``[^``), a ``[:name:]``
    in a class, else one character."""
    in_class = False
    at = 0
    while at < len(pattern):
        ch = pattern[at]
        if ch == "\\" and pattern.startswith("Q", at + 1):
            end = pattern.find(r"\E", at + 2)
            stop = end + 2 if end >= 0 else len(pattern)
        elif ch == "\\":
            escape = _ESCAPE.match(pattern, at)
            stop = escape.end() if escape else len(pattern)
        elif ch == "[" and in_class and pattern.startswith(":", at + 1):
            end = pattern.find(":]", at + 2)
            stop = end + 2 if end >= 0 else len(pattern)
        elif ch == "[" and not in_class:
            stop = at + 1 + pattern.startswith("^", at + 1)
            yield pattern[at:stop], False
            in_class, at = True, stop
            if pattern.startswith("]", at):  # a literal, spelled so: one Rust's range can start at
                yield "\\]", True
                at += 1
            continue
        else:
            stop = at + 1
        yield pattern[at:stop], in_class
        in_class = in_class and pattern[at:stop] != "]"
        at = stop


def _to_rust(pattern: str) -> str:
    """The RE2 ``pattern`` spelled for Rust's regex, which reads some of it otherwise:

    - ``\\w \\d \\s \\b`` (and negations) are ASCII in RE2: rewritten into classes Rust reads the same way; an
      octal escape (``\\015``) is spelled in hex;
    - ``^ $ \\A \\z`` are a line's start and end, whatever the ``m`` flag says: a search matches within one line.
      rg read ``\\A``, ``\\z`` and ``(?-m)`` anchors at the edges of the buffer it searched in, some of the
      file's lines (every line of a CRLF file for ``\\z``, a line every 64 KiB or so for ``\\A``);
    - in a class, ``[``, ``&&``, ``~~`` and ``--`` are nesting and set operators in Rust, literals in RE2: each
      ``-`` that is no range's own is escaped, as are ``[ & ~``.
    """
    out: list[str] = []
    pieces = list(_pieces(pattern))
    hyphens = _range_hyphens(pieces)
    for index, (piece, in_class) in enumerate(pieces):
        if piece.startswith("\\Q"):
            out.append(_escape(piece[2:].removesuffix(r"\E")))
        elif piece[:1] == "\\" and piece[1:].lower() in _ASCII_CLASSES:
            chars = _ASCII_CLASSES[piece[1].lower()]
            negate = "^" if piece[1].isupper() else ""
            out.append(f"[{negate}{chars}]" if negate or not in_class else chars)
        elif piece in (r"\b", r"\B"):
            out.append(f"(?-u:{piece})")
        elif piece[:1] == "\\" and piece[1:].isdigit():
            out.append(f"\\x{{{int(piece[1:], 8):x}}}")  # octal, which Rust reads as a backreference
        elif piece[:1] == "\\" and len(piece) == 2 and piece[1].isascii() and not piece[1].isalnum():
            out.append(_escape(piece[1]))  # Rust reads some (\< \>) as assertions, refused in a class
        elif not in_class and piece in _LINE_EDGES:
            out.append(_LINE_EDGES[piece])
        elif index in hyphens:
            out.append(piece)
        elif in_class and piece in ("[", "&", "~", "-"):
            out.append("\\" + piece)  # literal in RE2, nesting or set operators in Rust
        else:
            out.append(r"\x{0}" if piece == "\0" else piece)  # no process argument can hold a NUL
    return "".join(out)


def _range_hyphens(pieces: list[tuple[str, bool]]) -> set[int]:
    """Where in :func:`_pieces` a ``-`` is a range's own, the class pieces either side its ends; RE2 reads any
    other ``-`` in a class as the character, which Rust and Python may read as a set operator (``--``)."""
    hyphens: set[int] = set()
    ranged = False  # the class piece before is one character no range holds yet: a "-" after it makes one
    closing = False  # the piece before is a range's "-": this one ends the range
    for index, (piece, in_class) in enumerate(pieces):
        following = pieces[index + 1][0] if index + 1 < len(pieces) else ""
        if in_class and piece == "-" and ranged and following != "]":
            hyphens.add(index)
            ranged, closing = False, True
            continue
        single = in_class and (len(piece) == 1 or piece[1] not in _CLASS_ESCAPES)
        ranged, closing = single and not closing, False
    return hyphens


def find_all(query: Query, line: bytes) -> list[tuple[int, int]]:
    """Byte spans of the matches in ``line``, iterated as ripgrep's grep-matcher does."""
    spans: list[tuple[int, int]] = []
    at, last = 0, -1
    while at <= len(line):
        # Whole words: the character before ``at`` is read as the boundary, and only the line's start is ``^``.
        back = at - query.group if at else 0
        while query.group and back > 0 and 0x80 <= line[back] < 0xC0:
            back -= 1
        found = (query.regex if at == 0 else query.rest).search(line, back)
        if found is None:
            break
        start, end = found.span(query.group)
        at = end + 1 if start == end else end
        if start == end == last:
            continue
        last = end
        spans.append((start, end))
    return spans
