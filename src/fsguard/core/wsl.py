"""The wsl tool's engine: syncs between the two sides (:mod:`.wsllayout`) and autosync after writes.

The standard folders (``~/claude``, ``~/projects``) pair the Linux home with the Windows home; autosync copies
a file written under the Linux home to the same place under the Windows home. Copies are made by
:mod:`.wslsync`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from fsguard.core.clientroots import current_scope
from fsguard.core.disk import AtomicWriter, read_snapshot
from fsguard.core.errors import AccessDeniedError, FsguardError, InvalidParamsError, NotFoundError
from fsguard.core.oserrors import from_os_error
from fsguard.core.pathforms import within
from fsguard.core.paths import PathPolicy
from fsguard.core.safeguards import Safeguards
from fsguard.core.wsllayout import AUTOSYNC_NEEDS_HOME, Direction, WslLayout, detect
from fsguard.core.wslpaths import is_windows_form, to_wsl
from fsguard.core.wslsync import SyncOptions, SyncProblem, SyncReport, WslSync

logger = logging.getLogger(__name__)

_CONFIG_VERSION = "1.0"


@dataclass(frozen=True)
class WslSettings:
    """What the server was started with: a forced answer to "is this WSL", the homes, autosync's file and override."""

    forced: bool | None
    home: Path | None
    windows_home: str | None
    autosync_config: Path
    autosync_forced: bool


@dataclass(frozen=True)
class AutoSyncConfig:
    """What autosync does; saved in ``<state dir>/wsl/autosync.json``."""

    enabled: bool = False
    sync_on_write: bool = True
    sync_on_edit: bool = True
    silent: bool = False  # accepted for the seed's clients: autosync runs quietly anyway


class AutoSync:
    """After a file under the Linux home is written or edited, copy it to the Windows home, if enabled.

    Called by every writer after its commit (``Safeguards.committed``), synchronously. A failure never fails
    the write that triggered it: it is logged to stderr and counted in ``failed``.
    """

    def __init__(self, layout: WslLayout, syncer: WslSync, writer: AtomicWriter, path: Path, *, forced: bool) -> None:
        self._layout = layout
        self._syncer = syncer
        self._writer = writer
        self.path = path
        self.forced = forced
        self._config = _load(path)
        self._seen = _signature(path)
        self._lock = threading.Lock()
        self.synced = 0
        self.failed = 0
        self.last_error: str | None = None

    @property
    def config(self) -> AutoSyncConfig:
        """The saved settings, read again when their file changed: another server sharing the state dir may have
        saved others since (one stat per use; read only on a change)."""
        seen = _signature(self.path)
        if seen != self._seen:
            self._config, self._seen = _load(self.path), seen
        return self._config

    @property
    def enabled(self) -> bool:
        return self._layout.detection.is_wsl and (self.forced or self.config.enabled)

    def configure(self, config: AutoSyncConfig) -> None:
        """Save ``config`` and use it from now on.

        Raises:
            WslUnavailableError: ``config`` turns autosync on and the Windows home is unknown; nothing was saved.
        """
        if config.enabled:
            self._layout.windows_home_required(AUTOSYNC_NEEDS_HOME)
        document = {"wsl_auto_sync": {**asdict(config), "config_version": _CONFIG_VERSION}}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise from_os_error(exc, self.path.parent) from exc
        self._writer.write(self.path, json.dumps(document, indent=2).encode("utf-8") + b"\n")
        self._config, self._seen = config, _signature(self.path)

    def after_commit(self, path: Path, family: str, tool_name: str) -> None:
        """The commit listener: copy ``path`` to its Windows counterpart when autosync applies."""
        config = self.config
        wanted = config.sync_on_write if family == "write" else config.sync_on_edit if family == "edit" else False
        if not (self.enabled and wanted) or self._syncer.active:
            return
        target: Path | None = None
        try:
            # An unknown Windows home raises here: a copy autosync promised and cannot make is a failure.
            target = self._layout.autosync_target(path)
            if target is None:
                return
            self._syncer.copy_file(path, target, SyncOptions())
        except Exception as exc:  # whatever went wrong, the write that triggered it succeeded and must stay a success
            message = exc.message if isinstance(exc, FsguardError) else repr(exc)
            logger.warning("autosync of %s (after %s) to %s failed: %s", path, tool_name, target or "Windows", message)
            with self._lock:
                self.failed += 1
                self.last_error = f"{path}: {message}"
        else:
            with self._lock:
                self.synced += 1


def _signature(path: Path) -> tuple[int, int, int] | None:
    """What tells a changed settings file (inode, size, mtime), None when there is none."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def _load(path: Path) -> AutoSyncConfig:
    try:
        raw = json.loads(read_snapshot(path, 1 << 16)[0])["wsl_auto_sync"]
        values = {key: raw[key] for key in asdict(AutoSyncConfig()) if key in raw}
        # Only JSON true and false: bool("false") is True, and a hand-edited "false" must never turn autosync on.
        if wrong := [key for key, value in values.items() if not isinstance(value, bool)]:
            raise ValueError(f"{', '.join(wrong)} must be true or false")
        return AutoSyncConfig(**values)
    except NotFoundError:
        return AutoSyncConfig()
    except (FsguardError, ValueError, KeyError, TypeError) as exc:
        logger.warning("ignoring the unreadable autosync config %s (%s); autosync is off until it is saved", path, exc)
        return AutoSyncConfig()


@dataclass(frozen=True)
class SyncRequest:
    """One wsl(action="sync") call: explicit paths (either may be derived from the other), or the standard pairs."""

    wsl_path: str | None
    windows_path: str | None
    direction: Direction | None
    options: SyncOptions


class WslIntegration:
    """The wsl tool's engine: status facts, syncs with both ends inside the roots, autosync settings."""

    def __init__(self, policy: PathPolicy, layout: WslLayout, syncer: WslSync, autosync: AutoSync) -> None:
        self._policy = policy
        self.layout = layout
        self._syncer = syncer
        self.autosync = autosync

    @classmethod
    def create(cls, safe: Safeguards, settings: WslSettings, environ: Mapping[str, str]) -> WslIntegration:
        """Detect WSL, find the homes, and register autosync as a listener of every commit through ``safe``.

        Raises:
            InvalidParamsError: the configured Windows home is not a drive path.
        """
        detection = detect(settings.forced, environ)
        layout = WslLayout.create(
            detection,
            safe.policy.wsl_mount_root,
            home=settings.home,
            windows_home=settings.windows_home,
            environ=environ,
        )
        syncer = WslSync(safe)
        autosync = AutoSync(layout, syncer, safe.atomic, settings.autosync_config, forced=settings.autosync_forced)
        safe.committed.append(autosync.after_commit)
        return cls(safe.policy, layout, syncer, autosync)

    def sync(self, request: SyncRequest) -> tuple[Direction, SyncReport]:
        """Sync one path (file or tree) or, with only ``direction``, the standard folders.

        Raises:
            WslUnavailableError: not WSL, or the Windows home is needed and unknown.
            AccessDeniedError: a side of a single-path sync is outside the roots.
            InvalidParamsError: nothing to sync was named.
        """
        self.layout.require()
        report = SyncReport(dry_run=request.options.dry_run)
        with self._syncer.running():
            if request.wsl_path is None and request.windows_path is None:
                if request.direction is None:
                    raise InvalidParamsError(
                        "For sync: provide wsl_path, windows_path, or direction (wsl_to_windows / "
                        'windows_to_wsl syncs the standard folders ~/claude and ~/projects). wsl(action="status") '
                        "shows the mapping."
                    )
                self._sync_standard(request.direction, request.options, report)
                return request.direction, report
            direction = request.direction or ("windows_to_wsl" if request.wsl_path is None else "wsl_to_windows")
            source, destination = self._endpoints(request, direction)
            self._syncer.sync(source, destination, request.options, report)
        return direction, report

    def _endpoints(self, request: SyncRequest, direction: Direction) -> tuple[Path, Path]:
        """(source, destination), canonical, each inside the roots; a missing side is derived from the other."""
        wsl = self._policy.resolve_entry(self._expand_home(request.wsl_path)) if request.wsl_path is not None else None
        windows = None
        if request.windows_path is not None:
            given = request.windows_path
            distro = self.layout.detection.distro
            linux = str(to_wsl(given, self.layout.mount_root, distro)) if is_windows_form(given) else given
            windows = self._policy.resolve_entry(linux)
        if windows is None:
            assert wsl is not None
            windows = self._side(self.layout.counterpart(wsl, "wsl_to_windows"), "Windows")
        if wsl is None:
            wsl = self._side(self.layout.counterpart(windows, "windows_to_wsl"), "WSL")
        return (wsl, windows) if direction == "wsl_to_windows" else (windows, wsl)

    def _expand_home(self, wsl_path: str) -> str:
        """``~`` and ``~/x`` name the WSL home, as in a shell (no other path tool expands them)."""
        if wsl_path == "~" or wsl_path.startswith("~/"):
            return str(self.layout.home / wsl_path[2:])
        return wsl_path

    def _side(self, path: Path, side: str) -> Path:
        try:
            return self._policy.resolve_entry(str(path))
        except AccessDeniedError as exc:
            real = Path(os.path.realpath(path))
            if self._policy.contains(real):
                raise  # inside a root: a deny rule (or a name fsguard refuses) speaks for itself, as to read_file
            # A server root holding it, left out by the roots the client named: a new fsguard root would not help.
            served = current_scope() is not None and any(within(real, root) for root in self._policy.roots)
            advice = (
                "fsguard serves it, but the client's roots leave it out: ask the user to add that folder to the "
                "client's workspace, or sync paths inside its roots."
                if served
                else "Start fsguard with that folder as a root too, or sync paths inside the roots."
            )
            raise AccessDeniedError(
                f"access denied: the {side} side of this sync, {self.layout.windows_spelling(path)}, is outside the "
                f"allowed roots: {self._policy.describe_roots()}. {advice}",
                path=str(path),
            ) from exc

    def _sync_standard(self, direction: Direction, options: SyncOptions, report: SyncReport) -> None:
        for wsl_side, windows_side in self.layout.standard_pairs():
            source = wsl_side if direction == "wsl_to_windows" else windows_side
            label = self.layout.windows_spelling(source)
            try:
                wsl, windows = self._side(wsl_side, "WSL"), self._side(windows_side, "Windows")
                ends = (wsl, windows) if direction == "wsl_to_windows" else (windows, wsl)
                self._syncer.sync(ends[0], ends[1], options, report)
            except AccessDeniedError as exc:  # a pair the roots do not cover is skipped, the others still sync
                report.skipped.append((label, exc.message))
            except NotFoundError:
                report.skipped.append((label, "does not exist"))
            except FsguardError as exc:
                report.errors.append(SyncProblem(label, exc.message, exc.code))
