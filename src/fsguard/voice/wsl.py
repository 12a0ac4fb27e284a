"""Voice of the wsl tool: status, sync, and the autosync settings."""

from __future__ import annotations

from fsguard.core.shortlist import first_few, shown_rows
from fsguard.models import AutoSyncInfo, WslResult
from fsguard.voice.paths import shown
from fsguard.voice.sizes import human_size

_ENABLE = 'wsl(action="autosync_config", enabled=true)'


def wsl_text(result: WslResult, compact: bool) -> str:
    """The text of any wsl action."""
    if result.action == "status":
        return _status(result, compact)
    if result.action == "sync":
        return _sync(result, compact)
    return _autosync(result, compact, saved=result.action == "autosync_config")


def _status(result: WslResult, compact: bool) -> str:
    home = result.windows_home or "unknown"
    autosync = result.autosync or AutoSyncInfo()
    if compact:
        if not result.is_wsl:
            return f"WSL: false ({result.detection}) | --wsl forces it | drives {result.mount_root}"
        interop = "on" if result.interop else "off"
        return (
            f"WSL: true | distro {result.distro or '-'} | home {result.wsl_home} | winhome {home} | "
            f"drives {result.mount_root} | interop {interop} | autosync {_on(autosync.enabled)}"
        )
    drives = f"Drives: C:\\ is {result.mount_root}/c"
    if not result.is_wsl:
        return (
            f"WSL: no ({result.detection}).\nsync and autosync refuse here; if this is WSL after all, restart "
            f"fsguard with --wsl (or FSGUARD_WSL=1).\n{drives}"
        )
    lines = [
        f"WSL: yes ({result.detection})",
        f"Distro: {result.distro or 'unknown (WSL_DISTRO_NAME unset)'} · interop: {_on(result.interop)}",
        drives,
        f"WSL home: {result.wsl_home}",
    ]
    if result.windows_home is None:
        lines.append("Windows home: unknown; restart fsguard with --wsl-windows-home C:\\Users\\<you>")
    else:
        lines.append(f"Windows home: {home} ({result.windows_home_path})")
        pairs = ", ".join(f"~/{name} ↔ {home}\\{name}" for name in ("claude", "projects"))
        lines.append(f'Standard folders: {pairs}; sync them with wsl(action="sync", direction="wsl_to_windows")')
    lines.append("Autosync: " + _autosync_summary(autosync))
    return "\n".join(lines)


def _sync(result: WslResult, compact: bool) -> str:
    synced, errors = result.files_synced or 0, len(result.errors or [])
    unchanged, skipped = result.files_unchanged or 0, len(result.skipped or [])
    if compact:
        head = (
            f"DRY RUN: {_count(synced, 'file')} would sync"
            if result.dry_run
            else f"OK: {_count(synced, 'file')} synced"
        )
        parts = [f"{head}, {_count(errors, 'error')}", f"{unchanged} unchanged", result.direction or ""]
        parts += [f"{skipped} skipped"] if skipped else []
        parts += [f"{result.denied} hidden by deny rules"] if result.denied else []
        parts += _few([f"backup {f.backup_id}" for f in result.files or [] if f.backup_id], "backups in files")
        parts += _few([f"error {shown(e.path)} [{e.code}]" for e in result.errors or []], "errors in errors")
        parts += ["walk truncated"] if result.truncated else []
        return " | ".join(parts)
    files = _count(synced, "file")
    if result.dry_run:
        head = f"DRY RUN ({result.direction}): {files} would be synced, {unchanged} already identical; nothing was "
        head += "written."
    else:
        head = f"Synced {files} ({result.direction}), {unchanged} already identical, {_count(errors, 'error')}."
    lines = [head]
    rows = []
    for item in result.files or []:
        destination = shown(item.destination)
        line = f"  {item.status} {shown(item.source)} -> {destination} ({human_size(item.bytes)})"
        if item.backup_id:
            line += f'; backup {item.backup_id}, undo: backup(action="undo_last", file_path="{destination}")'
        rows.append(line)
    lines += _cut(rows, "files")
    lines += (
        ["Skipped:", *_cut([f"  {shown(s.path)}: {s.reason}" for s in result.skipped or []], "skipped")]
        if skipped
        else []
    )
    lines += (
        ["Errors:", *_cut([f"  {shown(e.path)}: {e.error} [{e.code}]" for e in result.errors or []], "errors")]
        if errors
        else []
    )
    if errors:
        lines.append("Fix those and sync again: files already identical are left alone.")
    if result.denied:
        lines.append(f"{result.denied} hidden by deny rules: left behind.")
    if result.truncated:
        lines.append("The walk stopped at its entry limit: sync subfolders one at a time to cover the rest.")
    return "\n".join(lines)


def _few(parts: list[str], rest: str) -> list[str]:
    """The compact voice's parts of one kind, ten of a long list and how many more (``rest`` says where)."""
    listed = first_few(parts)
    return listed if len(listed) == len(parts) else [*listed, f"+{len(parts) - len(listed):,} more {rest}"]


def _cut(rows: list[str], field: str) -> list[str]:
    """A sync of a whole tree lists ten rows of each kind, the rest in the result's ``field`` list."""
    return shown_rows(rows, failed=[False] * len(rows), rest=f"every one in the result's {field} list")


def _autosync(result: WslResult, compact: bool, *, saved: bool) -> str:
    if compact:
        flags = f"write:{_yes(result.sync_on_write)} edit:{_yes(result.sync_on_edit)}"
        counts = f"{result.synced or 0} synced {result.failed or 0} failed"
        forced = " (forced)" if result.forced else ""
        return f"AUTOSYNC {_on(result.enabled)}{forced} | {flags} | {counts} | {result.config_path}"
    lines = [("Autosync saved: " if saved else "Autosync: ") + _autosync_summary(result)]
    lines.append("Files written or edited under the WSL home are copied to the same place under the Windows home.")
    lines.append(f"Settings file: {result.config_path}")
    if result.last_error:
        lines.append(f"Last failure: {result.last_error}")
    return "\n".join(lines)


def _autosync_summary(info: AutoSyncInfo) -> str:
    if not info.enabled:
        return f"off. Turn it on with {_ENABLE}."
    forced = ", forced on by --wsl-autosync / FSGUARD_WSL_AUTOSYNC" if info.forced else ""
    return (
        f"on (after write: {_yes(info.sync_on_write)}, after edit: {_yes(info.sync_on_edit)}{forced}); "
        f"{info.synced or 0} synced, {info.failed or 0} failed since start."
    )


def _on(flag: bool | None) -> str:
    return "on" if flag else "off"


def _yes(flag: bool | None) -> str:
    return "yes" if flag else "no"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
