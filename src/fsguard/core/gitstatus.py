"""git(action="status"): the branch, its upstream distance and the paths in each state, as a typed result; what a
deny rule hides left out and counted, what git could not read named."""

from __future__ import annotations

from fsguard.core.gitparse import parse_status
from fsguard.core.gitrefs import merging
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitscreen import hidden
from fsguard.core.gitunreadable import name_unreadable, unreadable
from fsguard.models.git import GitResult, GitStatusCounts


def status(call: GitCall) -> GitResult:
    """Branch, upstream distance and the paths in each state."""
    repo, cap = call.repo, call.request.max_lines
    # --untracked-files: status.showUntrackedFiles=no in the repository's config made a new file invisible, and
    # status called the tree clean; normal lists an untracked folder once, with its "/".
    out = repo.git("status", "--porcelain=v2", "--branch", "--untracked-files=normal", "-z", "--", *call.scope)
    report = parse_status(out.stdout)
    unread = unreadable(call, out.stderr)
    reported = (report.staged, report.unstaged, report.untracked, report.conflicted)
    left_out = hidden(call, {name for group in reported for name in group} | set(report.renamed.values()))
    groups = [[name for name in group if name not in left_out] for group in reported]
    counts = GitStatusCounts(
        staged=len(groups[0]), unstaged=len(groups[1]), untracked=len(groups[2]), conflicted=len(groups[3])
    )
    cut = any(len(group) > cap for group in groups)
    staged, unstaged, untracked, conflicted = ([repo.absolute(name) for name in group[:cap]] for group in groups)
    renamed = {
        repo.absolute(new): repo.absolute(old)
        for new, old in report.renamed.items()
        if repo.absolute(new) in staged and old not in left_out
    }
    result = GitResult(
        action="status",
        repository=str(repo.root),
        message="",
        output=call.request.output,
        branch=report.branch,
        upstream=report.upstream,
        ahead=report.ahead,
        behind=report.behind,
        staged=staged,
        unstaged=unstaged,
        untracked=untracked,
        conflicted=conflicted,
        renamed=renamed or None,
        counts=counts,
        clean=report.clean and not unread,  # what git could not read may have changed
        merging=merging(repo) or None,
        denied=len(left_out) or None,
        truncated=cut or None,
        note=f"Lists cut at {cap} paths each: pass paths=[...] or raise max_lines to see more." if cut else None,
    )
    name_unreadable(call, result, unread)
    return result
