"""What git may show and change under the deny rules and the read-only roots.

git reads the repository itself, past fsguard's path checks: left alone, a patch or a file at a revision would
print a file a deny rule hides (``.env``), a restore or a branch switch would overwrite one, or change a file in a
read-only root nested in the working tree, and staging one would let a commit and a push carry it off. So lists
and patches leave hidden files out (counted in ``denied``), and actions that would stage or change one are refused
before git runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from pathlib import Path

from fsguard.core.errors import AccessDeniedError, InvalidParamsError, ReadOnlyError
from fsguard.core.gitparse import text
from fsguard.core.gitrepo import GitCall
from fsguard.core.pathforms import escaped


def hidden(call: GitCall, names: Iterable[str]) -> set[str]:
    """The repo-relative ``names`` a deny rule hides (a directory ends with ``/``, as git lists untracked ones)."""
    policy = call.safe.policy
    if not policy.deny.active:
        return set()
    return {
        name
        for name in names
        if policy.denied_by(Path(call.repo.absolute(name)), is_dir=name.endswith("/")) is not None
    }


_SWITCH_ADVICE = (
    "Switch to a branch that leaves that file as it is, or ask the user to switch branches outside fsguard."
)


def check_changeable(call: GitCall, names: Iterable[str], *, staging: bool = False) -> None:
    """Refuse when git would change (or, ``staging``, stage) a file a deny rule hides, or change one in a
    read-only root.

    Raises:
        AccessDeniedError: a name is hidden by a deny rule.
        ReadOnlyError: a name lies in a read-only root (not checked when only staging).
    """
    action, policy = call.request.action, call.safe.policy
    verb = "stage" if staging else "change"
    # A branch switch names no paths: what it changes follows from the branch, so naming fewer cannot help.
    switching = action == "branch"
    for name in names:
        path = Path(call.repo.absolute(name))
        rule = policy.denied_by(path, is_dir=name.endswith("/"))
        if rule is not None:
            # Not named, as status and diff only count such a file: a branch switch met one that exists only on the
            # other branch, a name the agent had no way to learn.
            raise AccessDeniedError(
                f"git {action} would {verb} a file the deny rule {rule!r} hides (not named here): fsguard never lets "
                f"git {verb} such a file. Nothing was changed. "
                + (_SWITCH_ADVICE if switching else f"Name other paths, leaving out what {rule!r} hides."),
                rule=rule,
            )
        if not staging and policy.is_read_only(path):
            raise ReadOnlyError(
                f"git {action} would change {name}, in the read-only root {policy.root_of(path)}. Nothing was "
                "changed. " + (_SWITCH_ADVICE if switching else "Name only paths outside it."),
                path=str(path),
            )


def object_kind(call: GitCall, rev: str) -> str | None:
    """blob, tree or commit: what ``rev`` names once tags are peeled; None when git cannot resolve it."""
    # After "rev:" everything is the path, a peeling suffix too; what a tree holds is never a tag anyway.
    named = rev if _path_part(rev) is not None else f"{rev}^{{}}"
    peeled = call.repo.git("cat-file", "-t", named, check=False)
    return text(peeled.stdout).strip() or None if peeled.code == 0 else None


def check_shown_object(call: GitCall, rev: str, kind: str | None) -> None:
    """Refuse ``git show`` of a hidden file or folder at a revision (``rev:path``, ``:path``, ``:2:path``), of a
    file or folder named by its object id alone or a path in a folder's (its path from the top cannot be judged),
    and of a range (git would print every commit's whole patch). A revision git does not know is left to git,
    whose words say so.

    Raises:
        AccessDeniedError: the path is hidden by a deny rule.
        InvalidParamsError: ``rev`` names a file or folder without its path from the top of a commit, or several
            revisions.
    """
    name = object_path(rev)
    if name not in (None, ".") and call.safe.policy.denied_by(Path(call.repo.absolute(name)), is_dir=kind == "tree"):
        raise AccessDeniedError(
            f"{name} is hidden by a deny rule (secrets and files the operator hid are never read, written or listed), "
            "at any revision. Nothing was shown. Work with another file; only the operator can change the rules.",
            path=call.repo.absolute(name),
        )
    revision = object_revision(rev)
    if kind is not None and revision is not None and not _from_top(call, revision):
        # The path after ':' is relative to what precedes it: from a folder's tree (its id, a tag to it),
        # "<tree>:credentials" is .aws/credentials under a name no rule hides.
        raise InvalidParamsError(
            f"rev {rev!r} names a path in {revision!r}, which is not a commit: fsguard judges paths from the top "
            'of a commit only. Nothing was shown. Name the commit: rev="HEAD:path/to/file".',
            param="rev",
        )
    if kind == "tree" and name is None and not _from_top(call, rev):
        # A folder's own tree (its id, a tag to it) lists names relative to it, a hidden folder's names passing
        # the rules; only a commit's top ("HEAD^{tree}") lists paths from the top.
        raise InvalidParamsError(
            f"rev {rev!r} names a folder without its path, which fsguard cannot check against the deny rules. "
            'Nothing was shown. Name the folder at a revision instead: rev="HEAD:path/to/folder" (rev="HEAD:" '
            "for the top).",
            param="rev",
        )
    if kind == "blob" and name is None:
        raise InvalidParamsError(
            f"rev {rev!r} names a file's contents without its path, which fsguard cannot check against the deny "
            'rules. Name the file at a revision instead: rev="HEAD:path/to/file".',
            param="rev",
        )
    if kind is None and call.repo.git("rev-parse", "--revs-only", rev, check=False).stdout.strip():
        raise InvalidParamsError(
            f"rev {rev!r} is not one commit, nor a file or folder at one. show takes one revision "
            '(rev="HEAD~1", rev="HEAD:src/a.py"); for a range use diff (rev="A..B") or log.',
            param="rev",
        )


def _from_top(call: GitCall, revision: str) -> bool:
    """Whether the names in ``revision`` are paths from the top: it peels to a commit (a tag to one too), or is
    the top folder of one (``HEAD^{tree}``)."""
    commit = f"{revision.removesuffix('^{tree}')}^{{commit}}"
    return call.repo.git("rev-parse", "--verify", "--quiet", "--end-of-options", commit, check=False).code == 0


def check_compared(call: GitCall, rev: str) -> None:
    """Refuse a diff whose ``rev`` names anything but commits: git diffs two files (``HEAD:a..<blob id>``) or two
    folders (``HEAD:secrets..HEAD~1:secrets``, its names relative to the folder) too, and neither has the paths
    the deny rules judge.

    Raises:
        InvalidParamsError: a revision ``rev`` names is not a commit.
    """
    # A..B comes back as B and ^A, object ids. (rev never starts with "-": refuse_option saw to it, and this
    # git's rev-parse would echo an --end-of-options back as if it were a revision.)
    said = call.repo.git("rev-parse", "--revs-only", rev, check=False)
    if said.code != 0:
        return  # not a revision at all: git diff says so
    ends = [f"{name.lstrip('^')}^{{commit}}" for name in text(said.stdout).split()]
    if ends and call.repo.git("rev-parse", *ends, check=False).code:
        raise InvalidParamsError(
            f"rev {rev!r} names a file or folder, not a commit: diff compares commits "
            '(rev="HEAD~1", rev="main..HEAD"). To see a file as it was, use show with rev="HEAD~1:path/to/file".',
            param="rev",
        )


def check_source(call: GitCall, rev: str) -> None:
    """Refuse a restore whose ``rev`` is not one commit: git restores from a folder too (``HEAD:deploy/.aws``), its
    names relative to that folder, so a file a deny rule hides would come back under a name no rule hides.

    Raises:
        InvalidParamsError: ``rev`` names a file, a folder or a range, or nothing at all.
    """
    # rev never starts with "-" (refuse_option saw to it): it cannot be read as an option here.
    if call.repo.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False).code:
        raise InvalidParamsError(
            f'rev {rev!r} is not a commit: restore takes one (rev="HEAD~1", rev="main"), never a file, a folder '
            "or a range. Nothing was changed. Name the files to restore in paths, relative to the repository.",
            param="rev",
        )


def visible_tree(call: GitCall, rev: str, shown: str) -> tuple[str, int]:
    """``git show`` of a tree (a header, a blank line, one name per line, a directory ending in ``/``) without
    the names a deny rule hides, and how many were left out.

    The names are git's own, NUL-separated (``ls-tree -z``): read from the lines git show prints, a name holding a
    line break was two names, each judged alone (``d/new`` shown of the hidden ``d/new<LF>line.pem``). A name is
    listed escaped, so it stays one line. The listing keeps as many entries as ``shown`` had lines (cut at max_lines).
    """
    header, blank, listing = shown.partition("\n\n")
    if not blank:
        return shown, 0
    folder = object_path(rev)
    prefix = "" if folder in (None, ".") else f"{folder}/"
    names: list[str] = []
    for entry in call.repo.git("ls-tree", "-z", rev).stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")  # "<mode> <type> <id>", then the name
        if name:
            names.append(text(name) + ("/" if meta.split(b" ")[1:2] == [b"tree"] else ""))
    names = names[: len(listing.splitlines())]
    left_out = hidden(call, [prefix + name for name in names])
    kept = [name for name in names if prefix + name not in left_out]
    return header + blank + "".join(f"{escaped(name)}\n" for name in kept), len(left_out)


def object_path(rev: str) -> str | None:
    """The normalised path of ``<rev>:<path>``, ``:<path>`` or ``:<stage>:<path>`` (``.`` for the top); None
    for a plain revision or ``:/<text>`` (a commit found by its message)."""
    path = _path_part(rev)
    return None if path is None else posixpath.normpath(path.removeprefix("./") or ".")


def object_revision(rev: str) -> str | None:
    """The revision of ``<rev>:<path>`` (``HEAD~1`` of ``HEAD~1:a.png``); None for the index's forms (``:path``,
    ``:2:path``) and for a plain revision."""
    path = _path_part(rev)
    if path is None or rev.startswith(":"):
        return None
    return rev[: len(rev) - len(path) - 1]


def _path_part(rev: str) -> str | None:
    """The path of ``<rev>:<path>``, ``:<path>`` or ``:<stage>:<path>``; None for a plain revision or ``:/<text>``
    (a commit found by its message). The revision ends at the first colon outside braces, as git reads it
    (get_oid_with_context): ``HEAD^{/fix: bug}:a.py`` is a.py in the commit whose message matches ``fix: bug``."""
    if rev.startswith(":/"):
        return None
    if rev.startswith(":"):
        stage, colon, rest = rev[1:].partition(":")
        return rest if colon and stage in ("0", "1", "2", "3") else rev[1:]
    depth = 0
    for index, char in enumerate(rev):
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == ":" and not depth:
            return rev[index + 1 :]
    return None
