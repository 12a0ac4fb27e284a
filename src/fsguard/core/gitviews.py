"""The read-only git actions diff, log and show (status: :mod:`fsguard.core.gitstatus`), parsed into typed results.

Patches are read with a line budget (max_lines) and a byte budget (the response's; git's output past them is
counted, not kept), and a full diff of more than :data:`DIFF_GUARD_FILES` files with no paths given is downgraded
to the stat: both say so in ``note``. A binary file at a revision is named, never decoded.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from contextlib import contextmanager

from fsguard.core.errors import InvalidParamsError
from fsguard.core.gitparse import (
    LOG_FORMAT,
    FileStat,
    parse_log,
    parse_log_bodies,
    parse_numstat,
    text,
    with_conflicts,
)
from fsguard.core.gitprocess import GitOutput, Scratch, failure
from fsguard.core.gitrepo import GitCall, Repository
from fsguard.core.gitscreen import (
    check_compared,
    check_shown_object,
    hidden,
    object_kind,
    object_path,
    object_revision,
    visible_tree,
)
from fsguard.core.gitunreadable import name_unreadable
from fsguard.core.gitworktree import working_tree
from fsguard.models.git import GitCommit, GitFileChange, GitResult

DIFF_GUARD_FILES = 20
SHOW_HEADER_LINES = 40
BINARY_SNIFF = 8000  # git's own look (buffer_is_binary): a NUL there makes a file binary, and its diff says so
_DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "-M")
_UNBORN = "does not have any commits yet"


def diff(call: GitCall) -> GitResult:
    """Unstaged changes (staged with ``staged``, against ``rev`` or a range with ``rev``)."""
    if call.request.rev:
        check_compared(call, call.request.rev)
    with _compared(call) as (command, scratch, submodules, unread):
        stats = parse_numstat(call.repo.git(*command, "--numstat", "-z", "--", *call.scope, scratch=scratch).stdout)
        if submodules:
            inside = call.repo.git(*_submodules_diff(call), "--numstat", "-z", "--", *submodules).stdout
            stats = _in_order(stats, parse_numstat(inside))
        # An unmerged path comes as a stub (and once more with the working tree's counts): one entry, marked.
        unmerged = call.repo.git(
            *command, "--name-only", "--diff-filter=U", "-z", "--", *call.scope, scratch=scratch
        ).stdout
        stats = with_conflicts(stats, {text(name) for name in unmerged.split(b"\0") if name})
        request = call.request
        compared = request.rev or ("staged" if request.staged else "unstaged")
        if request.rev and request.staged:
            compared = f"staged vs {request.rev}"
        result = GitResult(action="diff", repository=str(call.repo.root), message="", compared=compared)
        name_unreadable(call, result, list(unread))
        return _changes(call, result, command, stats, scratch, set(submodules))


@contextmanager
def _compared(call: GitCall) -> Iterator[tuple[list[str], Scratch | None, tuple[str, ...], tuple[str, ...]]]:
    """The diff command, the scratch index it reads, the submodules it leaves to :func:`_submodules_diff`, and the
    files the server's user may not read, left out: a diff involving the working tree compares the working tree as
    fsguard read it (gitworktree), never files git reads by path."""
    request = call.request
    plain = ["diff", *_DIFF_FLAGS, *(["--cached"] if request.staged else []), *_rev(call)]
    if request.staged or (request.rev is not None and _several(call, request.rev)):  # the index, or two commits
        yield plain, None, (), ()
        return
    with working_tree(call) as tree:
        if tree is None:
            yield plain, None, (), ()
        else:
            command = ["diff", *_DIFF_FLAGS, "--cached", request.rev or tree.base]
            yield command, tree.scratch, tree.submodules, tree.unreadable


def _several(call: GitCall, rev: str) -> bool:
    """Whether ``rev`` names more than one commit: ``A..B``, and ``A^!`` or ``A^-1`` (git's other spellings of a
    range, which ``diff --cached`` took for one commit and answered with its usage text)."""
    if ".." in rev:
        return True
    return len(call.repo.git("rev-parse", "--revs-only", rev, check=False).stdout.split()) > 1


def _submodules_diff(call: GitCall) -> list[str]:
    """git's own diff of submodules in the working tree: their commit, ``-dirty`` with uncommitted changes inside
    (which no index records), in the short form whatever diff.submodule says (its ``diff`` prints their files)."""
    return ["diff", *_DIFF_FLAGS, "--submodule=short", *_rev(call)]


def _in_order(stats: list[FileStat], inserted: list[FileStat]) -> list[FileStat]:
    """``stats`` with each of ``inserted`` where git's path order puts it."""
    merged = list(stats)
    for stat in inserted:
        merged.insert(next((at for at, each in enumerate(merged) if each.path > stat.path), len(merged)), stat)
    return merged


def log(call: GitCall) -> GitResult:
    """The newest ``limit`` commits (from ``rev``, touching the pathspecs); one more is read, to say whether older
    ones were left out (counting them all would walk the whole history)."""
    request, repo = call.request, call.repo
    full = request.output == "full"  # each commit's whole message, as show gives it
    shape = f"--format={LOG_FORMAT}%x00%b" if full else f"--format={LOG_FORMAT}"
    command = ["log", f"--max-count={request.limit + 1}", "-z", shape, *_rev(call)]
    out = repo.git(*command, "--", *call.scope, check=False)
    if out.code != 0 and _UNBORN not in out.stderr:
        raise failure("log", out.code, out.stderr, advice='Check rev (e.g. rev="HEAD~3") and paths, then retry.')
    listed = parse_log_bodies(out.stdout) if full else [(line, "") for line in parse_log(out.stdout)]
    commits = [
        GitCommit(hash=c.hash, subject=c.subject, author=c.author, date=c.date, body=_cut_body(body))
        for c, body in listed
    ]
    result = GitResult(
        action="log",
        repository=str(repo.root),
        message="",
        output="full" if full else None,
        commits=commits[: request.limit],
    )
    if len(commits) > request.limit:
        result.truncated = True
        result.note = f"Older commits left out at limit={request.limit}: " + (
            f"raise limit (at most {MOST_COMMITS:,}) to see them."
            if request.limit < MOST_COMMITS
            else 'narrow the log with rev (a range, e.g. rev="v1.0..HEAD") or paths.'
        )
    if out.code == 0:  # the history read (else there is none yet): the text names it when it holds no commit
        result.compared = request.rev
        result.paths = [repo.absolute(name) for name in call.scope] or None
    return result


def _cut_body(body: str) -> str | None:
    """A message past its subject as show gives it: its first :data:`SHOW_HEADER_LINES` lines; None when empty."""
    return "\n".join(body.strip("\n").splitlines()[:SHOW_HEADER_LINES]) or None


MOST_COMMITS = 1000
"""The largest limit a log takes (the tool's bound)."""


def show(call: GitCall) -> GitResult:
    """A commit's header, message and changes; for ``rev:path`` or a tree, the object's content.

    Raises:
        InvalidParamsError: no rev.
    """
    repo, rev = call.repo, call.request.rev
    if rev is None:
        raise InvalidParamsError(
            "missing 'rev' parameter (required for show): the commit to show, e.g. "
            'git(action="show", rev="HEAD"), or rev="HEAD~1:path/file" '
            "for a file as it was."
        )
    if object_path(rev) is not None:
        # Judged by its path first: git reads "main@{0}:a.txt^{commit}" as a reflog entry at the date
        # "0}:a.txt^{commit" and peels it to a commit, so the probe below would show the commit, not the file.
        return _object(call, rev)
    peeled = repo.git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    if peeled.code != 0:
        return _object(call, rev)
    commit_id = text(peeled.stdout).strip()
    header = text(repo.git("show", "--no-patch", "--no-color", f"--format={LOG_FORMAT}%x00%b", commit_id, "--").stdout)
    hash_, author, date, subject, body = (header.split("\0", 4) + [""] * 5)[:5]
    body_lines = body.strip("\n").splitlines()
    result = GitResult(
        action="show",
        repository=str(repo.root),
        message="",
        commit=GitCommit(
            hash=hash_.strip(),
            subject=subject,
            author=author,
            date=date,
            body="\n".join(body_lines[:SHOW_HEADER_LINES]) or None,
        ),
    )
    if len(body_lines) > SHOW_HEADER_LINES:
        result.note = f"Commit message cut at {SHOW_HEADER_LINES} of {len(body_lines)} lines."
    command = ["show", *_DIFF_FLAGS, "--diff-merges=first-parent", "--format=", commit_id]
    stats = parse_numstat(repo.git(*command, "--numstat", "-z", "--", *call.scope).stdout)
    return _changes(call, result, command, stats)


def _object(call: GitCall, rev: str) -> GitResult:
    """``git show`` of something that is not a commit (a file at a revision, a tree), cut as a patch is; a binary
    file is named with its size, its bytes left out."""
    kind = object_kind(call, rev)
    check_shown_object(call, rev, kind)
    repo, request = call.repo, call.request
    if kind == "blob" and (binary := _binary(call, rev)) is not None:
        return binary
    # The "--" makes git read rev as a revision, never as the name of a file in the working tree.
    out = repo.git(
        "show",
        "--no-color",
        "--no-textconv",
        rev,
        "--",
        keep_lines=request.max_lines,
        keep_bytes=request.patch_bytes,
        check=False,
    )
    if out.code != 0:
        advice = 'Check rev: a commit (rev="HEAD~2") or a file at one (rev="HEAD:a.py").'
        if not repo.git("rev-list", "--all", "--max-count=1", check=False).stdout.strip():  # as log says it
            advice = (
                "This repository has no commits yet, so no revision has anything to show. Commit first; "
                'git(action="diff", staged=true) shows what is staged.'
            )
        raise failure("show", out.code, out.stderr, advice=advice)
    result = GitResult(action="show", repository=str(repo.root), message="", output="full")
    _kept(
        call,
        result,
        out,
        "list it with list_directory" if kind == "tree" else "read the working tree's copy with read_file",
    )
    if kind == "tree":
        result.patch, denied = visible_tree(call, rev, result.patch or "")
        result.denied = denied or None
        if result.total_lines is not None:
            result.total_lines -= denied
    return result


def _binary(call: GitCall, rev: str) -> GitResult | None:
    """The answer for a binary file at a revision (its size, how to get its bytes), or None for a text file."""
    head = call.repo.git("cat-file", "blob", rev, keep_bytes=BINARY_SNIFF, check=False)
    if head.code != 0 or b"\0" not in head.stdout:
        return None  # text, or a revision git fails on: show says which
    name = object_path(rev) or rev
    revision = object_revision(rev)
    source = f"rev={json.dumps(revision)}, " if revision else ""
    restore = f'git(action="restore", {source}paths={json.dumps([name])}, force=true)'
    return GitResult(
        action="show",
        repository=str(call.repo.root),
        message="",
        binary=True,
        size=head.size,
        note=f"read_file(path={json.dumps(call.repo.absolute(name))}, "
        f'encoding="base64") reads the working tree\'s copy; to have this one there, {restore} first (it backs up the '
        "file it replaces).",
    )


def _changes(
    call: GitCall,
    result: GitResult,
    command: list[str],
    stats: list[FileStat],
    scratch: Scratch | None = None,
    submodules: set[str] | None = None,
) -> GitResult:
    """Fill the files, and the patch for output=full (downgraded to the stat for a wide unscoped diff)."""
    request, repo = call.request, call.repo
    left_out = hidden(call, {name for stat in stats for name in (stat.path, stat.from_path) if name})
    if left_out:
        stats = [stat for stat in stats if stat.path not in left_out and stat.from_path not in left_out]
        result.denied = len(left_out)
    output = request.output or "stat"
    notes = [result.note] if result.note else []
    if output == "full" and not call.scope and len(stats) > DIFF_GUARD_FILES:
        output = "stat"
        result.truncated = True
        notes.append(
            f"{len(stats)} files changed and no paths were given: showing the stat only. For the patch, ask "
            'output="full" with paths=["file"].'
        )
    cap = request.max_lines
    result.output = output
    result.files = [_file(repo, stat) for stat in stats[:cap]]
    # The totals of every file, not of the ones listed, whether or not the list is cut: the text's summary line
    # states them, and a result without them left a caller who reads fields to add up the files itself.
    result.files_changed = len(stats)
    result.insertions = sum(stat.added or 0 for stat in stats)
    result.deletions = sum(stat.deleted or 0 for stat in stats)
    if len(stats) > cap:
        result.truncated = True
        notes.append(f"File list cut at {cap} of {len(stats)}: pass paths=[...] or raise max_lines.")
    result.note = " ".join(notes) or None
    if output != "full":
        return result
    # With a file hidden, the patch is asked for the others by name (pathspecs are literal, see gitprocess): git
    # never writes the hidden one's lines.
    scope = [name for stat in stats for name in (stat.from_path, stat.path) if name] if left_out else call.scope
    if left_out and not scope:
        result.patch = ""
        return result
    if submodules and any(stat.path in submodules for stat in stats):
        out = _pieced(call, command, scratch, stats, submodules)
    else:
        out = repo.git(*command, "--", *scope, keep_lines=cap, keep_bytes=request.patch_bytes, scratch=scratch)
    _kept(call, result, out, 'use output="stat" for the summary')
    return result


def _pieced(
    call: GitCall, command: list[str], scratch: Scratch | None, stats: list[FileStat], submodules: set[str]
) -> GitOutput:
    """The patch of ``stats`` in their order: each run of files from ``command`` on ``scratch``, each of
    ``submodules`` from :func:`_submodules_diff`; one output under the call's line and byte budgets."""
    runs: list[tuple[bool, list[str]]] = []  # (submodules?, the names of one run)
    for stat in stats:
        inside = stat.path in submodules
        names = [name for name in (stat.from_path, stat.path) if name]
        if runs and runs[-1][0] == inside:
            runs[-1][1].extend(names)
        else:
            runs.append((inside, names))
    request, kept, lines, size, clipped = call.request, b"", 0, 0, False
    for inside, names in runs:
        budget = None if request.patch_bytes is None else max(request.patch_bytes - len(kept), 0)
        out = call.repo.git(
            *(_submodules_diff(call) if inside else command),
            "--",
            *names,
            keep_lines=max(request.max_lines - lines, 0),
            keep_bytes=budget,
            scratch=None if inside else scratch,
        )
        kept, lines, size, clipped = kept + out.stdout, lines + out.lines, size + out.size, clipped or out.clipped
    return GitOutput(0, kept, lines, "", size, clipped)


def _kept(call: GitCall, result: GitResult, out: GitOutput, elsewhere: str) -> None:
    """Set ``result.patch`` from ``out``, cut at max_lines lines (git's run kept those), at the response budget's
    bytes (one 5 MB line would pass any line count) and at the voice's characters: the text shows this patch whole,
    so the fields and the text agree on what was cut. ``elsewhere`` is the last way the note names to see the rest."""
    request = call.request
    raw = out.stdout
    # A file named in paths narrows a patch of several; a patch of one file is the same patch again, a loop.
    cuts, ways = [], ['narrow it with paths=["file"]'] if (result.files_changed or 0) > 1 else []
    if out.lines > request.max_lines:
        cuts.append(f"{request.max_lines} of {out.lines} lines")
    if out.clipped:
        raw = _whole_characters(raw)
        cuts.append(f"{len(raw):,} of {out.size:,} bytes (the response budget, --max-response-bytes)")
    patch = text(raw)
    budget = out.clipped
    if request.patch_chars is not None and len(patch) > request.patch_chars:
        patch, budget = patch[: request.patch_chars], True
        cuts.append(f"{request.patch_chars:,} characters (the compact voice's limit)")
    result.patch = patch
    if not cuts:
        return
    # Within the lines kept, a budget cut stops the patch at the same place however many lines are asked for.
    if out.lines > request.max_lines and not budget:
        ways.append("raise max_lines")
    result.truncated, result.total_lines = True, out.lines
    ways.append(elsewhere)
    said = f"{', '.join(ways[:-1])}, or {elsewhere}" if ways[1:] else f"no argument returns more of it; {elsewhere}"
    cut = f"{'Patch' if result.files is not None else 'Output'} cut at {' and '.join(cuts)}: {said}."
    result.note = f"{result.note} {cut}" if result.note else cut


def _whole_characters(raw: bytes) -> bytes:
    """``raw`` without the bytes of a UTF-8 character a cut split at its end."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    decoder.decode(raw, final=False)
    held, _ = decoder.getstate()
    return raw[: len(raw) - len(held)]


def _file(repo: Repository, stat: FileStat) -> GitFileChange:
    return GitFileChange(
        path=repo.absolute(stat.path),
        added=stat.added,
        deleted=stat.deleted,
        binary=stat.added is None,
        from_path=repo.absolute(stat.from_path) if stat.from_path else None,
        conflicted=stat.conflicted or None,
    )


def _rev(call: GitCall) -> list[str]:
    return [call.request.rev] if call.request.rev else []
