"""The validation pass of a request_json batch: every path, every existence, before anything runs.

Each operation is checked against the tree as the operations before it would leave it: a write or
create_dir makes a path exist, a move makes its source vanish and its destination appear (with what was
inside), a delete removes. So write→edit, create_dir→write and move→edit validate. A file on disk that an operation
would rewrite must be one the server may write (its mode, an immutable flag, a read-only mount: the write's own
check). Every problem of every operation is collected into one error. With validate_only, each edit is also planned
on the text the operations before it would leave (:mod:`fsguard.core.batchtexts`): an old_text that would not match
is found without running. What can only be known by doing it (another process's change, a hook) is found when the
batch runs, where an atomic batch rolls back.

The pass reads metadata only, and validate_only the text of the files edited; every act happens later, fd-pinned,
in the engines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.attributes import check_replaceable
from fsguard.core.batchplan import BatchOperation, BatchRequest, refuse
from fsguard.core.batchtexts import PlannedTexts
from fsguard.core.batchtree import Kind, TreeView
from fsguard.core.beneath import Beneath
from fsguard.core.errors import AccessDeniedError, FsguardError, ReadOnlyError
from fsguard.core.pathforms import check_file_spelling
from fsguard.core.paths import PathPolicy

_NUMBERED = re.compile(r"operation (\d+)")


def check(
    request: BatchRequest, policy: PathPolicy, beneath: Beneath, texts: PlannedTexts | None = None
) -> list[tuple[Path, Path | None]]:
    """Check every operation against the tree the earlier ones leave; each one's canonical path and destination.

    The problems parsing found are listed too. After an operation that did not parse, the later ones get
    every check that does not depend on the tree: what that operation would have created is unknown. With
    ``texts``, each edit is planned on the text the earlier operations leave, up to the first problem (after it,
    what they leave is not known).

    Raises:
        InvalidParamsError: some operation would fail; ``errors`` lists every problem, one per line.
    """
    _refuse_read_only(request, policy)
    context = _Context(TreeView(), policy, beneath, request.atomic)
    problems = list(request.problems)
    denied = 0  # problems that are paths refused as the single tools refuse them (a deny rule, outside the roots)
    targets: list[tuple[Path, Path | None]] = []
    for position, op in enumerate(request.operations):
        entry = op.type in ("move", "delete")  # these act on a link itself, not on what it points to
        try:
            path = (policy.resolve_entry if entry else policy.resolve)(op.path)
            destination = policy.resolve_entry(op.destination) if op.destination is not None else None
            _check_file_spellings(op, path, destination)
        except FsguardError as exc:
            problems.append(f"{op.label}: {exc.message}")
            denied += exc.code == "access_denied"
            continue
        targets.append((path, destination))
        found = _fixed(op, path, destination, policy)
        if op.index == position:  # else an earlier operation did not parse: the tree it leaves is unknown
            found += _CHECKS[op.type](op, path, destination, context)
        if texts is not None and not problems and not found:
            found += texts.step(op, path, destination)
        problems.extend(f"{op.label}: {problem}" for problem in found)
    if problems:
        problems.sort(key=_operation_number)  # stable: within an operation, the order they were found
        refused = refuse(problems, "batch_operations: the batch does not validate")
        if denied == len(problems):  # coded as delete_file or write_file would code it alone
            raise AccessDeniedError(refused.message, **refused.fields)
        raise refused
    return targets


def _check_file_spellings(op: BatchOperation, path: Path, destination: Path | None) -> None:
    """A write's path, and the destination of a file's copy, move or extract, may not be spelled as a directory."""
    if op.type == "write":
        check_file_spelling(op.path, path)
    if op.destination is not None and destination is not None and not path.is_dir():
        check_file_spelling(op.destination, destination)


def _refuse_read_only(request: BatchRequest, policy: PathPolicy) -> None:
    """Refuse the whole batch, before anything runs, when one operation would change a read-only root.

    Raises:
        ReadOnlyError: naming the first such operation.
    """
    for op in request.operations:
        changed = [] if op.type == "copy" else [op.path]  # a copy leaves its source alone
        if op.destination is not None:
            changed.append(op.destination)
        for user_path in changed:
            try:
                path = policy.resolve_entry(user_path)
            except FsguardError:
                continue  # validation names it
            try:
                policy.check_not_read_only(path)
            except ReadOnlyError as exc:
                raise ReadOnlyError(f"{op.label}: {exc.message} Nothing in the batch ran.", path=str(path)) from exc


@dataclass(frozen=True)
class _Context:
    view: TreeView
    policy: PathPolicy
    beneath: Beneath
    atomic: bool


_Check = Callable[[BatchOperation, Path, "Path | None", _Context], list[str]]


def _fixed(op: BatchOperation, path: Path, destination: Path | None, policy: PathPolicy) -> list[str]:
    """The problems that do not depend on what earlier operations did."""
    refused = _unremovable(op, path, policy)
    if refused is not None:
        return [refused]
    if destination is None:
        return []
    if op.type == "extract" and destination == path:
        return ["the destination is the source; extract moves lines to another file"]
    if op.type in ("copy", "move") and destination == path:
        return [f"{path} is the source itself: there is nothing to {op.type}. Choose another destination"]
    if op.type in ("copy", "move") and destination.is_relative_to(path):
        return [f"cannot {op.type} {path} into itself ({destination})"]
    return []


def _unremovable(op: BatchOperation, path: Path, policy: PathPolicy) -> str | None:
    """Why a move or delete may not take ``path`` away (a root or what holds one, a .git), None when it may."""
    if op.type not in ("move", "delete"):
        return None
    try:
        policy.check_removable(path, "moved" if op.type == "move" else "deleted")
    except FsguardError as exc:
        return exc.message
    return None


def _write(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    problems = _creatable(path, ctx.view)
    kind = ctx.view.kind(path)
    if kind not in (None, "file"):
        problems.append(f"{path} is a {_noun(kind)}; write needs a file path")
    elif kind is None and op.expected_hash is not None:
        problems.append(
            f"expected_hash was given but file does not exist: {path} (and no earlier operation creates it)"
        )
    elif kind == "file":
        problems.extend(_unwritable(path, ctx))
    ctx.view.make_parents(path)
    ctx.view.make(path, "file")
    return problems


def _edit(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    return _existing_file(path, ctx.view) or _unwritable(path, ctx)


def _transfer(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    assert destination is not None  # the parser requires it
    view = ctx.view
    if destination == path or destination.is_relative_to(path) or _unremovable(op, path, ctx.policy) is not None:
        return []  # refused by _fixed already
    problems = []
    exists = view.kind(path) is not None
    if not exists:
        problems.append(f"file does not exist: {path} (and no earlier operation creates it)")
    if view.kind(destination) is not None:
        problems.append(
            f"{destination} already exists; nothing is ever overwritten. Choose another destination, "
            "or delete it in an earlier operation"
        )
    problems.extend(_creatable(destination, view))
    if exists:
        view.transfer(path, destination, keep_source=op.type == "copy")
    return problems


def _delete(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    if _unremovable(op, path, ctx.policy) is not None:
        return []  # refused by _fixed already
    kind = ctx.view.kind(path)
    if kind is None:
        return [f"file does not exist: {path} (and no earlier operation creates it)"]
    problems = []
    if kind == "dir" and not op.recursive and ctx.view.has_children(path):
        problems.append(f"{path} is a non-empty directory; pass recursive: true to delete it with its contents")
    if ctx.atomic and op.permanent and kind != "file":
        problems.append(
            f"{path} is a {_noun(kind)}: deleting it permanently could not be rolled back, so an atomic batch "
            "refuses it. Drop permanent (the trash keeps it restorable), or send atomic: false"
        )
    ctx.view.remove(path)
    return problems


def _create_dir(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    kind = ctx.view.kind(path)
    if kind not in (None, "dir"):
        return [f"{path} exists and is a {_noun(kind)}, not a directory"]
    problems = _creatable(path, ctx.view)
    ctx.view.make_parents(path)
    ctx.view.make(path, "dir")
    return problems


def _extract(op: BatchOperation, path: Path, destination: Path | None, ctx: _Context) -> list[str]:
    assert destination is not None  # the parser requires it
    view = ctx.view
    problems = _existing_file(path, view) or _unwritable(path, ctx)
    kind = view.kind(destination)
    if destination == path:
        return problems  # refused by _fixed already
    if kind not in (None, "file"):
        problems.append(f"{destination} is a {_noun(kind)}; extract needs a file as destination")
    elif kind == "file" and not op.append:
        problems.append(
            f"{destination} already exists: pass append: true to add the lines at its end, or choose a new file"
        )
    elif kind == "file":
        problems.extend(_unwritable(destination, ctx))
    problems.extend(_creatable(destination, view))
    view.make_parents(destination)
    view.make(destination, "file")
    return problems


def _existing_file(path: Path, view: TreeView) -> list[str]:
    kind = view.kind(path)
    if kind is None:
        return [f"file does not exist: {path} (and no earlier operation creates it)"]
    if kind != "file":
        return [f"{path} is a {_noun(kind)}, not a file"]
    return []


def _unwritable(path: Path, ctx: _Context) -> list[str]:
    """The refusal the write of the file at ``path`` would meet where it is on disk now (one this batch made or
    rewrote is not judged again)."""
    on_disk = ctx.view.origin(path)
    if on_disk is None:
        return []
    try:
        check_replaceable(ctx.beneath, on_disk)
    except FsguardError as exc:
        return [exc.message]
    return []


def _creatable(path: Path, view: TreeView) -> list[str]:
    """A problem when some directory on the way to ``path`` is a file (the missing ones are created)."""
    for parent in path.parents:
        kind = view.kind(parent)
        if kind == "dir":
            return []
        if kind is not None:
            return [f"{parent} is a {_noun(kind)}, so nothing can be created under it"]
    return []


def _operation_number(problem: str) -> int:
    found = _NUMBERED.match(problem)
    return int(found.group(1)) if found else -1


def _noun(kind: Kind | None) -> str:
    return {"file": "file", "dir": "directory"}.get(kind or "", "link or special file")


_CHECKS: dict[str, _Check] = {
    "write": _write,
    "edit": _edit,
    "search_and_replace": _edit,
    "copy": _transfer,
    "move": _transfer,
    "delete": _delete,
    "create_dir": _create_dir,
    "extract": _extract,
}
