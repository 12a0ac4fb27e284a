"""File globs as callers write them: split, spelled out, and matched against paths below a root.

A caller may write the globs of ``file_types``, ``include``, ``include_paths`` or ``exclude_paths`` as a list, as
JSON array text, or as the seed's comma-separated string; ``{a,b}`` alternatives are spelled out here, because
neither :mod:`fnmatch` nor the ``.gitignore`` syntax reads them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from fnmatch import fnmatch, fnmatchcase
from pathlib import Path

from fsguard.core.errors import InvalidParamsError

_GLOB_CHARS = frozenset("*?[")
_MAX_EXPANSIONS = 256  # alternatives a {a,b} glob may expand to


def split_globs(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """The globs a caller wrote, one by one: a list, JSON array text (``'["py", "md"]'``, a trailing comma
    tolerated), or a comma-separated string as the seed takes it (``".go, .txt"``). A list's item is one glob
    whole, as rg reads each ``-g`` (``x,y`` names the directory ``x,y``); only the one string is cut at commas, not
    at those inside ``{}`` (alternatives of one glob, which :func:`expand_globs` spells out) or escaped (``x\\,y``).
    Blank entries are dropped.

    Raises:
        InvalidParamsError: a glob holds a NUL character (no name holds one, and no process argument can).
    """
    if value is None:
        return ()
    items = _written(value.strip()) if isinstance(value, str) else list(value)
    if any("\0" in item for item in items):
        raise InvalidParamsError("a glob holds a NUL character, which no file name or path holds. Remove it.")
    found = (item.strip() for item in items)
    return tuple(item for item in found if item)


def _written(text: str) -> list[str]:
    """The globs of one string: the items of JSON array text (a trailing comma tolerated), else its parts between
    commas; array text JSON does not read (``["\\{a\\}"]``: ``\\{`` is no JSON escape) is cut so too, its quotes
    dropped."""
    if not (text.startswith("[") and text.endswith("]") and '"' in text):
        return _top_level_split(text, listed=True)
    try:
        decoded = json.loads(re.sub(r",\s*\]$", "]", text), strict=False)
    except ValueError:
        decoded = None
    if isinstance(decoded, list) and all(isinstance(item, str) for item in decoded):
        return decoded
    return [part.strip().strip('"') for part in _top_level_split(text[1:-1], listed=True)]


def expand_globs(value: str | Sequence[str] | None) -> tuple[str, ...]:
    """:func:`split_globs`, with each ``{a,b}`` spelled out: ``*.{js,ts}`` is ``*.js`` and ``*.ts`` (and a glob
    with an accent in both Unicode forms).

    Raises:
        InvalidParamsError: the braces expand to more than 256 globs.
    """
    globs: list[str] = []
    for glob in split_globs(value):
        globs += [spelled for spelled in spelled_out(glob) if spelled not in globs]
    return tuple(globs)


def spelled_out(glob: str) -> tuple[str, ...]:
    """Every spelling of the one glob ``glob`` with its ``{a,b}`` groups chosen one way (a comma outside braces is
    part of the glob).

    Raises:
        InvalidParamsError: the braces expand to more than 256 globs.
    """
    return tuple(dict.fromkeys(form for spelled in _braces(glob) for form in _forms(spelled)))


def _forms(glob: str) -> tuple[str, ...]:
    """``glob`` composed and decomposed: a name's bytes hold one of the two (macOS and many archives write ``é`` as
    ``e`` and a combining accent), and a path given to any tool reaches either; a glob must too. Not one with a
    class: ``[é]`` decomposed is ``[e`` and an accent ``]``, a class of two characters that takes any ``e``."""
    if glob.isascii() or "[" in glob:
        return (glob,)
    return tuple(dict.fromkeys((glob, unicodedata.normalize("NFC", glob), unicodedata.normalize("NFD", glob))))


def normalise_globs(file_types: str | Sequence[str] | None) -> tuple[str, ...]:
    """Include globs from what a caller wrote (any form :func:`split_globs` reads): an extension (``py``, ``.py``,
    ``!md``) becomes a glob on it in any case (``*.[pP][yY]``), as the seed compared extensions lowercased and
    ``IMG.JPG`` is a ``.jpg``; a glob (``*.py``, ``!*.md``) stays as written and matches case-sensitively, as rg's
    ``-g`` does.

    A glob without ``/`` is matched against a file's name, one with ``/`` against its path relative to the
    root (``src/**/*.ts``; ``**`` spans any number of directories). Empty entries and duplicates are dropped.
    A list's item ``py,md`` is two extensions, as no extension holds a comma (``x\\,y`` one that does). A bare item
    with a dot not at its start (``package.json``, ``tar.gz``) or a capital (``Makefile``, ``LICENSE``) is also the
    file name it spells.
    """
    globs: list[str] = []
    for written in expand_globs(file_types):
        bare = "/" not in written and not _GLOB_CHARS & set(written)
        for raw in (part.strip() for part in (_top_level_split(written) if bare else [written])):
            negated, glob = raw.startswith("!"), raw.removeprefix("!")  # "!md" leaves *.md out, as rg -g reads it
            read = [glob]
            if glob and "/" not in glob and not _GLOB_CHARS & set(glob):
                # "package.json" is a name as much as an extension ("tar.gz"), and so is a word with a capital
                # ("Makefile", "LICENSE"): either matches, a name as rg -g reads it. "py" and ".py" are extensions.
                named = not glob.startswith(".") and ("." in glob or glob != glob.lower())
                read = ["*." + case_folded(glob.lstrip("."))] + ([glob] if named else [])
            for one in read:
                one = "!" + one if negated else one
                if one and one not in globs:
                    globs.append(one)
    return tuple(globs)


def case_folded(text: str) -> str:
    """``text`` as a glob matching it in any case: each letter a set of its lower and upper case (``go`` is
    ``[gG][oO]``), lower first so that :func:`fsguard.core.rgwalk.simple_name_glob` knows an ASCII pair. A letter
    whose other case is more than one character (``ß``) stays as it is, and so does an escaped one (``\\x``)."""
    folded: list[str] = []
    escaped = False
    for char in text:
        cases = "".join(dict.fromkeys(form for form in (char.lower(), char.upper(), char) if len(form) == 1))
        folded.append(f"[{cases}]" if len(cases) > 1 and not escaped else char)
        escaped = char == "\\" and not escaped
    return "".join(folded)


def _top_level_split(text: str, *, listed: bool = False) -> list[str]:
    """``text`` cut at the commas outside braces. A backslash escapes the character after it, as in rg's globs and
    .gitignore: ``\\,`` is part of a name, never a cut, and ``\\{`` opens no group. ``listed`` (a comma list's
    globs): a comma inside escaped braces cuts nothing either, as ``\\{a,b\\}`` names one name."""
    parts, depth, start = [], 0, 0
    for index, char in _unescaped(text, keep_braces=listed):
        depth += (char == "{") - (char == "}" and depth > 0)
        if char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def _unescaped(text: str, *, keep_braces: bool = False) -> Iterator[tuple[int, str]]:
    """The characters of ``text`` with their index, but those a backslash escapes (with ``keep_braces``, not a
    brace) and the backslash itself."""
    escaped = False
    for index, char in enumerate(text):
        if escaped and not (keep_braces and char in "{}"):
            escaped = False
        elif char == "\\" and not escaped:
            escaped = True
        else:
            escaped = False
            yield index, char


def _braces(glob: str) -> list[str]:
    """Every spelling of ``glob`` with its ``{a,b}`` groups (nested ones too) chosen one way; unbalanced braces
    are left as they are, and so are escaped ones (``\\{a,b\\}`` is that name, as rg reads it)."""
    start = depth = -1
    for end, char in _unescaped(glob):
        if start < 0:
            start, depth = (end, 0) if char == "{" else (-1, -1)
            continue
        depth += (char == "{") - (char == "}")
        if depth < 0:
            head, tail = glob[:start], _braces(glob[end + 1 :])
            spelled = [
                head + a + t
                for option in _top_level_split(glob[start + 1 : end])
                for a in _braces(option)
                for t in tail
            ]
            if len(spelled) > _MAX_EXPANSIONS:
                raise InvalidParamsError(f"the glob {glob!r} expands to more than {_MAX_EXPANSIONS} globs; pass fewer.")
            return spelled
    return [glob]


def gitignore_pattern(line: str) -> tuple[re.Pattern[str], bool] | None:
    """One line of ``.gitignore`` syntax as pathspec reads it: the regex a path (a directory's ending in ``/``)
    matches, and whether it excludes (False for a ``!`` negation); None for a blank line or a comment.

    The regex is Python's, which reads ``[[:upper:]]`` as ripgrep does (a set of ``[:uper`` then ``]``); pathspec's
    own matcher would compile it again in RE2, which reads a POSIX class there and refuses the rest. It is compiled
    with ``re.DOTALL``: git's ``**`` spans a name holding a line break as any other, and pathspec spells it ``.+``.

    Raises:
        InvalidParamsError: the line is no valid pattern (a dangling ``\\``, a range such as ``[c-a]``).
    """
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern  # here: start-up never pays for pathspec

    try:
        regex, include = GitIgnoreBasicPattern.pattern_to_regex(line)
        if regex is None or include is None:
            return None
        # Done on the regex: spelled so in the glob, pathspec would keep the backslash as a member of the set.
        return re.compile(unwarned_sets(regex), re.DOTALL), include
    except (ValueError, re.error) as exc:
        raise InvalidParamsError(f"invalid glob {line!r}: {exc}. Use globs such as '*.py' or 'src/**/*.ts'.") from exc


_WARNED_IN_SETS = frozenset("-&~|[")  # doubled (or "[" first) in a set, Python warns of a set operation to come


def unwarned_sets(regex: str) -> str:
    """``regex`` with each literal ``-``, ``&``, ``~``, ``|`` and ``[`` of its sets escaped, a range's ``-`` kept.

    Python warns of ``[[`` (a nested set) and of ``--``, ``&&``, ``~~`` and ``||`` in a set (set operations, one
    day), which globs such as ``[?--]`` and ``[a||b]`` become; escaped, each is the same literal, now and then.
    The set is walked as Python's parser walks it: a ``]`` first in it is a member, an item then ``-`` and not
    ``]`` is a range.
    """
    out: list[str] = []
    at, end = 0, len(regex)

    def item() -> None:  # one member, an escape or a character, at ``at``
        nonlocal at
        width = 2 if regex[at] == "\\" else 1
        piece = regex[at : at + width]
        out.append("\\" + piece if piece in _WARNED_IN_SETS else piece)
        at += width

    while at < end:
        char = regex[at]
        if char != "[":
            width = 2 if char == "\\" else 1
            out.append(regex[at : at + width])
            at += width
            continue
        out.append("[^" if regex.startswith("[^", at) else "[")
        at += len(out[-1])
        first = True
        while at < end and (first or regex[at] != "]"):
            item()
            first = False
            if regex.startswith("-", at) and at + 1 < end and regex[at + 1] != "]":
                out.append("-")
                at += 1
                item()
        if at < end:
            out.append("]")
            at += 1
    return "".join(out)


def spelled_from(glob: str, directory: str = "") -> tuple[str, bool]:
    """``glob`` without what spells the searched ``directory`` at its start, a ``./`` (as agents often write
    ``./src/*.py``) or ``directory``'s absolute path, and whether it had one. Globs are read from that directory,
    where neither names a path, so such a glob found nothing: it names a path at the directory's top."""
    lead = directory.rstrip("/") + "/" if directory else ""
    body = glob[len(lead) :] if lead not in ("", "/") and glob.startswith(lead) else glob
    while body.startswith("./"):
        body = body[2:]
    return body, body != glob


def anchored(glob: str, directory: str = "") -> str:
    """``glob`` (a ``!`` kept) with the start :func:`spelled_from` takes off written ``/``, which anchors the rest
    at the top of the searched directory in .gitignore syntax."""
    negation = "!" if glob.startswith("!") else ""
    body, spelled = spelled_from(glob.removeprefix(negation), directory)
    return negation + "/" + body if spelled else glob


def fnmatch_spelling(glob: str) -> str:
    """``glob`` as :mod:`fnmatch` must be given it to read it as ripgrep, git and the seed's Go read it: a backslash
    escapes the character after it (``a\\*b`` is the name ``a*b``) and ``[^...]`` is a negated set, where fnmatch
    takes a backslash as itself and ``^`` as a member. Inside a set nothing else changes (the README lists
    ``[\\]]`` among the edges left); a backslash ending the glob stays itself."""
    if "\\" not in glob and "[^" not in glob:
        return glob
    out: list[str] = []
    at = 0
    while at < len(glob):
        char = glob[at]
        if char == "\\" and at + 1 < len(glob):
            escaped = glob[at + 1]
            out.append(f"[{escaped}]" if escaped in "*?[" else escaped)
            at += 2
            continue
        if char == "[":
            # fnmatch's own reading of a set: "!" (here also "^") negates, a "]" first is a member
            end = at + 1
            if end < len(glob) and glob[end] in "!^":
                end += 1
            if end < len(glob) and glob[end] == "]":
                end += 1
            end = glob.find("]", end)
            if end != -1:
                body = glob[at + 1 : end]
                out.append("[" + ("!" + body[1:] if body.startswith("^") else body) + "]")
                at = end + 1
                continue
            out.append("[[]")  # a "[" that opens no set is itself; fnmatch must not see it open one later
            at += 1
            continue
        out.append(char)
        at += 1
    return "".join(out)


def glob_matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """A predicate on root-relative POSIX paths, as rg reads its ``-g`` globs: the last glob matching a path decides
    (a ``!`` glob leaves it out) and a path none matches is taken only when every glob is a ``!`` one; a directory
    on the way that a ``!`` glob so leaves out takes all below it out, whatever matches them.

    Raises:
        InvalidParamsError: a glob is malformed.
    """
    tests = [_glob_test(glob) for glob in globs]
    unmatched = not any(include for _test, include in tests)
    prunes = not all(include for _test, include in tests)

    def decided(relative: str, path: str, is_dir: bool) -> bool | None:
        for test, include in reversed(tests):
            if test(relative, path, is_dir):
                return include
        return None

    left_out: dict[str, bool] = {}  # by directory: a walk asks of each directory's files in turn

    def matches(relative: str) -> bool:
        # pathspec's ".+" and "$" stop at a line break; no glob holds a NUL, and "*" and "?" take one as any other
        path = relative.replace("\n", "\0")
        slash = relative.find("/") if prunes else -1
        while slash != -1:
            directory = relative[:slash]
            out = left_out.get(directory)
            if out is None:
                out = left_out[directory] = decided(directory, path[:slash], True) is False
            if out:
                return False
            slash = relative.find("/", slash + 1)
        found = decided(relative, path, False)
        return unmatched if found is None else found

    return matches


_Test = Callable[[str, str, bool], bool]  # (relative path, the same with line breaks as NULs, a directory?) -> matched


def _glob_test(glob: str) -> tuple[_Test, bool]:
    """What one glob matches and whether it takes in (False for a ``!`` glob) what it matches."""
    include = not glob.startswith("!")
    body = glob if include else glob[1:]
    if "/" not in body:
        spelled = fnmatch_spelling(body)
        return (lambda relative, _path, _dir: fnmatchcase(relative[relative.rfind("/") + 1 :], spelled)), include
    found = gitignore_pattern(anchored(glob))
    if found is None:
        return (lambda _relative, _path, _dir: False), include
    regex, include = found
    # pathspec's regex is a prefix: it also matches a path below a directory the glob names (a .gitignore's
    # reading), so ``*/x`` took every file under ``src/x``. As rg reads ``-g``, a glob matches a whole path (a
    # directory's ending in "/"), unless it ends in ``/**`` or is all ``**`` and ``*`` (which pathspec spells "."):
    # then whatever is below (``d/**`` takes in everything in ``d``, not ``d`` itself).
    if glob.endswith("/**") or regex.pattern == ".":
        return (lambda _relative, path, _dir: regex.search(path) is not None), include
    return (lambda _relative, path, is_dir: regex.fullmatch(path + "/" if is_dir else path) is not None), include


def under_globs(path: Path, base: Path, globs: tuple[str, ...]) -> bool:
    """A glob without "/" matches the name (or any directory name on the way); with "/" the relative path, or,
    as the seed reads ``dir/sub``, a directory on the way (``dir/**`` is the whole subtree either way). A glob
    spelled from ``base`` (:func:`spelled_from`: ``./src``, ``/abs/base/src``) names ``src`` at its top only, where a
    bare ``src`` is any directory of that name."""
    relative = path.relative_to(base).as_posix() if path.is_relative_to(base) else path.name
    names = relative.split("/")
    return any(_under(relative, names, *spelled_from(glob, base.as_posix())) for glob in globs)


def _under(relative: str, names: list[str], glob: str, spelled: bool) -> bool:
    glob = fnmatch_spelling(glob)
    if spelled or "/" in glob:
        return fnmatch(relative, glob) or fnmatch(relative, glob.rstrip("/") + "/*")
    return any(fnmatch(name, glob) for name in names)


def left_in(
    path: Path, base: Path, included: tuple[str, ...], excluded: tuple[str, ...], *, directory: bool = False
) -> bool:
    """Whether include_paths and exclude_paths (globs relative to ``base``) leave ``path`` in. An include glob is
    not applied to a directory, which may hold files it includes."""
    if excluded and under_globs(path, base, excluded):
        return False
    return directory or not included or under_globs(path, base, included)
