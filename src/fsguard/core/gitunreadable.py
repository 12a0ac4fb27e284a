"""What git could not read for the server's user (permission denied), from the warnings it prints.

git carries on past a directory it may not open, and a tracked file it may not reach, with a line on stderr and a
zero exit: its status then lists nothing there, and its add stages nothing there, as if nothing had changed. The
lines are parsed in git's C locale (gitprocess sets ``LC_ALL=C``); names are relative to the top of the working
tree, as git runs there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fsguard.core.gitrepo import GitCall
from fsguard.core.gitscreen import hidden
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
    shut = tuple(name for name in names if name.endswith("/"))
    # A file in a directory named already is its own line only where git reached it by the index (d/ and d/a.txt)
    names = {name for name in names if name in shut or not name.startswith(shut)}
    return sorted(names - hidden(call, names))


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
