"""The tree walk shared by search, project_replace and list_directory: which files of a tree count.

A walk skips, in this order: symlinks and anything that is not a regular file or directory (never followed);
VCS directories (:data:`VCS_DIRS`) always; hidden names (a leading ``.``) unless ``include_hidden``; paths the
tree's own ``.gitignore`` files exclude when ``respect_gitignore`` (the root's and nested ones, never a global
or parent one, whether or not the tree is a git repository); files no include glob matches; files above
``max_file_size``. Entries are visited in byte-wise order of their names, directories depth first, which is the
order of ``rg --sort path``.

A file of the walk is searched as text if :func:`is_text_head` says so, in the bytes :func:`searched_bytes` gives.
:func:`search_names` (re-exported by :mod:`fsguard.core.search`) filters the walk by file name.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

import pathspec
import re2

from fsguard.core.errors import InvalidParamsError, NotDirectoryError, NotFoundError, from_os_error
from fsguard.core.textio import BINARY_SNIFF_BYTES, split_bom

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
GITIGNORE = ".gitignore"
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class WalkOptions:
    """What a walk yields; the defaults are those of ``rg`` run without flags."""

    respect_gitignore: bool = True
    include_hidden: bool = False
    globs: tuple[str, ...] = ()
    max_file_size: int | None = None


def normalise_globs(file_types: list[str] | None) -> tuple[str, ...]:
    """Include globs from what a caller wrote: ``py``, ``.py`` and ``*.py`` all become ``*.py``.

    A glob without ``/`` is matched against a file's name, one with ``/`` against its path relative to the
    root (``src/**/*.ts``; ``**`` spans any number of directories). Empty entries and duplicates are dropped.
    """
    globs: list[str] = []
    for raw in file_types or []:
        glob = raw.strip()
        if not glob:
            continue
        if "/" not in glob and not _GLOB_CHARS & set(glob):
            glob = "*." + glob.lstrip(".")
        if glob not in globs:
            globs.append(glob)
    return tuple(globs)


def glob_matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """A predicate on root-relative POSIX paths: does any of ``globs`` match?

    Raises:
        InvalidParamsError: a glob is malformed.
    """
    names = [glob for glob in globs if "/" not in glob]
    try:
        paths = pathspec.PathSpec.from_lines("gitignore", [glob for glob in globs if "/" in glob])
    except (ValueError, TypeError) as exc:
        raise InvalidParamsError(f"invalid file glob: {exc}. Use globs such as '*.py' or 'src/**/*.ts'.") from exc

    def matches(relative: str) -> bool:
        name = relative.rsplit("/", 1)[-1]
        return any(fnmatchcase(name, glob) for glob in names) or paths.match_file(relative)

    return matches


class IgnoreRules:
    """The ``.gitignore`` files of a tree (root and nested), with ``gitwildmatch`` semantics.

    Each directory's ``.gitignore`` is read on first use. Within a file the last matching pattern wins
    (``!pattern`` re-includes); a deeper ``.gitignore`` overrides a higher one; ``dir/`` patterns match
    directories only; nothing under an ignored directory can be re-included, as in git.
    """

    def __init__(self, root: Path) -> None:
        """Rules for the tree at ``root``; paths passed to :meth:`ignored` must be under it."""
        self._root = root
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` (a directory when ``is_dir``) is excluded, by its own rules or an ignored ancestor."""
        relative = path.relative_to(self._root)
        parts = relative.parts
        for depth in range(1, len(parts)):
            if self.ignored_entry(self._root.joinpath(*parts[:depth]), is_dir=True):
                return True
        return bool(parts) and self.ignored_entry(path, is_dir)

    def ignored_entry(self, path: Path, is_dir: bool) -> bool:
        """Whether the rules exclude ``path`` itself, assuming its ancestors are not excluded (a walk prunes them)."""
        if path == self._root:
            return False
        directory = path.parent
        while True:
            spec = self.spec(directory)
            if spec is not None:
                inner = path.relative_to(directory).as_posix() + ("/" if is_dir else "")
                decision = spec.check_file(inner).include
                if decision is not None:
                    return decision
            if directory == self._root:
                return False
            directory = directory.parent

    def spec(self, directory: Path) -> pathspec.GitIgnoreSpec | None:
        """The compiled ``.gitignore`` of ``directory``, None if it has none."""
        if directory not in self._specs:
            try:
                lines = (directory / GITIGNORE).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._specs[directory] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[directory]


def check_directory(root: Path) -> None:
    """Raise unless ``root`` is an existing directory.

    Raises:
        NotFoundError: ``root`` does not exist.
        NotDirectoryError: ``root`` is something else.
    """
    try:
        mode = root.stat().st_mode
    except FileNotFoundError as exc:
        raise NotFoundError(f"{root} does not exist. Check the path with list_directory.", path=str(root)) from exc
    except OSError as exc:
        raise from_os_error(exc, root) from exc
    if not stat.S_ISDIR(mode):
        raise NotDirectoryError(f"{root} is not a directory; search a directory that contains it.", path=str(root))


def is_text_head(head: bytes) -> bool:
    """Whether a file starting with ``head`` is searched: no NUL in its first 8 KiB, or a UTF-16 BOM.

    UTF-32 files count as binary: ripgrep cannot decode them, and both search engines must skip the same files.
    """
    _bom, encoding = split_bom(head)
    if encoding is not None and encoding != "utf-8":
        return not encoding.startswith("utf-32")
    return b"\x00" not in head[:BINARY_SNIFF_BYTES]


def is_text_file(path: str | Path) -> bool:
    """:func:`is_text_head` on the start of the file at ``path``; False if it cannot be read."""
    try:
        with Path(path).open("rb") as handle:
            return is_text_head(handle.read(BINARY_SNIFF_BYTES))
    except OSError:
        return False


def searched_bytes(data: bytes) -> bytes:
    """The bytes ripgrep searches in a file: UTF-16 transcoded to UTF-8, a UTF-8 BOM dropped, others as they are."""
    bom, encoding = split_bom(data)
    body = data[len(bom) :]
    return body.decode(encoding, "replace").encode() if encoding and encoding != "utf-8" else body


def walk_files(root: Path, options: WalkOptions) -> Iterator[Path]:
    """The files under ``root`` that ``options`` select, in ``rg --sort path`` order (see the module docstring).

    Raises:
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
        InvalidParamsError: a glob is malformed.
    """
    check_directory(root)
    rules = IgnoreRules(root) if options.respect_gitignore else None
    wanted = glob_matcher(options.globs) if options.globs else None
    return _walk(root, "", [], options, rules, wanted)


def _walk(
    directory: Path,
    prefix: str,
    scopes: list[tuple[int, pathspec.GitIgnoreSpec]],
    options: WalkOptions,
    rules: IgnoreRules | None,
    wanted: Callable[[str], bool] | None,
) -> Iterator[Path]:
    """Walk ``directory`` (``prefix`` from the root); ``scopes`` are the ``.gitignore`` files above, with the
    length of their directory's prefix, nearest last."""
    spec = rules.spec(directory) if rules is not None else None
    scopes = [*scopes, (len(prefix), spec)] if spec is not None else scopes
    try:
        with os.scandir(directory) as scan:
            entries = sorted(scan, key=lambda entry: os.fsencode(entry.name))
    except OSError:
        return  # unreadable or vanished: skipped, as rg does
    for entry in entries:
        name = entry.name
        if name in VCS_DIRS or (name.startswith(".") and not options.include_hidden):
            continue
        try:
            mode = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        is_dir = stat.S_ISDIR(mode.st_mode)
        if not is_dir and not stat.S_ISREG(mode.st_mode):
            continue  # symlinks, fifos, sockets, devices
        relative = prefix + name
        if scopes and _excluded(scopes, relative + "/" if is_dir else relative):
            continue
        if is_dir:
            yield from _walk(directory / name, relative + "/", scopes, options, rules, wanted)
        elif (wanted is None or wanted(relative)) and (
            options.max_file_size is None or mode.st_size <= options.max_file_size
        ):
            yield directory / name


def _excluded(scopes: list[tuple[int, pathspec.GitIgnoreSpec]], relative: str) -> bool:
    for start, spec in reversed(scopes):
        decision = spec.check_file(relative[start:]).include
        if decision is not None:
            return decision
    return False


@dataclass(frozen=True)
class NameSearch:
    """Files whose name matches, in walk order."""

    files: tuple[str, ...]
    total: int
    truncated: bool


def search_names(
    root: Path,
    pattern: str,
    options: WalkOptions,
    *,
    regex: bool = False,
    case_sensitive: bool = False,
    max_results: int = 1000,
) -> NameSearch:
    """Files whose name matches ``pattern``: a glob on the name (on the root-relative path if it has ``/``) or
    an RE2 regex searched in the name.

    Raises:
        InvalidParamsError: the pattern is empty or an invalid regex.
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
    """
    if not pattern:
        raise InvalidParamsError("the name pattern is empty.")
    check_directory(root)
    if regex:
        settings = re2.Options()
        settings.log_errors = False
        try:
            compiled = re2.compile(("" if case_sensitive else "(?i)") + pattern, settings)
        except re2.error as exc:
            reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise InvalidParamsError(f"invalid name regex {pattern!r}: {reason}.", pattern=pattern) from exc

        def matches(path: Path) -> bool:
            return compiled.search(path.name) is not None
    else:
        glob = pattern if case_sensitive else pattern.lower()

        def matches(path: Path) -> bool:
            key = path.relative_to(root).as_posix() if "/" in pattern else path.name
            return fnmatchcase(key if case_sensitive else key.lower(), glob)

    found = [str(path) for path in walk_files(root, options) if matches(path)]
    return NameSearch(tuple(found[:max_results]), len(found), len(found) > max_results)
