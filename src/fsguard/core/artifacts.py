"""server_info artifact: hold one text in memory, then write it to a new file.

Writing never replaces an existing file: the backup store that would make an overwrite undoable
belongs to write_file, so an artifact only ever creates (with its missing parent directories, as the
seed's write path and write_file do). It goes through write_file's write sequence, hooks included.
"""

from __future__ import annotations

import threading
from pathlib import Path

from fsguard.core.beneath import lstat_at
from fsguard.core.errors import (
    AlreadyExistsError,
    InvalidParamsError,
    NotDirectoryError,
    NotFoundError,
    TooLargeError,
)
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.pathforms import check_file_spelling
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

        The write sequence of write_file creating a file (:func:`fsguard.core.mutation.mutation`): its pre-write
        hook may deny (nothing is written) or replace the content, its post-write hook runs once the file is there.

        Raises:
            InvalidParamsError: nothing was captured.
            AlreadyExistsError: the path exists.
            NotDirectoryError: a component of the path is a file.
            HookDeniedError: a pre-write hook refused; nothing was written.
        """
        with self._lock:
            text = self._text
        if text is None:
            raise InvalidParamsError(
                "no artifact captured yet. Call server_info(action='artifact', sub_action='capture', content=...) "
                "first."
            )
        path = self._safe.policy.resolve(user_path)
        check_file_spelling(user_path, path)
        try:
            if self._taken(path):  # whatever is there (a directory, a link): not read, not replaced
                raise _exists(path)
            with mutation(self._safe, path, may_be_missing=True) as change:
                if change.current is not None:
                    raise _exists(path)
                hook = HookCall("write", "server_info", "artifact_write")
                substituted = change.fire_pre(hook, content=text)
                data = (text if substituted is None else substituted).encode("utf-8")
                try:
                    change.commit(data, hook, make_parents=True)
                except AlreadyExistsError as exc:  # made meanwhile: the exclusive create refused to replace it
                    raise _exists(path) from exc
        except (NotFoundError, NotDirectoryError) as exc:
            raise NotDirectoryError(
                f"{path.parent} cannot hold a file: a part of it is a file, not a directory. Choose another path.",
                path=str(path.parent),
            ) from exc
        self._safe.session.saw(path)
        return self.info().model_copy(update={"path": str(path)})

    def _taken(self, path: Path) -> bool:
        """Whether anything is at ``path`` now, as the pinned walk finds it (a link is not followed)."""
        try:
            with self._safe.beneath.entry(path, follow=False) as entry:
                return lstat_at(entry) is not None
        except NotFoundError:
            return False


def _exists(path: Path) -> AlreadyExistsError:
    return AlreadyExistsError(
        f"{path} already exists; an artifact is only written to a new file. Choose another path.", path=str(path)
    )
