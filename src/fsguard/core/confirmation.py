"""Which calls a person must confirm before they run, and the paragraph they are shown.

The engine decides; the tools layer only asks. A :class:`Confirmation` says what a call is about to do (in one
paragraph for a person, not for the model), whether it can be undone, and why it asks. ``--confirm`` chooses
which of them are asked (:meth:`Confirmation.asked_under`): ``off`` none, ``irreversible`` only what cannot be
undone, ``risky`` (the default) those and the HIGH or CRITICAL changes a risk gate holds back without ``force``
(project_replace, pipeline steps) or that reach a whole directory (recursive deletes). A single-file edit or write
never asks, whatever its risk: it is backed up and undone in one call, and the seed's edits never blocked either
(asking on every large edit taught users to click yes).

A call is only ever asked about when the client can answer; a client that cannot keeps the ``force`` gates
exactly as they are, so nothing here may change what a call does when nobody is asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from fsguard.core.errors import DeclinedError, NotConfirmedError

# How many names a summary lists before it says "and N more": the paragraph must stay one paragraph.
NAMED = 5


class ConfirmMode(StrEnum):
    """``--confirm``: which operations ask the person behind the agent first."""

    OFF = "off"
    RISKY = "risky"
    IRREVERSIBLE = "irreversible"


Entry = tuple[int, int]  # (st_dev, st_ino): the entry itself, whatever its name is by the time it is deleted


@dataclass(frozen=True)
class Binding:
    """The deletes a confirmed batch or pipeline may make: the entries its question measured, and the pipeline delete
    steps asked about as written (a template names what they delete, so there was nothing to measure)."""

    entries: frozenset[Entry] = frozenset()
    open_steps: frozenset[str] = frozenset()

    def __or__(self, other: Binding) -> Binding:
        return Binding(self.entries | other.entries, self.open_steps | other.open_steps)


@dataclass(frozen=True)
class Confirmation:
    """A call that should be confirmed: what it does, in one paragraph, and whether it can be undone.

    The summary is built from the call's arguments and what is on disk only (no times, no ids): a client on
    2026-07-28 is asked in one round and answers in the next, and the answer counts only for the same question.
    """

    operation: str
    summary: str
    reversible: bool
    reason: str
    # What a yes lets a batch or pipeline delete (recursively or permanently): the run may differ from the look.
    binding: Binding = Binding()

    def asked_under(self, mode: ConfirmMode) -> bool:
        if mode is ConfirmMode.OFF:
            return False
        return mode is ConfirmMode.RISKY or not self.reversible


def confirmation(
    operation: str,
    what: str,
    *,
    names: Sequence[str],
    factors: Sequence[str],
    reversible: bool,
    undo: str,
    reason: str,
    quoted: bool = True,
    binding: Binding | None = None,
) -> Confirmation:
    """The one shape of every summary: what, on which files, why it asks, and whether (and how) it can be undone.

    Each name is shown quoted, its control, bidi and zero-width characters escaped (``quoted=False``: names the
    caller built from quoted parts): a file or branch is named by whoever made it, and a name such as
    ``a.txt. It can be undone`` or one holding a line break or U+202E must not read as the paragraph's own words.
    """
    listed = [repr(name) for name in names[:NAMED]] if quoted else list(names[:NAMED])
    shown = ", ".join(listed) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")
    parts = [f"{what}: {shown}." if shown else f"{what}."]
    if factors:
        parts.append("Why you are asked: " + "; ".join(factors) + ".")
    parts.append(("It can be undone: " if reversible else "It cannot be undone: ") + undo)
    parts.append(_CLOSING)
    return Confirmation(operation, " ".join(parts), reversible, reason, binding or Binding())


_CLOSING = "Confirm to let the agent go ahead; anything else changes nothing."


def joined(operation: str, *found: Confirmation | None) -> Confirmation | None:
    """One question for the parts of one call that each ask (a yes runs all of them): their paragraphs in turn,
    the closing line once; it can be undone only if every part can."""
    asked = [part for part in found if part is not None]
    if len(asked) <= 1:
        return replace(asked[0], operation=operation) if asked else None
    summary = " ".join(part.summary.removesuffix(" " + _CLOSING) for part in asked) + " " + _CLOSING
    reversible = all(part.reversible for part in asked)
    binding = Binding()
    for part in asked:
        binding |= part.binding
    return Confirmation(operation, summary, reversible, "; ".join(part.reason for part in asked), binding)


# How each asking operation shows what it would do without doing it: delete_file and git have no preview or
# dry_run parameter, and batch_operations has them inside its JSON.
_LOOK_FIRST = {
    "delete_file": "list_directory or get_file_info shows what it would remove",
    "git": 'git(action="status") or git(action="diff") shows what it would change',
    "project_replace": "preview=true shows what it would do",
    "backup": "dry_run=true or preview=true shows what it would do",
    "batch_operations": "validate_only, dry_run or preview inside the JSON shows what it would do",
}


def declined(operation: str, how: str) -> DeclinedError:
    """The error of a call the person did not confirm: nothing ran, and the model should not just retry."""
    look = _LOOK_FIRST.get(operation, "preview or dry_run shows what it would do")
    return DeclinedError(
        f"{operation}: the user did not confirm it ({how}), so nothing was changed. Do not retry it as is: ask the "
        f"user what they want instead, or propose a smaller change ({look}).",
        operation=operation,
        answer=how,
    )


def unconfirmed(path: Path) -> NotConfirmedError:
    """The refusal of a delete a confirmed call came to that its question did not name: the run went otherwise than
    the look before the question (a search found other files, a condition or template came out otherwise)."""
    return NotConfirmedError(
        f"deleting {path} was not in what the user confirmed (the run came out otherwise than the look the question "
        "was measured from); nothing was deleted. Delete it on its own (delete_file) so the user is asked about it.",
        path=str(path),
        operation="batch_operations",
        answer="not asked about this path",
    )


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    return f"{count:,} " + (noun if count == 1 else nouns or noun + "s")
