"""create_directory: mkdir -p that succeeds when the directory is already there."""

from __future__ import annotations

from pathlib import Path

from fsguard.core.errors import AlreadyExistsError, NotDirectoryError, from_os_error
from fsguard.core.hooks import HookRunner
from fsguard.core.locks import PathLocks
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session


class DirectoryMaker:
    """Creates directories under the path policy."""

    def __init__(self, policy: PathPolicy, locks: PathLocks, session: Session, hooks: HookRunner) -> None:
        self._hooks = hooks
        self._policy = policy
        self._locks = locks
        self._session = session

    def create(self, user_path: str) -> tuple[Path, bool]:
        """Create ``user_path`` and its missing parents; returns the canonical path and whether it was new.

        Raises:
            AlreadyExistsError: a file (not a directory) has that name.
            NotDirectoryError: a parent component is a file.
        """
        path = self._policy.resolve(user_path)
        with self._locks.hold(path):
            path = self._policy.recheck(path)
            if path.is_dir():
                self._session.saw(path)
                return path, False
            if path.exists():
                raise AlreadyExistsError(
                    f"{path} exists and is a file, not a directory. "
                    "Choose another name, or inspect it with get_file_info.",
                    path=str(path),
                )
            event = {"tool_name": "create_directory", "operation": "create_directory", "file_path": str(path)}
            self._hooks.fire("pre", "create", **event)
            try:
                path.mkdir(parents=True)
            except FileExistsError:
                # Lost a race with another creator: fine if what appeared is a directory.
                if not path.is_dir():
                    raise AlreadyExistsError(f"{path} appeared as a file while creating it.", path=str(path)) from None
                return path, False
            except NotADirectoryError as exc:
                raise NotDirectoryError(
                    f"cannot create {path}: a parent component is a file, not a directory.", path=str(path)
                ) from exc
            except OSError as exc:
                raise from_os_error(exc, path) from exc
        self._session.saw(path)
        self._hooks.fire("post", "create", **event)
        return path, True
