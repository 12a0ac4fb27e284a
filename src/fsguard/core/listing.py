"""list_directory: flat pages of entries, or a bounded tree."""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import Beneath, lstat_at
from fsguard.core.errors import FsguardError, InvalidParamsError, NotDirectoryError
from fsguard.core.ignore import IgnoreRules
from fsguard.core.oserrors import from_os_error
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session
from fsguard.models import DirectoryEntry, EntryType, ListDirectoryResult, TreeNode

OutputFormat = Literal["compact", "json", "tree"]


def iso_time(timestamp: float) -> str:
    """A POSIX timestamp as ISO 8601 UTC with second precision, e.g. 2026-11-30T10:00:00Z."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class DirectoryLister:
    """Lists directories under the path policy, capped at ``max_items`` entries per answer."""

    def __init__(self, policy: PathPolicy, beneath: Beneath, session: Session, *, max_items: int) -> None:
        self._policy = policy
        self._beneath = beneath
        self._session = session
        self._max_items = max_items

    def page(
        self, user_path: str, *, include_hidden: bool, offset: int, limit: int | None, respect_gitignore: bool = False
    ) -> ListDirectoryResult:
        """One page of a directory's entries, directories first, then by name."""
        path = self._policy.resolve(user_path)
        with self._session.watching(path):
            entries = self._entries(path, include_hidden)
        ignored = 0
        if respect_gitignore:
            rules = self._rules(path)
            kept = [e for e in entries if not rules.ignored(path / e.name, e.type == "directory")]
            ignored, entries = len(entries) - len(kept), kept
        if offset > len(entries):
            raise InvalidParamsError(
                f"offset {offset} is past the end of {path} ({len(entries)} entries). Use an offset <= {len(entries)}.",
                path=str(path),
            )
        page_size = min(limit or self._max_items, self._max_items)
        page = entries[offset : offset + page_size]
        more = offset + len(page) < len(entries)
        return ListDirectoryResult(
            path=str(path),
            output_format="json",
            entries=page,
            total=len(entries),
            offset=offset,
            ignored=ignored,
            truncated=more,
            next_offset=offset + len(page) if more else None,
        )

    def tree(
        self, user_path: str, *, include_hidden: bool, max_depth: int, respect_gitignore: bool = False
    ) -> ListDirectoryResult:
        """The directory as a tree down to ``max_depth`` levels; symlinked directories are not entered."""
        path = self._policy.resolve(user_path)
        budget = [self._max_items]
        rules = self._rules(path) if respect_gitignore else None
        with self._session.watching(path):
            children = self._subtree(path, include_hidden, max_depth, budget, rules)
        root = TreeNode(name=path.name or str(path), type="directory", children=children)
        return ListDirectoryResult(
            path=str(path),
            output_format="tree",
            entries=[],
            total=self._max_items - max(budget[0], 0),
            truncated=budget[0] < 0,
            tree=root,
        )

    def _entries(self, directory: Path, include_hidden: bool) -> list[DirectoryEntry]:
        try:
            with self._beneath.directory(directory) as fd, os.scandir(fd) as scan:
                found = [
                    self._entry(directory, item) for item in scan if include_hidden or not item.name.startswith(".")
                ]
        except NotDirectoryError as exc:
            raise NotDirectoryError(
                f"{directory} is a file, not a directory. Use read_file or get_file_info for files.",
                path=str(directory),
            ) from exc
        except OSError as exc:
            raise from_os_error(exc, directory) from exc
        found.sort(key=lambda entry: (entry.type != "directory", entry.name.casefold(), entry.name))
        return found

    def _entry(self, directory: Path, item: os.DirEntry[str]) -> DirectoryEntry:
        is_link = item.is_symlink()
        kind, stat = self._classify(directory / item.name, item.stat(follow_symlinks=False), is_link)
        return DirectoryEntry(
            name=item.name,
            type=kind,
            size=stat.st_size if kind == "file" else None,
            modified=iso_time(stat.st_mtime),
            is_symlink=is_link,
        )

    def _classify(self, path: Path, link_stat: os.stat_result, is_link: bool) -> tuple[EntryType, os.stat_result]:
        """The entry's type; a link is followed only when its target exists inside the roots."""
        if not is_link:
            return entry_type(link_stat.st_mode), link_stat
        try:
            with self._beneath.entry(path) as target:
                found = lstat_at(target)
        except FsguardError:  # dangling, or leading outside the roots
            found = None
        if found is None:
            return "symlink", link_stat
        return entry_type(found.st_mode), found

    def _rules(self, directory: Path) -> IgnoreRules:
        """The .gitignore rules of the root holding ``directory`` (so parents' rules apply too)."""
        return IgnoreRules(self._policy.root_of(directory) or directory)

    def _subtree(
        self, directory: Path, include_hidden: bool, depth: int, budget: list[int], rules: IgnoreRules | None
    ) -> list[TreeNode]:
        nodes: list[TreeNode] = []
        for entry in self._entries(directory, include_hidden):
            if rules is not None and rules.ignored(directory / entry.name, entry.type == "directory"):
                continue
            budget[0] -= 1
            if budget[0] < 0:
                break
            children = None
            if entry.type == "directory" and not entry.is_symlink and depth > 1:
                children = self._subtree(directory / entry.name, include_hidden, depth - 1, budget, rules)
            nodes.append(TreeNode(name=entry.name, type=entry.type, size=entry.size, children=children))
        return nodes


def entry_type(mode: int) -> EntryType:
    """file, directory or other, from ``st_mode``."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "other"
