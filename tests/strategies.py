"""Hypothesis strategies shared by the whole suite; add new ones here rather than in test modules.

- :func:`texts_with_line_endings`: text split into lines that end in ``\\n``, ``\\r\\n`` or ``\\r`` (mixed freely),
  with non-ASCII content and the characters ``str.splitlines`` would wrongly treat as line breaks.
- :func:`retyped_lines`: a text of mixed endings and the same text with characters added within a run of its lines.
- :func:`terse_line_contents`, :func:`lf_finds`: lines of at most two letters (blank lines abound), and texts of
  those letters typed in LF lines, to find in them.
- :func:`typed_texts`, :func:`whole_stretches`: texts of those letters typed in lines of any ending, to put in a file,
  and a stretch of a text that splits no CRLF, to replace.
- :func:`encodings`: one of the encodings fsguard round-trips, with its BOM choice.
- :func:`path_components`: lists of path components mixing ``..``, ``.``, absolute segments and unicode names.
- :func:`json_values`, :func:`json_with_trailing_commas`: JSON values, and JSON text of them with trailing commas.
- :func:`gitignore_trees`: small trees with `.gitignore` files whose patterns meet in the corners.
- :func:`windows_names`, :func:`windows_paths`: names Windows accepts, and drive paths typed loosely (either drive
  case, ``\\`` or ``/`` separators, repeated, ``.`` segments, a trailing separator) with what they name.
- :func:`cp1252_texts`, :func:`western_texts`: any text cp1252 encodes, and Western sentences a person reads.
- :func:`listed_directories`: directories of files, subdirectories, links and hidden names to list, with
  ``.gitignore`` texts for the root and the directory.
- :func:`secret_trees`: trees mixing secrets the default deny rules hide (.env, keys, credentials) with look-alikes
  they must leave visible (.env.example, id_rsa.pub, notes.key.txt), every file holding one shared word.
- :func:`lookalike_trees`: trees of files, directories and links leading outside, named alike (``module``,
  ``Module``, ``modules``, ``moduel``), with a path to ask for that may exist, or almost.
- :func:`line_selections`: every selection read_file takes: head, tail or head+tail windows, line ranges (open,
  or read on by column) and the whole file.
- :func:`store_events`: what another process does to a state directory's store between listings (add, rewrite,
  remove, corrupt a file) and when this one lists it.
- :func:`ripgrep_outputs`: one file's rg ``--json`` messages, match lines with a few submatches among context.
- :func:`accented_words`: words of letters that decompose (``é`` is ``e`` + U+0301 in NFD), to spell two ways.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from hypothesis import strategies as st

from fsguard.core.selection import LineSelection, ReadMode

LINE_ENDINGS = ("\n", "\r\n", "\r")
ENDING_NAMES = {"\n": "lf", "\r\n": "crlf", "\r": "cr"}
# Line breaks to str.splitlines but not to fsguard: a file's lines end only at \n, \r\n or a lone \r.
LOOKALIKE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True)
class EndedText:
    """Text built from ``(content, ending)`` pairs; only the last line may have the empty ending."""

    lines: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        return "".join(content + ending for content, ending in self.lines)

    @property
    def split(self) -> list[str]:
        """The lines, each with its ending, as a line splitter that keeps endings must return them."""
        return [content + ending for content, ending in self.lines if content + ending]

    @property
    def line_ending(self) -> str:
        """``lf``/``crlf``/``cr`` when all lines agree, ``mixed`` when they do not, ``none`` without any ending."""
        names = {ENDING_NAMES[ending] for _content, ending in self.lines if ending}
        if not names:
            return "none"
        return names.pop() if len(names) == 1 else "mixed"


def line_content() -> st.SearchStrategy[str]:
    """One line's text without its ending: any unicode but NUL and surrogates, often with lookalike breaks."""
    return st.text(
        st.one_of(
            st.characters(codec="utf-8", exclude_characters="\r\n\x00"),
            st.sampled_from(LOOKALIKE_BREAKS),
        ),
        max_size=12,
    )


def terse_line_contents() -> st.SearchStrategy[str]:
    """One line's text of ``a`` and ``b``, often empty: texts of these are dense in blank lines and repeats."""
    return st.text(st.sampled_from("ab"), max_size=2)


def lf_finds() -> st.SearchStrategy[str]:
    """A text to find, typed in LF lines of :func:`terse_line_contents`' letters, holding at least one break."""
    return st.text(st.sampled_from("ab\n"), min_size=1, max_size=6).filter(lambda text: "\n" in text)


def typed_texts() -> st.SearchStrategy[str]:
    """Text typed to put in a file, never empty: lines of :func:`terse_line_contents` (blank ones abound) each ending
    in ``\\n``, ``\\r\\n`` or ``\\r``, then a last line that is often empty; it often starts with a break too,
    where its breaks meet the text's around it."""
    typed_line = st.tuples(terse_line_contents(), st.sampled_from(LINE_ENDINGS)).map("".join)
    lines = st.lists(typed_line, max_size=4).map("".join)
    lead = st.sampled_from(("", *LINE_ENDINGS))
    return st.builds(lambda *parts: "".join(parts), lead, lines, terse_line_contents()).filter(bool)


@st.composite
def whole_stretches(draw: st.DrawFn, text: str) -> tuple[int, int]:
    """The start and end of a non-empty stretch of ``text`` (not empty) that splits no CRLF, as every literal find
    takes one; its ends are often at a line break, where a break put in meets the text's."""
    bounds = [at for at in range(len(text) + 1) if not (0 < at < len(text) and text[at - 1 : at + 1] == "\r\n")]

    def pick(choices: list[int]) -> int:
        by_break = [at for at in choices if {"\r", "\n"} & set(text[max(at - 1, 0) : at + 1])]
        anywhere = st.sampled_from(choices)
        return draw(st.sampled_from(by_break) | anywhere if by_break else anywhere)

    start = pick(bounds[:-1])
    return start, pick([at for at in bounds if at > start])


@st.composite
def texts_with_line_endings(
    draw: st.DrawFn, max_lines: int = 8, contents: st.SearchStrategy[str] | None = None
) -> EndedText:
    """Lines ending in a mix of ``\\n``, ``\\r\\n`` and ``\\r``; the last line may have no ending.

    A ``\\r`` followed by an empty line ending in ``\\n`` would read back as one ``\\r\\n``, so that empty
    line is given content: the generated endings are always the endings the text really has. ``contents`` draws
    each line's text (:func:`line_content` unless given).
    """
    count = draw(st.integers(min_value=0, max_value=max_lines))
    lines: list[tuple[str, str]] = []
    for index in range(count):
        content = draw(line_content() if contents is None else contents)
        last = index == count - 1
        ending = draw(st.sampled_from((*LINE_ENDINGS, "") if last else LINE_ENDINGS))
        if lines and lines[-1][1] == "\r" and not content and ending.startswith("\n"):
            content = "x"
        lines.append((content, ending))
    return EndedText(tuple(lines))


@dataclass(frozen=True)
class RetypedLines:
    """A text of mixed line endings whose every line starts with its number (``<3>``), so any run of its lines is
    found once, and the same text with some lines of the run ``first..last`` given more characters at their start:
    the two differ only within those lines, never in a line ending."""

    before: EndedText
    after: EndedText
    first: int
    last: int
    with_break: bool  # whether the run's text takes its last line's ending

    def run(self, ended: EndedText, typed: str | None) -> str:
        """The run's lines in ``ended``, each break typed as ``typed`` (``None``: as the text spells it)."""
        lines = ended.lines[self.first : self.last + 1]
        breaks = [ending if typed is None else typed for _content, ending in lines]
        breaks[-1] = breaks[-1] if self.with_break else ""
        return "".join(content + ending for (content, _ending), ending in zip(lines, breaks, strict=True))


@st.composite
def retyped_lines(draw: st.DrawFn, max_lines: int = 8) -> RetypedLines:
    """:class:`RetypedLines`: the characters added go before a line's number, so a run's text found in the middle of
    a line (as the exact tier may, where the run leaves its last break out) still changes only what it should."""
    letters = st.text(st.sampled_from("ab \t\u00e9" + LOOKALIKE_BREAKS), max_size=4)
    text = draw(texts_with_line_endings(max_lines, contents=letters).filter(lambda ended: bool(ended.lines)))
    before = tuple((f"<{number}>{content}", ending) for number, (content, ending) in enumerate(text.lines))
    first = draw(st.integers(0, len(before) - 1))
    last = draw(st.integers(first, len(before) - 1))
    after = list(before)
    for number in range(first, last + 1):
        if draw(st.booleans()):
            content, ending = before[number]
            after[number] = (draw(letters.filter(bool)) + content, ending)
    with_break = bool(before[last][1]) and draw(st.booleans())
    return RetypedLines(EndedText(before), EndedText(tuple(after)), first, last, with_break)


@dataclass(frozen=True)
class Encoding:
    """An encoding fsguard reads and writes back unchanged, with or without its BOM."""

    codec: str
    bom: bytes

    def encode(self, text: str) -> bytes:
        """The bytes a file holding ``text`` has in this encoding."""
        return self.bom + text.encode(self.codec)

    def __str__(self) -> str:
        return f"{self.codec}{' with BOM' if self.bom else ''}"


SUPPORTED_ENCODINGS = (
    Encoding("utf-8", b""),
    Encoding("utf-8", b"\xef\xbb\xbf"),
    Encoding("utf-16-le", b"\xff\xfe"),
    Encoding("utf-16-be", b"\xfe\xff"),
    Encoding("utf-32-le", b"\xff\xfe\x00\x00"),
    Encoding("utf-32-be", b"\x00\x00\xfe\xff"),
)


def encodings() -> st.SearchStrategy[Encoding]:
    """One of :data:`SUPPORTED_ENCODINGS`."""
    return st.sampled_from(SUPPORTED_ENCODINGS)


def path_names() -> st.SearchStrategy[str]:
    """One plain component: unicode without ``/`` or NUL, plus a few names that look special."""
    return st.one_of(
        st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=12),
        st.sampled_from(["...", " ", "~", ".hidden", "a b", "é", "日本", "e\u0301"]),
    )


def path_components(min_size: int = 0, max_size: int = 8) -> st.SearchStrategy[list[str]]:
    """Lists of path components: ``..``, ``.``, absolute segments (``/``, ``/etc``, ``/<name>``), unicode names.

    Joining them with ``os.path.join`` may climb out of any directory or restart at ``/``: that is the point.
    """
    absolute = st.one_of(st.sampled_from(["/", "/etc", "/tmp", "//"]), path_names().map(lambda name: "/" + name))
    component = st.one_of(st.just(".."), st.just("."), absolute, path_names())
    return st.lists(component, min_size=min_size, max_size=max_size)


JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"


def json_values() -> st.SearchStrategy[JsonValue]:
    """JSON-compatible values, nested; strings favour the characters that matter to JSON scanners."""
    strings = st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(',]}[{"\\\n ')), max_size=8)
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), strings
    )
    return st.recursive(
        scalars,
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(strings, children, max_size=4)),
        max_leaves=12,
    )


@st.composite
def json_with_trailing_commas(draw: st.DrawFn) -> tuple[JsonValue, str]:
    """A JSON value and a text of it where some arrays and objects end in a comma, with or without spaces."""
    value = draw(json_values())

    def dump(node: JsonValue) -> str:
        if isinstance(node, list):
            items = [dump(item) for item in node]
        elif isinstance(node, dict):
            items = [f"{json.dumps(key)}:{dump(item)}" for key, item in node.items()]
        else:
            return json.dumps(node)
        body = ",".join(items)
        with_comma: bool = draw(st.booleans())
        if items and with_comma:
            spacing: str = draw(st.sampled_from(["", " ", "\n  "]))
            body += "," + spacing
        return f"[{body}]" if isinstance(node, list) else f"{{{body}}}"

    return value, dump(value)


# --- diff inputs ---------------------------------------------------------------------------------------------------

# Unchanged lines and edited lines come from separate pools: "¤" never starts an unchanged line.
SURROUNDING_LINES = tuple(content + ending for content in ("", "a", "  x", "é\u2028", "}") for ending in LINE_ENDINGS)
EDITED_LINES = tuple(content + ending for content in ("¤1", "¤2", "¤ é\x85") for ending in LINE_ENDINGS)
# Few distinct lines, so texts repeat lines and diffs have to choose between alignments.
REPEATED_LINES = ("a\n", "b\n", "a\r\n", "\n", "\r", "b\r", "\r\n", "é\u2028\n")


@st.composite
def local_edits(draw: st.DrawFn, max_lines: int = 12, max_edited: int = 5) -> tuple[str, str]:
    """A text and the same text with a block of lines replaced by a block of lines that never occur around it.

    Both blocks have at least one line; the texts may end without a final newline. Joining lines can still merge a
    ``\\r``-ended line with a following ``\\n`` line, and equal first or last lines of the two blocks are unchanged
    after all; tests that rely on the shape check it on the split texts.
    """
    surrounding = draw(st.lists(st.sampled_from(SURROUNDING_LINES), max_size=max_lines))
    cut = draw(st.integers(min_value=0, max_value=len(surrounding)))
    prefix, suffix = surrounding[:cut], surrounding[cut:]
    old_block = draw(st.lists(st.sampled_from(EDITED_LINES), min_size=1, max_size=max_edited))
    new_block = draw(st.lists(st.sampled_from(EDITED_LINES), min_size=1, max_size=max_edited))
    unended: bool = draw(st.booleans())
    if suffix and unended:
        suffix[-1] = suffix[-1].rstrip("\r\n")
    elif not suffix:
        for block in (old_block, new_block):
            unended = draw(st.booleans())
            if unended:
                block[-1] = block[-1].rstrip("\r\n")
    return "".join(prefix + old_block + suffix), "".join(prefix + new_block + suffix)


@st.composite
def edited_texts(draw: st.DrawFn, max_lines: int = 14, max_edits: int = 4) -> tuple[str, str]:
    """A text of often repeated lines and the same text after a few line insertions, deletions and replacements.

    Each text may end with a line without a final newline. Lines are drawn from :data:`REPEATED_LINES`, whose
    endings mix ``\\n``, ``\\r\\n`` and ``\\r``; tests split the joined texts themselves.
    """
    line = st.sampled_from(REPEATED_LINES)
    before = draw(st.lists(line, max_size=max_lines))
    after = list(before)
    for _ in range(draw(st.integers(min_value=1, max_value=max_edits))):
        at = draw(st.integers(min_value=0, max_value=len(after)))
        kind = draw(st.sampled_from(("insert", "delete", "replace")))
        if kind == "insert":
            after.insert(at, draw(line))
        elif at < len(after) and kind == "delete":
            del after[at]
        elif at < len(after):
            after[at] = draw(line)
    unended = st.sampled_from(("", "a", "b"))
    return "".join(before) + draw(unended), "".join(after) + draw(unended)


def plain_lines() -> st.SearchStrategy[str]:
    """One line of ordinary text (no line breaks, some non-ASCII), for edit and state-machine tests.

    Without U+FEFF: at the start of a UTF-8 file its bytes are a byte order mark, which every read takes off and every
    later write keeps, so a model of the file's text as its plain UTF-8 bytes would part from the file by design.
    """
    return st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\n\x00\ufeff"), max_size=12)


def lf_texts() -> st.SearchStrategy[str]:
    """Small LF-terminated texts for the undo state machine."""
    return st.lists(plain_lines(), max_size=6).map(lambda lines: "".join(f"{line}\n" for line in lines))


# --- search inputs -------------------------------------------------------------------------------------------------

# Names never collide as file and directory; hidden ones test include_hidden.
SEARCH_FILE_NAMES = ("a.txt", "b.py", "d/c.txt", "d/e/f.md", ".h.txt", "d/.g.py")
# Pieces of text: ASCII and non-ASCII letters in both cases, regex metacharacters, every line ending.
SEARCH_PIECES = ("a", "A", "b", "é", "É", "Ω", "ω", ".", "*", " ", "_", "\n", "\r\n", "\r")


def search_trees() -> st.SearchStrategy[dict[str, str]]:
    """Small trees as ``{relative path: text}``: a few text files, some hidden, with mixed line endings."""
    texts = st.lists(st.sampled_from(SEARCH_PIECES), max_size=30).map("".join)
    return st.dictionaries(st.sampled_from(SEARCH_FILE_NAMES), texts, min_size=1, max_size=len(SEARCH_FILE_NAMES))


def search_literals() -> st.SearchStrategy[str]:
    """Literal search text drawn from the same letters and metacharacters as :func:`search_trees`."""
    return st.lists(st.sampled_from([p for p in SEARCH_PIECES if p.strip("\r\n")]), min_size=1, max_size=3).map("".join)


GITIGNORE_NAMES = ("a", "b", "c.txt", "d.log", "e.py", ".h", "_darcs", "A.TXT", "sp ace", "ü.txt", "b[1]", "{c,d}*")
# Patterns chosen to meet each other: negations, dir-only, anchored, ** in every position, escapes, classes.
GITIGNORE_PATTERNS = (
    *("*.log", "!*.log", "a/", "b", "/a", "a/b", "**/c.txt", "a/**", "!a/**", "a/**/b", "*.txt", "!c.txt"),
    *("/b/", "x/*", "!a/e.py", "?.py", "[ab]", "**/a", "**", "a/**/*.py", "b/**/", "\\!a", "*", "!*/", "!e.py"),
    *("#c", "/a/*.log", "*/", "/*", "!/a", "a/*/", "**/b/", "!.h", ".h", "*.TXT", "sp ace", "sp\\ ace", "[!a]"),
    *("a/**/**/c.txt", "/**/e.py", "a/*.txt", " ", "\\#c", "c.txt/", "*.py/", "!*.txt/", "a/*/b", "**/a/**"),
    *("!a/", "/a/b/", "!**/e.py", "e*", "!b/", "a/**/*.log", "!/b/", "**/a/*", "c*/", "[a-c].*", "b/*/"),
    *("[[:upper:]]*", "[[:alpha:]].txt", "b\\", "[c-a]", "[[]*"),  # ripgrep has no POSIX class; drops invalid lines
)


@st.composite
def gitignore_trees(draw: st.DrawFn) -> tuple[list[str], dict[str, str]]:
    """Small trees: file paths (some names repeat as directories elsewhere) and ``.gitignore`` texts by directory."""
    paths = draw(
        st.lists(st.lists(st.sampled_from(GITIGNORE_NAMES), min_size=1, max_size=4).map("/".join), max_size=14)
    )
    directories = sorted({"", *("/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1))})
    chosen = draw(st.lists(st.sampled_from(directories), min_size=1, max_size=3, unique=True))
    texts = {d: draw(st.lists(st.sampled_from(GITIGNORE_PATTERNS), min_size=1, max_size=5)) for d in chosen}
    return paths, {d: "\n".join(lines) + "\n" for d, lines in texts.items()}


# -- symlink mazes for the pinned walk ---------------------------------------------------------------------------

MAZE_DIRS = ("a", "a/b", "c")  # under the root "r"; the second root "o" has "d", the outside "x" has "e"
MAZE_FILES = ("a/f", "c/g")
MAZE_LINK_HOMES = ("", "a", "a/b", "c")
MAZE_NAMES = ("a", "b", "c", "d", "e", "f", "g", "l1", "l2", "l3", "missing")
MAZE_ANCHORS = ("r", "o", "x")  # an absolute target starts at the root, the other root, or outside


@dataclass(frozen=True)
class Maze:
    """Symlinks placed in a fixed tree: ``links`` maps a link's home directory and name to its target, where a
    target starting with ``@r/``, ``@o/`` or ``@x/`` is absolute (root, other root, outside); ``walk`` is the
    path to pin, below the root."""

    links: tuple[tuple[str, str, str], ...]
    walk: tuple[str, ...]

    def build(self, base: Path) -> tuple[Path, Path, Path]:
        """Make the tree and its links under ``base``: the root, the second root and the outside directory."""
        root, other, outside = (base / name for name in ("r", "o", "x"))
        for directory in (*(root / d for d in MAZE_DIRS), other / "d", outside / "e"):
            directory.mkdir(parents=True)
        for file in (*(root / f for f in MAZE_FILES), outside / "e" / "h"):
            file.write_text(file.name, encoding="utf-8")
        anchors = {"@r/": root, "@o/": other, "@x/": outside}
        for home, name, target in self.links:
            anchor = next((a for a in anchors if target.startswith(a)), None)
            (root / home / name).symlink_to(str(anchors[anchor] / target[len(anchor) :]) if anchor else target)
        return root, other, outside


@st.composite
def mazes(draw: st.DrawFn) -> Maze:
    """Trees of relative and absolute links (into the root, the other root, outside, loops, dangling)."""
    relative = st.lists(st.sampled_from(("..", *MAZE_NAMES)), min_size=1, max_size=4).map("/".join)
    absolute = st.tuples(
        st.sampled_from(MAZE_ANCHORS), st.lists(st.sampled_from(MAZE_NAMES), max_size=3).map("/".join)
    ).map(lambda anchor_rest: f"@{anchor_rest[0]}/{anchor_rest[1]}")
    names = draw(st.lists(st.sampled_from(("l1", "l2", "l3")), max_size=3, unique=True))
    links = tuple((draw(st.sampled_from(MAZE_LINK_HOMES)), name, draw(st.one_of(relative, absolute))) for name in names)
    walk = tuple(draw(st.lists(st.sampled_from(MAZE_NAMES), min_size=1, max_size=4)))
    return Maze(links, walk)


def maze_spellings() -> st.SearchStrategy[tuple[str, ...]]:
    """Names to follow from a maze's root, ``.`` and ``..`` among them (a path as an agent might spell it)."""
    return st.lists(st.sampled_from((".", "..", *MAZE_NAMES)), min_size=0, max_size=5).map(tuple)


# -- Windows paths for the WSL translation ---------------------------------------------------------------------------

_WINDOWS_FORBIDDEN = '\\/:*?"<>|'


@dataclass(frozen=True)
class WindowsPath:
    """A drive path as someone might type it (``text``), and what it names: the drive letter and the names."""

    text: str
    drive: str  # lower case, as the mount point spells it
    names: tuple[str, ...]


def windows_names() -> st.SearchStrategy[str]:
    """One name Windows accepts: unicode without ``\\ / : * ? " < > |``, controls or surrogates; never . or .."""
    allowed = st.characters(codec="utf-8", exclude_characters=_WINDOWS_FORBIDDEN, exclude_categories=("Cc", "Cs"))
    return st.text(allowed, min_size=1, max_size=10).filter(lambda name: name not in (".", ".."))


@st.composite
def windows_paths(draw: st.DrawFn) -> WindowsPath:
    """Drive paths with either drive case, ``\\`` and ``/`` (repeated, mixed), ``.`` segments, a trailing separator."""
    letter = draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    names = tuple(draw(st.lists(windows_names(), max_size=5)))
    separator = st.sampled_from(["\\", "/", "\\\\", "/\\"])
    text = (letter.upper() if draw(st.booleans()) else letter) + ":" + draw(separator)
    for name in names:
        text += ("." + draw(separator) if draw(st.booleans()) else "") + name + draw(separator)
    if names and not draw(st.booleans()):
        text = text.rstrip("\\/")
    return WindowsPath(text, letter, names)


# What cp1252 spells a BOM in: bytes that start so are read by their BOM, as UTF-8 or UTF-16, not as cp1252.
CP1252_BOM_SPELLINGS = ("\u00ef\u00bb\u00bf", "\u00ff\u00fe", "\u00fe\u00ff")
_WESTERN_PROSE = (
    "le la les un une et est très déjà été où là-bas café crème brûlée garçon français Noël naïve hôtel fenêtre "
    "forêt château bientôt à côté Ça cœur œuvre l\u2019été c\u2019est der die das und ist nicht Größe Straße Grüße "
    "schön über für Mädchen Öl Übung Äpfel weiß Fuß Käse el los y que año niño mañana señor está más también qué "
    "cómo dónde ¿Qué? ¡Hola! corazón jamón país São coração ação pôr você Ærø søster blåbær perché così più"
)
WESTERN_WORDS = tuple(_WESTERN_PROSE.split())


def cp1252_texts() -> st.SearchStrategy[str]:
    """Any text cp1252 can encode but NUL (which makes a file binary), often with Western words and line breaks;
    never starting with what cp1252 spells a BOM in."""
    character = st.characters(codec="cp1252", exclude_characters="\x00")
    pieces = st.one_of(character, st.sampled_from(WESTERN_WORDS), st.sampled_from((" ", "\r\n", "\n", ", ")))
    return st.lists(pieces, max_size=40).map("".join).filter(lambda text: not text.startswith(CP1252_BOM_SPELLINGS))


def western_texts() -> st.SearchStrategy[str]:
    """Sentences of French, German, Spanish, Portuguese, Scandinavian and Italian words, ASCII punctuation and
    line breaks (LF or CRLF, the last one optional): text a person reads as Western; some word is not ASCII."""
    sentence = st.lists(st.sampled_from(WESTERN_WORDS), min_size=1, max_size=12).map(" ".join)
    line = st.tuples(sentence, st.sampled_from((".", "!", " ?", ":", "")), st.sampled_from(("\n", "\r\n")))
    lines = st.lists(line.map("".join), min_size=1, max_size=6).map("".join)
    text = st.tuples(lines, st.booleans()).map(lambda pair: pair[0].rstrip("\r\n") if pair[1] else pair[0])
    return text.filter(lambda text: not text.isascii())


# -- directories to list -------------------------------------------------------------------------------------------

# Names whose case-insensitive order differs from the byte order, hidden ones, and ones the patterns below name.
LISTING_NAMES = ("a", "A", "b", "B.txt", "b.txt", "c.log", "e.py", ".h", ".H", "_x", "ü", "U", "z", "Z", "sp ace", "ß")
LISTING_KINDS = ("file", "dir", "link_file", "link_dir", "dangling")
# The listed directory is root/sub/dir: the root's patterns reach it through paths, its own through names.
LISTING_ROOT_PATTERNS = ("sub/dir/b*", "/sub/dir/A", "sub/**/*.txt", "!sub/dir/B.txt", "dir/", "/sub", "!sub/dir/")


@dataclass(frozen=True)
class ListedDirectory:
    """A directory to list (``sub/dir`` below the root): ``entries`` are (name, kind) with kind one of
    :data:`LISTING_KINDS` (a link leads to a file or directory beside ``sub``, or nowhere), and the ``.gitignore``
    texts of the root and of the directory itself (None: no such file)."""

    entries: tuple[tuple[str, str], ...]
    root_ignore: str | None
    own_ignore: str | None


@st.composite
def listed_directories(draw: st.DrawFn) -> ListedDirectory:
    """Directories of files, subdirectories, links and hidden names, some of them excluded by ``.gitignore``."""
    names = draw(st.lists(st.sampled_from(LISTING_NAMES), unique=True, max_size=len(LISTING_NAMES)))
    entries = tuple((name, draw(st.sampled_from(LISTING_KINDS))) for name in names)

    def ignore_text(patterns: tuple[str, ...]) -> st.SearchStrategy[str | None]:
        lines = st.lists(st.sampled_from(patterns), min_size=1, max_size=4).map(lambda found: "\n".join(found) + "\n")
        return st.one_of(st.none(), lines)

    root_patterns = (*LISTING_ROOT_PATTERNS, *LISTING_ROOT_PATTERNS, *GITIGNORE_PATTERNS)  # half name sub/dir
    return ListedDirectory(entries, draw(ignore_text(root_patterns)), draw(ignore_text(GITIGNORE_PATTERNS)))


@dataclass(frozen=True)
class ListingChange:
    """One change to a listed directory (:class:`ListedDirectory`): ``add`` an entry (``name``, ``kind``),
    ``remove`` one, or rewrite the directory's own or the root's ``.gitignore`` in place (``text``)."""

    action: Literal["add", "remove", "own_ignore", "root_ignore"]
    name: str = ""
    kind: str = "file"
    text: str = ""


@st.composite
def listing_changes(draw: st.DrawFn) -> list[ListingChange]:
    """A few changes, in order, to a directory drawn by :func:`listed_directories`."""
    patterns = st.lists(st.sampled_from(GITIGNORE_PATTERNS), max_size=3).map(
        lambda found: "".join(f"{p}\n" for p in found)
    )
    change = st.one_of(
        st.builds(ListingChange, st.just("add"), st.sampled_from(LISTING_NAMES), st.sampled_from(LISTING_KINDS)),
        st.builds(ListingChange, st.just("remove"), st.sampled_from(LISTING_NAMES)),
        st.builds(ListingChange, st.sampled_from(["own_ignore", "root_ignore"]), text=patterns),
    )
    return draw(st.lists(change, min_size=1, max_size=5))


SECRET_NAMES = (".env", ".env.local", "id_rsa", "id_ed25519", "server.pem", "tls.key", "cert.p12", ".netrc", ".npmrc")
LOOKALIKE_NAMES = (".env.example", ".env.sample", "id_rsa.pub", "notes.key.txt", "env.txt", "pem.md", "keys")


@st.composite
def secret_trees(draw: st.DrawFn) -> dict[str, str]:
    """Relative path -> text: secrets (at any depth, and in .aws/credentials) among look-alikes, all holding
    the word ``needle`` so a content search finds every one."""
    directories = draw(st.lists(st.sampled_from(["", "app/", "app/config/", "deploy/", ".aws/", "a b/"]), min_size=1))
    names = draw(st.lists(st.sampled_from(SECRET_NAMES + LOOKALIKE_NAMES + ("credentials",)), min_size=1, max_size=8))
    tree = {"visible.txt": "needle in the open\n"}
    for index, name in enumerate(names):
        tree[directories[index % len(directories)] + name] = f"needle {index}\n"
    return tree


DENY_PATTERNS = ("*.log", "!keep.log", "[!a]x", "sub/*.txt", "**/cache", "?.md", "!*.pub", "id_*", "!sub/", "sub/")
PATH_PIECES = ("a", "b", "x", "bx", "keep.log", "q.log", "sub", "cache", "é.md", "n.md", "id_rsa", "id_1.pub", "f.txt")


@st.composite
def deny_cases(draw: st.DrawFn) -> tuple[tuple[str, ...], list[str]]:
    """Operator deny rules (which come after the defaults) and root-relative file paths, some of which they deny."""
    rules = tuple(draw(st.lists(st.sampled_from(DENY_PATTERNS), max_size=5)))
    parts = st.lists(st.sampled_from((*PATH_PIECES, ".env", "x.pem")), min_size=1, max_size=4)
    paths = draw(st.lists(parts.map("/".join), max_size=40))
    return rules, paths


def os_name_values() -> st.SearchStrategy[JsonValue]:
    """JSON-shaped values whose strings may hold what ``os.fsdecode`` makes of bytes that are not UTF-8 (lone
    surrogates), as a result built from the names on a disk does."""
    strings = st.text(
        st.one_of(st.characters(codec="utf-8"), st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
    )
    leaves = st.one_of(st.none(), st.booleans(), st.integers(), strings)
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)),
        max_leaves=12,
    )


def break_mixed_texts() -> st.SearchStrategy[str]:
    """Short texts made of letters and every kind of line break, lone CRs and CRLFs side by side."""
    return st.lists(st.sampled_from(["a", "b", "é", "\n", "\r", "\r\n"]), max_size=30).map("".join)


def long_line_texts() -> st.SearchStrategy[str]:
    """A few lines of 1- to 4-byte characters, some far longer than a small response budget, with every ending; the
    last line may lack one."""
    line = st.builds(
        lambda piece, repeat, ending: piece * repeat + ending,
        st.text(st.sampled_from("aé€𝄞"), min_size=1, max_size=3),
        st.integers(min_value=1, max_value=150),
        st.sampled_from(["\n", "\r\n", "\r"]),
    )
    return st.builds(
        lambda lines, last: "".join(lines) + last, st.lists(line, max_size=6), st.sampled_from(["", "z", "x€" * 150])
    )


def whitespace_texts() -> st.SearchStrategy[str]:
    """Short texts whose lines repeat and differ in tabs, spaces and line endings: what whitespace-tolerant matching
    must tell apart."""
    return st.lists(st.sampled_from(["a", "b", " ", "  ", "\t", "\n", "\r", "\r\n"]), max_size=40).map("".join)


def nested_paths() -> st.SearchStrategy[str]:
    """Absolute paths one to three levels under /r, over few names, so that they nest inside each other often."""
    return st.lists(st.sampled_from(["a", "b", "ab"]), min_size=1, max_size=3).map(
        lambda parts: "/r/" + "/".join(parts)
    )


StoreAct = Literal["add", "rewrite", "remove", "corrupt", "list"]


def store_events(max_size: int = 30) -> st.SearchStrategy[list[tuple[StoreAct, int]]]:
    """Acts on a store's files, each with a number: which file an act on an existing one picks (modulo how many
    there are), or for an add the time slot and path of the new one; few slots and paths, so that times tie and
    paths come back."""
    acts: tuple[StoreAct, ...] = ("add", "add", "rewrite", "remove", "corrupt", "list", "list")
    return st.lists(st.tuples(st.sampled_from(acts), st.integers(0, 63)), max_size=max_size)


# -- Names alike, for the paths a missing one likely meant -----------------------------------------------------------

TYPO_NAMES = ("module", "Module", "modules", "moduel", "models.py", "Models.py", "modles.py", "models.pyi")


@dataclass(frozen=True)
class LookalikeTree:
    """Entries (``"file"``, ``"dir"``, or ``"link"`` to a directory outside the root) at paths below the root, made
    in order (one whose place is taken is skipped), and the path below the root to ask for."""

    entries: tuple[tuple[str, str], ...]
    asked: str


@st.composite
def lookalike_trees(draw: st.DrawFn) -> LookalikeTree:
    """Trees whose names are one typo apart, links to the outside among them."""
    paths = st.lists(st.sampled_from(TYPO_NAMES), min_size=1, max_size=3).map("/".join)
    kinds = st.sampled_from(("file", "dir", "link"))
    entries = tuple(draw(st.lists(st.tuples(kinds, paths), max_size=8)))
    return LookalikeTree(entries, draw(paths))


SELECTION_MODES: tuple[ReadMode, ...] = ("head", "tail", "all")


@st.composite
def line_selections(draw: st.DrawFn) -> LineSelection:
    """A window of up to 9 lines, a range starting within the first 9 (open, or read on by column), or none."""
    count = draw(st.integers(min_value=1, max_value=9))
    kind = draw(st.sampled_from(("window", "range", "column", "open", "whole")))
    if kind == "whole":
        return LineSelection()
    if kind == "window":
        return LineSelection(max_lines=count, mode=draw(st.sampled_from(SELECTION_MODES)))
    start = draw(st.integers(min_value=1, max_value=9))
    if kind == "open":
        return LineSelection(start_line=start)
    column = draw(st.integers(min_value=2, max_value=200)) if kind == "column" else None
    return LineSelection(start_line=start, end_line=start + count - 1, start_column=column)


@st.composite
def ripgrep_outputs(draw: st.DrawFn) -> list[dict[str, object]]:
    """rg ``--json`` messages of one file: begin, match and context messages (a match's line text holding quotes,
    backslashes and what looks like its own submatch list), end."""
    pieces = st.sampled_from(["a", '"', "\\", ",", "{", "}", ',{"match":', ',"submatches":[', "é", "\t"])
    text = st.lists(pieces, max_size=12).map("".join)
    messages: list[dict[str, object]] = [{"type": "begin", "data": {"path": {"text": "f.txt"}}}]
    for number in range(1, draw(st.integers(min_value=0, max_value=8)) + 1):
        line = {"text": draw(text) + "\n"}
        spans = draw(st.integers(min_value=0, max_value=6))
        if draw(st.booleans()) or not spans:
            messages.append({"type": "context", "data": {"lines": line, "line_number": number, "submatches": []}})
            continue
        submatches = [{"match": {"text": draw(text)}, "start": k, "end": k + 1} for k in range(spans)]
        data = {"path": {"text": "f.txt"}, "lines": line, "line_number": number, "absolute_offset": 0}
        messages.append({"type": "match", "data": {**data, "submatches": submatches}})
    messages.append({"type": "end", "data": {"path": {"text": "f.txt"}, "binary_offset": None}})
    return messages


# Letters with a canonical decomposition (NFD splits each into a base letter and combining marks), and plain ones.
DECOMPOSABLE = "éèêëàâäîïôöûüçñÉÀÖÜÅåǘệ한"


def accented_words() -> st.SearchStrategy[str]:
    """A word of ASCII and :data:`DECOMPOSABLE` letters holding at least one of the latter, in NFC."""
    return st.tuples(
        st.text(st.sampled_from("abcxyz" + DECOMPOSABLE), max_size=4),
        st.sampled_from(DECOMPOSABLE),
        st.text(st.sampled_from("abcxyz" + DECOMPOSABLE), max_size=4),
    ).map("".join)
