"""What git could not read for the server's user (permission denied), from the warnings it prints.

git carries on past a directory it may not open, and a tracked file it may not reach, with a line on stderr and a
zero exit: its status then lists nothing there, and its add stages nothing there, as if nothing had changed. The
lines are parsed in git's C locale (gitprocess sets ``LC_ALL=C``); names are relative to the top of the working
tree, as git runs there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fsguard.core.errors import AccessDeniedError
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitscreen import hidden
from fsguard.core.shortlist import shortlist
from fsguard.models.git import GitResult

# The directories git's walk may not open (status, ls-files, add), the tracked files it may not reach through a
# directory it may not search: status and diff print the bare name, ls-files its lstat.
_REFUSED = re.compile(
    r"^(?:warning: could not open directory '(?P<directory>.+)'|error: cannot lstat '(?P<file>.+)'|"
    r"(?P<bare>[^\s'][^']*?)): Permission denied$",
    re.MULTILINE,
)


def unreadable(call: GitCall, stderr: str, also: Iterable[str] = ()) -> list[str]:
    """The repo-relative names git's ``stderr`` says it may not read, with ``also``, sorted, those a deny rule
    hides left out (a directory ends with ``/``)."""
    said = {match["directory"] or match["file"] or match["bare"] for match in _REFUSED.finditer(stderr)}
    names = {name for name in said if not name.startswith(("/", "warning:", "error:", "fatal:"))} | set(also)
    names = {name for name in names if _within(name, call.scope)}
    shut = tuple(name for name in names if name.endswith("/"))
    # A file in a directory named already is its own line only where git reached it by the index (d/ and d/a.txt)
    names = {name for name in names if name in shut or not name.startswith(shut)}
    return sorted(names - hidden(call, names))


def _within(name: str, scope: tuple[str, ...]) -> bool:
    """Whether ``name`` lies in a pathspec of ``scope``, or holds one: ls-files names every tracked file it may not
    reach, whatever the pathspecs."""
    bare = f"{name.rstrip('/')}/"
    return not scope or any(
        spec == "." or bare.startswith(f"{spec.rstrip('/')}/") or f"{spec.rstrip('/')}/".startswith(bare)
        for spec in scope
    )


def check_readable(call: GitCall, stderr: str) -> None:
    """Refuse to stage where git's ``stderr`` says it could not read: it would stage nothing there, unsaid.

    Raises:
        AccessDeniedError: git may not open a directory, or reach a file, the paths hold.
    """
    names = unreadable(call, stderr)
    if names:
        raise AccessDeniedError(
            f"the server's user may not read {shortlist(names)} (permission denied), so git cannot tell what to "
            "stage there. Nothing was staged. Name the paths to stage without them, or ask the user for read access to "
            "them.",
            path=call.repo.absolute(names[0]),
            reason="Permission denied",
        )


def name_unreadable(call: GitCall, result: GitResult, names: list[str]) -> None:
    """Set ``result.unreadable`` to the first max_lines of ``names``; past that, say how many there are."""
    if not names:
        return
    cap = call.request.max_lines
    result.unreadable = [call.repo.absolute(name) for name in names[:cap]]
    if len(names) > cap:
        result.truncated = True
        cut = f"Unreadable list cut at {cap} of {len(names)}: pass paths=[...] or raise max_lines to see more."
        result.note = f"{result.note} {cut}" if result.note else cut
