"""server_info artifact: hold one text in memory, then write it to a new file.

Writing never replaces an existing file: the backup store that would make an overwrite undoable
belongs to write_file, so an artifact only ever creates (with its missing parent directories, as the
seed's write path and write_file do).
"""

from __future__ import annotations

import threading

from fsguard.core.errors import AlreadyExistsError, InvalidParamsError, NotDirectoryError, NotFoundError, TooLargeError
from fsguard.core.safeguards import Safeguards
from fsguard.models import Artifact


class ArtifactHolder:
    """The last captured text, and the writer that saves it."""

    def __init__(self, safeguards: Safeguards) -> None:
        self._safe = safeguards
        self._lock = threading.Lock()
        self._text: str | None = None

    def capture(self, content: str) -> Artifact:
        """Hold ``content`` (replacing what was held).

        Raises:
            TooLargeError: ``content`` is above --max-file-size, so it could never be written.
        """
        limit = self._safe.max_file_size
        if len(content) > limit:
            raise TooLargeError(
                f"the artifact is at least {len(content):,} bytes, above the {limit:,}-byte limit (--max-file-size); "
                "nothing was captured. Capture a smaller text.",
                size=len(content),
                limit=limit,
            )
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
        """Write what is held to a new UTF-8 file at ``user_path``, creating missing parent directories.

        Raises:
            InvalidParamsError: nothing was captured.
            AlreadyExistsError: the path exists.
            NotDirectoryError: a component of the path is a file.
        """
        with self._lock:
            text = self._text
        if text is None:
            raise InvalidParamsError(
                "no artifact captured yet. Call server_info(action='artifact', sub_action='capture', content=...) "
                "first."
            )
        path = self._safe.policy.resolve(user_path)
        self._safe.policy.check_writable(path)
        with self._safe.locks.hold(path):
            try:
                with self._safe.beneath.entry(path, make_parents=True) as entry:
                    self._safe.atomic.write_at(entry, text.encode("utf-8"), exclusive=True)
            except (NotFoundError, NotDirectoryError) as exc:
                raise NotDirectoryError(
                    f"{path.parent} cannot hold a file: a part of it is a file, not a directory. Choose another path.",
                    path=str(path.parent),
                ) from exc
            except AlreadyExistsError as exc:
                raise AlreadyExistsError(
                    f"{path} already exists; an artifact is only written to a new file. Choose another path.",
                    path=str(path),
                ) from exc
        self._safe.session.saw(path)
        return self.info().model_copy(update={"path": str(path)})
