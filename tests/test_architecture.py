"""The layering rule, checked on the source: the engine never imports the protocol layer."""

from __future__ import annotations

import ast
from pathlib import Path

import fsguard

PACKAGE = Path(fsguard.__file__).parent
PROTOCOL_FREE = [
    *sorted((PACKAGE / "core").glob("*.py")),
    *sorted((PACKAGE / "models").glob("*.py")),
    *sorted((PACKAGE / "voice").glob("*.py")),
]


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_models_and_voice_never_import_mcp() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(m for m in imported_modules(path) if m.split(".")[0] == "mcp")
        for path in PROTOCOL_FREE
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_core_never_imports_the_tools_or_server_layers() -> None:
    upward = ("fsguard.tools", "fsguard.server", "fsguard.cli", "fsguard.http")
    for path in sorted((PACKAGE / "core").glob("*.py")):
        assert not [m for m in imported_modules(path) if m.startswith(upward)], path.name


def test_no_module_grows_past_400_lines() -> None:
    sizes = {
        str(p.relative_to(PACKAGE)): len(p.read_text(encoding="utf-8").splitlines()) for p in PACKAGE.rglob("*.py")
    }
    assert {name: n for name, n in sizes.items() if n > 400} == {}
