"""Post-edit structure checks: warn about syntax problems an edit introduced, never block it.

Files with a tree-sitter grammar are parsed before and after the edit; other brace languages get a
delimiter-balance count. A warning is produced only when the text was clean before and is not after,
so files that were already broken (or that the grammar does not fully understand) stay quiet.
Lines and columns are 1-based; columns count characters, not bytes.
"""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.core.parsetrees import TreeCache

if TYPE_CHECKING:
    from tree_sitter import Language, Node

# language -> (tree_sitter_<module>, factory function, name used in warnings)
_GRAMMARS: dict[str, tuple[str, str, str]] = {
    "python": ("python", "language", "Python"),
    "javascript": ("javascript", "language", "JavaScript"),
    "typescript": ("typescript", "language_typescript", "TypeScript"),
    "tsx": ("typescript", "language_tsx", "TSX"),
    "go": ("go", "language", "Go"),
    "rust": ("rust", "language", "Rust"),
    "java": ("java", "language", "Java"),
    "c": ("c", "language", "C"),
    "cpp": ("cpp", "language", "C++"),
    "c_sharp": ("c_sharp", "language", "C#"),
    "json": ("json", "language", "JSON"),
    "css": ("css", "language", "CSS"),
    "html": ("html", "language", "HTML"),
    "bash": ("bash", "language", "Bash"),
    "yaml": ("yaml", "language", "YAML"),
    "toml": ("toml", "language", "TOML"),
    "php": ("php", "language_php", "PHP"),
    "ruby": ("ruby", "language", "Ruby"),
}

_SUFFIXES: dict[str, str] = {
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    **dict.fromkeys((".c", ".h"), "c"),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), "cpp"),
    ".cs": "c_sharp",
    ".json": "json",
    ".css": "css",
    **dict.fromkeys((".html", ".htm"), "html"),
    **dict.fromkeys((".sh", ".bash"), "bash"),
    **dict.fromkeys((".yaml", ".yml"), "yaml"),
    ".toml": "toml",
    ".php": "php",
    ".rb": "ruby",
    **dict.fromkeys(
        (".scss", ".less", ".kt", ".kts", ".swift", ".dart", ".scala", ".groovy", ".gradle", ".razor", ".cshtml"),
        "braces",
    ),
    **dict.fromkeys((".m", ".mm", ".zig"), "braces"),
}

# Junk input can hold thousands of ERROR nodes; nobody reads past the first few.
_MAX_PROBLEMS = 50
# A larger text goes unchecked: source this size is generated or bundled, and parsing it before and after every edit
# cost more than the edit (a one-line edit of 20 MB of Python took 12 s, 11.5 of them in two full parses; 0.3 µs a
# byte here).
MAX_CHECKED_CHARS = 2 << 20
_SNIPPET_CHARS = 20

_DELIMITERS: dict[str, tuple[str, bool]] = {
    "{": ("curly braces {}", True),
    "}": ("curly braces {}", False),
    "(": ("parentheses ()", True),
    ")": ("parentheses ()", False),
    "[": ("square brackets []", True),
    "]": ("square brackets []", False),
}

# Strings end at a newline when unterminated, so a stray apostrophe in prose (Razor, comments in
# unknown dialects) hides at most the rest of its line. `//` right after ':' is a URL, not a comment
# (SCSS/LESS `url(http://...)`).
_TOKENS = re.compile(
    r"""
      "(?:[^"\\\n]|\\.)*"?
    | '(?:[^'\\\n]|\\.)*'?
    | `[^`]*`?
    | (?<!:)//[^\n]*
    | /\*.*?(?:\*/|\Z)
    | (?P<delimiter>[{}()\[\]])
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class StructureProblem:
    """One syntax or balance problem, at a 1-based line and character column."""

    line: int
    column: int
    detail: str


@dataclass(frozen=True)
class MadeCheck:
    """:meth:`StructureChecker.check_made`'s answer: its warning, and the syntax error the made text has and its
    source had not (the maker broke it), None when the warning is about the source or there is none."""

    warning: str | None
    introduced: str | None = None  # "JavaScript syntax error introduced at line 3, column 7 (missing '}')"


class StructureChecker:
    """Parses text by file suffix; grammars load lazily, once per language, and are shared across threads."""

    def __init__(self) -> None:
        # A Language is immutable and safe to share; Parsers are not, so each call makes its own (~1 µs).
        self._languages: dict[str, Language | None] = {}
        self._lock = threading.Lock()
        self._trees = TreeCache()

    def language_for(self, path: Path) -> str | None:
        """The language checked for ``path``.

        Args:
            path: The file's path; only its suffix matters, case-insensitively.

        Returns:
            A grammar name such as ``"python"``, ``"braces"`` for delimiter-balance-only languages,
            or None when files with this suffix are not checked.
        """
        return _SUFFIXES.get(path.suffix.lower())

    def problems(self, path: Path, text: str) -> list[StructureProblem] | None:
        """The structure problems of ``text`` as the language of ``path``, in document order.

        Args:
            path: Selects the language by suffix.
            text: The full file text.

        Returns:
            Up to 50 problems (empty when clean), or None when the language is unchecked or its
            grammar cannot be loaded.
        """
        language = self.language_for(path)
        if language == "braces":
            return sorted(_brace_problems(text).values(), key=lambda p: (p.line, p.column))
        if language is None:
            return None
        return self._tree_problems(language, text, _MAX_PROBLEMS)

    def check(self, path: Path, before: str, after: str) -> str | None:
        """A one-line warning when an edit turned clean text into broken text.

        Args:
            path: Selects the language by suffix.
            before: The text before the edit.
            after: The text after the edit.

        Returns:
            The warning, naming the language and the first new problem, or None when ``before`` was
            already broken, ``after`` is clean, the language is unchecked or either text is longer than
            :data:`MAX_CHECKED_CHARS`.
        """
        introduced, _ = self._checked(path, before, after)
        return None if introduced is None else f"structure: {introduced[0]}. {introduced[1]}"

    def check_made(self, path: Path, source: str, made: str) -> MadeCheck:
        """:meth:`check` for text made from ``source`` (minify_js's output): its warning, else where ``source``
        itself does not parse (a truncated file, a string never closed), since what was made from it is broken
        with it. ``source`` is parsed a second time only when it may be broken."""
        introduced, maybe_broken = self._checked(path, source, made)
        if introduced is not None:
            return MadeCheck(f"structure: {introduced[0]}. {introduced[1]}", introduced=introduced[0])
        first = next(iter(self.problems(path, source) or ()), None) if maybe_broken else None
        if first is None:
            return MadeCheck(None)
        return MadeCheck(
            f"structure: the input does not parse (line {first.line}, column {first.column}: {first.detail}): it "
            "may be truncated or malformed, and the minified output is broken with it. Check the input."
        )

    def _checked(self, path: Path, before: str, after: str) -> tuple[tuple[str, str] | None, bool]:
        """The problem an edit introduced with the advice of :meth:`check`'s warning, and whether ``before`` may be
        broken (it was, or it was not parsed because nothing changed); False where the language or the size leaves
        the text unchecked."""
        language = self.language_for(path)
        if language is None or max(len(before), len(after)) > MAX_CHECKED_CHARS:
            return None, False
        if before == after:
            return None, True
        if language == "braces":
            old_problems = _brace_problems(before)
            return _brace_warning(old_problems, _brace_problems(after)), bool(old_problems)
        if language in _BMP_ONLY and (_BEYOND_BMP.search(before) or _BEYOND_BMP.search(after)):
            return None, False
        grammar = self.grammar(language)
        if grammar is None:
            return None, False
        # "replace" turns lone surrogates (from surrogateescape decoding) into '?', keeping one byte sequence
        # per character so columns still line up.
        old, new = before.encode("utf-8", "replace"), after.encode("utf-8", "replace")
        was_broken, tree = self._trees.parse_edit(path, grammar, old, new)
        found = [] if was_broken or tree is None else _problems(tree.root_node, new, 1)
        if not found:
            return None, was_broken
        first = found[0]
        problem = (
            f"{_GRAMMARS[language][2]} syntax error introduced at line {first.line}, column {first.column} "
            f"({first.detail})"
        )
        return (problem, "The file parsed cleanly before this edit; check the edit before running it."), False

    def _tree_problems(self, language: str, text: str, limit: int) -> list[StructureProblem] | None:
        """Parse ``text`` and report up to ``limit`` ERROR or MISSING nodes, outermost first."""
        grammar = self.grammar(language)
        if grammar is None or (language in _BMP_ONLY and _BEYOND_BMP.search(text)):
            return None
        # "replace" turns lone surrogates (from surrogateescape decoding) into '?', keeping one
        # byte sequence per character so columns still line up.
        data = text.encode("utf-8", "replace")
        from tree_sitter import Parser  # here, not at the top: start-up never pays for it

        return _problems(Parser(grammar).parse(data).root_node, data, limit)

    def grammar(self, language: str) -> Language | None:
        """The cached grammar for ``language`` (a key of the grammar table, such as ``"javascript"``), loaded on
        first use; None if it cannot be loaded."""
        with self._lock:
            if language not in self._languages:
                self._languages[language] = _load(language)
            return self._languages[language]


# tree-sitter-bash 0.25.1's scanner crashes the whole process on characters beyond U+FFFF ("{\U000f759d\t",
# found by fuzzing): such files go unchecked rather than take the server down.
_BMP_ONLY = frozenset({"bash"})
_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")


def _problems(root: Node, data: bytes, limit: int) -> list[StructureProblem]:
    """Up to ``limit`` ERROR or MISSING nodes under ``root``, outermost first."""
    if not root.has_error:
        return []
    found: list[StructureProblem] = []
    # Explicit stack, not recursion: deeply nested input must not hit the recursion limit.
    stack: list[Node] = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if node.is_missing or node.is_error:
            found.append(_node_problem(node, data))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return found


def _load(language: str) -> Language | None:
    """Load a grammar wheel; a missing or ABI-incompatible wheel leaves the language unchecked."""
    from tree_sitter import Language, Parser

    module, factory, _ = _GRAMMARS[language]
    try:
        grammar = Language(getattr(importlib.import_module(f"tree_sitter_{module}"), factory)())
        Parser(grammar)  # raises ValueError now, rather than on every edit, if the ABI is unsupported
    except (ImportError, AttributeError, ValueError):
        return None
    return grammar


def _node_problem(node: Node, data: bytes) -> StructureProblem:
    """Describe an ERROR or MISSING node at its start."""
    row, byte_column = node.start_point
    start = node.start_byte
    column = len(data[start - byte_column : start].decode("utf-8", "replace")) + 1
    if node.is_missing:
        return StructureProblem(row + 1, column, f"missing '{node.type}'")
    raw = data[start : min(node.end_byte, start + 4 * _SNIPPET_CHARS)].decode("utf-8", "replace")
    first_line = raw.strip().split("\n", 1)[0].strip()
    snippet = "".join(c if c.isprintable() else "?" for c in first_line[:_SNIPPET_CHARS])
    return StructureProblem(row + 1, column, f"unexpected '{snippet}'" if snippet else "unexpected end of input")


def _brace_problems(text: str) -> dict[str, StructureProblem]:
    """Net balance of each delimiter kind outside strings and comments, keyed by kind.

    The count is closers minus openers, so a deleted ``}`` reads "off by -1". An excess of closers is
    reported at the first closer with no opener; an excess of openers at the earliest opener never
    closed, which after a deleted closer is usually the block that lost it.
    """
    open_at: dict[str, list[int]] = {}
    stray_at: dict[str, list[int]] = {}
    for match in _TOKENS.finditer(text):
        delimiter = match.group("delimiter")
        if delimiter is None:
            continue
        kind, opens = _DELIMITERS[delimiter]
        openers = open_at.setdefault(kind, [])
        if opens:
            openers.append(match.start())
        elif openers:
            openers.pop()
        else:
            stray_at.setdefault(kind, []).append(match.start())
    found: dict[str, StructureProblem] = {}
    for kind in {*open_at, *stray_at}:
        unclosed, stray = open_at.get(kind, []), stray_at.get(kind, [])
        balance = len(stray) - len(unclosed)
        if balance != 0:
            line, column = _position(text, stray[0] if balance > 0 else unclosed[0])
            found[kind] = StructureProblem(line, column, f"{kind} off by {balance}")
    return found


def _brace_warning(before: dict[str, StructureProblem], after: dict[str, StructureProblem]) -> tuple[str, str] | None:
    """The first delimiter kind that balanced before and does not after, and the warning's advice."""
    introduced = sorted((p for kind, p in after.items() if kind not in before), key=lambda p: (p.line, p.column))
    if not introduced:
        return None
    first = introduced[0]
    return (
        f"unbalanced delimiters introduced at line {first.line}, column {first.column} ({first.detail})",
        "They balanced before this edit; check the edit before running it.",
    )


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based line and character column of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1
