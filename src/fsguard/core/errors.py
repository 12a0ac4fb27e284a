"""One tree of typed errors, each with a stable ``code`` the protocol layer sends in ``_meta``.

    FsguardError
    ├── InvalidParamsError        invalid_params
    │   ├── UnknownParamError     unknown_param
    │   └── HookConfigError       invalid_params (the same code: a bad --hooks-config file)
    ├── AccessDeniedError         access_denied
    │   └── SymlinkLoopError      access_denied (the same code: a path through a loop of symbolic links)
    ├── NotFoundError             not_found
    ├── IsDirectoryError          is_directory
    ├── NotDirectoryError         not_a_directory
    ├── AlreadyExistsError        already_exists
    ├── TooLargeError             too_large
    ├── BinaryFileError           binary_file
    ├── EncodingError             encoding_error
    ├── ReadOnlyError             read_only
    ├── ReadOnlyFilesystemError   read_only_filesystem
    ├── DiskFullError             disk_full
    ├── NameTooLongError          name_too_long
    ├── StaleEditError            stale_edit
    ├── ExternalChangeError       external_change
    │   └── EntryReplacedError    external_change (the same code: another entry was put at the name a delete or
    │                             move checked, before it acted; nothing was changed)
    ├── NoMatchError              no_match
    ├── AmbiguousMatchError       ambiguous_match
    ├── RewriteBlockedError       rewrite_blocked
    ├── NothingToUndoError        nothing_to_undo
    ├── UndoConflictError         undo_conflict
    │   └── UndoOvertakenError    undo_conflict (the same code: the step to undo is no longer the newest)
    ├── RiskBlockedError          risk_blocked
    ├── DeclinedError             declined          (the user did not confirm the call; nothing ran)
    │   └── NotConfirmedError     declined (the same code: a confirmed batch or pipeline came to delete something
    │                             its question did not name; nothing was deleted)
    ├── HookDeniedError           hook_denied
    ├── BackupCorruptError        backup_corrupt
    ├── ConflictError             conflict          (a rename set whose targets collide or exist)
    ├── BatchFailedError          batch_failed      (a batch or pipeline step failed; see rolled_back)
    ├── NotARepositoryError       not_a_repository
    ├── GitUnavailableError       git_unavailable   (no git binary)
    ├── GitFailedError            git_error         (git ran and refused; its stderr is in the message)
    └── WslUnavailableError       wsl_unavailable   (a WSL action outside WSL, or no Windows side)

``FsguardError`` itself answers ``error``, the fallback for an I/O failure with no code of its own. One
class has one code; an error that must carry another class's code is raised as that class
(:func:`error_for_code`).

Messages are written for the model: what failed, the evidence, and the next action.
:func:`fsguard.core.oserrors.from_os_error` turns an expected ``OSError`` into one of these; each
environment failure (permissions, a full disk or quota, a read-only mount, a name too long) has its own code.
"""

from __future__ import annotations

from typing import ClassVar


class FsguardError(Exception):
    """Base of every error the core raises on purpose."""

    code: ClassVar[str] = "error"

    def __init__(self, message: str, **fields: object) -> None:
        super().__init__(message)
        self.message = message
        self.fields = {key: value for key, value in fields.items() if value is not None}


class InvalidParamsError(FsguardError):
    """An argument is missing, malformed or contradicts another."""

    code = "invalid_params"


class UnknownParamError(InvalidParamsError):
    """An argument name the tool does not take."""

    code = "unknown_param"


class AccessDeniedError(FsguardError):
    """A path outside the roots, or one the path policy refuses."""

    code = "access_denied"


class SymlinkLoopError(AccessDeniedError):
    """A path that leads through a loop of symbolic links (ELOOP): it names nothing, whatever the permissions."""


class NotFoundError(FsguardError):
    """The path does not exist."""

    code = "not_found"


class IsDirectoryError(FsguardError):
    """A file was expected and the path is a directory."""

    code = "is_directory"


class NotDirectoryError(FsguardError):
    """A directory was expected and the path is something else."""

    code = "not_a_directory"


class AlreadyExistsError(FsguardError):
    """The operation would replace something that exists."""

    code = "already_exists"


class TooLargeError(FsguardError):
    """The file is above a configured size limit."""

    code = "too_large"


class BinaryFileError(FsguardError):
    """The file holds binary data and cannot be handled as text."""

    code = "binary_file"


class EncodingError(FsguardError):
    """The bytes cannot be decoded in any supported encoding."""

    code = "encoding_error"


class ReadOnlyError(FsguardError):
    """The server runs with --read-only."""

    code = "read_only"


class ReadOnlyFilesystemError(FsguardError):
    """The filesystem holding the path is mounted read-only (EROFS)."""

    code = "read_only_filesystem"


class DiskFullError(FsguardError):
    """No space (ENOSPC) or no quota (EDQUOT) left on the filesystem holding the path."""

    code = "disk_full"

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        needed_bytes: int | None = None,
        free_bytes: int | None = None,
        **fields: object,
    ) -> None:
        super().__init__(message, path=path, needed_bytes=needed_bytes, free_bytes=free_bytes, **fields)
        self.needed_bytes = needed_bytes
        self.free_bytes = free_bytes


class NameTooLongError(FsguardError):
    """A name in the path, or the whole path, is longer than filesystems allow (ENAMETOOLONG)."""

    code = "name_too_long"


class StaleEditError(FsguardError):
    """expected_hash does not match the file on disk."""

    code = "stale_edit"


class ExternalChangeError(FsguardError):
    """The file changed on disk since this session last saw it (--auto-occ block), or while a call acted on it."""

    code = "external_change"


class EntryReplacedError(ExternalChangeError):
    """Between a delete's or move's check of an entry and its act, another entry took the name; nothing changed."""


class NoMatchError(FsguardError):
    """The text to replace is not in the file."""

    code = "no_match"


class AmbiguousMatchError(FsguardError):
    """The text to replace occurs more than once."""

    code = "ambiguous_match"


class RewriteBlockedError(FsguardError):
    """An edit that looks like an accidental full-file rewrite."""

    code = "rewrite_blocked"


class NothingToUndoError(FsguardError):
    """No operation on this file is left to undo."""

    code = "nothing_to_undo"


class UndoConflictError(FsguardError):
    """The file changed after the operation being undone."""

    code = "undo_conflict"


class UndoOvertakenError(UndoConflictError):
    """The operation an undo was asked to revert is no longer the newest on its file: another came after it."""


class RiskBlockedError(FsguardError):
    """A change too large to make without force."""

    code = "risk_blocked"


class DeclinedError(FsguardError):
    """The person behind the agent was asked to confirm the call and did not; nothing was changed."""

    code = "declined"


class NotConfirmedError(DeclinedError):
    """A confirmed call came to delete an entry the user was not asked about (its dry run could not foresee it)."""


class HookConfigError(InvalidParamsError):
    """The hooks config file is missing, not JSON, or not in the documented shape."""


class HookDeniedError(FsguardError):
    """A pre-hook refused the operation; nothing was changed."""

    code = "hook_denied"


class BackupCorruptError(FsguardError):
    """A saved blob is missing or does not match its address."""

    code = "backup_corrupt"


class ConflictError(FsguardError):
    """A set of renames (or other planned targets) collides with itself or with what exists."""

    code = "conflict"


class BatchFailedError(FsguardError):
    """A batch operation or pipeline step failed; the fields say which and what was rolled back."""

    code = "batch_failed"


class NotARepositoryError(FsguardError):
    """The path is not inside a git repository."""

    code = "not_a_repository"


class GitUnavailableError(FsguardError):
    """No usable ``git`` executable on this machine."""

    code = "git_unavailable"


class GitFailedError(FsguardError):
    """git ran and exited non-zero (or timed out)."""

    code = "git_error"


class WslUnavailableError(FsguardError):
    """A WSL action on a machine that is not WSL, or whose Windows side is missing."""

    code = "wsl_unavailable"


def error_for_code(code: str | None) -> type[FsguardError]:
    """The class whose code is ``code`` (the first class in the tree that has it), else the base."""
    pending: list[type[FsguardError]] = [FsguardError]
    while pending:
        cls = pending.pop(0)
        if cls.code == code:
            return cls
        pending.extend(cls.__subclasses__())
    return FsguardError
