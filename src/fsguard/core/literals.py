"""The literal texts of a JavaScript program, to prove a minifier left them alone.

rjsmin promises never to change a string, a template literal or a regex literal, but it reads them with
regular expressions: it does not follow ``${…}`` nesting (a template inside a substitution, a backtick in a
string there) nor JSX text, and reads ``/* */`` or ``//`` in them as comments. tree-sitter does follow them, so
minify_js lists every literal of its input and its output, in document order, and refuses a result where one
differs. A template literal is its text with each substitution replaced by ``${…}`` (the code inside is minified
like any other, and its own literals are listed after it); JSX text is compared as JSX reads it (see
:func:`_jsx_text`), so the indentation rjsmin strips from it does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.core.structure import MAX_CHECKED_CHARS, StructureChecker

if TYPE_CHECKING:
    from tree_sitter import Language, Node

# Grammars that read what minify_js minifies; any other suffix is minified as JavaScript, so parsed as it.
_SCRIPT_GRAMMARS = frozenset(("javascript", "typescript", "tsx"))
_KINDS = {"string": "string", "template_string": "template literal", "regex": "regex literal"}
# Children of a JSX element that are its text; every other child (a tag, {expression}, nested element) splits it.
_JSX_TEXT_PARTS = frozenset(("jsx_text", "html_character_reference"))
_JSX_ELEMENT = "jsx_element"
_SNIPPET_CHARS = 40
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Literal:
    """One literal: its kind as the model reads it, its text as compared, and the 1-based line it starts on."""

    kind: str
    text: str
    line: int

    def snippet(self) -> str:
        """The start of the literal's text on one line, for a message."""
        flat = "".join(c if c.isprintable() else " " for c in self.text)
        return flat if len(flat) <= _SNIPPET_CHARS else flat[: _SNIPPET_CHARS - 1] + "…"


@dataclass(frozen=True)
class LiteralCheck:
    """:func:`check_literals`' answer: the first literal the made text changes (with whether it is missing from it
    altogether), and whether both texts parsed cleanly in the grammar of the path's own language, when the syntax
    check has nothing to say and need not parse them again."""

    changed: tuple[Literal, bool] | None = None
    clean: bool = False


def check_literals(checker: StructureChecker, path: Path, source: str, made: str) -> LiteralCheck:
    """Whether ``made`` (``source`` minified) has every literal of ``source``, the same and at the same place in
    order. Nothing is compared when ``source`` does not parse cleanly (its literals cannot be known; the structure
    warning says so), no grammar is installed or either text is longer than :data:`MAX_CHECKED_CHARS` (two parses of a
    2 MiB bundle take five seconds)."""
    if source == made or max(len(source), len(made)) > MAX_CHECKED_CHARS:
        return LiteralCheck()
    language = checker.language_for(path)
    parsed_as = language if language in _SCRIPT_GRAMMARS else "javascript"
    grammar = checker.grammar(parsed_as)
    if grammar is None:
        return LiteralCheck()
    before, _ = _literals(grammar, source)
    if before is None:
        return LiteralCheck()
    after, made_broken = _literals(grammar, made, broken_too=True)
    assert after is not None
    return LiteralCheck(_first_changed(before, after), clean=parsed_as == language and not made_broken)


def _first_changed(before: list[Literal], after: list[Literal]) -> tuple[Literal, bool] | None:
    """The first literal of ``before`` that ``after`` does not have at the same place, and whether ``after`` has
    run out of literals there (it was cut off) rather than changed it; None when they are the same."""
    for index, literal in enumerate(before):
        if index >= len(after):
            return literal, True
        other = after[index]
        if (other.kind, other.text) != (literal.kind, literal.text):
            return literal, False
    if len(after) > len(before):  # the output holds a literal the input has not: its text is code turned string
        return after[len(before)], False
    return None


def _literals(grammar: Language, text: str, *, broken_too: bool = False) -> tuple[list[Literal] | None, bool]:
    """Every literal of ``text`` in document order (None when it has a syntax error, unless ``broken_too``), and
    whether it has one."""
    from tree_sitter import Parser  # here, not at the top: start-up never pays for it

    # "replace" turns lone surrogates (from surrogateescape decoding) into '?': one byte sequence per character.
    data = text.encode("utf-8", "replace")
    root = Parser(grammar).parse(data).root_node
    if root.has_error and not broken_too:
        return None, True
    # A query, not a walk over every node from Python: its captures come from C, in document order (a template
    # before those nested in it), in half the time on a 2 MB bundle.
    from tree_sitter import Query, QueryCursor

    # TypeScript's grammar has no JSX (TSX's has): the query names only the node types the grammar knows.
    known = " ".join(f"({name})" for name in (*_KINDS, _JSX_ELEMENT) if grammar.id_for_node_kind(name, True))
    captured = QueryCursor(Query(grammar, f"[{known}] @literal")).captures(root).get("literal", [])
    found: list[Literal] = []
    for node in sorted(captured, key=lambda node: (node.start_byte, -node.end_byte)):
        if node.type == _JSX_ELEMENT:
            found.extend(_jsx_texts(node, data))
        else:
            found.append(Literal(_KINDS[node.type], _literal_text(node, data), node.start_point[0] + 1))
    return found, root.has_error


def _literal_text(node: Node, data: bytes) -> str:
    """A literal's source text; a template's with each ``${…}`` substitution's code left out."""
    start, end = node.start_byte, node.end_byte
    pieces: list[bytes] = []
    for child in node.children:
        if child.type == "template_substitution":
            pieces.append(data[start : child.start_byte] + "${…}".encode())
            start = child.end_byte
    pieces.append(data[start:end])
    return b"".join(pieces).decode("utf-8", "replace")


def _jsx_texts(element: Node, data: bytes) -> list[Literal]:
    """The runs of text between a JSX element's tags and ``{…}`` children, raw bytes and all (tree-sitter's text
    nodes leave some whitespace out), as JSX reads them."""
    found: list[Literal] = []
    previous: Node | None = None
    for child in element.children:
        if child.type in _JSX_TEXT_PARTS:
            continue
        if previous is not None:
            raw = data[previous.end_byte : child.start_byte].decode("utf-8", "replace")
            found.append(Literal("JSX text", _jsx_text(raw), previous.end_point[0] + 1))
        previous = child
    return found


def _jsx_text(raw: str) -> str:
    """JSX text as the compiler makes it a string (Babel's cleanJSXElementLiteralChild): tabs read as spaces, each
    line's spaces trimmed at a line break, lines left empty dropped and the rest joined by one space."""
    lines = _LINE_BREAK.split(raw.replace("\t", " "))
    kept: list[str] = []
    for number, line in enumerate(lines):
        if number > 0:
            line = line.lstrip(" ")
        if number < len(lines) - 1:
            line = line.rstrip(" ")
        if line:
            kept.append(line)
    return " ".join(kept)
