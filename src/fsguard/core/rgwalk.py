"""The rg flags that give rg the walk of :func:`fsguard.core.ignore.walk_files`, and the spelling of names in them.

The walk flags: only ``.gitignore`` files (``--no-require-git``; none from above rg's working directory,
globally, ``.git/info/exclude``, ``.ignore`` or ``.rgignore``); hidden names and VCS directories excluded by
override globs rather than by ``--hidden`` being off, because a ``.gitignore`` whitelist (``!.github``) would
otherwise bring a hidden entry back; ``--max-filesize``; the default skips as a directory-only override glob
(``!**/{node_modules,…}/``) and a file type left out (``--type-not``: a type names files, never directories).
A search of one file walks its directory letting only that name through. A search below ``rules_from`` (the
server root) runs from there, narrowed to the searched directory by an ``--ignore-file``, so the ``.gitignore``
files on the way apply as they do in the tree. Include globs are checked in Python on the output: ``-g`` globs
would override the ``.gitignore`` rules. Name-only globs also narrow the walk, as a file type, which filters
after them.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from fsguard.core.ignore import DEPENDENCY_DIRS, MINIFIED_GLOBS, VCS_DIRS, WalkOptions
from fsguard.core.rgprocess import RipgrepFailed

# Read the same by fnmatch and ripgrep's globset, and ending in a character a name ending in "." cannot end in
_SIMPLE_NAME_GLOB = re.compile(r"[^/{}\[\]\\,:!]*[^/{}\[\]\\,:!*?.]")
_GLOB_SYNTAX = re.compile(r"[\\*?\[\]{}]")
_CASE_PAIR = re.compile(r"\[([a-z])([A-Z])\]")  # an extension's letter in either case: see case_folded


def simple_name_glob(glob: str) -> bool:
    """Whether ``glob`` is a glob on a name alone that fnmatch and ripgrep's globset read alike (``*`` and ``?``
    aside, which globset reads on bytes), so that it can name a file type. Not one that may match a name ending
    in ``.`` (``*``, ``README*``): rg's file types never match such a name (``README.``), and a type asked for
    leaves it out of the walk. An ASCII letter's set of both cases (``*.[gG][oO]``) is read alike too, so an
    extension in any case still narrows the walk."""
    paired = _CASE_PAIR.sub(lambda found: "x" if found[1].upper() == found[2] else found[0], glob)
    return _SIMPLE_NAME_GLOB.fullmatch(paired) is not None


def walk_flags(options: WalkOptions, below: tuple[str, ...] = (), *, bare: bool = False) -> list[str]:
    """The rg flags whose walk is :func:`fsguard.core.ignore.walk_files` (include globs aside), for a walk of the
    directory ``below`` rg's working directory: hidden and VCS names are left out under it, not on the way.

    ``bare`` drops the VCS and dependency globs (an override glob costs rg a match per path, a quarter of a name
    search) and leaves hidden names to rg's own rule: for a walk of rg's working directory without hidden names,
    where the caller found no such directory and drops what rg lists anyway (see ``fsguard.core.names``).
    """
    if bare and (below or options.include_hidden):
        raise ValueError("a bare walk starts in rg's working directory and leaves hidden names out")
    flags = ["--no-messages"] if bare else ["--hidden", "--no-messages"]
    if options.respect_gitignore:
        flags += ["--no-require-git", "--no-ignore-global", "--no-ignore-parent", "--no-ignore-exclude"]
        flags += ["--no-ignore-dot"]
    else:
        flags.append("--no-ignore")
    excluded = sorted(VCS_DIRS) + ([] if options.include_hidden else [".*"])
    under = "".join(glob_literal(part) + "/" for part in below)
    if not bare:
        flags += ["--glob", f"!{under}{'**/' if under else ''}{{{','.join(excluded)}}}"]
    if options.max_file_size is not None:
        flags += ["--max-filesize", str(options.max_file_size)]
    if options.skip_dependencies and not bare:  # a trailing / names directories only
        flags += ["--glob", f"!{under}**/{{{','.join(sorted(DEPENDENCY_DIRS))}}}/"]
    if options.globs and all(map(simple_name_glob, options.globs)):
        # A type's ? is one byte: spelled * it still matches at least what fnmatch's ? (one character) does.
        flags += [arg for glob in options.globs for arg in ("--type-add", f"fsguard:{glob.replace('?', '*')}")]
        flags += ["--type", "fsguard"]
    if options.skip_minified:  # a file type names files only; given last, it wins over --type fsguard
        flags += [arg for glob in MINIFIED_GLOBS for arg in ("--type-add", f"fsguardmin:{glob}")]
        flags += ["--type-not", "fsguardmin"]
    return flags


@contextmanager
def only_below(parts: tuple[str, ...]) -> Iterator[list[str]]:
    """rg flags that leave out everything but the directory ``parts`` below the walk's start: an ``--ignore-file``
    (its patterns are anchored at rg's working directory and weigh less than any ``.gitignore``, so an excluded
    directory stays excluded). No flags for no parts.

    Raises:
        RipgrepFailed: a name holds a line break, or is not UTF-8 (rg stops reading an ignore file at the first line
            that is not), which no ignore file can spell.
    """
    if not parts:
        yield []
        return
    if any("\n" in part or "\r" in part for part in parts):
        raise RipgrepFailed("a directory name on the way holds a line break")
    if not all(map(_utf8, parts)):
        raise RipgrepFailed("a directory name on the way is not UTF-8")
    lines, above = [], ""
    for part in parts:
        lines += [f"{above}/*", f"!{above}/{_gitignore_literal(part)}/"]
        above += "/" + _gitignore_literal(part)
    with tempfile.NamedTemporaryFile("w", prefix="fsguard-rg-", suffix=".ignore", encoding="utf-8") as rules:
        rules.write("\n".join(lines) + "\n")
        rules.flush()
        yield ["--ignore-file", rules.name]


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _gitignore_literal(name: str) -> str:
    """``name`` as a path component of an rg ignore pattern (never its first character): glob syntax escaped, a
    backslash as a class (rg's .gitignore reader refuses ``x\\/``, "dangling '\\'", and the line would be dropped
    without a word)."""
    escaped = _GLOB_SYNTAX.sub(lambda found: "[\\\\]" if found[0] == "\\" else "\\" + found[0], name)
    trimmed = escaped.rstrip(" ")
    return trimmed + "\\ " * (len(escaped) - len(trimmed))  # trailing spaces would be dropped


def glob_literal(name: str) -> str:
    """``name`` with the characters of ripgrep's glob syntax (globset) escaped, and a last character that is
    whitespace as a one-name alternation (``y{ }``): rg reads a ``--glob`` as a .gitignore line and drops its
    trailing whitespace (Rust's, NBSP and the like too), and a one-character class would not do for a character
    past ASCII (globset matches classes on bytes)."""
    escaped = _GLOB_SYNTAX.sub(r"\\\g<0>", name)
    return escaped[:-1] + "{" + escaped[-1] + "}" if escaped[-1:].isspace() else escaped
