"""disk.read_all reads a whole file through short reads (Linux caps one read at 2 GiB - 4 KiB), and stops just
past a limit when the file is longer than its stat said (it grew while it was read)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsguard.core import disk


def test_a_file_is_read_whole_when_each_read_returns_less_than_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_pread = os.pread
    # The kernel's cap on one read, scaled down: no read returns more than 4 bytes.
    monkeypatch.setattr(os, "pread", lambda fd, size, offset: real_pread(fd, min(size, 4), offset))
    (tmp_path / "f.bin").write_bytes(b"0123456789abcdef!")
    fd = os.open(tmp_path / "f.bin", os.O_RDONLY)
    try:
        assert disk.read_all(fd, 17) == b"0123456789abcdef!"
    finally:
        os.close(fd)


def test_a_file_longer_than_its_stat_said_is_read_no_further_than_just_past_the_limit(tmp_path: Path) -> None:
    (tmp_path / "grown.bin").write_bytes(b"x" * (3 << 20))
    fd = os.open(tmp_path / "grown.bin", os.O_RDONLY)
    try:
        data = disk.read_all(fd, 10, limit=100)  # stat said 10 bytes: it grew to 3 MiB meanwhile
    finally:
        os.close(fd)
    assert 100 < len(data) < 3 << 20
