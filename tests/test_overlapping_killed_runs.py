"""Two atomic batches of one server, both cut short by its kill, that changed the same file: the next start rolls
both back whole, whichever record it reads first.

A server runs calls side by side, and a batch holds a file's lock only while it changes that file, so two batches can
change one file in turn: X writes f0 and goes on to f1, Y then writes f0 over X's bytes and goes on to f2, and the
kill ends both. Each record names its own change of f0; only the newest one's after-bytes are on disk. The records
are read in the order of their group ids (the second they began, then random hex), which says nothing about the
order their changes landed in. Rolling back X first used to find f0 "changed by another process" (by Y), keep it,
and then roll Y back onto X's bytes: X left half applied, the file holding a write whose call never answered.

The child runs X on a thread, parked (alive, its lock of f1 held) once f1 is in place, then Y, and dies by
``os._exit`` once Y's f2 is in place. The group ids are fixed so that either batch is read first.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from fsguard.config import Settings
from fsguard.services import Services

OLD = "old\n" * 500
NEW_X = "written by x\n" * 500
NEW_Y = "written by y\n" * 500

CHILD = textwrap.dedent(
    """
    import os, sys, threading, time
    from datetime import UTC, datetime
    from pathlib import Path
    from fsguard.config import Settings
    from fsguard.core import runs, setaside
    from fsguard.core.batchplan import parse_request
    from fsguard.services import Services

    root, state, x_id, y_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    second = datetime.fromtimestamp(time.time(), UTC).strftime("%Y%m%d-%H%M%S-")
    ids = iter([second + x_id, second + y_id])  # X's record is made first
    runs.new_backup_id = lambda now: next(ids)
    services = Services.create(Settings(roots=(root,), state_dir=state))
    real_exchange = setaside.exchange
    x_parked = threading.Event()

    def exchange(temp, entry):  # a file written over is exchanged with its new bytes
        swapped = real_exchange(temp, entry)
        if entry.name == "f1.txt":
            x_parked.set()
            threading.Event().wait()  # X stays alive here, holding f1's lock, until the process dies
        if entry.name == "f2.txt":
            os._exit(9)
        return swapped

    setaside.exchange = exchange

    def batch(*writes):
        ops = [{"type": "write", "path": str(root / name), "content": text} for name, text in writes]
        services.batch.run(parse_request({"operations": ops, "atomic": True}))

    threading.Thread(target=batch, args=(("f0.txt", sys.argv[5]), ("f1.txt", sys.argv[5])), daemon=True).start()
    assert x_parked.wait(60)
    batch(("f0.txt", sys.argv[6]), ("f2.txt", sys.argv[6]))
    """
)


@pytest.mark.parametrize(
    ("x_id", "y_id"), [("0" * 16, "f" * 16), ("f" * 16, "0" * 16)], ids=["x_read_first", "y_read_first"]
)
def test_two_killed_atomic_batches_that_wrote_one_file_in_turn_are_both_rolled_back_whole_at_the_next_start(
    root: Path, state_dir: Path, x_id: str, y_id: str
) -> None:
    for name in ("f0.txt", "f1.txt", "f2.txt"):
        (root / name).write_text(OLD, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(state_dir), x_id, y_id, NEW_X, NEW_Y],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 9, done.stderr
    on_disk = {name: (root / name).read_text(encoding="utf-8") for name in ("f0.txt", "f1.txt", "f2.txt")}
    assert on_disk == {"f0.txt": NEW_Y, "f1.txt": NEW_X, "f2.txt": NEW_Y}  # both half applied at the kill

    services = Services.create(Settings(roots=(root,), state_dir=state_dir))

    for name in ("f0.txt", "f1.txt", "f2.txt"):
        assert (root / name).read_text(encoding="utf-8") == OLD, f"{name} kept a killed batch's write"
    groups = services.groups.groups()
    assert sorted(g.interrupted or "" for g in groups) == ["rolled_back", "rolled_back"]
    assert all(g.changes == () for g in groups), json.dumps([[c.path for c in g.changes] for g in groups])
    assert sorted(sorted(Path(p).name for p in g.rolled_back) for g in groups) == [
        ["f0.txt", "f1.txt"],
        ["f0.txt", "f2.txt"],
    ]
