"""One tree of typed errors, each with a stable ``code`` the protocol layer sends in ``_meta``.

    FsguardError
    ├── InvalidParamsError        invalid_params
    │   └── UnknownParamError     unknown_param
    ├── AccessDeniedError         access_denied
    ├── NotFoundError             not_found
    ├── IsDirectoryError          is_directory
    ├── NotDirectoryError         not_a_directory
    ├── AlreadyExistsError        already_exists
    ├── TooLargeError             too_large
    ├── BinaryFileError           binary_file
    ├── EncodingError             encoding_error
    ├── ReadOnlyError             read_only
    ├── StaleEditError            stale_edit
    ├── ExternalChangeError       external_change
    ├── NoMatchError              no_match
    ├── AmbiguousMatchError       ambiguous_match
    ├── RewriteBlockedError       rewrite_blocked
    ├── NothingToUndoError        nothing_to_undo
    ├── UndoConflictError         undo_conflict
    ├── RiskBlockedError          risk_blocked
    └── BackupCorruptError        backup_corrupt

Messages are written for the model: what failed, the evidence, and the next action.
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


class StaleEditError(FsguardError):
    """expected_hash does not match the file on disk."""

    code = "stale_edit"


class ExternalChangeError(FsguardError):
    """The file changed on disk since this session last saw it (--auto-occ block)."""

    code = "external_change"


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


class RiskBlockedError(FsguardError):
    """A change too large to make without force."""

    code = "risk_blocked"


class BackupCorruptError(FsguardError):
    """A saved blob is missing or does not match its address."""

    code = "backup_corrupt"


def from_os_error(exc: OSError, path: object) -> FsguardError:
    """The typed error for an expected OS failure at ``path``; callers raise it ``from exc``."""
    import errno  # local: keeps the module's top focused on the tree

    reason = exc.strerror or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return NotFoundError(f"{path} does not exist. Check the path with list_directory.", path=str(path))
    if isinstance(exc, IsADirectoryError):
        return IsDirectoryError(
            f"{path} is a directory, not a file. Use list_directory for directories.", path=str(path)
        )
    if isinstance(exc, NotADirectoryError):
        return NotDirectoryError(f"a component of {path} is not a directory.", path=str(path))
    if isinstance(exc, FileExistsError):
        return AlreadyExistsError(f"{path} already exists.", path=str(path))
    if isinstance(exc, PermissionError) or exc.errno in (errno.ELOOP, errno.EACCES, errno.EPERM):
        return AccessDeniedError(f"the operating system refused access to {path}: {reason}.", path=str(path))
    return FsguardError(f"I/O error on {path}: {reason}.", path=str(path))
