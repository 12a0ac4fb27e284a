"""The tree walk shared by search, project_replace and list_directory: which files of a tree count.

A walk skips, in this order: symlinks and anything that is not a regular file or directory (never followed);
VCS directories (:data:`VCS_DIRS`) always; hidden names (a leading ``.``) unless ``include_hidden``; paths
``.gitignore`` files exclude when ``respect_gitignore`` (the walked directory's own and nested ones, and those of
its ancestors down from ``rules_from``, the server root holding it; never a global one, whether or not the tree
is a git repository; a walk of an excluded directory yields nothing); files no include glob matches; files
above ``max_file_size``. With ``skip_dependencies``, directories named in :data:`DEPENDENCY_DIRS` below the walked
directory (dependencies, caches, build output: what users of the seed expect a search to leave out, with or without
a ``.gitignore``); with ``skip_minified``, files matching :data:`MINIFIED_GLOBS` (not ending in ``.``, as in rg).
Entries are visited in byte-wise order of their names, directories depth first, which is the order of
``rg --sort path``. A ``.gitignore`` that is a symbolic link or not a regular file is read as no rules
(:func:`fsguard.core.gitignorefile.gitignore_lines`).

Searches over the walk (by name, by content) are :mod:`fsguard.core.search`'s.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from fsguard.core.entries import GITIGNORE, entries_of, kind_of, minified, readable, stat_of
from fsguard.core.errors import NotDirectoryError, NotFoundError
from fsguard.core.gitignorefile import GitignoreFile, gitignore_lines
from fsguard.core.globs import glob_matcher
from fsguard.core.globs import normalise_globs as normalise_globs  # where callers have imported it from
from fsguard.core.nesting import Below, flattened
from fsguard.core.oserrors import followed_os_error
from fsguard.core.rgreading import rg_reads_otherwise
from fsguard.core.shapes import DIRECTORY_SHAPES

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
# The seed's skip list (dependencies, caches, build output) without ``bin`` and ``packages``, which hold sources in
# many projects (scripts, JavaScript monorepos), plus the Python tools' caches. Matched by exact name.
DEPENDENCY_DIRS = frozenset(
    {
        *("node_modules", "bower_components", "jspm_packages", "__pycache__", ".venv", "venv", ".tox", ".nox"),
        *(".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs", ".next", ".nuxt", ".svelte-kit", ".gradle"),
        *(".cache", ".tmp", ".vs", ".nuget", "target", "dist", "build", "obj"),
    }
)
MINIFIED_GLOBS = ("*.min.*", "*.map")  # bundles and source maps: one huge line, found in every search


@dataclass(frozen=True)
class WalkOptions:
    """What a walk yields; the defaults are those of ``rg`` run without flags."""

    respect_gitignore: bool = True
    include_hidden: bool = False
    globs: tuple[str, ...] = ()
    max_file_size: int | None = None
    rules_from: Path | None = None  # an ancestor whose .gitignore files, and those below it, apply; None: the root
    skip_dependencies: bool = False  # DEPENDENCY_DIRS below the walked directory
    skip_minified: bool = False  # files matching MINIFIED_GLOBS


class IgnoreRules:
    """The ``.gitignore`` files of a tree (root and nested), with git's semantics.

    Each directory's ``.gitignore`` is read on first use. Within a file the last pattern naming an entry wins
    (``!pattern`` re-includes); a deeper ``.gitignore`` overrides a higher one; ``dir/`` patterns match
    directories only; nothing under an ignored directory can be re-included, as in git.
    """

    def __init__(self, root: Path, *, screen: bool = False) -> None:
        """Rules for the tree at ``root``; paths passed to :meth:`ignored` must be under it. With ``screen`` (the
        walk beside rg's, no other), each ``.gitignore`` read is judged too: :attr:`read_otherwise` gets those rg
        would read otherwise than git, and how (see :mod:`fsguard.core.rgreading`)."""
        self.root = root
        self._files: dict[Path, GitignoreFile | None] = {}
        self._screen = screen
        self.read_otherwise: list[tuple[Path, str]] = []

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether ``path`` (a directory when ``is_dir``) is excluded, by its own rules or an ignored ancestor."""
        relative = path.relative_to(self.root)
        parts = relative.parts
        for depth in range(1, len(parts)):
            if self.ignored_entry(self.root.joinpath(*parts[:depth]), is_dir=True):
                return True
        return bool(parts) and self.ignored_entry(path, is_dir)

    def ignored_entry(self, path: Path, is_dir: bool) -> bool:
        """Whether the rules exclude ``path`` itself, assuming its ancestors are not excluded (a walk prunes them)."""
        return bool(self.decision(path, is_dir))

    def decision(self, path: Path, is_dir: bool) -> bool | None:
        """As :meth:`ignored_entry`, None when no pattern names ``path`` (False: a negation re-includes it)."""
        if path == self.root:
            return None
        directory = path.parent
        while True:
            rules = self.rules(directory)
            if rules is not None:
                decision = rules.decide(path.relative_to(directory).as_posix() + ("/" if is_dir else ""))
                if decision is not None:
                    return decision
            if directory == self.root:
                return None
            directory = directory.parent

    def rules(self, directory: Path) -> GitignoreFile | None:
        """The compiled ``.gitignore`` of ``directory``, None if it has none."""
        if directory not in self._files:
            lines = gitignore_lines(directory / GITIGNORE)
            if self._screen and (why := rg_reads_otherwise(lines, directory / GITIGNORE)) is not None:
                self.read_otherwise.append((directory / GITIGNORE, why))
            self._files[directory] = GitignoreFile(lines) if lines else None
        return self._files[directory]


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
        raise followed_os_error(exc, root) from exc
    if not stat.S_ISDIR(mode):
        raise NotDirectoryError(f"{root} is not a directory; search a directory that contains it.", path=str(root))


def walk_files(
    root: Path,
    options: WalkOptions,
    skipped: list[str] | None = None,
    large: list[str] | None = None,
    *,
    unreadable: list[str] | None = None,
) -> Iterator[Path]:
    """The files under ``root`` that ``options`` select, in ``rg --sort path`` order (see the module docstring).

    ``skipped`` gets what ``skip_dependencies`` and ``skip_minified`` leave out, as :func:`default_skips` lists it;
    ``large``, the files left out for being above ``max_file_size``; ``unreadable``, the directories the walk may
    not list or enter (each ending in ``/``) and, with ``max_file_size`` (a walk of files to read), the files it
    may not read (all relative to ``root``).

    Raises:
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
        InvalidParamsError: a glob is malformed.
    """
    return _start(root, _Walk(options, skipped, large=large, unreadable=unreadable))


def default_skips(
    root: Path,
    options: WalkOptions,
    large: list[str] | None = None,
    rules: IgnoreRules | None = None,
    *,
    bare: bool = False,
    unreadable: list[str] | None = None,
) -> list[str]:
    """What ``skip_dependencies`` and ``skip_minified`` leave out of the walk of ``root``, in walk order, as paths
    relative to it: each dependency directory once (a directory ends in ``/``; nothing below it is read), and each
    minified file the walk would otherwise yield. Cheaper than the walk: only directories are judged one by one,
    unless ``large`` asks for the files above ``max_file_size`` too (each file is then looked at, not read).
    ``rules`` (rooted where :func:`gitignore_top` says) is the walk's, to look at after it: each ``.gitignore`` it
    read, on the way from ``rules_from`` and in every directory walked. With ``bare``, it also reads those of the
    hidden and VCS directories a bare rg walk enters (see :func:`fsguard.core.rgwalk.walk_flags`): ``_darcs``,
    and a hidden one a ``.gitignore`` negation names. ``unreadable`` gets the directories it may not list or enter.

    Raises:
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
        InvalidParamsError: a glob is malformed.
    """
    skipped: list[str] = []
    walk = _Walk(options, skipped, files=False, rules=rules, large=large, bare=bare, unreadable=unreadable)
    for _ in _start(root, walk):
        pass
    return skipped


@dataclass
class _Walk:
    """One walk's settings: what to yield, and where the default skips are recorded."""

    options: WalkOptions
    skipped: list[str] | None = None
    files: bool = True  # False: yield nothing, only record the minified files and dependency directories
    rules: IgnoreRules | None = None
    wanted: Callable[[str], bool] | None = None
    large: list[str] | None = None  # gets the files above max_file_size, when given
    bare: bool = False  # read the .gitignore files of the hidden and VCS directories a bare rg walk enters
    unreadable: list[str] | None = None  # gets the directories it may not list or enter, files it may not read
    euid: int = field(default_factory=os.geteuid)  # whose reading and entering ``unreadable`` is judged for

    @property
    def dirs_only(self) -> bool:
        """Whether no file can count: a scan for the default skips of directories alone."""
        sizes = self.large is not None and self.options.max_file_size is not None
        return not (self.files or self.options.skip_minified or sizes)

    def skip(self, relative: str) -> None:
        if self.skipped is not None:
            self.skipped.append(relative)

    def file(self, entry: os.DirEntry[str], relative: str, scopes: list[_Scope]) -> Path | None:
        """The file ``entry`` if the walk yields it (a default skip is recorded instead)."""
        bundle = self.options.skip_minified and minified(entry.name)
        if not (self.files or bundle or self.large is not None):
            return None  # a scan for the default skips judges no other file
        if scopes and _decision(scopes, relative):
            return None
        if self.wanted is not None and not self.wanted(relative):
            return None
        if bundle:  # a default skip whatever its size
            self.skip(relative)
            return None
        # A walk for reading (a name search has no limit); one stat tells both the size and who may read it.
        if self.options.max_file_size is not None and (found := stat_of(entry)) is not None:
            if found.st_size > self.options.max_file_size:
                if self.large is not None:
                    self.large.append(relative)
                return None
            if self.unreadable is not None and not readable(entry, found, self.euid):
                self.unreadable.append(relative)  # rg skips it without a word, the Python engine's read fails
                return None
        return Path(entry.path) if self.files else None


_Scope = tuple[str, int, "GitignoreFile"]


def _start(root: Path, walk: _Walk) -> Iterator[Path]:
    check_directory(root)
    options = walk.options
    walk.wanted = glob_matcher(options.globs) if options.globs else None
    if not options.respect_gitignore:
        return flattened(_walk(str(root), "", [], walk))
    top = gitignore_top(root, options)
    walk.rules = walk.rules or IgnoreRules(top)
    if walk.rules.ignored(root, is_dir=True):
        return iter(())
    return flattened(_walk(str(root), "", _scopes_above(walk.rules, root), walk))


def _scopes_above(rules: IgnoreRules, directory: Path) -> list[_Scope]:
    """The ``.gitignore`` files of the directories from ``rules``' root down to ``directory``'s parent, as scopes of
    a walk of ``directory``."""
    scopes: list[_Scope] = []
    for ancestor in reversed(directory.parents[: len(directory.parts) - len(rules.root.parts)]):
        found = rules.rules(ancestor)
        if found is not None:
            scopes.append((directory.relative_to(ancestor).as_posix() + "/", 0, found))
    return scopes


def gitignore_top(root: Path, options: WalkOptions) -> Path:
    """The highest directory whose ``.gitignore`` applies to a walk of ``root``: ``rules_from`` when it holds
    ``root``, .gitignore files count and one lies on the way down (in ``rules_from`` or a directory between it and
    ``root``), else ``root`` itself. With nothing on the way, a walk (rg's too) starts at ``root`` and need not be
    narrowed to it from above: the same files, without matching every path against the narrowing."""
    top = options.rules_from
    if not options.respect_gitignore or top is None or not root.is_relative_to(top):
        return root
    if any(_holds_gitignore(ancestor) for ancestor in root.parents[: len(root.parts) - len(top.parts)]):
        return top
    return root


def _holds_gitignore(directory: Path) -> bool:
    """Whether ``directory`` may hold a ``.gitignore``: anything by that name, or a look that failed (not absent)."""
    try:
        os.lstat(directory / GITIGNORE)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def excluded_by_gitignore(root: Path, options: WalkOptions) -> bool:
    """Whether ``root`` itself (or a directory on the way down from ``rules_from``) is excluded, so that a walk of
    it yields nothing."""
    top = gitignore_top(root, options)
    return top != root and IgnoreRules(top).ignored(root, is_dir=True)


def _walk(directory: str, prefix: str, scopes: list[_Scope], walk: _Walk) -> Generator[Path | Below[Path], None, None]:
    """Walk ``directory`` (``prefix`` from the root); ``scopes`` are the ``.gitignore`` files above, nearest last:
    a path relative to the root is seen by one as ``lead`` + the path from ``start``. Paths are strings on the way
    (a Path per directory cost a scan for the default skips as much as its stats), Paths only for files yielded."""
    # The walked directory is always judged, and a subdirectory where what is skipped is reported: r without x
    # lets rg list its names but open none of them, which it skips without a word.
    entered_by = walk.euid if walk.unreadable is not None or not prefix else None
    try:
        entries, rules_here = entries_of(directory, dirs_only=walk.dirs_only, entered_by=entered_by)
    except OSError as exc:  # skipped, as rg does; one the user may not list is named, one that vanished is not
        if exc.errno not in (errno.EACCES, errno.EPERM):
            return
        if not prefix:  # the directory searched: refused, not an empty answer
            raise followed_os_error(exc, directory) from exc
        if walk.unreadable is not None:
            walk.unreadable.append(prefix)
        return
    found = walk.rules.rules(Path(directory)) if walk.rules is not None and rules_here else None
    below = directory if directory.endswith("/") else directory + "/"
    scopes = [*scopes, ("", len(prefix), found)] if found is not None else scopes
    for entry in entries:
        name = entry.name
        if name in VCS_DIRS or (name.startswith(".") and not walk.options.include_hidden):
            if walk.bare and walk.rules is not None and kind_of(entry) == "dir":
                _reach(below + name, prefix + name + "/", scopes, walk.rules, hidden=False)
            continue
        kind = kind_of(entry)  # symlinks, fifos, sockets and devices are None
        relative = prefix + name
        if kind == "dir" and not (scopes and _decision(scopes, relative + "/")):
            if walk.options.skip_dependencies and name in DEPENDENCY_DIRS:
                walk.skip(relative + "/")
            else:
                yield Below(_walk(below + name, relative + "/", scopes, walk))  # run by flattened: no recursion
        elif (
            isinstance(entry, os.DirEntry)
            and kind == "file"
            and (path := walk.file(entry, relative, scopes)) is not None
        ):
            yield path


def _decision(scopes: list[_Scope], relative: str) -> bool | None:
    """True if the nearest ``.gitignore`` naming ``relative`` excludes it, False if it re-includes it, else None."""
    for lead, start, rules in reversed(scopes):
        decision = rules.decide(lead + relative[start:])
        if decision is not None:
            return decision
    return None


def reach(directory: Path, rules: IgnoreRules, *, hidden: bool) -> None:
    """Read, through ``rules``, the ``.gitignore`` of ``directory`` and of every directory below it that rg enters
    (see :func:`_reach`), ``directory`` being one it enters."""
    _reach(str(directory), "", _scopes_above(rules, directory), rules, hidden=hidden)


def _reach(directory: str, prefix: str, scopes: list[_Scope], rules: IgnoreRules, *, hidden: bool) -> None:
    """Read, through ``rules``, the ``.gitignore`` of ``directory`` (at ``prefix`` of a walk with ``scopes``) and of
    every directory below it, if rg enters it: unless a ``.gitignore`` excludes it, or, without ``hidden``, it is
    hidden and no negation names it (rg's own rule for hidden names)."""
    stack = [(directory, prefix, scopes)]
    while stack:
        directory, prefix, scopes = stack.pop()
        decision = _decision(scopes, prefix) if scopes and prefix else None
        name = directory.rpartition("/")[2]
        if decision or (decision is None and not hidden and name.startswith(".")):
            continue
        try:
            shape = DIRECTORY_SHAPES.of(directory)
        except OSError:
            continue  # unreadable or vanished: rg skips it too
        found = rules.rules(Path(directory)) if shape.has_gitignore else None
        scopes = [*scopes, ("", len(prefix), found)] if found is not None else scopes
        stack += [(directory + "/" + sub, prefix + sub + "/", scopes) for sub in reversed(shape.subdirectories)]
