"""git's NUL-separated machine formats, parsed from fixed bytes: names with spaces, newlines, tabs and Unicode."""

from __future__ import annotations

import io

import pytest

from fsguard.core.errors import InvalidParamsError
from fsguard.core.gitparse import (
    CommitLine,
    FileStat,
    PushedRef,
    RefLine,
    commit_risk,
    parse_log,
    parse_numstat,
    parse_push,
    parse_refs,
    parse_status,
)
from fsguard.core.gitprocess import _collect
from fsguard.core.gitrepo import refuse_option

OID = "0" * 40
MODES = "100644 100644 100644"


def test_status_sorts_each_path_into_staged_unstaged_untracked_and_conflicted() -> None:
    data = b"\0".join(
        [
            b"# branch.oid " + b"1" * 40,
            b"# branch.head main",
            b"# branch.upstream origin/main",
            b"# branch.ab +2 -3",
            f"1 M. N... {MODES} {OID} {OID} staged only.txt".encode(),
            f"1 .M N... {MODES} {OID} {OID} dir/unstaged \u00e9.txt".encode(),
            f"1 MM N... {MODES} {OID} {OID} both.txt".encode(),
            f"2 R. N... {MODES} {OID} {OID} R100 new name.txt".encode(),
            b"old name.txt",
            f"u UU N... 100644 100644 100644 100644 {OID} {OID} {OID} conflict me.txt".encode(),
            b"? line\nbreak.txt",
            b"? build/",
            b"! ignored.log",
            b"",
        ]
    )
    report = parse_status(data)
    assert (report.branch, report.upstream, report.ahead, report.behind) == ("main", "origin/main", 2, 3)
    assert report.commit == "1" * 40
    assert report.staged == ["staged only.txt", "both.txt", "new name.txt"]
    assert report.unstaged == ["dir/unstaged \u00e9.txt", "both.txt"]
    assert report.untracked == ["line\nbreak.txt", "build/"]
    assert report.conflicted == ["conflict me.txt"]
    assert not report.clean


def test_status_of_a_new_repository_and_of_a_detached_head() -> None:
    fresh = parse_status(b"# branch.oid (initial)\0# branch.head main\0")
    assert (fresh.branch, fresh.commit, fresh.upstream, fresh.ahead) == ("main", None, None, None)
    assert fresh.clean
    detached = parse_status(b"# branch.oid " + b"a" * 40 + b"\0# branch.head (detached)\0")
    assert detached.branch is None
    assert detached.commit == "a" * 40


def test_a_rename_whose_old_name_looks_like_a_record_is_not_read_as_one() -> None:
    data = f"2 R. N... {MODES} {OID} {OID} R090 b.txt\0? fake.txt\0".encode() + b"? real.txt\0"
    report = parse_status(data)
    assert report.staged == ["b.txt"]
    assert report.untracked == ["real.txt"]


def test_numstat_reads_counts_binaries_renames_and_names_with_tabs() -> None:
    data = b"3\t1\tsrc/a.py\0-\t-\timage.png\0" + b"0\t0\t\0old\tname.txt\0new name.txt\0" + b"5\t0\tz\xc3\xa9.md\0"
    assert parse_numstat(data) == [
        FileStat("src/a.py", 3, 1),
        FileStat("image.png", None, None),
        FileStat("new name.txt", 0, 0, "old\tname.txt"),
        FileStat("z\u00e9.md", 5, 0),
    ]


def test_numstat_skips_what_comes_before_the_records_and_survives_bad_utf8() -> None:
    data = b"\n1\t2\ta.txt\0" + b"4\t4\tbad\xff.txt\0"
    stats = parse_numstat(data)
    assert [s.path for s in stats] == ["a.txt", "bad\ufffd.txt"]
    assert parse_numstat(b"") == []


def test_log_reads_four_fields_per_commit_whatever_the_subject_holds() -> None:
    first = [b"a" * 40, b"Ada L", b"2026-01-02T03:04:05+01:00", b'fix: & | % ^ < > " $(x) `']
    second = [b"b" * 40, "Bj\u00f6rn".encode(), b"2026-01-01T00:00:00+00:00", b"init"]
    data = b"\0".join([*first, *second])
    assert parse_log(data) == [
        CommitLine("a" * 40, "Ada L", "2026-01-02T03:04:05+01:00", 'fix: & | % ^ < > " $(x) `'),
        CommitLine("b" * 40, "Bj\u00f6rn", "2026-01-01T00:00:00+00:00", "init"),
    ]
    assert parse_log(b"") == []


def test_refs_mark_the_current_branch_and_leave_out_the_remote_head() -> None:
    data = (
        b"*\0refs/heads/main\0main\n"
        b" \0refs/heads/feature/x\0feature/x\n"
        b" \0refs/remotes/origin/HEAD\0origin\n"
        b" \0refs/remotes/origin/main\0origin/main\n"
    )
    assert parse_refs(data) == [
        RefLine("main", False, True),
        RefLine("feature/x", False, False),
        RefLine("origin/main", True, False),
    ]


def test_push_porcelain_lines_and_which_were_rejected() -> None:
    data = (
        b"To ../remote.git\n"
        b"*\trefs/heads/main:refs/heads/main\t[new branch]\n"
        b"!\trefs/heads/dev:refs/heads/dev\t[rejected] (fetch first)\n"
        b"Done\n"
    )
    refs = parse_push(data)
    assert refs == [
        PushedRef("*", "refs/heads/main:refs/heads/main", "[new branch]"),
        PushedRef("!", "refs/heads/dev:refs/heads/dev", "[rejected] (fetch first)"),
    ]
    assert [r.rejected for r in refs] == [False, True]


@pytest.mark.parametrize(
    ("files", "insertions", "deletions", "level"),
    [
        (1, 10, 10, "LOW"),
        (15, 800, 500, "LOW"),
        (16, 0, 0, "MEDIUM"),
        (1, 801, 0, "MEDIUM"),
        (40, 3000, 500, "MEDIUM"),
        (41, 0, 0, "HIGH"),
        (1, 3001, 0, "HIGH"),
        (1, 0, 501, "HIGH"),
    ],
)
def test_commit_risk_follows_the_seed_scale(files: int, insertions: int, deletions: int, level: str) -> None:
    assert commit_risk(files, insertions, deletions) == level


def test_a_line_budget_keeps_the_first_lines_and_counts_them_all() -> None:
    data = b"".join(f"line {i}\n".encode() for i in range(100_000))
    collected = _collect(io.BytesIO(data), 3)
    assert collected.stdout == b"line 0\nline 1\nline 2\n"
    assert collected.lines == 100_000
    assert collected.size == len(data)
    assert not collected.clipped
    assert (_collect(io.BytesIO(b"a\nb"), None).stdout, _collect(io.BytesIO(b"a\nb"), None).lines) == (b"a\nb", 2)
    assert _collect(io.BytesIO(b""), 5).lines == 0


def test_a_byte_budget_cuts_one_long_line_the_line_budget_would_keep_whole() -> None:
    data = b"x" * 300_000 + b"\nshort\n"
    collected = _collect(io.BytesIO(data), 200, 1_000)
    assert collected.stdout == b"x" * 1_000
    assert collected.clipped
    assert (collected.lines, collected.size) == (2, len(data))
    assert not _collect(io.BytesIO(b"a\nb\n"), 1, 2).clipped  # the line budget cut first


@pytest.mark.parametrize("value", ["-x", "--output=/tmp/x", "-"])
def test_option_like_values_are_refused_naming_the_field(value: str) -> None:
    with pytest.raises(InvalidParamsError, match="rev"):
        refuse_option("rev", value)
    refuse_option("rev", "HEAD~1")
    refuse_option("rev", None)
