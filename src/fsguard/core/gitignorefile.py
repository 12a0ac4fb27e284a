"""One ``.gitignore`` file: how it is read (:func:`gitignore_lines`) and which entries its patterns name
(:class:`GitignoreFile`), with git's and ripgrep's semantics; the files deciding one directory's entries
(:class:`IgnoreMatcher`). The walk over a tree's files is :mod:`fsguard.core.ignore`'s.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from fsguard.core.errors import InvalidParamsError
from fsguard.core.globs import gitignore_pattern

BOM = "\ufeff"


def gitignore_lines(path: Path) -> list[str] | None:
    """The lines of the ``.gitignore`` at ``path`` (none if there is no such file, it cannot be read, or it is a
    directory); None if it is a symbolic link, a FIFO or a device, which is read as no rules too: git never follows
    a link by that name (since 2.32), a FIFO would be waited on for ever, a device read without end. ripgrep reads a
    directory (or a socket, which does not open) as no rules as well, but follows a link, waits on a FIFO and reads
    a device: a walk that meets one reports it (see :mod:`fsguard.core.sidewalk`)."""
    try:
        with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW), "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            if stat.S_ISDIR(mode):
                return []
            if not stat.S_ISREG(mode):
                return None
            # Lines end at "\n" alone, and a "\r" before it goes (git and ripgrep both): a form feed, "\x85" or
            # "\u2028" is part of a pattern, not a line break as str.splitlines() would have it. Bytes that are not
            # UTF-8 stand for themselves, as in git, and for the bytes of a name that holds them.
            text = file.read().decode("utf-8", "surrogateescape")
            return [line.removesuffix("\r") for line in text.split("\n")]
    except OSError as exc:
        return None if exc.errno == errno.ELOOP else []


class GitignoreFile:
    """One ``.gitignore``: pathspec parses each line; this class decides which entry a pattern names.

    pathspec's regexes are written for ``search`` over whole file paths, so ``/a`` also matches ``a/b`` (the
    file is under an excluded directory). A walk asks about one entry at a time, its ancestors already let
    through, so a pattern counts only if it matches the entry itself: ``a/*.txt`` then ``!/a`` leaves ``a/c.txt``
    excluded, and ``*`` then ``!*/`` lets every directory through, as in git and ripgrep.
    """

    def __init__(self, lines: list[str]) -> None:
        """Compile ``lines`` (the file's text, one pattern or comment per line); a line that is no valid pattern
        is dropped, the others stand, as in ripgrep."""
        # What the file said, in 32 bytes: two files saying the same decide the same. A digest, not the lines: each
        # remembered listing keeps it, and a .gitignore can be megabytes long.
        self.digest = hashlib.blake2b("\n".join(lines).encode("utf-8", "surrogatepass"), digest_size=32).digest()
        self._rules: list[tuple[Callable[[str], bool], bool]] = []
        if lines and lines[0].startswith(BOM):  # git skips a byte order mark at the start of the file
            lines = [lines[0].removeprefix(BOM), *lines[1:]]
        for line in map(_bytewise, lines):
            if line[-1:].isspace():  # "\xa0" too: the last byte of "à" in UTF-8, which pathspec would strip
                line = _kept_by_pathspec(git_trimmed(line))
            try:
                found = None if _names_nothing(line) else gitignore_pattern(_git_wildmatch(line))
            except InvalidParamsError:
                continue
            if found is not None:
                self._rules.append((_entry_matcher(found[0]), found[1]))
        self.negates = not all(include for _, include in self._rules)  # a ``!pattern`` re-includes

    def decide(self, relative: str) -> bool | None:
        """True if the last pattern naming ``relative`` (a directory ends in ``/``) excludes it, False if it
        re-includes it, None if no pattern names it."""
        relative = _bytewise(relative)
        for matches, include in reversed(self._rules):
            if matches(relative):
                return include
        return None


class GitignoreTree(Protocol):
    """What a matcher asks of the rules of a whole tree (:class:`fsguard.core.ignore.IgnoreRules`)."""

    def ignored(self, path: Path, is_dir: bool) -> bool: ...

    def rules(self, directory: Path) -> GitignoreFile | None: ...


class IgnoreMatcher:
    """The ``.gitignore`` patterns deciding the entries of one directory, matched on their names (git's rules,
    as :meth:`IgnoreRules.ignored_entry` applies them, with the directory's ancestors judged once)."""

    def __init__(self, rules: GitignoreTree, top: Path, directory: Path) -> None:
        """Patterns for entries of ``directory``, from the ``.gitignore`` files of ``top`` down to it."""
        self.everything = directory != top and rules.ignored(directory, is_dir=True)
        parts = directory.relative_to(top).parts
        self._scopes: list[tuple[str, GitignoreFile]] = []  # (path of the directory from the file's, file)
        for depth in range(len(parts) + 1):
            found = rules.rules(top.joinpath(*parts[:depth]))
            if found is not None:
                self._scopes.append(("".join(part + "/" for part in parts[depth:]), found))
        self._scopes.reverse()  # the nearest file decides first

    @property
    def applies(self) -> bool:
        """Whether any pattern (or an excluded ancestor) bears on the directory's entries."""
        return self.everything or bool(self._scopes)

    @property
    def source(self) -> tuple[object, ...]:
        """What the decisions follow from, for one directory: equal sources decide every name alike. (A file's lead
        is told by its length: it is a tail of the directory's path.)"""
        return (self.everything, *((len(lead), rules.digest) for lead, rules in self._scopes))

    def __call__(self, name: str, is_dir: bool) -> bool:
        """Whether the entry ``name`` (a directory when ``is_dir``) is excluded."""
        if self.everything:
            return True
        relative = name + "/" if is_dir else name
        for lead, rules in self._scopes:
            decision = rules.decide(lead + relative)
            if decision is not None:
                return decision
        return False


def _bytewise(text: str) -> str:
    """``text`` with each UTF-8 byte as one character: git (and ripgrep) match ``?``, ``*`` and ``[...]`` on
    bytes, so ``?.py`` does not name ``é.py``; pathspec matches characters."""
    return text if text.isascii() else text.encode("utf-8", "surrogateescape").decode("latin-1")


def git_trimmed(line: str) -> str:
    """``line`` without the trailing spaces git strips: those no backslash escapes (git's trim_trailing_spaces),
    not tabs or any other whitespace."""
    trailing: int | None = None  # where the last run of unescaped spaces began
    index = 0
    while index < len(line):
        if line[index] == " ":
            trailing = index if trailing is None else trailing
        elif line[index] == "\\":
            index += 1
            if index == len(line):
                return line  # a dangling backslash: no valid pattern, trimmed or not
            trailing = None
        else:
            trailing = None
        index += 1
    return line if trailing is None else line[:trailing]


def _kept_by_pathspec(trimmed: str) -> str:
    """``trimmed`` (trimmed as git trims it, a character a byte, see :func:`_bytewise`) with a last whitespace
    character but a space spelled as a one-character set: pathspec, as rg, strips every trailing whitespace
    character, so a tab would no longer end the name it ends in git (rg reads such a line otherwise, see
    :mod:`fsguard.core.rgreading`, and leaves it to this engine). Byte-wise, the last byte of a no-break space, and
    of ``à`` or ``Š`` in UTF-8, is such a character too."""
    if not trimmed[-1:].isspace() or trimmed[-1] == " ":
        return trimmed
    run = len(trimmed) - 1 - len(trimmed[:-1].rstrip("\\"))  # backslashes before it: an odd run escapes it
    return trimmed[: len(trimmed) - 1 - run % 2] + "[" + trimmed[-1] + "]"


def _names_nothing(line: str) -> bool:
    """Whether git lets ``line`` name nothing where pathspec's pattern names entries: a lone ``/`` (or ``!/``),
    which pathspec reads as ``**``, and a ``[`` that never closes, which pathspec reads as a literal ``[`` but git's
    wildmatch fails the whole pattern on (ripgrep drops the line as an invalid glob: no match either way).
    ``line`` is trimmed already: any whitespace it ends in is kept by pathspec too."""
    if line.removeprefix("!") == "/":
        return True
    if "[" not in line:
        return False
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern  # here: start-up never pays for pathspec

    try:
        # pathspec's git-faithful reading, which drops the lines whose "[" never closes (and blank ones, comments).
        return GitIgnoreSpecPattern.pattern_to_regex(line)[1] is None
    except ValueError:
        return False  # no pattern in either reading: gitignore_pattern says so


def _entry_matcher(regex: re.Pattern[str]) -> Callable[[str], bool]:
    if regex.pattern == ".":  # ``*``, ``**``: every entry
        return bool
    if regex.pattern == "/":  # ``*/``, ``**/``: every directory
        return lambda relative: relative.endswith("/")
    return lambda relative: regex.fullmatch(relative) is not None


_TRAILING_STARS = re.compile(r"(?<=.)/\*\*(/?) *$")


def _git_wildmatch(line: str) -> str:
    """``dir/**`` matches what is inside ``dir`` but not ``dir`` itself, in git and ripgrep; pathspec's version
    also matches ``dir/``, so such a pattern is spelled ``dir/**/*`` (``dir/**/`` becomes ``dir/**/*/``)."""
    found = _TRAILING_STARS.search(line)
    return line[: found.start()] + "/**/*" + found.group(1) if found else line
