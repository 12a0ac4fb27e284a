"""The files a deny rule hides that ripgrep counted a match in: set aside uncounted, then confirmed as a hit would be
(:mod:`fsguard.core.provenance`) before they count in a search's ``denied``, so that both engines count the same
files: those the Python engine reads and finds a match in, as text or, when the search names binary files holding
a match, in a binary file's bytes (:func:`fsguard.core.haystack.binary_match`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from fsguard.core.haystack import binary_match, matching_lines, searched_text
from fsguard.core.provenance import Provenance
from fsguard.core.query import Query

__all__ = ["Aside"]


@dataclass
class Aside:
    """A deny filter for rg that sets the files it hides aside, uncounted, to be confirmed like the hits."""

    hides: Callable[[str], bool]
    found: list[str] = field(default_factory=list)

    def __call__(self, path: str) -> bool:
        if not self.hides(path):
            return False
        self.found.append(path)
        return True

    def confirmed(self, provenance: Provenance, query: Query, *, binary: bool) -> Iterator[str]:
        """What was set aside that holds a match as the pinned walk finds it, in walk order: a file settled since
        the search began as rg counted it; another read again, a binary one holding a match only with ``binary``
        (rg counted it with ``--binary`` then)."""
        for path in sorted(self.found, key=lambda path: path.replace("/", "\0")):
            if provenance.settled(path):
                yield path
                continue
            data = provenance.read(path)
            if data is None:
                continue
            text = searched_text(data)
            if matching_lines(query, text)[0] if text is not None else binary and binary_match(query, data):
                yield path
