"""server_info artifact: hold one text in memory, then write it to a new file.

Writing never replaces an existing file: the backup store that would make an overwrite undoable
belongs to write_file, so an artifact only ever creates.
"""

from __future__ import annotations

import threading

from fsguard.core.errors import AlreadyExistsError, InvalidParamsError, NotDirectoryError
from fsguard.core.locks import PathLocks
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session
from fsguard.core.textio import AtomicWriter
from fsguard.models import Artifact


class ArtifactHolder:
    """The last captured text, and the writer that saves it."""

    def __init__(self, policy: PathPolicy, writer: AtomicWriter, locks: PathLocks, session: Session) -> None:
        self._policy = policy
        self._writer = writer
        self._locks = locks
        self._session = session
        self._lock = threading.Lock()
        self._text: str | None = None

    def capture(self, content: str) -> Artifact:
        """Hold ``content`` (replacing what was held)."""
        with self._lock:
            self._text = content
        return self.info()

    def info(self) -> Artifact:
        """Size of what is held."""
        with self._lock:
            text = self._text
        if text is None:
            return Artifact(captured=False, bytes=0, lines=0)
        return Artifact(captured=True, bytes=len(text.encode("utf-8")), lines=len(text.splitlines()))

    def write(self, user_path: str) -> Artifact:
        """Write what is held to a new UTF-8 file at ``user_path``.

        Raises:
            InvalidParamsError: nothing was captured.
            AlreadyExistsError: the path exists.
        """
        with self._lock:
            text = self._text
        if text is None:
            raise InvalidParamsError(
                "no artifact captured yet. Call server_info(action='artifact', sub_action='capture', content=...) "
                "first."
            )
        path = self._policy.resolve(user_path)
        with self._locks.hold(path):
            path = self._policy.recheck(path)
            if path.exists():
                raise AlreadyExistsError(
                    f"{path} already exists; an artifact is only written to a new file. Choose another path.",
                    path=str(path),
                )
            if not path.parent.is_dir():
                raise NotDirectoryError(
                    f"{path.parent} is not an existing directory. Create it with create_directory first.",
                    path=str(path.parent),
                )
            self._writer.write(path, text.encode("utf-8"), exclusive=True)
        self._session.saw(path)
        return self.info().model_copy(update={"path": str(path)})
