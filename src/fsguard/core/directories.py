"""create_directory: mkdir -p that succeeds when the directory is already there."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fsguard.core.beneath import Beneath, lstat_at
from fsguard.core.errors import AlreadyExistsError, NotFoundError
from fsguard.core.hooks import HookRunner
from fsguard.core.locks import PathLocks
from fsguard.core.oserrors import from_os_error
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session


class DirectoryMaker:
    """Creates directories under the path policy."""

    def __init__(
        self, policy: PathPolicy, beneath: Beneath, locks: PathLocks, session: Session, hooks: HookRunner
    ) -> None:
        self._hooks = hooks
        self._policy = policy
        self._beneath = beneath
        self._locks = locks
        self._session = session

    def create(self, user_path: str, *, tool: str = "create_directory") -> tuple[Path, bool]:
        """Create ``user_path`` and its missing parents; returns the canonical path and whether it was new.

        ``tool`` is the name hooks see (batch_operations passes its own).

        Raises:
            AccessDeniedError: the path is a ``.git`` or inside one (see :meth:`PathPolicy.check_writable`).
            AlreadyExistsError: a file (not a directory) has that name.
            NotDirectoryError: a parent component is a file.
        """
        path = self._policy.resolve(user_path, directory=True)
        self._policy.check_writable(path)
        with self._locks.hold(path):
            found = self._existing(path)
            if found is not None:
                if not stat.S_ISDIR(found.st_mode):
                    raise AlreadyExistsError(
                        f"a file with that name already exists: {path} (not a directory). "
                        "Choose another name, or inspect it with get_file_info.",
                        path=str(path),
                    )
                self._session.saw(path)
                return path, False
            event = {"tool_name": tool, "operation": "create_directory", "file_path": str(path)}
            self._hooks.fire("pre", "create", **event)
            with self._beneath.entry(path, make_parents=True) as entry:
                try:
                    os.mkdir(entry.name, 0o777, dir_fd=entry.parent)
                except FileExistsError:
                    # Lost a race with another creator: fine if what appeared is a directory.
                    found = lstat_at(entry)
                    if found is None or not stat.S_ISDIR(found.st_mode):
                        raise AlreadyExistsError(
                            f"{path} appeared as a file while creating it.", path=str(path)
                        ) from None
                    return path, False
                except OSError as exc:
                    raise from_os_error(exc, path) from exc
                self._beneath.note_made(path)
        self._session.saw(path)
        self._hooks.fire("post", "create", **event)
        return path, True

    def _existing(self, path: Path) -> os.stat_result | None:
        """What is at ``path`` now (a link inside the roots followed), None when nothing is."""
        try:
            with self._beneath.entry(path) as entry:
                return lstat_at(entry)
        except NotFoundError:
            return None  # a parent is missing too
