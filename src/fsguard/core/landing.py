"""Where the files of a directory moved or copied land: the deny rules judge each at its new path as at its old.

A rule naming a path through directories (``/vault/``, ``**/.aws/credentials``, and fsguard's own places, such as
``~/.config/git`` when the home directory is a root) judges a file by where it lies, not by its name alone, so a
tree put at a new path carries its files to paths the rules may judge otherwise. The destination's own name passed
the rules before any of this; what is judged here is the names inside it. A file hidden where it is must stay hidden
where it lands (a move that would show one is refused; a copy leaves hidden files behind), and a file readable where
it is must not land where a rule hides it: no tool may write there, and a tree moved into a home root's missing
``~/.config`` would bring ``git/config``, a file git runs programs from.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from fsguard.core.confirmation import plural
from fsguard.core.denial import DenyRules
from fsguard.core.errors import AccessDeniedError
from fsguard.core.trees import files_below

if TYPE_CHECKING:
    from fsguard.core.beneath import Pinned
    from fsguard.core.paths import PathPolicy


def check_landing(
    policy: PathPolicy, tree: Pinned, destination: Path, done: Literal["moved", "copied"]
) -> list[str] | None:
    """Refuse putting the directory ``tree`` at ``destination`` when a file in it would be judged otherwise there:
    hidden now and readable there (a move only), or readable now and hidden there. The rules judge its names only
    when one may judge a path below either end by its place (:meth:`DenyRules.judge_by_place`); a copy walks them
    only then: copying ``src`` to ``lib`` under the default rules walks nothing before the copy. Returns the files
    it walked (relative to ``tree``; None: it walked nothing), which the hooks of the move or copy go through too.

    Raises:
        AccessDeniedError: counting the files a move would show (never naming them), or naming the first file that
            would land where a rule hides it.
    """
    rules = policy.deny
    if not rules.active:
        return None
    before, after = policy.relatives(tree.path), policy.relatives(destination)
    placed = rules.judge_by_place((*before, *after))
    if not placed and done == "copied":
        return None
    # A move walks whenever rules are on, as it did before either end's place was asked: a directory inside that it
    # may not list, or one swapped for a link meanwhile, is refused before anything moves.
    files = files_below(tree)
    if not placed:
        return files
    now, then = tuple(map(_lead, before)), tuple(map(_lead, after))
    if done == "moved":
        rules.check_kept_hidden(files, now, then, source=tree.path, destination=destination)
    _check_kept_readable(rules, files, now, then, source=tree.path, destination=destination, done=done)
    return files


def _check_kept_readable(
    rules: DenyRules,
    files: list[str],
    now: tuple[str, ...],
    then: tuple[str, ...],
    *,
    source: Path,
    destination: Path,
    done: Literal["moved", "copied"],
) -> None:
    """Refuse when one of ``files`` (relative to the tree) that no rule hides under ``now`` (the tree's root-relative
    paths, each ending in '/') is hidden under ``then`` (the destination's). Such a file is named: it can be read
    where it is."""
    landing = set().union(*(rules.denied_among(files, lead) for lead in then))
    if not landing:
        return
    caught = [
        name for name in files if name in landing and rules.rule_among(tuple(lead + name for lead in now)) is None
    ]
    if not caught:
        return
    first = caught[0]
    rule = rules.rule_among(tuple(lead + first for lead in then))
    more = f" (and {plural(len(caught) - 1, 'more file', 'more files')})" if len(caught) > 1 else ""
    act = "move" if done == "moved" else "copy"
    raise AccessDeniedError(
        f"access denied: {source} holds {first}, which would land at {destination / first}{more}, where the deny "
        f"rule {rule!r} hides it from every tool; nothing was {done}. Choose another destination, or {act} the "
        "other entries one at a time.",
        path=str(source),
        rule=rule,
        landing=str(destination / first),
    )


def _lead(view: str) -> str:
    """A directory's root-relative path as the start of the paths below it: '' for a root itself."""
    return view + "/" if view else ""
