"""The permission bits a copy keeps for the owner it ended up with (fsguard.core.attributes.kept_mode)."""

from __future__ import annotations

import os
import stat

import pytest

from fsguard.core.attributes import kept_mode


def stat_of(mode: int, uid: int, gid: int) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("uid", "gid", "kept"),
    [
        (1234, 1234, 0o6755),  # the same owner and group: every bit
        (0, 1234, 0o2755),  # another owner: the setuid bit was set for 1234, not for this one
        (1234, 0, 0o4755),  # another group: the setgid bit goes
        (0, 0, 0o755),
    ],
    ids=["same", "other-owner", "other-group", "neither"],
)
def test_a_copy_keeps_a_set_id_bit_only_for_the_owner_or_group_it_was_set_for(uid: int, gid: int, kept: int) -> None:
    source = stat_of(stat.S_IFREG | 0o6755, 1234, 1234)
    copy = stat_of(stat.S_IFREG | 0o600, uid, gid)
    assert kept_mode(source, copy) == kept


def test_a_directorys_setgid_bit_is_kept_whoever_owns_the_copy() -> None:
    # On a directory it only makes new entries inherit the group: it grants nobody anything.
    source = stat_of(stat.S_IFDIR | 0o2775, 1234, 1234)
    assert kept_mode(source, stat_of(stat.S_IFDIR | 0o700, 0, 0)) == 0o2775
