"""The text side of project_replace: the substitution it makes in each file, the ripgrep spelling of a literal find,
and the check that a file's encoding can hold the text the substitution leaves in it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fsguard.core.errors import EncodingError, InvalidParamsError, TooLargeError
from fsguard.core.gotemplate import expander
from fsguard.core.growth import bounded, replace_all
from fsguard.core.lineends import LiteralFind, in_line_endings, literal_replacement, retypes_breaks
from fsguard.core.linematches import line_matches
from fsguard.core.oserrors import lone_surrogate, quoted
from fsguard.core.patterns import compile_re2, substituted
from fsguard.core.query import word_edges
from fsguard.core.textio import DecodedText

Substitute = Callable[[str], tuple[str, int]]


def substitution(find: str, replace: str, *, literal: bool, case_sensitive: bool) -> Substitute:
    """A text -> (new text, replacements) function: ``find`` literally (``$`` and ``\\`` in ``replace`` too), or
    as an RE2 regex with Go-style ``$1``/``${name}`` in ``replace``.

    Raises:
        InvalidParamsError: ``find`` holds a lone surrogate (no decoded text does: with ripgrep it failed as
            internal_error, without it matched nothing), or is not valid RE2.
    """
    try:
        find.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidParamsError(f"find {quoted(find)}: it {lone_surrogate(exc.object[exc.start])}") from exc
    if literal:
        found = LiteralFind.of(find, 0 if case_sensitive else re.IGNORECASE)

        def replaced(text: str) -> tuple[str, int]:
            return replace_all(found.finder(text)[0], text, literal_replacement(text, replace))

        return replaced
    compiled = compile_re2(
        find,
        case_sensitive=case_sensitive,
        what="regex pattern",  # the seed's words: "invalid regex pattern"
        advice=" (RE2 syntax: no backreferences or lookaround). Fix it, or drop literal=false to replace the text as "
        "typed.",
    )
    if (edged := word_edges(find)) != find:
        compiled = compile_re2(edged, case_sensitive=case_sensitive)

    def substitute(text: str) -> tuple[str, int]:
        return _regex_substituted(compiled, find, replace, text)

    return substitute


@dataclass
class KeptEndings:
    """The files holding ``find`` that the substitution leaves as they were because ``replace`` retypes only line
    breaks, which keep each line's ending."""

    holds: Callable[[str], bool]  # whether a text holds find so (as typed, for a literal find)
    paths: list[Path] = field(default_factory=list)

    @classmethod
    def of(cls, find: str, replace: str, literal: bool, case_sensitive: bool) -> KeptEndings:
        """The files of one project_replace. A literal find counts where it is found as typed: one typed in CRLF
        also finds an LF file's lines, which no replace of breaks alone would change."""
        if not retypes_breaks(find, replace, literal=literal):
            return cls(lambda _text: False)
        if not literal:
            return cls(lambda _text: True)
        found = LiteralFind.of(find, 0 if case_sensitive else re.IGNORECASE)
        return cls(lambda text: not found.finder(text)[1])

    def note(self, path: Path, text: str) -> None:
        """Count ``path``, holding ``text`` that the substitution found ``find`` in and left as it was."""
        if self.holds(text):
            self.paths.append(path)


def _regex_substituted(compiled: Any, find: str, replace: str, text: str) -> tuple[str, int]:
    """``text`` with each match of ``compiled`` (from ``find``) replaced by the Go template ``replace``, and the
    replacements.

    The matches are search_files' (:mod:`fsguard.core.search`), read as :func:`line_matches` reads them, and as
    rg counts them no empty match at the end of the text, where search sees no line (``x*`` in ``abxd\\n``: four,
    not six). The text between matches, and what a group carries over, keep the file's own bytes.
    """
    spell = bounded(expander(in_line_endings(text, replace)), len(text))
    return substituted(text, line_matches(compiled, find, text, at_end=False), spell)


def rg_literal(find: str, case_sensitive: bool) -> tuple[str, bool]:
    """``find`` as a search pattern and whether it is literal. Python's IGNORECASE also matches U+0130 and U+0131
    (the dotted capital and dotless small I) for ``i`` and ``I``, which ripgrep's case folding does not: a
    case-insensitive find holding them is spelled as a regex with both."""
    if case_sensitive or not set(find) & {"i", "I"}:
        return find, True
    escaped = (f"\\x{{{ord(ch):x}}}" if not ch.isalnum() else ch for ch in find)
    return "".join("[iI\u0130\u0131]" if ch in "iI" else ch for ch in escaped), False


def check_new_text(
    decoded: DecodedText,
    new_text: str,
    path: Path,
    limit: int | None,
    *,
    source: str = "the replacement",
    kept: str = "Nothing was written.",
) -> None:
    """Refuse ``new_text`` for ``path`` when its encoding cannot store it or it takes more bytes than ``limit``.

    The plan checks every file's new text so, before any file is written: found at the file's turn, the first
    stopped the run half done with internal_error and the second made the apply skip a file the preview said it
    would change (the substitution bounds the text in characters; UTF-16 or accented UTF-8 takes more bytes). The
    apply checks a pre-edit hook's text, which ``source`` and ``kept`` then word.

    Raises:
        EncodingError: ``new_text`` has a character ``decoded``'s encoding cannot store.
        TooLargeError: ``new_text`` encoded is above ``limit`` bytes (--max-file-size).
    """
    try:
        size = len(decoded.encode(new_text))
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise EncodingError(
            f"{path} is {decoded.encoding} and cannot store {bad!r} from {source}. {kept} "
            "Leave it out with exclude_paths, use a replacement that encoding has, or rewrite the file as UTF-8 "
            "first with write_file(encoding='utf-8').",
            path=str(path),
        ) from exc
    if limit is not None and size > limit:
        raise TooLargeError(
            f"this change would make {path} {size:,} bytes, above the {limit:,}-byte limit (--max-file-size). "
            f"{kept} Replace fewer occurrences, use a shorter replacement, or leave it out with "
            "exclude_paths.",
            path=str(path),
        )


def check_hook_text(decoded: DecodedText, new_text: str, path: Path, limit: int | None) -> None:
    """:func:`check_new_text` for the text a pre-edit hook gave in place of the replaced one, at the file's turn.

    Raises:
        EncodingError, TooLargeError: as :func:`check_new_text`; the files changed before stay changed.
    """
    check_new_text(decoded, new_text, path, limit, source="a pre-edit hook's text", kept="It was left as it was.")
