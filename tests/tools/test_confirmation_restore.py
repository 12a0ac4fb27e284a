"""The question before a git restore of the working tree pins the version of the work it discards, not only its
line counts: a line rewritten, or a binary file saved again, while the user is asked, is asked about again (found
by a probe: a yes to discarding one version discarded the next, unseen, and a binary file's work read as "0 lines
... are lost"). Both eras; the bytes on disk are checked."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_confirmation_races import NO, YES, User
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

# (committed, the edit the user is asked about, the edit made meanwhile): git counts the same lines in both
VERSIONS = {
    "a line rewritten": (b"alpha\n", b"edited\n", b"EDITED\n"),  # as many bytes too
    "a binary file saved again": (b"\0\1\2" * 100, b"\0\7\7" * 100, b"\0precious" * 300),
}


@pytest.mark.parametrize("case", list(VERSIONS))
async def test_other_work_written_while_the_user_is_asked_about_a_restore_is_asked_about_again(
    connect: ClientFactory, root: Path, case: str
) -> None:
    committed, edited, newer = VERSIONS[case]
    make_repo(root)
    target = root / "work.dat"
    target.write_bytes(committed)
    git(root, "add", "work.dat")
    git(root, "commit", "-q", "-m", "work")
    target.write_bytes(edited)

    def save_again(asked: int) -> None:
        if asked == 1:
            target.write_bytes(newer)

    user = User([YES, NO], save_again)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "restore", "paths": ["work.dat"]})
    assert error_code(result) == "declined", text_of(result)
    assert target.read_bytes() == newer  # the version nobody was asked about is kept
    assert len(user.asked) == 2
    assert user.asked[0] != user.asked[1]


async def test_a_restore_question_says_a_binary_files_work_is_lost(connect: ClientFactory, root: Path) -> None:
    make_repo(root)
    target = root / "db.bin"
    target.write_bytes(b"\0\1\2" * 100)
    git(root, "add", "db.bin")
    git(root, "commit", "-q", "-m", "db")
    target.write_bytes(b"\0\7\7" * 500)
    user = User([NO])
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["db.bin"]})
    assert error_code(result) == "declined", text_of(result)
    assert target.read_bytes() == b"\0\7\7" * 500
    assert "the changes to 1 binary file are lost" in user.asked[0]
    assert "0 lines" not in user.asked[0]  # not read as "nothing is lost"
    assert "1,500 bytes in the working tree now" in user.asked[0]
