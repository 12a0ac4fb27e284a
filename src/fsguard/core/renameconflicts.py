"""A rename set's conflicts: what refuses the whole set before anything moves, and the error that lists them."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import PurePath
from typing import Literal

from fsguard.core.confirmation import plural
from fsguard.core.errors import ConflictError
from fsguard.core.pathforms import escaped
from fsguard.core.shortlist import shortlist

ConflictKind = Literal["same_target", "target_exists", "invalid_name"]


@dataclass(frozen=True)
class NameConflict:
    """A reason the set cannot run: a shared or existing target, or a name the policy refuses."""

    kind: ConflictKind
    destination: str
    sources: tuple[str, ...]
    reason: str

    def as_field(self) -> dict[str, object]:
        return {**asdict(self), "sources": list(self.sources)}


_EVERY = "all in the error's conflicts field"


def refusal(conflicts: list[NameConflict], planned: int) -> ConflictError:
    shown = "; ".join(
        f"{_new_name(c)} ← {shortlist((escaped(PurePath(s).name) for s in c.sources), rest=_EVERY)} ({c.reason})"
        for c in conflicts[:5]
    )
    more = f"; and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
    return ConflictError(
        f"rename refused: {plural(len(conflicts), 'naming conflict')} among {plural(planned, 'rename')}, so nothing "
        "was renamed: "
        f"{shown}{more}. Run with preview=true to see the whole set, then change the rule or narrow file_pattern.",
        conflicts=[c.as_field() for c in conflicts],
    )


def _new_name(conflict: NameConflict) -> str:
    """The name the rule made, as it made it: the last part of the destination named the directory for an empty
    name ("root ← a.txt") and hid the path of a name holding '/' ("x.txt" for "../../etc/x.txt")."""
    directory = str(PurePath(conflict.sources[0]).parent) if conflict.sources else ""
    prefix = directory.rstrip("/") + "/"
    name = conflict.destination[len(prefix) :] if conflict.destination.startswith(prefix) else conflict.destination
    return escaped(name) if name else "''"
