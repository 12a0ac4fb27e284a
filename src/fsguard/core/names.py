"""File-name search over a tree: ripgrep lists the walk (``rg --files``), a pure-Python walk does when it is missing.

Both engines return the same :class:`NameSearch` (the ``engine`` field aside): the files of
:func:`fsguard.core.ignore.walk_files` whose name matches, in its order (directories depth first, names byte-wise),
the total past ``max_results``, and the default skips. rg walks with :func:`fsguard.core.rgwalk.walk_flags` from
the highest directory whose ``.gitignore`` files apply (:func:`fsguard.core.ignore.gitignore_top`), narrowed to the
searched one as content search does, so the two walks agree on .gitignore semantics, hidden names, VCS directories
and symlinks (never followed). From the searched directory itself, without hidden names and with no dependency
directory found there, rg walks bare (no globs) and what it lists that the walk leaves out is dropped here.

The name is matched in Python on whatever rg lists, so both engines match with the same code. A simple glob on the
name (``*.py``) also narrows rg's listing, as a file type that matches at least what Python will keep (``-g`` would
override the .gitignore rules): ``?`` is spelled ``*`` there (a type's ``?`` is one byte, not one character) and,
case-insensitive, each ASCII letter the alternatives that lower-case to it (``{k,K,K}``, with the Kelvin sign:
a class holding a character past ASCII would match its bytes one by one).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any, Literal

from fsguard.core.beneath import Beneath
from fsguard.core.denial import HiddenFiles
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.globs import glob_matcher, spelled_out
from fsguard.core.ignore import (
    DEPENDENCY_DIRS,
    VCS_DIRS,
    WalkOptions,
    check_directory,
    gitignore_top,
    walk_files,
)
from fsguard.core.pathforms import typeable
from fsguard.core.patterns import compile_re2, re2_text
from fsguard.core.provenance import Provenance
from fsguard.core.rgprocess import Progress, RipgrepFailed, run_spooled
from fsguard.core.rgwalk import only_below, simple_name_glob, walk_flags
from fsguard.core.ripgrep import pinned, ripgrep_path, walk_key
from fsguard.core.sidewalk import walk_beside
from fsguard.core.skips import Skips
from fsguard.core.spelling import NEAR_LIMIT, near_names

__all__ = ["NameSearch", "name_matcher", "search_names"]

logger = logging.getLogger(__name__)
Engine = Literal["auto", "ripgrep", "python"]
_GLOB_CHARS = frozenset("*?[")
# Characters past ASCII whose lower case holds an ASCII letter: a case-insensitive glob's letter may stand for them.
_FOLDED_TO = {"i": "\u0130", "k": "\u212a"}
_PLAIN_NAME = re.compile(r"[\w .@+-]+")  # a file name as typed, no glob or regex syntax in it
_NEAR_SCANNED = 50_000  # names compared with one that matched nothing, at most


@dataclass(frozen=True)
class NameSearch:
    """Files whose name matches, in walk order; ``skipped`` is what the default skips left out (see
    :func:`fsguard.core.ignore.default_skips`), ``unreadable`` the directories the user may not list or enter."""

    files: tuple[str, ...]
    total: int
    truncated: bool
    engine: Literal["ripgrep", "python"] = "python"
    skipped: tuple[str, ...] = ()
    unreadable: tuple[str, ...] = ()
    near: tuple[str, ...] = ()  # with suggest, when a plain name matched nothing: the files it likely misspells


def search_names(
    root: Path,
    pattern: str,
    options: WalkOptions,
    *,
    regex: bool | None = None,
    case_sensitive: bool = False,
    max_results: int = 1000,
    engine: Engine = "auto",
    beneath: Beneath | None = None,
    hide: HiddenFiles | None = None,
    progress: Progress | None = None,
    suggest: bool = False,
) -> NameSearch:
    """The files under ``root`` whose name matches ``pattern`` (see :func:`name_matcher`), in walk order.

    With ``suggest``, a plain file name (no glob, no ``regex``) that matches nothing also gets the files it likely
    meant (``near``: :func:`~fsguard.core.spelling.near_names`, a typo, another case or extension), of the first
    :data:`_NEAR_SCANNED` names of the same walk.

    ``engine="auto"`` lists with ripgrep when it is installed and falls back to the Python walk if it fails. With
    ``beneath``, rg starts in the directory reached by the pinned walk, and every name and default skip returned (and
    counted) is one the pinned walk confirms (see :mod:`fsguard.core.provenance`). ``hide`` (absolute path -> True)
    drops names a deny rule hides. ``progress`` gets the rounds rg has run (see
    :func:`~fsguard.core.rgprocess.run_spooled`), every 0.1 s, and may raise to stop rg: a cancelled search. A
    ``.gitignore`` rg would read otherwise than git (a FIFO it would wait on for ever, braces) makes the Python walk
    list the names (see :mod:`fsguard.core.sidewalk`).

    Raises:
        InvalidParamsError: the pattern is empty, an invalid regex with ``regex``, or a glob is malformed.
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
        FsguardError: ``engine="ripgrep"`` and ripgrep is missing or failed.
    """
    matches = name_matcher(pattern, regex=regex, case_sensitive=case_sensitive)
    check_directory(root)
    rg = ripgrep_path()
    if engine == "ripgrep" and rg is None:
        raise FsguardError("ripgrep is not installed. Retry with engine='python'.")
    found: list[str] | None = None
    skipped: list[str] = []
    unreadable: list[str] = []  # found by the walk beside rg, or the Python walk
    used: Literal["ripgrep", "python"] = "ripgrep"
    prefix = str(root).rstrip("/") + "/"
    # every name the walk listed, matched or not: what a name that matched nothing may have meant
    listing: list[str] | None = [] if suggest and regex is None and _PLAIN_NAME.fullmatch(pattern) else None
    with ExitStack() as held:  # the checks of what the engines list start before they do
        provenance = None if beneath is None else held.enter_context(Provenance(beneath, gitignore_top(root, options)))
        if engine != "python" and rg is not None:
            prefilter = _prefilter(pattern, regex, case_sensitive)
            try:
                found, skipped = _ripgrep_names(
                    rg, root, options, matches, prefilter, beneath, progress, unreadable, listing
                )
            except RipgrepFailed as exc:
                if engine == "ripgrep":
                    raise FsguardError(f"ripgrep failed: {exc}. Retry with engine='python'.") from exc
                logger.warning("ripgrep failed (%s); listing names with the Python walk", exc)
        if found is None:
            lead = len(prefix)
            unreadable.clear()  # the walk finds them again
            walked = [str(path)[lead:] for path in walk_files(root, options, skipped, unreadable=unreadable)]
            found = [name for name in walked if matches(name)]
            if listing is not None:
                listing[:] = walked
            used = "python"
        by_rg = used == "ripgrep"
        found = _shown(found, prefix, provenance, by_rg, hide)  # after the engines, so both hide the same names
        near = _near(pattern, _shown(listing, prefix, provenance, by_rg, hide), prefix) if listing and not found else ()
    if beneath is not None:
        kept = Skips(skipped, unreadable=unreadable).standing(beneath, root, above=None, hide=hide)
        skipped, unreadable = kept.by_default, kept.unreadable
    files = tuple(prefix + name for name in found[:max_results])  # tens of thousands found, a page returned
    return NameSearch(files, len(found), len(found) > max_results, used, tuple(skipped), tuple(unreadable), near)


def _shown(
    names: list[str], prefix: str, provenance: Provenance | None, listed: bool, hide: HiddenFiles | None
) -> list[str]:
    """Those of ``names`` that are files of the roots (:func:`_standing`, ``listed`` as there) and that no deny rule
    hides."""
    if provenance is not None:
        names = _standing(names, prefix, provenance, listed=listed)
    return names if hide is None else hide.shown(names, prefix)


def _near(name: str, listed: list[str], prefix: str) -> tuple[str, ...]:
    """The files of ``listed`` (below ``prefix``, in walk order) that ``name``, a plain file name that matched
    nothing, likely meant; of the first :data:`_NEAR_SCANNED` of them."""
    paths: dict[str, list[str]] = {}
    for path in listed[:_NEAR_SCANNED]:
        paths.setdefault(path[path.rfind("/") + 1 :], []).append(prefix + path)
    meant = near_names(name, [known for known in paths if typeable(known)], NEAR_LIMIT)
    return tuple([path for known in meant for path in paths[known]][:NEAR_LIMIT])


def _standing(names: list[str], prefix: str, provenance: Provenance, *, listed: bool) -> list[str]:
    """Those of ``names`` (below ``prefix``) that are files of the roots: from a listing of a directory settled
    since the search began (``listed``: rg listed it from a directory it held), else regular files the pinned
    walk finds there now."""
    kept: list[str] = []
    for directory, group in groupby(names, key=lambda name: name.rpartition("/")[0]):
        if listed and provenance.listed(prefix + directory if directory else prefix[:-1] or "/"):
            kept += group
            continue
        for name in group:
            found = provenance.entry(prefix + name)
            if found is not None and stat.S_ISREG(found.st_mode):
                kept.append(name)
    return kept


def name_matcher(pattern: str, *, regex: bool | None, case_sensitive: bool) -> Callable[[str], bool]:
    """Whether a file matches ``pattern``, asked of its path relative to the searched directory: a glob if the
    pattern holds ``* ? [`` (matched whole, read as an include glob of ``file_types`` is: ``{a,b}`` alternatives,
    and with a ``/`` a path glob where ``*`` stops at ``/`` and ``**/`` spans any number of directories, none too),
    else an RE2 regex searched in the name (an invalid one is plain text to find in it); ``regex`` True or False
    forces one reading. The name is the last component, unless the pattern holds ``/``: then it is the whole
    relative path.

    Raises:
        InvalidParamsError: the pattern is empty, or an invalid regex with ``regex=True``.
    """
    if not pattern:
        raise InvalidParamsError("the name pattern is empty. Pass a glob such as '*.py', or a regex on the name.")
    whole = "/" in pattern

    def key(relative: str) -> str:
        return relative if whole else relative[relative.rfind("/") + 1 :]

    if regex is False or (regex is None and _GLOB_CHARS & set(pattern)):
        globs = spelled_out(pattern)
        if case_sensitive:
            return glob_matcher(globs)
        lowered = glob_matcher(tuple(glob.lower() for glob in globs))
        return lambda relative: lowered(relative.lower())
    # Names and patterns compared composed: a name's bytes may hold "é" as "e" and a combining accent (macOS,
    # many archives), and any path given to a tool reaches it either way.
    pattern = unicodedata.normalize("NFC", pattern)
    try:
        compiled = compile_re2(
            pattern,
            case_sensitive=case_sensitive,
            what="name regex",
            advice=". Escape its special characters, or pass regex=false to read it as a glob.",
        )
    except InvalidParamsError:
        if regex:
            raise
        text = pattern if case_sensitive else pattern.lower()
        return lambda relative: (
            text in (_composed(key(relative)) if case_sensitive else _composed(key(relative)).lower())
        )

    def search(relative: str) -> bool:
        text = _composed(key(relative))
        try:
            return compiled.search(text) is not None
        except UnicodeEncodeError:  # a name that is not UTF-8 took the whole search down with internal_error
            return compiled.search(re2_text(text)) is not None

    return search


def _composed(name: str) -> str:
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def _prefilter(pattern: str, regex: bool | None, case_sensitive: bool) -> tuple[str, bool] | None:
    """A file-type glob for rg that matches every name the glob ``pattern`` matches, and whether it matches exactly
    those among ASCII names (an ASCII pattern without ``?``); None if there is no such glob cheaply (a regex, a path
    glob, classes or braces, or one that may match a name ending in ``.``, which no type does): then rg lists the
    whole walk."""
    if regex or "/" in pattern or not (regex is False or _GLOB_CHARS & set(pattern)):
        return None
    if not simple_name_glob(pattern):
        return None
    spelled = []
    for char in pattern.replace("?", "*"):
        if case_sensitive or not char.isascii():
            spelled.append(char if case_sensitive else "*")
        elif char.isalpha():
            spelled.append("{" + ",".join([char.lower(), char.upper(), *_FOLDED_TO.get(char.lower(), "")]) + "}")
        else:
            spelled.append(char)
    return "".join(spelled), pattern.isascii() and "?" not in pattern


def _ripgrep_names(
    rg: Path,
    root: Path,
    options: WalkOptions,
    matches: Callable[[str], bool],
    prefilter: tuple[str, bool] | None,
    beneath: Beneath | None,
    progress: Progress | None = None,
    unreadable: list[str] | None = None,
    listing: list[str] | None = None,
) -> tuple[list[str], list[str]]:
    """The matching files (relative to ``root``, in walk order) as rg lists the walk, and the default skips;
    ``unreadable`` gets the directories the user may not list or enter (rg skips the first, its names in the second
    are left out), ``listing`` every file listed.

    When rg walks from ``root`` without hidden names and the tree held no default skip the last time it was
    searched (the first time, they are looked for before rg starts), rg walks bare (see
    :func:`fsguard.core.rgwalk.walk_flags`) and what it lists that the walk leaves out (a hidden name, a VCS or
    dependency directory, one made since) is dropped here. The default skips are found in Python while rg walks,
    on the other core, by a walk that also looks at each ``.gitignore`` rg reads (:mod:`fsguard.core.sidewalk`).

    Raises:
        RipgrepFailed: rg could not run or reported an error.
        GitignoreReadOtherwise: rg would read a ``.gitignore`` otherwise than git (rg was stopped, or never
            started).
    """
    top = gitignore_top(root, options)
    inside = root.relative_to(top).parts
    lead = b"".join(os.fsencode(part) + b"/" for part in inside)
    skipped: list[str] = []
    skips = options.skip_dependencies or options.skip_minified

    first = not inside and not options.include_hidden

    def scan(bare: bool, entered: bool = False) -> None:  # shapes are kept: a later scan stats directories, reads none
        walk_beside(root, options, skipped if skips else None, bare=bare, entered=entered, unreadable=unreadable)

    known = _HAD_SKIPS.get((str(root), options)) if first else None
    before = first and known is None and skips  # a tree not searched yet: its skips are looked for before rg starts
    if before:
        scan(first)  # whether rg walks bare is decided by what this scan finds: looked at as if it did
    bare = first and not (skipped if known is None else known)
    flags = walk_flags(options, inside, bare=bare)
    exact = False
    if prefilter is not None and "fsguard" not in flags:  # types add up: an include-glob type would widen it
        glob, exact = prefilter
        flags += ["--type-add", f"fsguardname:{glob}", "--type", "fsguardname"]
    with only_below(inside) as narrowing, pinned(beneath, top) as cwd:
        command = [str(rg), "--no-config", *flags, *narrowing, "--files", "--null", "--", "./"]
        output = run_spooled(command, cwd, progress, None if before else functools.partial(scan, bare, bare))
    if first:
        _remember(str(root), options, bool(skipped))
    listed = _walk_ordered(output, lead)
    wanted = glob_matcher(options.globs) if options.globs else None
    joined = listed.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
    names = joined.split("\0") if listed else []
    left_out = _left_out(options.skip_dependencies) if bare else None
    if left_out is not None and left_out.search(listed):
        names = [name for name in names if not left_out.search(os.fsencode(name))]
    if wanted is not None:
        names = [name for name in names if wanted(name)]
    if shut := tuple(name for name in unreadable or () if name.endswith("/")):
        # rg lists the names in a directory it may not enter (r without x): the walk beside names the directory, and
        # the Python walk lists none of them either
        names = [name for name in names if not name.startswith(shut)]
    if listing is not None:
        listing[:] = names
    if not (exact and joined.isascii()):  # a type matches ASCII names as fnmatch does, past ASCII only more
        names = [name for name in names if matches(name)]
    return names, skipped


# Whether each tree searched held default skips, by (directory, walk options): a repeated search starts rg at once.
_HAD_SKIPS: dict[tuple[str, WalkOptions], bool] = {}
_MAX_TREES = 256


def _remember(root: str, options: WalkOptions, had_skips: bool) -> None:
    if len(_HAD_SKIPS) >= _MAX_TREES:
        _HAD_SKIPS.clear()  # one step, safe beside other threads; the trees are looked at first again
    _HAD_SKIPS[(root, options)] = had_skips


@functools.cache
def _left_out(dependencies: bool) -> Any:  # an re2 pattern
    """What a bare rg walk may list that the walk leaves out, among NUL-separated paths: a hidden name (rg's own
    rule gives way to a file type or a .gitignore negation that names it), a VCS directory (``_darcs`` is not
    hidden; a file of that name is left out too) and, with ``dependencies``, a dependency directory."""
    shown = sorted(name for name in VCS_DIRS if not name.startswith("."))
    folders = sorted(DEPENDENCY_DIRS) if dependencies else []
    either = (
        [r"\."] + [rf"{re.escape(name)}(?:[/\x00]|$)" for name in shown] + [rf"{re.escape(name)}/" for name in folders]
    )
    return compile_re2(rf"(?:^|[/\x00])(?:{'|'.join(either)})", as_bytes=True)


def _walk_ordered(output: bytes, lead: bytes) -> bytes:
    """The paths of ``rg --files --null`` output that start with ``lead`` (which is cut), NUL-separated, in walk
    order: byte-wise with ``/`` lowest, so a directory's files come before those of a sibling ``dir.x``.

    Tens of thousands of names: every step is one C call over the whole output, none per name, unless a name
    holds the byte that stands for ``/`` while sorting; those few outputs are sorted with a key per name.
    """
    if not output:
        return b""
    body = output[2:-1]  # each record is ./path NUL, and a path never holds a NUL
    if lead and body.startswith(lead) and body.count(b"\0./" + lead) == body.count(b"\0./"):
        body = body[len(lead) :].replace(b"\0./" + lead, b"\0./")  # every record is below lead: cut in one call
        lead = b""
    if lead:  # some records are not below lead: kept one by one
        body = b"\0./".join(record[len(lead) :] for record in body.split(b"\0./") if record.startswith(lead))
    if b"\x01" in output:
        records = body.split(b"\0./")
        records.sort(key=walk_key)
        return b"\0".join(records)
    # "/" sorting lowest as \x01, then split where each "./" began: no list made but to sort.
    ordered = body.replace(b"/", b"\x01").split(b"\0.\x01")
    ordered.sort()
    return b"\0".join(ordered).replace(b"\x01", b"/")
