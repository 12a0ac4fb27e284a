"""analyze_operation while another process swaps a directory on the path for a link to outside the roots.

The path is resolved and checked, then looked at: a plain stat between the two followed a link swapped in
meanwhile, and reported the size (and existence, and kind) of a file outside the root; a file gone meanwhile
answered internal_error. Both eras.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.paths import PathPolicy
from tests.conftest import error_code, text_of

pytestmark = pytest.mark.anyio

SECRET_SIZE = 77_791


@pytest.fixture
def swapped_after_resolve(monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> Path:
    """``swap`` is a directory while the path is resolved, then a link to ``outside`` (with a larger f.txt)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_bytes(b"x" * SECRET_SIZE)
    (root / "swap").mkdir()
    (root / "swap" / "f.txt").write_bytes(b"inside\n")
    real = {name: getattr(PathPolicy, name) for name in ("resolve", "resolve_entry")}

    def racing(name: str) -> Callable[..., Path]:
        def resolve(self: PathPolicy, user_path: str, *args: object, **kwargs: object) -> Path:
            resolved: Path = real[name](self, user_path, *args, **kwargs)
            swap = root / "swap"
            if "swap" in user_path and not swap.is_symlink():
                swap.rename(root / "was-swap")
                swap.symlink_to(outside)
            return resolved

        return resolve

    for name in real:
        monkeypatch.setattr(PathPolicy, name, racing(name))
    return outside


@pytest.mark.parametrize("operation", ["file", "optimize", "write", "delete"])
async def test_analyze_never_looks_through_a_link_swapped_in_after_the_path_was_checked(
    client: Client, root: Path, swapped_after_resolve: Path, operation: str
) -> None:
    arguments = {"operation": operation, "path": "swap/f.txt", "content": "y\n"}
    result = await client.call_tool("analyze_operation", arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert f"{SECRET_SIZE:,}" not in text_of(result)
    assert (swapped_after_resolve / "f.txt").read_bytes() == b"x" * SECRET_SIZE
