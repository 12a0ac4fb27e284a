"""What a push names: the branch (a plain name, never a refspec), and the local repository it writes to, refused
outside the roots or in a read-only one, wherever git would take it to be, and run with receive-pack's own settings
fixed (that repository's config and hooks are files a tool could have written)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from fsguard.core.confirmation import plural
from fsguard.core.errors import AccessDeniedError, InvalidParamsError, ReadOnlyError
from fsguard.core.gitparse import text
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitscreen import hidden


def branch_refspec(call: GitCall, name: str | None) -> str | None:
    """The explicit refspec pushing branch ``name`` to the remote's branch of that name; None without a name.

    git reads a pushed name as a refspec: ``+main`` force-pushed with no lease and no question, ``:keep`` deleted
    the remote's branch, ``main:other`` wrote another one.

    Raises:
        InvalidParamsError: ``name`` is not a plain branch name, or no local branch has it.
    """
    if name is None:
        return None
    ref = f"refs/heads/{name}"
    # "+" is legal inside a ref name, so git's own check passes "+main": it is refused first.
    if name.startswith("+") or call.repo.git("check-ref-format", ref, check=False).code != 0:
        raise InvalidParamsError(
            f'name {name!r} is not a branch name: push takes the plain name of a local branch (name="main"), '
            "never a refspec (no '+', ':', '*', '^', '~', '?', '[', '..' or '@{'). Nothing was pushed. To replace the "
            "remote's commits pass force=true (--force-with-lease); to delete a remote branch, ask the user.",
            param="name",
        )
    if call.repo.git("rev-parse", "--verify", "--quiet", ref, check=False).code != 0:  # else: "git log failed"
        raise InvalidParamsError(
            f"no local branch {name!r} to push. Nothing was pushed. Create it with "
            f'git(action="branch", name="{name}", checkout=true), or pass an existing one (git(action="branch") '
            "lists them).",
            param="name",
        )
    return f"{ref}:{ref}"


def check_remote(call: GitCall, remote: str) -> list[str]:
    """Refuse a push into a local repository outside the roots or in a read-only one (a path or file:// remote,
    named or given); the options a push there takes (:data:`_LOCAL_RECEIVE_PACK`)."""
    # A remote's URLs come with its url.<base>.pushInsteadOf / insteadOf rewrites applied; a URL given as is gets them
    # here (a "mirror:x" can be a local path in disguise).
    out = call.repo.git("remote", "get-url", "--push", "--all", remote, check=False)
    urls = text(out.stdout).splitlines() if out.code == 0 else [_rewritten(call, remote)]
    local_paths = [local for local in map(_local_path, urls) if local]
    for local in local_paths:
        if local.startswith("~"):  # git makes it a home directory, fsguard would judge a folder named "~"
            raise AccessDeniedError(
                f"push refused: remote {remote!r} starts with ~, which git reads as a home directory. Nothing was "
                "pushed. Name the repository by its absolute path, under a root.",
                remote=remote,
            )
        location = local if Path(local).is_absolute() else str(call.repo.root / local)
        for guess in _GUESSED:
            _check_receiver(call, remote, location, location + guess)
    return [_LOCAL_RECEIVE_PACK] if local_paths else []


def check_pushed_history(call: GitCall, remote: str, refspec: str | None) -> None:
    """Refuse a push into a local repository (one under the roots) when the history it sends holds a file a deny
    rule hides: there it lies under another path (``clone/config/secrets.yml``), which a rule anchored at the root
    does not match, and ``git show`` in that repository printed it.

    Every commit the pushed refs reach is screened, not only those the remote lacks: what the remote holds is a
    directory of plain files (a ref deleted there makes git send the objects again). Without a refspec every ref
    is, since push.default and the remote's push refspecs decide what goes.

    Raises:
        AccessDeniedError: a path in that history is hidden by a deny rule (counted, never named).
    """
    if not call.safe.policy.deny.active:
        return
    tips = [refspec.partition(":")[0]] if refspec else ["--all"]
    # Every path any of those commits holds: each is added by some commit, and --root lists a first commit's files,
    # --diff-merges=first-parent what a merge brings in besides.
    out = call.repo.git(
        *("log", "--format=", "--name-only", "-z", "--no-renames", "--root", "--diff-merges=first-parent"),
        *("--no-show-signature", *tips, "--"),
    )
    found = hidden(call, {text(name) for name in out.stdout.split(b"\0") if name})
    if found:
        narrower = "" if refspec else "; without name every branch and tag was checked: pass name= the branch"
        raise AccessDeniedError(
            f"push refused: the history pushed into the local repository {remote!r} holds "
            f"{plural(len(found), 'file')} a deny rule hides (not named here), which that repository would show "
            f"under a path the rule does not match{narrower}. Nothing was pushed. Push to a network remote, or ask "
            "the user to push.",
            remote=remote,
        )


# Where git looks for the repository a local path names, in its order (enter_repo): each is checked, since a link
# at any of them (x.git, x/.git) could lead the push outside the roots.
_GUESSED = ("/.git", "", ".git/.git", ".git")


def _check_receiver(call: GitCall, remote: str, location: str, guess: str) -> None:
    """Refuse the push when ``guess``, a place git may take for the repository at ``location``, is outside the
    roots, read-only, or a repository inside a ``.git`` (its working tree would be the files of that ``.git``)."""
    try:
        resolved = call.safe.policy.resolve(guess)
    except AccessDeniedError as exc:
        raise AccessDeniedError(
            f"push refused: remote {remote!r} is the local repository {location}, outside the allowed roots: "
            f"{call.safe.policy.describe_roots()}. Nothing was pushed. Push to a network remote or to a "
            "repository under a root.",
            remote=remote,
        ) from exc
    policy = call.safe.policy
    if resolved.is_dir() and policy.contains(resolved.parent) and policy.in_git_internals(resolved.parent):
        raise AccessDeniedError(
            f"push refused: remote {remote!r} is the local repository {resolved}, inside a repository's internals "
            "(.git), whose config and hooks a branch switch there would rewrite. Nothing was pushed. Push to a "
            "repository outside every .git.",
            remote=remote,
        )
    if policy.is_read_only(resolved):
        raise ReadOnlyError(
            f"push refused: remote {remote!r} is the local repository {location}, in the read-only root "
            f"{policy.root_of(resolved)}, which a push would write to. Nothing was pushed. Push to a "
            "repository under a writable root.",
            remote=remote,
        )


# A push to a local repository runs receive-pack there, under that repository's config and hooks: the settings of
# this run (gitprocess) do not reach it, and a bare repository in the roots is plain files a file tool could have
# written (a core.alternateRefsCommand or a hook in it is a command git runs). Settings given to receive-pack on its
# command line win over every config file; this string is fixed, never built from a request.
_LOCAL_RECEIVE_PACK = (
    "--receive-pack=git -c core.hooksPath=/dev/null -c core.alternateRefsCommand=true -c core.fsmonitor=false"
    " -c receive.autogc=false -c receive.denyCurrentBranch=refuse -c receive.denyDeleteCurrent=refuse receive-pack"
)


def _local_path(url: str) -> str | None:
    """The filesystem path a remote URL names, or None for a network URL (scheme:// or scp-like host:path).

    A file:// URL is read as git reads it: its %-escapes decoded and its host skipped (``file://localhost/x`` and
    ``file:///a/%2E%2E/x`` are ``/x``), where taken as spelled they named a folder under the repository.
    """
    if url.startswith("file://"):
        rest = unquote(url.removeprefix("file://"))
        return rest[rest.find("/") :] if "/" in rest else rest
    if "://" in url or ":" in url.split("/", 1)[0]:
        return None
    return url


def _rewritten(call: GitCall, url: str) -> str:
    """``url`` as git pushes to it: rewritten by the url.<base>.pushInsteadOf whose prefix it starts with, else by
    such an insteadOf, the longest prefix winning (git's remote.c)."""
    out = call.repo.git("config", "-z", "--get-regexp", r"^url\..*\.(push)?insteadof$", check=False)
    rules: dict[str, dict[str, str]] = {"pushinsteadof": {}, "insteadof": {}}
    for record in text(out.stdout).split("\0"):
        key, _, prefix = record.partition("\n")
        base, _, kind = key.removeprefix("url.").rpartition(".")
        if kind in rules and prefix:
            rules[kind].setdefault(prefix, base)
    for kind in ("pushinsteadof", "insteadof"):
        matched = max((prefix for prefix in rules[kind] if url.startswith(prefix)), key=len, default=None)
        if matched is not None:
            return rules[kind][matched] + url[len(matched) :]
    return url
