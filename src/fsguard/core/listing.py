"""list_directory: flat pages of entries, or a bounded tree.

A listing costs one scan of the directory's names plus work proportional to what it answers: the scan keeps
names and the types the kernel reports with them (``d_type``), so hidden names and ``.gitignore`` patterns are
decided on strings and the sort needs no ``stat``; only the entries of the requested page (or the tree's nodes,
capped at ``max_items``) are stat'ed and built. Symlinks are the exception: each is followed while scanning,
because where it sorts depends on what it leads to. The totals (entries, hidden, ignored) count the whole scan.
The scan of a big directory is remembered while the directory is unchanged, so its next pages cost only their
own stats.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import Beneath, lstat_at
from fsguard.core.confirmation import plural
from fsguard.core.disk import is_temp_name
from fsguard.core.errors import AccessDeniedError, FsguardError, InvalidParamsError, NotDirectoryError, NotFoundError
from fsguard.core.gitignorefile import IgnoreMatcher
from fsguard.core.ignore import IgnoreRules
from fsguard.core.oserrors import from_os_error
from fsguard.core.paths import PathPolicy
from fsguard.core.remembered import Remembered
from fsguard.core.session import Session
from fsguard.core.statfacts import entry_type, page_entries
from fsguard.models import EntryType, ListDirectoryResult, TreeNode

OutputFormat = Literal["compact", "json", "tree"]
# Scans of directories this big are remembered (a smaller one reads in under a millisecond), up to this many bytes
# of names in all: about 350,000 short names, or 100,000 of 255 characters (a bound in names let those take 120 MB).
_REMEMBERED_FROM = 1_000
_REMEMBERED_BYTES = 32 * 2**20
_PER_NAME = 80  # a name's str header (up to 76 bytes, past ASCII) and its list slot
_PER_SCAN = 1_100  # the Scan and its lists, its key and identity, the slot keeping them (a scan showing no name)


@dataclass
class Scan:
    """One directory's names as listed: directories (links to directories too) first, then the rest, each in
    case-insensitive name order; no entry has been stat'ed except symlinks, which were followed."""

    directories: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)
    links: dict[str, tuple[EntryType, os.stat_result]] = field(default_factory=dict)  # shown type, stat shown
    hidden: int = 0  # left out: the name starts with "."
    ignored: int = 0  # left out: .gitignore excludes it
    denied: int = 0  # left out: a deny rule hides it
    # Some name was a symlink, shown or left out: whether a rule for directories (``build/``) leaves it out
    # follows its target as much as where it sorts does.
    followed: bool = False
    # The symlinks among the names (shown or left out) that lead to a directory, so sort among the directories.
    linked_directories: list[str] = field(default_factory=list)
    # The directory's identity when its names were read (device, inode, times, .gitignore rules), and which of its
    # links lead to directories: another stamp on a later page means the names may have moved between pages (a
    # link's target turned from a directory into a file leaves the directory as it was, yet moves the link down).
    # Without links, the cache's own tuple: a scan holds no copy.
    stamp: Hashable = ()

    @property
    def total(self) -> int:
        return len(self.directories) + len(self.others)

    @property
    def weight(self) -> int:
        """About the bytes its names take, not less: their characters at the widest width any of them needs (one
        join, a millisecond for 200,000 names, where a size per name takes 16), and a header each."""
        return sum(sys.getsizeof("".join(names)) for names in (self.directories, self.others)) + _PER_NAME * self.total

    def names(self, start: int, stop: int) -> list[str]:
        """The names at positions ``start`` to ``stop`` of the listing."""
        split = len(self.directories)
        return self.directories[start:stop] + self.others[max(start - split, 0) : max(stop - split, 0)]


class DirectoryLister:
    """Lists directories under the path policy, capped at ``max_items`` entries per answer."""

    def __init__(
        self,
        policy: PathPolicy,
        beneath: Beneath,
        session: Session,
        *,
        max_items: int,
        clock: Callable[[], int] = time.time_ns,
    ) -> None:
        self._policy = policy
        self._beneath = beneath
        self._session = session
        self._max_items = max_items
        self._clock = clock
        self._scans: Remembered[tuple[str, bool], Scan] = Remembered(_REMEMBERED_BYTES)

    def page(
        self, user_path: str, *, include_hidden: bool, offset: int, limit: int | None, respect_gitignore: bool = False
    ) -> ListDirectoryResult:
        """One page of a directory's entries, directories first, then by name."""
        path = self._policy.resolve(user_path)
        page_size = min(limit or self._max_items, self._max_items)
        rules = self._rules(path) if respect_gitignore else None
        with self._session.watching(path), self._opened(path) as fd:
            scan = self._scan(path, fd, include_hidden, self._matcher(rules, path))
            if offset > scan.total:
                raise InvalidParamsError(
                    f"offset {offset} is past the end of {path} ({plural(scan.total, 'entry', 'entries')}). "
                    f"Use an offset <= {scan.total}.",
                    path=str(path),
                )
            names = scan.names(offset, offset + page_size)
            # An entry removed since the scan is left out; the positions (next_offset) stay those of the scan.
            entries = page_entries(path, fd, names, scan.links)
        before = self._session.paged(path, (include_hidden, respect_gitignore), scan.stamp, scan.total)
        end = offset + len(names)
        more = end < scan.total
        # Built, not validated: the entries are typed dicts mypy checks, and validating 20,000 of them again took
        # a tenth of a whole listing's time in the server.
        return ListDirectoryResult.model_construct(
            path=str(path),
            output_format="json",
            entries=entries,
            total=scan.total,
            offset=offset,
            ignored=scan.ignored,
            hidden=scan.hidden,
            denied=scan.denied,
            truncated=more,
            next_offset=end if more else None,
            note=_moved(path, before, scan.total) if offset and before is not None else None,
        )

    def tree(
        self,
        user_path: str,
        *,
        include_hidden: bool,
        max_depth: int,
        respect_gitignore: bool = False,
        limit: int | None = None,
    ) -> ListDirectoryResult:
        """The directory as a tree down to ``max_depth`` levels, at most ``limit`` nodes (--max-list-items at most);
        symlinked directories are not entered. The denied, hidden and ignored counts add up what every directory
        the tree visited left out; a directory the cap cut says how many of its entries it left out."""
        path = self._policy.resolve(user_path)
        cap = min(limit or self._max_items, self._max_items)
        budget = [cap, 0, 0, 0]  # entries still allowed; left out: denied, hidden, ignored
        rules = self._rules(path) if respect_gitignore else None
        with self._session.watching(path):
            children, cut = self._subtree(path, include_hidden, max_depth, budget, rules)
        root = TreeNode(name=path.name or str(path), type="directory", children=children, cut=cut)
        return ListDirectoryResult(
            path=str(path),
            output_format="tree",
            entries=[],
            total=cap - max(budget[0], 0),
            truncated=budget[0] < 0,
            denied=budget[1],
            hidden=budget[2],
            ignored=budget[3],
            tree=root,
        )

    @contextmanager
    def _opened(self, directory: Path) -> Iterator[int]:
        """``directory`` open for reading, by the pinned walk; OS errors meanwhile are named after it."""
        try:
            with self._beneath.directory(directory) as fd:
                yield fd
        except NotDirectoryError as exc:
            raise NotDirectoryError(
                f"{directory} is a file, not a directory. Use read_file or get_file_info for files.",
                path=str(directory),
            ) from exc
        except OSError as exc:
            raise from_os_error(exc, directory) from exc

    def _scan(self, directory: Path, fd: int, include_hidden: bool, ignore: IgnoreMatcher | None) -> Scan:
        """The directory's names, remembered while it keeps its identity and its .gitignore rules say the same.

        Paging through a directory of 200,000 entries read all its names for every page (170 ms, where stat'ing
        the page takes 1); the stats of the page are always taken anew, so sizes and times are never stale. A
        scan that met a symlink is not remembered, even one a rule left out: where a link sorts, and whether a
        rule for directories leaves it out, follow its target, which can change while the directory does not.
        """
        if ignore is not None and not ignore.applies:
            ignore = None  # no .gitignore above or in the directory: no call per name
        taken = self._clock()  # the racy window is judged from here, not from the end of a read that can be slow
        info = os.fstat(fd)  # before the read: a change during it gives a new identity, never a stale scan
        key = (str(directory), include_hidden)
        identity = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns, ignore and ignore.source)
        scan = self._scans.get(key, identity)
        if scan is None:
            scan = self._read(directory, fd, include_hidden, ignore)
            scan.stamp = (identity, frozenset(scan.linked_directories)) if scan.followed else identity
            if not scan.followed and scan.total + scan.hidden + scan.ignored + scan.denied >= _REMEMBERED_FROM:
                self._scans.keep(key, identity, scan, info, weight=scan.weight + _PER_SCAN + len(key[0]), taken=taken)
        return scan

    def _read(self, directory: Path, fd: int, include_hidden: bool, ignore: IgnoreMatcher | None) -> Scan:
        scan = Scan()
        directories, others = scan.directories, scan.others
        with os.scandir(fd) as items:
            for item in items:
                name = item.name
                if not include_hidden and name.startswith("."):
                    scan.hidden += 1
                elif is_temp_name(name):
                    continue  # another call's write, renamed over its file in a moment (a crash's: swept at start)
                elif item.is_symlink():
                    followed = self._followed(directory / name, fd, name)
                    if followed is None:  # removed since the directory was read: as if the read came after
                        continue
                    scan.links[name] = followed
                    scan.followed = True
                    if followed[0] == "directory":
                        scan.linked_directories.append(name)
                    (directories if followed[0] == "directory" else others).append(name)
                elif item.is_dir(follow_symlinks=False):
                    directories.append(name)
                else:
                    others.append(name)
        denied_directories, denied_others = self._denied(directory, directories, others)
        if denied_directories or denied_others or ignore is not None:
            directories[:] = _kept(scan, directories, True, denied_directories, ignore)
            others[:] = _kept(scan, others, False, denied_others, ignore)
        for names in (directories, others):
            _sort_names(names)
        return scan

    def _denied(self, directory: Path, directories: list[str], others: list[str]) -> tuple[set[str], set[str]]:
        """The directories and the other entries a deny rule hides, all judged at once (a directory's path ends
        in ``/``)."""
        if not self._policy.deny.active or not (directories or others):
            return set(), set()
        names = [name + "/" for name in directories] + others
        deny = self._policy.deny
        hidden = set().union(
            *(deny.denied_among(names, _rule_prefix(view)) for view in self._policy.relatives(directory))
        )
        if not hidden:
            return set(), set()
        return {name[:-1] for name in hidden if name.endswith("/")}, {name for name in hidden if not name.endswith("/")}

    def _followed(self, path: Path, fd: int, name: str) -> tuple[EntryType, os.stat_result] | None:
        """A symlink's type and stat: its target's when it exists inside the roots and no deny rule hides it
        (get_file_info refuses such a target), else the link's own; None when the link is gone."""
        try:
            with self._beneath.entry(path) as target:
                found, canonical = lstat_at(target), target.path
        except FsguardError:  # dangling, or leading outside the roots
            found = None
        if found is not None and self._policy.denied_by(canonical, is_dir=stat.S_ISDIR(found.st_mode)):
            found = None
        if found is not None:
            return entry_type(found.st_mode), found
        try:
            return "symlink", os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    @staticmethod
    def _stat(directory: Path, fd: int, name: str, scan: Scan) -> tuple[EntryType, os.stat_result] | None:
        """The entry's shown type and stat; None when it is gone."""
        link = scan.links.get(name)
        if link is not None:
            return link
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise from_os_error(exc, directory / name) from exc
        return entry_type(info.st_mode), info

    def _rules(self, directory: Path) -> tuple[IgnoreRules, Path]:
        """The .gitignore rules of the root holding ``directory`` (so parents' rules apply too), and that root."""
        top = self._policy.root_of(directory) or directory
        return IgnoreRules(top), top

    @staticmethod
    def _matcher(rules: tuple[IgnoreRules, Path] | None, directory: Path) -> IgnoreMatcher | None:
        return IgnoreMatcher(rules[0], rules[1], directory) if rules is not None else None

    def _subtree(
        self,
        directory: Path,
        include_hidden: bool,
        depth: int,
        budget: list[int],
        rules: tuple[IgnoreRules, Path] | None,
    ) -> tuple[list[TreeNode], int | None]:
        """The nodes of ``directory``'s entries, and how many of them the cap left out (None: none)."""
        nodes: list[TreeNode] = []
        with self._opened(directory) as fd:
            scan = self._scan(directory, fd, include_hidden, self._matcher(rules, directory))
            budget[1] += scan.denied
            budget[2] += scan.hidden
            budget[3] += scan.ignored
            split = len(scan.directories)
            for index, name in enumerate(scan.names(0, max(budget[0], 0) + 1)):  # one past: it marks the cut
                budget[0] -= 1
                if budget[0] < 0:
                    return nodes, scan.total - index
                if index < split and name not in scan.links:  # a directory's node needs no stat
                    nodes.append(self._directory_node(directory / name, include_hidden, depth, budget, rules))
                elif (found := self._stat(directory, fd, name, scan)) is not None:
                    kind, info = found
                    nodes.append(TreeNode(name=name, type=kind, size=info.st_size if kind == "file" else None))
        return nodes, None

    def _directory_node(
        self,
        directory: Path,
        include_hidden: bool,
        depth: int,
        budget: list[int],
        rules: tuple[IgnoreRules, Path] | None,
    ) -> TreeNode:
        """A subdirectory's node with its nodes one level down: none below ``max_depth`` or when it went away
        meanwhile, and marked when the user may not list it (the rest of the tree is still shown, as tree shows it)."""
        children = cut = None
        if depth > 1:
            try:
                children, cut = self._subtree(directory, include_hidden, depth - 1, budget, rules)
            except (NotFoundError, NotDirectoryError):
                pass
            except AccessDeniedError as exc:
                if isinstance(exc.__cause__, PermissionError):
                    return TreeNode(name=directory.name, type="directory", readable=False)
                if not _now_a_link(directory):
                    raise  # a refusal of fsguard's own about the directory itself, not about a swap
                # Swapped for a symlink since the scan (one leading outside the roots, or into a loop): shown
                # unentered, as a symlinked directory is, where refusing the whole tree over one child lost it all.
        return TreeNode(name=directory.name, type="directory", children=children, cut=cut)


def _now_a_link(path: Path) -> bool:
    """Whether ``path`` is a symlink now (an entry scanned as a directory and replaced meanwhile)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def _kept(scan: Scan, names: list[str], is_dir: bool, denied: set[str], ignore: IgnoreMatcher | None) -> list[str]:
    """``names`` without those a deny rule hides or .gitignore excludes, each counted in ``scan``."""
    kept: list[str] = []
    for name in names:
        if name in denied:
            scan.denied += 1
        elif ignore is not None and ignore(name, is_dir):
            scan.ignored += 1
        else:
            kept.append(name)
            continue
        scan.links.pop(name, None)
    return kept


def _sort_names(names: list[str]) -> None:
    """Case-insensitive name order, names that differ only in case in code-point order."""
    joined = "\0".join(names)
    if joined.casefold() == joined:  # every name is its own casefold (the usual case): one sort gives that order
        names.sort()
        return
    names.sort()  # ties of the case-insensitive order below keep this one (the sort is stable)
    names.sort(key=str.casefold)


def _rule_prefix(relative: str) -> str:
    """What goes before an entry's name to form the root-relative path deny rules match."""
    return "" if relative in ("", ".") else relative + "/"


def _moved(path: Path, before: int, total: int) -> str:
    """The note of a later page of a directory that changed since this client's previous page of it."""
    return (
        f"{path} changed since your previous page of it ({plural(before, 'entry', 'entries')} then, {total:,} "
        "now): entries may have moved between pages. List it again from offset 0 to see each entry once."
    )
