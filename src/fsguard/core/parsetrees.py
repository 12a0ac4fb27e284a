"""The last syntax tree of each recently edited file, so the next edit re-parses only what it changed.

tree-sitter re-parses incrementally when told where the old tree's text was edited, reusing every subtree the
edit did not touch. A tree is reused only for the exact bytes it was parsed from, so a file changed behind
fsguard's back is parsed in full again.

A file riddled with syntax errors (more than a few hundred, or so many that a parse runs past its time budget: not
source in this language at all, though named so; error recovery took 130 ms over 70 KB of prose where clean code
parses in 15) can never be warned about, since the warning is for edits that break a clean file: it is not
re-parsed while fsguard edits it. Any other file is re-parsed on each edit, because one edit can clear errors far
from it (deleting an unmatched bracket at the top, say). A tree with errors is confirmed by a fresh parse: error
recovery may differ between an incremental parse and a fresh one.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.core.diff import common_prefix_len, common_suffix_len

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Point, Tree

_MAX_TREES = 32
_MAX_BYTES = 8 << 20  # a larger file is parsed in full each time rather than kept in memory
_MAX_ERRORS = 200  # past this many error spans, a file is taken as broken throughout until it is parsed again
# A parse's CPU time budget: clean code parses at ~0.15 us a byte here, prose taken for code at ~1.6.
_BUDGET_S, _BUDGET_S_PER_BYTE = 0.02, 0.5e-6
_PIECE = 4096  # bytes handed to the parser at a time: the budget is looked at between pieces


@dataclass
class _Kept:
    data: bytes
    grammar: Language
    tree: Tree | None  # None for a file riddled with errors: never parsed again while it is edited
    errors: list[tuple[int, int]] | None  # byte spans of ERROR/MISSING nodes; None: too many to count


class TreeCache:
    """A bounded, thread-safe map from file to the bytes last seen, their tree and their known errors."""

    def __init__(self) -> None:
        self._kept: OrderedDict[Path, _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def parse_edit(self, path: Path, grammar: Language, old: bytes, new: bytes) -> tuple[bool, Tree | None]:
        """Whether ``old`` had syntax errors, and the tree of ``new`` (None when ``old`` is riddled with errors, so
        ``new`` was not parsed, or when ``new`` could not be parsed within the budget)."""
        with self._lock:
            kept = self._kept.pop(path, None)  # popped: this thread owns the tree and may edit it in place
        if kept is None or kept.data != old or kept.grammar != grammar:
            tree = _parse(grammar, old)
            kept = _Kept(old, grammar, tree, _errors(tree.root_node) if tree is not None else None)
        if kept.errors is None or kept.tree is None:
            self._keep(path, _Kept(new, grammar, None, None))
            return True, None
        _describe_edit(kept.tree, old, new)
        tree = _parse(grammar, new, kept.tree)
        if tree is not None and tree.root_node.has_error:
            # Error recovery may differ between an incremental and a fresh parse: errors are confirmed afresh.
            tree = _parse(grammar, new)
        if tree is None:  # past the budget: prose, not code; no warning, and no parse while fsguard edits it
            self._keep(path, _Kept(new, grammar, None, None))
            return bool(kept.errors), None
        self._keep(path, _Kept(new, grammar, tree, _errors(tree.root_node)))
        return bool(kept.errors), tree

    def _keep(self, path: Path, kept: _Kept) -> None:
        if len(kept.data) > _MAX_BYTES:
            return
        with self._lock:
            self._kept[path] = kept
            while len(self._kept) > _MAX_TREES:
                self._kept.popitem(last=False)


def _parse(grammar: Language, data: bytes, old_tree: Tree | None = None) -> Tree | None:
    """The tree of ``data`` (re-parsed from ``old_tree`` when given, already edited), or None when the parse ran
    past its budget (:data:`_BUDGET_S` plus :data:`_BUDGET_S_PER_BYTE`): the text is read in pieces, and no more
    is given once the time is up. The time is this thread's CPU time, so a loaded machine or threads waiting on
    each other do not cut short the parse of clean code."""
    from tree_sitter import Parser  # here, not at the top: start-up never pays for it

    deadline = time.thread_time() + _BUDGET_S + len(data) * _BUDGET_S_PER_BYTE
    late = False

    def read(offset: int, _point: Point) -> bytes:
        nonlocal late
        if time.thread_time() > deadline:
            late = True
            return b""
        return data[offset : offset + _PIECE]

    tree = Parser(grammar).parse(read, old_tree) if old_tree is not None else Parser(grammar).parse(read)
    return None if late else tree


def _errors(root: Node) -> list[tuple[int, int]] | None:
    """The byte spans of the ERROR and MISSING nodes under ``root``; None when there are too many."""
    spans: list[tuple[int, int]] = []
    stack = [root] if root.has_error else []
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            spans.append((node.start_byte, node.end_byte))
            if len(spans) > _MAX_ERRORS:
                return None
        elif node.has_error:
            stack.extend(node.children)
    return spans


def _describe_edit(tree: Tree, old: bytes, new: bytes) -> None:
    """Tell ``tree`` (parsed from ``old``) which span of bytes became what span of ``new``."""
    start = common_prefix_len(old, new)
    tail = common_suffix_len(old, new, min(len(old), len(new)) - start)
    old_end, new_end = len(old) - tail, len(new) - tail
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(old, start),
        old_end_point=_point(old, old_end),
        new_end_point=_point(new, new_end),
    )


def _point(data: bytes, offset: int) -> Point:
    """Row and byte column of ``offset``, as tree-sitter counts them."""
    from tree_sitter import Point

    row = data.count(b"\n", 0, offset)
    return Point(row, offset - (data.rfind(b"\n", 0, offset) + 1))
