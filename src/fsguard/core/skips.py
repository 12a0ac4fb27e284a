"""What a walk of a directory left out by name, for a result to name: a search or replace that says nothing of them
lets a model take "no match there" for "nothing there".

The walk names them by path, so a result names only those the pinned walk finds so now (see
:func:`fsguard.core.provenance.standing`): a racing swap cannot make it name a file outside the roots.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fsguard.core.beneath import Beneath
from fsguard.core.denial import HiddenFiles
from fsguard.core.globs import left_in
from fsguard.core.provenance import Provenance, standing


@dataclass
class Skips:
    """The files and directories a walk left out, relative to where it started (a directory ends in ``/``)."""

    by_default: list[str] = field(default_factory=list)  # dependency, cache and build directories, minified files
    too_large: list[str] = field(default_factory=list)  # above --max-file-size
    unreadable: list[str] = field(
        default_factory=list
    )  # directories the user may not list or enter, files it may not read

    def clear(self) -> None:
        """Forget what a walk found: another walk (the Python engine's, after ripgrep failed) finds it again."""
        for names in (self.by_default, self.too_large, self.unreadable):
            names.clear()

    def left_in(self, base: Path, included: tuple[str, ...], excluded: tuple[str, ...]) -> Skips:
        """Those that include_paths and exclude_paths (``included``, ``excluded``) leave in: a file they leave out
        would not be changed under a larger --max-file-size or with include_dependencies, so naming it would send
        the agent after a limit that is not what keeps it out."""
        if not (included or excluded):
            return self

        def kept(names: list[str]) -> list[str]:
            return [
                name
                for name in names
                if left_in(base / name.rstrip("/"), base, included, excluded, directory=name.endswith("/"))
            ]

        return Skips(kept(self.by_default), kept(self.too_large), kept(self.unreadable))

    def standing(self, beneath: Beneath, root: Path, *, above: int | None, hide: HiddenFiles | None) -> Skips:
        """Those the pinned walk finds now as the walk named them (the too large ones still above ``above`` bytes),
        none a deny rule hides; one pinned walk for the three lists."""
        with Provenance(beneath, root) as provenance:
            return Skips(
                standing(provenance, root, self.by_default, hide=hide),
                standing(provenance, root, self.too_large, above=above, hide=hide),
                standing(provenance, root, self.unreadable, hide=hide),
            )
