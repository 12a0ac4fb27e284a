"""Voice of the git tool: one renderer per action; paths are shown relative to the repository, and the
repository relative to the first root."""

from __future__ import annotations

from collections.abc import Callable

from fsguard.core.shortlist import shortlist, shown_rows
from fsguard.models.git import GitFileChange, GitResult
from fsguard.voice.paths import escaped, shown
from fsguard.voice.sizes import counted, human_size

COMPACT_PATCH_CHARS = 10_000  # the seed's hard cap on a compact diff; the tool asks the result to be cut at it
_SHORT = 12


def git_text(result: GitResult, compact: bool) -> str:
    """The text of a git result in the chosen voice."""
    text = _RENDERERS[result.action](result, compact)
    if result.denied:
        text += f"\n[{counted(result.denied, 'file')} hidden by deny rules left out]"
    if result.unreadable:
        text += f"\n[{_unreadable(result)}]"
    return f"{text}\n[{result.note}]" if result.note else text


def _status(result: GitResult, compact: bool) -> str:
    counts = result.counts
    assert counts is not None
    where = result.branch or "detached HEAD"
    if result.upstream:
        where += f"...{result.upstream}" + (
            f" +{result.ahead} -{result.behind}" if result.ahead or result.behind else ""
        )
    if compact and result.output is None:
        tally = f"+{counts.staged} ~{counts.unstaged} ?{counts.untracked}"
        tally += f" !{counts.conflicted}" if counts.conflicted else ""
        state = "merging" if result.merging else "clean" if result.clean else "dirty"
        if state == "dirty" and not (counts.staged or counts.unstaged or counts.untracked or counts.conflicted):
            state = "unread"  # nothing listed, yet git could not look everywhere: not known clean
        return f"{shown(result.repository)} ({where}) | {tally} | {state}"
    groups = (
        ("Staged", result.staged, counts.staged),
        ("Not staged", result.unstaged, counts.unstaged),
        ("Untracked", result.untracked, counts.untracked),
        ("Conflicted", result.conflicted, counts.conflicted),
    )
    if compact:
        parts = [
            f"{label.lower()}: {', '.join(_rel(result, p) for p in paths or [])}" for label, paths, _ in groups if paths
        ]
        parts += ["merging"] if result.merging else []
        return " | ".join([where, *parts]) if parts else f"{where} | clean"
    lines = [f"On {'branch ' if result.branch else ''}{where} in {shown(result.repository)}"]
    for label, paths, total in groups:
        if total:
            lines.append(f"{label} ({total}):")
            lines.extend(
                f"  {_staged_name(result, path) if paths is result.staged else _rel(result, path)}"
                for path in paths or []
            )
    if result.merging:
        lines.append(
            "Merging: resolve the conflicted paths, add them, then commit to conclude the merge."
            if counts.conflicted
            else 'Merging: all conflicts resolved; git(action="commit", message=...) concludes the merge.'
        )
    elif result.clean:
        lines.append("Clean: nothing to commit, no untracked files.")
    return "\n".join(lines)


def _unreadable(result: GitResult) -> str:
    """What git could not read for the server's user, named: status could not look into it, a diff left it out."""
    done = "Not looked into by git" if result.action == "status" else "Left out of the diff"
    listed = shortlist(
        [_rel(result, path) for path in result.unreadable or []], rest="all in the result's unreadable list"
    )
    return f"{done}, as the server's user may not read them: {listed}. Ask the user for read access to them."


def _staged_name(result: GitResult, path: str) -> str:
    """A staged path, ``old -> new`` for a rename, as git status shows it."""
    old = (result.renamed or {}).get(path)
    return f"{_rel(result, old)} -> {_rel(result, path)}" if old else _rel(result, path)


def _changes(result: GitResult, compact: bool) -> str:
    files = result.files or []
    head = _show_header(result, compact) if result.action == "show" else []
    if result.commit is None and result.action == "show":  # a file or tree at a revision
        return _patch(result, compact)
    if not files:
        return "\n".join([*head, _nothing(result)])
    if result.files_changed is not None:  # the totals of every file, the list maybe cut
        count, added, deleted = result.files_changed, result.insertions or 0, result.deletions or 0
    else:
        count, added, deleted = len(files), sum(f.added or 0 for f in files), sum(f.deleted or 0 for f in files)
    summary = f"{counted(count, 'file')} changed, +{added} -{deleted}"
    if result.output == "full":
        return "\n".join([*head, summary, _patch(result, compact)])
    rows = [_rel(result, f.path) for f in files] if result.output == "name-only" else _stats(result, files)
    if compact:
        return "\n".join([*head, f"{summary}: " + ", ".join(r.strip() for r in rows)])
    return "\n".join([*head, f"{summary}:", *rows])


def _show_header(result: GitResult, compact: bool) -> list[str]:
    commit = result.commit
    if commit is None:
        return []
    if compact:
        return [f"{commit.hash[:_SHORT]} {commit.subject} ({commit.author}, {commit.date})"]
    lines = [f"commit {commit.hash}", f"Author: {commit.author}", f"Date:   {commit.date}", "", f"    {commit.subject}"]
    if commit.body:
        lines += ["", *(f"    {line}" for line in commit.body.splitlines())]
    return [*lines, ""]


def _nothing(result: GitResult) -> str:
    if result.action == "show":
        return "No file changes in this commit."
    if result.compared in ("staged", "unstaged"):
        return f"No {result.compared} changes."
    return f"No changes in {result.compared}."


def _patch(result: GitResult, compact: bool) -> str:
    if result.binary:
        size = human_size(result.size or 0)
        return f"binary file, {size}" if compact else f"Binary file ({size}): its bytes are not shown as text."
    # Cut in the result already (COMPACT_PATCH_CHARS among its limits), so the patch field is the text's.
    return (result.patch or "").rstrip("\n") or "(empty)"


def _stats(result: GitResult, files: list[GitFileChange]) -> list[str]:
    """One line per file, counts aligned: ``  +3 -1 src/a.py``, ``binary img.png``, ``+0 -0 old -> new``."""
    counts = ["binary" if f.binary else f"+{f.added} -{f.deleted}" for f in files]
    width = max(map(len, counts), default=0)
    rows = []
    for change, count in zip(files, counts, strict=True):
        name = _rel(result, change.path)
        if change.from_path:
            name = f"{_rel(result, change.from_path)} -> {name}"
        if change.conflicted:
            name += " (conflicted)"
        rows.append(f"  {count:>{width}} {name}")
    return rows


def _log(result: GitResult, compact: bool) -> str:
    commits = result.commits or []
    if not commits:
        return _no_commits(result)
    if result.output == "full":  # each commit as show heads it, its whole message
        return "\n".join(
            line for c in commits for line in _show_header(result.model_copy(update={"commit": c}), compact)
        )
    if compact:
        return "\n".join(f"{c.hash[:7]} {c.subject}" for c in commits)
    return "\n".join(f"{c.hash[:_SHORT]} {c.date} {c.author}: {c.subject}" for c in commits)


def _no_commits(result: GitResult) -> str:
    """An empty log: of a repository with no commits yet, or of a range or paths that hold none."""
    rev, paths = result.compared, result.paths or []
    if rev is None and not paths:
        return "No commits yet."
    where = ""
    if rev is not None:
        where = f" in the range {rev}" if ".." in rev else f" from {rev}"
    touching = f" touching {', '.join(_rel(result, path) for path in paths)}" if paths else ""
    return f"No commits{where}{touching}."


def _add(result: GitResult, compact: bool) -> str:
    paths = result.paths or []
    if compact:
        return f"OK: staged {counted(_total(result, paths), 'file')}"
    if not paths:
        return "Nothing staged: the paths have no changes (or are ignored)."
    count = counted(_total(result, paths), "file")
    return "\n".join([f"Staged {count}:", *(f"  {_rel(result, p)}" for p in paths)])


def _commit(result: GitResult, compact: bool) -> str:
    stats = f"{counted(result.files_changed or 0, 'file')}, +{result.insertions} -{result.deletions}"
    short = (result.hash or "")[:7]
    subject = result.commit.subject if result.commit else ""
    if compact:
        return f"[{result.branch or 'detached'} {short}] {subject} | {stats} | risk:{result.risk_level}"
    where = result.branch or "detached HEAD"
    return f"Committed {short} on {where}: {subject}\n{stats}. Risk {result.risk_level}."


def _push(result: GitResult, compact: bool) -> str:
    how = " (force-with-lease)" if result.forced else ""
    updates = "; ".join(result.updates or []) or "nothing to push"
    if compact:
        return f"OK: pushed {result.branch} to {result.remote}{how} | {updates}"
    return f"Pushed {result.branch or 'HEAD'} to {result.remote}{how}.\n{updates}"


def _restore(result: GitResult, compact: bool) -> str:
    paths = result.paths or []
    origin = f" from {result.source}" if result.source else ""
    if result.backups is None:
        head = f"Unstaged {counted(_total(result, paths), 'path')}{origin}; the working tree is untouched."
    else:
        head = f"Restored {counted(_total(result, paths), 'file')}{origin}; {len(result.backups)} backed up first."
        if result.backups:
            head += ' Undo one with backup(action="undo_last", file_path=...).'
    if compact:
        return f"OK: {head}"
    return "\n".join([head, *(f"  {_rel(result, p)}" for p in paths)])


def _branch(result: GitResult, compact: bool) -> str:
    did = []
    if result.created:
        tracking = f" tracking {result.upstream}" if result.upstream else ""
        did.append(f"Created branch {result.created}{tracking}" + (" and switched to it." if result.switched else "."))
    elif result.deleted:
        tip = (result.deleted_commit or "")[:_SHORT]
        did.append(
            f"Deleted branch {result.deleted} (was {tip}); "
            f'git(action="branch", name="{result.deleted}", rev="{tip}") recreates it.'
        )
    elif result.switched:
        did.append(f"Switched to branch {result.current}.")
    names = result.branches or []
    detached = f"(HEAD detached at {result.detached_at[:_SHORT]})" if result.detached_at else None
    if compact:
        listed = shortlist(names, rest="all in the result's branches list") or "(none yet)"
        return " ".join([*did, f"branches: {listed} | current: {result.current or detached}"])
    listing = [f"{'*' if name == result.current else ' '} {name}" for name in names]
    current = [name == result.current for name in names]  # shown first in a long list, as a failure would be
    listing = shown_rows(listing, failed=current, rest="every one in the result's branches list")
    if result.current and result.current not in names:
        listing.insert(0, f"* {result.current} (no commits yet)")
    if detached:
        listing.insert(0, f"* {detached}")
    return "\n".join([*did, *listing])


def _init(result: GitResult, compact: bool) -> str:
    where = shown(result.repository)
    if result.reinitialized:
        if compact:
            return f"OK: a repository is already in {where}, left as it is"
        return f"A git repository is already in {where}; it was left as it is."
    return (
        f"OK: initialized an empty repository in {where}"
        if compact
        else f"Initialized an empty git repository in {where}."
    )


def _total(result: GitResult, paths: list[str]) -> int:
    """How many paths the action touched: files_changed when the list was cut at max_lines."""
    return result.files_changed if result.files_changed is not None else len(paths)


def _rel(result: GitResult, path: str) -> str:
    """``path`` relative to the repository, escaped as every listed name is: a line break in it forged a row."""
    prefix = result.repository.rstrip("/") + "/"
    return escaped(path.removeprefix(prefix))


_RENDERERS: dict[str, Callable[[GitResult, bool], str]] = {
    "status": _status,
    "diff": _changes,
    "show": _changes,
    "log": _log,
    "add": _add,
    "commit": _commit,
    "push": _push,
    "restore": _restore,
    "branch": _branch,
    "init": _init,
}
