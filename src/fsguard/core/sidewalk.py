"""The Python walk run beside rg's: the default skips rg's output cannot show, and a look at every ``.gitignore`` rg
reads on its way.

rg reads some ``.gitignore`` files otherwise than git (:mod:`fsguard.core.rgreading`). It reads each one it meets,
whatever it is: a FIFO by that name (anyone who can write in the tree can make one) holds it for ever on ``open``, a
link to a device is read without end. fsguard's walk reads such a file as no rules
(:func:`fsguard.core.gitignorefile.gitignore_lines`), and rg has no flag that does so (none skips an ignore file by
type, nor bounds its read). And it reads a few lines its own way: one that is not UTF-8 (rg drops the rest of the
file), braces, a lone ``!``, a pattern of a name ending in ``.``, a trailing tab, a byte order mark. rg never reads
``.ignore`` or ``.rgignore`` here (``--no-ignore-dot``), nor any ignore file without ``respect_gitignore``
(``--no-ignore``): ``.gitignore`` files are the only ones to look at.

So the walk content search, name search and project_replace run beside rg anyway, for the default skips, notes each
``.gitignore`` it read that rg would read otherwise (it walks what rg walks: the same rules from the same top, the
same directories pruned), and when there is one rg is stopped and the Python engine answers instead: the same
results, by design, as if rg had read that file as git does. Where rg walks further than fsguard's walk, the look
follows it: the directories beside the way from ``rules_from`` that a ``.gitignore`` negation lets rg enter (its
narrowing to the searched directory weighs less, see :func:`fsguard.core.rgwalk.only_below`), and those a bare
name-search walk enters (see :func:`fsguard.core.rgwalk.walk_flags`): ``_darcs``, a hidden one a negation names, and
a dependency directory made since the last search found none. The look adds no system call where there are none:
the walk opens and reads each ``.gitignore`` it judges by anyway, and a line rg reads its own way is told from the
line alone. A caller that wants no skips (a name search taking dependencies in, a pipeline's search step) gets the
walk for the look alone: directories only, their shapes remembered. A file that becomes one after this walk passed
its directory but before rg reads it (rg's later runs over the same walk included) still holds rg until the call is
cancelled, as any long search is, or is read rg's way.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from fsguard.core.ignore import IgnoreRules, WalkOptions, default_skips, gitignore_top, reach
from fsguard.core.rgprocess import RipgrepFailed
from fsguard.core.shapes import DIRECTORY_SHAPES

__all__ = ["GitignoreReadOtherwise", "walk_beside"]


class GitignoreReadOtherwise(RipgrepFailed):
    """rg would read a ``.gitignore`` on its walk otherwise than git (see :mod:`fsguard.core.rgreading`): not a
    regular file, which it would wait on or read for ever, or a line it reads its own way."""

    def __init__(self, path: Path, why: str) -> None:
        """``why`` is how, as words that follow the path."""
        super().__init__(f"{path} {why}")


def walk_beside(
    root: Path,
    options: WalkOptions,
    skipped: list[str] | None = None,
    large: list[str] | None = None,
    *,
    screen: bool = True,
    bare: bool = False,
    entered: bool = False,
    unreadable: list[str] | None = None,
) -> None:
    """Walk ``root`` as rg walks it with ``options``: ``skipped`` gets the default skips, ``large`` the files
    above ``max_file_size`` (see :func:`fsguard.core.ignore.default_skips`) and ``unreadable`` the directories
    the user may not list or enter, which rg skips without a word (``--no-messages``), when given. With ``screen``,
    once the walk is done (its lists whole), raise if rg would read a ``.gitignore`` otherwise than git: those the
    walk reads, those of the directories beside the way from ``rules_from`` a negation lets rg enter, and with
    ``bare`` (rg may walk bare, see :func:`fsguard.core.rgwalk.walk_flags`) those of the hidden and VCS directories
    it then enters;
    with ``entered`` (rg walks bare already, as no default skip was found the last time), those of the dependency
    directories made since, which this walk leaves out and rg enters.
    Nothing to walk when no list is asked for and rg reads no ``.gitignore``.

    Raises:
        GitignoreReadOtherwise: with ``screen``, rg would read a ``.gitignore`` on its walk otherwise than git.
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
    """
    watch = screen and options.respect_gitignore
    if skipped is None and large is None and unreadable is None and not watch:
        return
    if skipped is None and large is None:  # directories alone: minified files are files, a walk of directories will do
        options = dataclasses.replace(options, skip_minified=False)
    rules = IgnoreRules(gitignore_top(root, options), screen=True) if watch else None
    found = default_skips(root, options, large, rules, bare=bare and watch, unreadable=unreadable)
    if skipped is not None:
        skipped += found
    if rules is not None:
        _beside_the_way(root, rules)
        for directory in (skip for skip in found if entered and skip.endswith("/")):  # rg's bare walk has no globs
            reach(root / directory, rules, hidden=False)
        if rules.read_otherwise:
            raise GitignoreReadOtherwise(*rules.read_otherwise[0])


def _beside_the_way(root: Path, rules: IgnoreRules) -> None:
    """Read, through ``rules``, the ``.gitignore`` files rg reads beside the way from their root down to ``root``:
    rg walks from there narrowed by an ignore file that a ``.gitignore`` negation overrides
    (:func:`fsguard.core.rgwalk.only_below`), so it enters each directory beside the way a negation names, and all
    below it that no ``.gitignore`` excludes, hidden and VCS directories too (its globs apply below ``root`` alone).
    Nothing is looked at until a ``.gitignore`` on the way negates: the common case costs nothing more."""
    way = list(reversed(root.parents[: len(root.parts) - len(rules.root.parts)]))
    negates = False
    for directory, onward in zip(way, [*way[1:], root], strict=False):  # root the top: no way, nothing beside it
        found = rules.rules(directory)  # read already, by the walk
        negates = negates or (found is not None and found.negates)
        if not negates:
            continue
        try:
            names = DIRECTORY_SHAPES.of(directory).subdirectories
        except OSError:
            continue  # unreadable or vanished: rg skips it too
        for beside in (directory / name for name in names if name != onward.name):
            if rules.decision(beside, is_dir=True) is False:
                reach(beside, rules, hidden=True)
