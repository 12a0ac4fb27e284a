"""Where an agent may go: root containment, symlink resolution and the always-on name policy.

Every path a tool touches passes through :meth:`PathPolicy.resolve`, which returns the absolute
canonical path (symlinks resolved) or raises. That is the check, not the act: every operation then
reaches the path through :mod:`fsguard.core.beneath`, pinned by fd, so a symlink swapped in after the
check cannot redirect it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from fsguard.core.aliases import aliased_root, held_roots, identities
from fsguard.core.canonical import canonical_path, canonical_roots
from fsguard.core.clientroots import current_scope, reaching_nothing
from fsguard.core.denial import DenyRules, HiddenFiles, relative_text, relative_views, root_prefixes
from fsguard.core.errors import AccessDeniedError, InvalidParamsError, ReadOnlyError
from fsguard.core.gitstore import check_not_in_object_store
from fsguard.core.oserrors import name_length_error
from fsguard.core.pathforms import (
    escaped,
    in_stored_form,
    is_dot_git,
    is_plain,
    local_form,
    refused_character,
    reserved_component,
    unwrapped,
    with_separators,
    within,
)
from fsguard.core.wslpaths import check_stream_syntax, to_wsl

_WINDOWS_DRIVE = re.compile(r"^([A-Za-z]):(?:[\\/](.*))?$", re.DOTALL)


_CANDIDATES_KEPT = 4_096  # paths whose candidate is kept: an agent names the same few files call after call
_SHOWN_KEPT = 65_536  # paths whose shows() answer is kept; a store holds a few per backup, group and trash entry


@dataclass(frozen=True)
class PathPolicy:
    """The roots an agent may use, and the checks every path must pass. ``roots`` are canonical (symlinks resolved
    at start-up). With ``unrestricted`` the containment check is off, but the character and name checks still apply.
    """

    roots: tuple[Path, ...]
    unrestricted: bool = False
    wsl_mount_root: Path = Path("/mnt")
    read_only_roots: tuple[Path, ...] = ()  # also in ``roots``; the deepest root holding a path decides
    deny: DenyRules = field(default_factory=DenyRules)
    forgeable_records: bool = False  # the state dir in an agent's reach: a path it recorded is judged as typed
    wsl_distro: str | None = None  # WSL_DISTRO_NAME: \\wsl$\<another distro>\… is refused (None: unknown)
    _prefixes: tuple[str, ...] = field(init=False, repr=False, compare=False)
    # shows() by (the call's client roots, path): a pure function of both, asked of every stored path on each
    # listing of the backups and the trash (10 us each, 0.1 s a call at 10,000 trash entries)
    _shown: dict[tuple[tuple[Path, ...] | None, str, bool], bool] = field(init=False, repr=False, compare=False)
    _read_only_ids: dict[tuple[int, int], Path] = field(init=False, repr=False, compare=False)  # (dev, ino) -> root
    # _candidate by (path as sent, stored, exact, first root): its string work is a tenth of a small read's time
    _candidates: dict[tuple[str, bool, bool, Path], Path] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_prefixes", root_prefixes(self.roots))
        object.__setattr__(self, "_shown", {})
        object.__setattr__(self, "_candidates", {})
        object.__setattr__(self, "_read_only_ids", identities(self.read_only_roots))

    @classmethod
    def create(
        cls,
        roots: Iterable[Path],
        *,
        unrestricted: bool = False,
        wsl_mount_root: Path = Path("/mnt"),
        read_only_roots: Iterable[Path] = (),
        deny: DenyRules | None = None,
        wsl_distro: str | None = None,
    ) -> PathPolicy:
        """Canonicalise ``roots`` once; a missing or non-directory root is a configuration error."""
        canonical = canonical_roots(roots)
        read_only = canonical_roots(read_only_roots, "--read-only-root")
        every = (*canonical, *(root for root in read_only if root not in canonical))
        mount_root = Path(os.path.realpath(wsl_mount_root))
        return cls(every, unrestricted, mount_root, read_only, deny or DenyRules(), wsl_distro=wsl_distro)

    def active_roots(self) -> tuple[Path, ...]:
        """The roots of the call being served: the client's scope when it named roots, else the command line's."""
        scope = current_scope()
        return self.roots if scope is None else scope.paths

    def describe_roots(self) -> str:
        """The roots as one line, for messages."""
        roots = self.active_roots()
        if current_scope() is not None and not roots:
            return "(none: every root the client named lies outside the server's roots)"
        if not roots:
            return "(no roots: --unrestricted)"
        return "; ".join(str(root) + (" (read-only)" if self.is_read_only(root) else "") for root in roots)

    def resolve(self, user_path: str, *, stored: bool = False, directory: bool = False, exact: bool = False) -> Path:
        """Turn an agent's path into the canonical absolute path it names, or refuse it.

        ``stored``: a path fsguard recorded (a backup's, a trash entry's) is taken as spelled, never forgiven as typed
        text: with its file gone, a name ending in a space would otherwise come back without it. ``exact``: a path
        fsguard computed (a rename set's new name) is taken as spelled too, but checked as a typed one. ``directory``:
        a directory the call will make there, which a rule for directories (``vault/``) hides before it exists.

        Raises:
            InvalidParamsError: the path is empty.
            AccessDeniedError: a refused character or name, or a location outside every root.
        """
        candidate = self._candidate(user_path, stored=stored, exact=exact)
        # realpath resolves the deepest existing ancestor (links followed): a new path under a link out is caught.
        canonical = canonical_path(candidate, user_path, self.roots)
        check_stream_syntax(user_path, canonical, self.wsl_mount_root)
        self._check_contained(user_path, canonical, candidate)
        self.check_not_denied(canonical, user_path, is_dir=directory, lexical=candidate)
        return canonical

    def resolve_entry(
        self, user_path: str, *, stored: bool = False, directory: bool = False, exact: bool = False
    ) -> Path:
        """The directory entry itself, for delete, move and copy: its parent is resolved, a final symlink is not.

        So deleting or moving a link acts on the link, even one that points outside the roots. ``stored``,
        ``directory`` and ``exact`` as in :meth:`resolve`.
        """
        candidate = self._candidate(user_path, stored=stored, exact=exact)
        if candidate.name in ("", ".", ".."):
            return self.resolve(user_path, stored=stored, directory=directory, exact=exact)
        entry = canonical_path(candidate.parent, user_path, self.roots) / candidate.name
        check_stream_syntax(user_path, entry, self.wsl_mount_root)
        self._check_contained(user_path, entry, candidate)
        self.check_not_denied(entry, user_path, is_dir=directory, lexical=candidate)
        return entry

    def _candidate(self, user_path: str, *, stored: bool = False, exact: bool = False) -> Path:
        """The absolute, unresolved path an agent named, after the character and name checks."""
        active = self.active_roots() or self.roots
        first = active[0] if active else Path.cwd()
        key = (user_path, stored, exact, first)
        known = self._candidates.get(key)
        if known is not None:
            return known
        candidate = self._spelled(user_path, first, stored=stored, exact=exact)
        if is_plain(user_path):
            if len(self._candidates) >= _CANDIDATES_KEPT:
                self._candidates.clear()  # as _shown: one step, safe beside other threads
            self._candidates[key] = candidate
        return candidate

    def _spelled(self, user_path: str, first: Path, *, stored: bool, exact: bool) -> Path:
        """:meth:`_candidate`, worked out."""
        spelled = user_path if stored or exact else unwrapped(user_path, first)
        local = local_form(spelled) if user_path else user_path
        if not local:  # a name of spaces alone reaches its entry: unwrapped kept it only as one that exists
            raise InvalidParamsError("path is empty. Pass a file or directory path, absolute or relative to a root.")
        # A recorded path came from the disk, not a model: its backups restore whatever its name holds.
        trusted = stored and not self.forgeable_records
        refused = None if trusted else refused_character(local)
        if refused is not None:
            raise AccessDeniedError(
                f"path contains dangerous Unicode character {refused}: '{escaped(user_path)}' holds this invisible or "
                "control character, which fsguard always refuses. Retype the path without it.",
                path=user_path,
            )
        candidate = self._translate_windows_form(local)
        base = None if candidate.is_absolute() else first
        if base is not None:
            candidate = Path(with_separators(str(candidate), base))
        reserved = None if trusted else reserved_component(candidate.parts)
        if reserved is not None:
            raise AccessDeniedError(
                f"path '{escaped(user_path)}' uses the Windows reserved device name {reserved!r}. Choose another name.",
                path=user_path,
            )
        if base is not None:
            candidate = base / candidate
        candidate = in_stored_form(candidate)
        too_long = name_length_error(str(candidate))
        if too_long is not None:  # checked here: the OS would refuse it deep in some call, as an unexpected OSError
            raise too_long
        return candidate

    def label(self, canonical: Path) -> str:
        """A short name for diffs: relative to the root holding it, else the absolute path without its '/'."""
        for root in self.roots:
            if within(canonical, root) and canonical != root:
                return str(canonical.relative_to(root))
        return str(canonical).lstrip("/")

    def is_root(self, canonical: Path) -> bool:
        """True for a root itself, which may never be deleted or moved."""
        return canonical in self.roots or canonical in self.active_roots()

    def roots_within(self, canonical: Path) -> list[Path]:
        """The roots at or below ``canonical`` (the client's too), sorted: what deleting or moving it takes along;
        under another name too (:mod:`fsguard.core.aliases`), looked for only when no spelling matches."""
        every = {*self.roots, *self.active_roots()}
        return sorted({root for root in every if root.is_relative_to(canonical)} or held_roots(canonical, every))

    def check_removable(self, canonical: Path, done: Literal["deleted", "moved"]) -> None:
        """Refuse to delete ``canonical`` or move it away: as :meth:`check_writable`, and when it is a root or holds
        one (a read-only root nested in a writable one would go with its parent).

        Raises:
            AccessDeniedError: a root, a directory holding one, or a ``.git`` or inside one.
            ReadOnlyError: it lies in a read-only root.
        """
        self.check_writable(canonical)
        held = self.roots_within(canonical)
        if not held:
            return
        act = "Delete" if done == "deleted" else "Move"
        if held[0] == canonical:
            # the seed's words first: its callers match on "cannot delete allowed-path root"
            message = (
                f"access denied: cannot {act.lower()} allowed-path root '{canonical}': it is a root of this server "
                f"and can never be {done}. {act} what is inside it instead."
            )
        else:
            message = (
                f"{canonical} holds {held[0]}, a root of this server, which can never be {done}; nothing was {done}. "
                f"{act} the other entries inside it one at a time instead."
            )
        raise AccessDeniedError(message, path=str(canonical))

    def root_of(self, canonical: Path) -> Path | None:
        """The deepest root holding ``canonical`` (roots may nest), None outside every root."""
        holding = [root for root in self.roots if within(canonical, root)]
        return max(holding, key=lambda root: len(root.parts), default=None)

    def contains(self, canonical: Path) -> bool:
        """True when ``canonical`` lies inside some root (or containment is off)."""
        scope = current_scope()
        if scope is None and self.unrestricted:
            return True
        roots = self.roots if scope is None else scope.paths
        return any(within(canonical, root) for root in roots)

    def relative(self, canonical: Path) -> str:
        """``canonical`` relative to the deepest command-line root holding it (POSIX), what deny rules match."""
        return relative_text(str(canonical), self._prefixes)

    def relatives(self, canonical: Path) -> tuple[str, ...]:
        """``canonical`` relative to each command-line root holding it, deepest first: the paths deny rules judge."""
        return relative_views(str(canonical), self._prefixes)

    def denied_by(self, canonical: Path, *, is_dir: bool = False) -> str | None:
        """The deny rule hiding ``canonical``, None when it is visible."""
        if not self.deny.active:
            return None
        return self.deny.rule_among(self.relatives(canonical), is_dir=is_dir)

    def shows(self, path: str, is_dir: bool = False) -> bool:
        """Whether a listing may name ``path`` (a backup's, or a trash entry's: ``is_dir`` for a directory's), inside a
        root, hidden by no rule. Judged on the string alone, so remembered for the roots the call is served in."""
        scope = current_scope()
        key = (None if scope is None else scope.paths, path, is_dir)
        known = self._shown.get(key)
        if known is None:
            canonical = Path(path)
            known = self.contains(canonical) and self.denied_by(canonical, is_dir=is_dir) is None
            if len(self._shown) >= _SHOWN_KEPT:
                self._shown.clear()  # one step, safe beside other threads; what is asked again is judged again
            self._shown[key] = known
        return known

    def hidden_files(self) -> HiddenFiles | None:
        """A fresh filter for one search's results, None when no deny rule is set."""
        return HiddenFiles(self.deny, self._prefixes) if self.deny.active else None

    def check_not_denied(
        self, canonical: Path, user_path: str | None = None, *, is_dir: bool = False, lexical: Path | None = None
    ) -> None:
        """Refuse a path a deny rule hides (access_denied naming the rule); a rule for a directory (``private/``)
        hides the directory itself as well as what is in it; and anything in git's object stores or its lists of
        the tracked files (see :mod:`fsguard.core.gitstore`). ``lexical``, the path as asked, tells a link leading
        into hiding apart."""
        check_not_in_object_store(canonical, self.root_of)
        if self.deny.active:
            is_dir = is_dir or self._as_directory(canonical)
            linked = None if lexical is None else (lambda: self._lexically_visible(lexical, canonical))
            # A refusal names the path as asked, absolute and normalised but never resolved: _meta keeps paths
            # absolute as results do, and a resolved one could name where a link leads, which a rule may hide.
            asked = lexical or (None if user_path is None else self._candidate(user_path))
            named = None if asked is None else os.path.normpath(asked)
            self.deny.check(self.relatives(canonical), canonical, user_path=named, is_dir=is_dir, linked=linked)

    def _lexically_visible(self, lexical: Path, canonical: Path) -> bool:
        """Whether the path as asked (normalised here, on a refusal only) is not where it resolves, lies in a root
        spelled as configured, and no rule hides it there."""
        asked = Path(os.path.normpath(lexical))
        return asked != canonical and any(within(asked, root) for root in self.roots) and self.denied_by(asked) is None

    def _as_directory(self, canonical: Path) -> bool:
        """Whether the deny rules judge ``canonical`` as a directory: it is one, and a rule names directories."""
        return self.deny.active and self.deny.names_directories and canonical.is_dir()

    def screen_link(self, path: Path, leads_to: Path, reading: bool = False) -> None:
        """Refuse a walk a link took to a place ``path`` could not reach as judged (the pinned walk asks at each link
        it meets; a resolved path holds none but a final link of the user's own, so the link was swapped in since):
        one a deny rule hides, the directory a rule for directories names included; an object store; unless the
        entry is only ``reading``, one a read-only root or a ``.git`` guards from change while ``path`` is not."""
        if (rule := self.denied_by(leads_to, is_dir=self._as_directory(leads_to))) is not None:
            message = f"access denied: {path} leads through a symbolic link to a place the deny rule {rule!r} hides."
            raise AccessDeniedError(message + " Work with another file.", path=str(path), rule=rule)
        check_not_in_object_store(leads_to, self.root_of)
        guarded = ("a repository's internals (.git)", self.in_git_internals), ("a read-only root", self.is_read_only)
        for place, holds in () if reading else guarded:
            if holds(leads_to) and not holds(path):
                raise AccessDeniedError(
                    f"access denied: {path} leads through a symbolic link into {place} ({leads_to}); a link put "
                    "there while the call ran. Check the path with get_file_info, then retry.",
                    path=str(path),
                )

    def is_read_only(self, canonical: Path) -> bool:
        """True when ``canonical`` lies in a --read-only-root (see :meth:`read_only_root_of`)."""
        return bool(self.read_only_roots) and self.read_only_root_of(canonical) is not None

    def read_only_root_of(self, canonical: Path) -> Path | None:
        """The read-only root ``canonical`` lies in: the deepest root holding it, or one a directory on its way
        below that root is under another name (:mod:`fsguard.core.aliases`)."""
        root = self.root_of(canonical)
        if root in self.read_only_roots:
            return root
        if root is None or root == canonical:
            return None
        return aliased_root(canonical, root, self._read_only_ids)

    def check_writable(self, canonical: Path) -> None:
        """Refuse to create, change, delete or move a repository's ``.git`` or anything in it.

        Its hooks and config make git run programs: writing ``.git/hooks/pre-commit`` (or a filter in
        ``.git/config``) and then calling git(action="commit") would run anything the agent wrote. Making an
        empty ``.git``, or taking the HEAD out of one, is as bad: git then takes the directory around it for the
        repository, and its ``config`` is an ordinary file. A root that is itself inside a ``.git`` is the
        operator's choice and stays writable.

        Raises:
            AccessDeniedError: ``canonical`` lies inside (or is) a ``.git`` below its root.
            ReadOnlyError: it lies in a read-only root.
        """
        if self.in_git_internals(canonical):
            raise AccessDeniedError(
                f"{canonical} is inside a git repository's internals (.git), which fsguard never creates, writes, "
                "deletes or moves: hooks and config there make git run programs. Change the repository with the "
                "git tool instead.",
                path=str(canonical),
            )
        self.check_not_read_only(canonical)

    def in_git_internals(self, canonical: Path) -> bool:
        """Whether ``canonical`` is, or lies inside, a ``.git`` below the root holding it."""
        root = self.root_of(canonical)
        inside = canonical.parts[len(root.parts) :] if root is not None else canonical.parts
        return any(is_dot_git(part) for part in inside)

    def check_not_read_only(self, canonical: Path) -> None:
        """Refuse any change (write, delete, move either end, create) inside a --read-only-root.

        Raises:
            ReadOnlyError: the deepest root holding ``canonical`` is read-only.
        """
        if self.read_only_roots and (held := self.read_only_root_of(canonical)) is not None:
            raise ReadOnlyError(
                f"{canonical} lies in the read-only root {held}: fsguard may read, list and search "
                "there but never change anything. Write under a writable root instead.",
                path=str(canonical),
            )

    def _check_contained(self, user_path: str, canonical: Path, candidate: Path) -> None:
        if self.contains(canonical):
            return
        if (scope := current_scope()) is not None and not scope.roots:
            raise reaching_nothing(scope, user_path, self.roots)
        # Where a link inside leads is not named: the place outside, and whether the name is a link at all.
        if self.contains(Path(os.path.normpath(candidate))):
            where = "leads through a symbolic link"
        else:  # the path as asked is already outside: saying where it resolves only helps when that differs
            where = "is" if str(canonical) == user_path else f"resolves to {canonical},"
        raise AccessDeniedError(
            f"access denied: {user_path} {where} outside allowed directories: {self.describe_roots()}. "
            "Use a path under one of these roots.",
            path=user_path,
        )

    def _translate_windows_form(self, user_path: str) -> Path:
        """A Windows path as the wsl tool reads it (to_wsl): ``C:\\x`` is ``<mount root>/c/x``, ``\\\\wsl$\\d\\x``
        is ``/x``, ``..`` never climbs above the drive (it did, and ``C://x`` was ``/x``); a network share is refused.
        """
        if os.name == "posix" and (_WINDOWS_DRIVE.match(user_path) or user_path.startswith("\\\\")):
            return to_wsl(user_path, self.wsl_mount_root, self.wsl_distro)
        return Path(user_path)
