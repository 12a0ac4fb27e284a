"""The Python walk run beside rg's: the default skips rg's output cannot show, and a look at every ``.gitignore`` rg
reads on its way.

rg reads each ``.gitignore`` it meets, whatever it is: a FIFO by that name (anyone who can write in the tree can
make one) holds it for ever on ``open``, a link to a device is read without end. fsguard's walk reads such a file as
no rules (:func:`fsguard.core.gitignorefile.gitignore_lines`), and rg has no flag that does so (none skips an ignore
file by type, nor bounds its read). rg never reads ``.ignore`` or ``.rgignore`` here (``--no-ignore-dot``), nor any
ignore file without ``respect_gitignore`` (``--no-ignore``): ``.gitignore`` files are the only ones to look at.

So the walk content search, name search and project_replace run beside rg anyway, for the default skips, notes each
``.gitignore`` it read that is not a regular file (it walks what rg walks: the same rules from the same top, the same
directories pruned), and when there is one rg is stopped and the Python engine answers instead: the same results, by
design, as if rg had read that file as no rules. The look adds no system call: the walk opens each ``.gitignore`` it
judges by anyway. A caller that wants no skips (a name search taking dependencies in, a pipeline's search step) gets the
walk for the look alone: directories only, their shapes remembered. Two cases still hold rg until the call is cancelled,
as any long search is: a file that becomes one after this walk passed its directory but before rg reads it (rg's later
runs over the same walk included), and one in a hidden directory a ``.gitignore`` negation lets a bare name-search walk
enter (rg's own rule for hidden names; this walk never enters them, see :func:`fsguard.core.ripgrep.walk_flags`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fsguard.core.ignore import WalkOptions, default_skips
from fsguard.core.rgprocess import RipgrepFailed

__all__ = ["IrregularIgnoreFile", "walk_beside"]


class IrregularIgnoreFile(RipgrepFailed):
    """A ``.gitignore`` on rg's walk is not a regular file: rg would wait on it, or read it, for ever."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"{path} is not a regular file, which rg would wait on or read for ever")
        self.path = path


def walk_beside(
    root: Path,
    options: WalkOptions,
    skipped: list[str] | None = None,
    large: list[str] | None = None,
    *,
    screen: bool = True,
) -> None:
    """Walk ``root`` as rg walks it with ``options``: ``skipped`` gets the default skips and ``large`` the files
    above ``max_file_size`` (see :func:`fsguard.core.ignore.default_skips`), when given. With ``screen``, once the
    walk is done (its lists whole), raise if a ``.gitignore`` rg reads is not a regular file. Nothing to walk
    when no list is asked for and rg reads no ``.gitignore``.

    Raises:
        IrregularIgnoreFile: with ``screen``, the walk read a ``.gitignore`` that is not a regular file.
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
    """
    watch = screen and options.respect_gitignore
    if skipped is None and large is None and not watch:
        return
    if skipped is None and large is None:  # the look alone: minified files are files, a walk of directories will do
        options = dataclasses.replace(options, skip_minified=False)
    irregular: list[Path] = []
    found = default_skips(root, options, large, irregular)
    if skipped is not None:
        skipped += found
    if watch and irregular:
        raise IrregularIgnoreFile(irregular[0])
