"""Whether rg would read a ``.gitignore`` otherwise than git: the file is a symbolic link (rg follows it, git never
does), it is not a regular one (a FIFO rg would wait on), or one of its lines is read by rg's ``ignore`` crate
(ripgrep 14) in a way of its own. Such a file sends a search to the Python engine, which reads it as git does (see
:mod:`fsguard.core.sidewalk`); every other file, ``*.log``, ``build/``, ``!keep.log`` and the like, is left to rg.

The lines rg reads its own way:

* a first line after a byte order mark: rg reads the mark as part of the line, git skips it (so its first pattern
  names no file in rg, but a first line that is a comment or blank without the mark only a name starting with it);
* one that is not UTF-8: rg stops reading the file there, dropping that line and all below it; git reads bytes;
* one with a brace: rg reads ``{x,y}`` as alternatives (``x`` or ``y``), a lone ``{`` as an error that drops the
  line, a lone ``}`` as an empty alternative; git reads braces as the characters they are;
* a pattern ending in whitespace other than spaces (a tab, a no-break space): rg trims it, git trims spaces alone;
  and one ending in an escaped space then spaces, or an escaped backslash then a space, whose spaces rg trims (or
  keeps) otherwise than git, which trims those no backslash escapes;
* a lone ``!``: rg reads it as re-including every path below the file; git as no pattern;
* a pattern whose last character is a literal ``.``, unless it is a plain path (no wildcard, and a ``/`` in it
  or before it): rg's glob set matches such a pattern by a path's base name or extension, and takes a path ending
  in ``.`` to have neither, so ``x.txt.``, ``*.`` or ``a?.`` never names ``x.txt.``, ``a.``, ``ab.``; ``/x.txt.``
  and ``d/x.txt.`` are matched whole and work.
"""

from __future__ import annotations

import re
from pathlib import Path

from fsguard.core.gitignorefile import BOM, git_trimmed

__all__ = ["LINK", "NOT_REGULAR", "rg_reads_otherwise"]

NOT_REGULAR = "is not a regular file, which rg would wait on or read for ever"
LINK = "is a symbolic link, which rg follows and git never does (it reads no rules there)"

# What rg trims from a line's end (Rust's char::is_whitespace); git trims spaces alone
_RG_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
_RG_WHITESPACE += "\u2028\u2029\u202f\u205f\u3000"
_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # gitignore_lines decodes with surrogateescape
# A line that may be one rg reads its own way (the precise test is _line's): most lines are not, at one search each
_SUSPECT = re.compile(r"[{}\udc80-\udcff]|\A!|\.[\s/\\]*\Z|[^\S ] *\Z|\\ +\Z")
_WILDCARDS = frozenset("*?[{}")


def rg_reads_otherwise(lines: list[str] | None, path: Path | None = None) -> str | None:
    """How rg would read the ``.gitignore`` at ``path`` of ``lines`` (None: a link, or not a regular file, see
    :func:`fsguard.core.gitignorefile.gitignore_lines`) otherwise than git, as words that follow its path; None if
    it reads it as git does."""
    if lines is None:
        return LINK if path is not None and path.is_symlink() else NOT_REGULAR
    if lines and lines[0].startswith(BOM) and lines[0][1:].strip(" ") and not lines[0].startswith("#", 1):
        return "starts with a byte order mark, which rg reads as part of the first pattern and git skips"
    for line in lines:
        if _SUSPECT.search(line) is not None and (why := _line(line)) is not None:
            return why
    return None


def _line(line: str) -> str | None:
    """How rg reads one line otherwise than git, the way :meth:`ignore::gitignore::GitignoreBuilder::add_line`
    turns it into a glob; None if it reads it alike."""
    if _NOT_UTF8.search(line) is not None:
        return "is not UTF-8, and rg drops every line from the first that is not"
    if line.startswith("#"):
        return None
    # rg trims all whitespace unless the line ends in a backslash and a space, git the spaces no backslash escapes:
    # a tab ends a name in git, "x\  " (an escaped space, then one) is "x " to git and "x\" to rg, "x\\ " (an
    # escaped backslash, then a space) "x\" to git and "x\ " to rg.
    trimmed = line if line.endswith("\\ ") else line.rstrip(_RG_WHITESPACE)
    if trimmed != git_trimmed(line):
        return f"ends in {line[len(line.rstrip()) :]!r}, which rg trims otherwise than git"
    line = trimmed
    if _unescaped(line, "{}"):
        return f"holds {line!r}, whose braces rg reads as alternatives and git as the characters they are"
    glob, absolute = line, False
    if glob.startswith(("\\!", "\\#")):
        glob = glob[1:]
        absolute = glob.startswith("/")
    else:
        if glob.startswith("!"):
            glob = glob[1:]
            if not glob:
                return "holds a lone '!', which rg reads as re-including every path and git as no pattern"
        if glob.startswith("/"):
            glob, absolute = glob[1:], True
    if glob.endswith("/"):  # a directory's pattern: rg drops the slash, and the backslash of an escaped one
        glob = glob[:-1].removesuffix("\\")
    if not glob.endswith(".") or _matched_whole(glob, absolute):
        return None
    return f"holds {line!r}, which rg never matches against a name ending in '.'"


def _matched_whole(glob: str, absolute: bool) -> bool:
    """Whether rg matches ``glob`` (ending in ``.``, of a line anchored when ``absolute``) against the whole path,
    not a base name or extension rg takes a name ending in ``.`` to lack: a plain path, which rg anchors (a ``/`` in
    it or before it) or which starts with ``**/`` and holds a ``/`` after that. A plain ``.`` or ``..`` names no
    entry in git either."""
    if not absolute and "/" not in glob:
        body, anchored = glob, False  # rg puts **/ before it
    elif glob.startswith("**/"):
        body, anchored = glob[3:], False
    else:
        body, anchored = glob, True
    if _unescaped(body, _WILDCARDS):
        return False
    return anchored or "/" in body or body in {".", ".."}


def _unescaped(glob: str, chars: str | frozenset[str]) -> bool:
    """Whether ``glob`` holds one of ``chars`` that no backslash escapes (inside a ``[...]`` set too: taken as
    syntax, which at worst leaves a rare file to the Python engine)."""
    if not any(char in glob for char in chars):
        return False
    escaped = False
    for char in glob:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in chars:
            return True
    return False
