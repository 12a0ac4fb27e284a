"""The git tool on real repositories in temp dirs, in both protocol eras: what git holds afterwards, the bytes on disk.

Each test's repository is the server's root (``repo``), with one commit of ``a.txt``; its identity is in the repo's
config so commits made through the tool work anywhere. Assertions read the repository back with git itself.
"""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import anyio
import pytest
from mcp import Client

from fsguard.core.beneath import Beneath
from fsguard.core.errors import GitFailedError
from fsguard.core.gitprocess import GitProcess
from fsguard.core.hooks import HOOK_EVENTS
from fsguard.core.safeguards import Safeguards
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config, python_hook

pytestmark = pytest.mark.anyio


def git(cwd: Path, *args: str) -> str:
    """Run git directly (not through fsguard) and return its stdout."""
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, encoding="utf-8")
    return done.stdout


def identify(path: Path) -> None:
    """An identity in the repository's own config, so commits made through the tool work on any machine."""
    for key, value in (("user.name", "Tester"), ("user.email", "tester@example.com"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)


def committed(repo: Path, name: str, text: str) -> str:
    """Commit a file ``name`` holding ``text`` directly (not through fsguard); its blob's object id."""
    (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", f"HEAD:{name}").strip()


def make_repo(path: Path, *, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    identify(path)
    if commit:
        (path / "a.txt").write_text("alpha\n", encoding="utf-8")
        git(path, "add", "a.txt")
        git(path, "commit", "-q", "-m", "init")
    return path


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


async def call(client: Client, **arguments: Any) -> dict[str, Any]:
    return structured(await client.call_tool("git", arguments))


def staged_names(repo: Path) -> list[str]:
    return git(repo, "diff", "--cached", "--name-only").splitlines()


# -- status, diff, log, show ------------------------------------------------------------------------------------


async def test_status_sorts_paths_with_spaces_and_unicode_into_staged_unstaged_and_untracked(
    client: Client, repo: Path
) -> None:
    (repo / "a.txt").write_text("alpha\nmore\n", encoding="utf-8")
    (repo / "new file \u00e9.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "new file \u00e9.txt")
    (repo / "untracked \u65e5\u672c.md").write_text("y\n", encoding="utf-8")
    data = await call(client, action="status")
    assert data["repository"] == str(repo)
    assert data["branch"] == "main"
    assert data["staged"] == [f"{repo}/new file \u00e9.txt"]
    assert data["unstaged"] == [f"{repo}/a.txt"]
    assert data["untracked"] == [f"{repo}/untracked \u65e5\u672c.md"]
    assert data["counts"] == {"staged": 1, "unstaged": 1, "untracked": 1, "conflicted": 0}
    assert data["clean"] is False
    assert "new file \u00e9.txt" in data["message"]


async def test_a_name_holding_a_line_break_is_one_escaped_row_in_status_add_and_diff_texts(
    client: Client, repo: Path
) -> None:
    # git's -z output keeps the name whole; the text printed it raw, so "x\nFAKE" made a row of its own
    (repo / "x\nFAKE").write_bytes(b"one\n")
    status = await client.call_tool("git", {"action": "status"})
    added = await client.call_tool("git", {"action": "add", "paths": ["."]})
    diff = await client.call_tool("git", {"action": "diff", "staged": True})
    for text in map(text_of, (status, added, diff)):
        assert "x\\u000aFAKE" in text
        assert "FAKE" not in text.replace("x\\u000aFAKE", "")
    assert structured(status)["untracked"] == [f"{repo}/x\nFAKE"]
    assert staged_names(repo) == ['"x\\nFAKE"']


async def test_a_clean_repository_says_so(client: Client, repo: Path) -> None:
    data = await call(client, action="status")
    assert data["clean"] is True
    assert "Clean" in data["message"]


async def test_a_file_path_limits_status_diff_and_log_to_that_file(client: Client, repo: Path) -> None:
    (repo / "b.txt").write_text("beta\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "add b")
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    (repo / "b.txt").write_text("changed\n", encoding="utf-8")
    status = await call(client, action="status", path="b.txt")
    diff = await call(client, action="diff", path=str(repo / "b.txt"))
    log = await call(client, action="log", path="b.txt")
    assert status["unstaged"] == [f"{repo}/b.txt"]
    assert [f["path"] for f in diff["files"]] == [f"{repo}/b.txt"]
    assert [c["subject"] for c in log["commits"]] == ["add b"]


async def test_diff_counts_lines_per_file_marks_binaries_and_shows_the_patch_on_request(
    client: Client, repo: Path
) -> None:
    (repo / "a.txt").write_text("ALPHA\nbeta\ngamma\n", encoding="utf-8")
    (repo / "image.bin").write_bytes(b"\0\1\2")
    git(repo, "add", "image.bin")
    unstaged = await call(client, action="diff")
    staged = await call(client, action="diff", staged=True)
    full = await call(client, action="diff", output="full")
    assert unstaged["files"] == [{"path": f"{repo}/a.txt", "added": 3, "deleted": 1, "binary": False}]
    assert unstaged["output"] == "stat"
    assert "patch" not in unstaged
    assert staged["files"] == [{"path": f"{repo}/image.bin", "binary": True}]
    assert "+ALPHA" in full["patch"]
    assert "-alpha" in full["patch"]


async def test_diff_and_show_give_the_totals_their_text_states_though_the_file_list_is_whole(
    client: Client, repo: Path
) -> None:
    (repo / "a.txt").write_text("ALPHA\nbeta\ngamma\n", encoding="utf-8")
    (repo / "b.txt").write_text("one\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    data = await call(client, action="diff", rev="HEAD")
    assert "truncated" not in data
    assert (data["files_changed"], data["insertions"], data["deletions"]) == (2, 4, 1)
    assert data["message"].startswith("2 files changed, +4 -1")
    git(repo, "commit", "-qam", "second")
    shown = await call(client, action="show", rev="HEAD")
    assert (shown["files_changed"], shown["insertions"], shown["deletions"]) == (2, 4, 1)


async def test_a_name_with_a_line_break_is_one_escaped_row_of_the_status_and_diff_texts(
    client: Client, repo: Path
) -> None:
    forged = "evil\n  forged.txt"
    (repo / forged).write_text("x\n", encoding="utf-8")
    status = await call(client, action="status")
    git(repo, "add", "--", forged)
    staged = await call(client, action="diff", staged=True, output="name-only")
    assert status["untracked"] == [f"{repo}/{forged}"]
    assert status["message"].splitlines()[1:] == ["Untracked (1):", "  evil\\u000a  forged.txt"]
    assert staged["message"].splitlines()[1:] == ["evil\\u000a  forged.txt"]


async def test_status_names_the_old_path_of_a_staged_rename(client: Client, repo: Path) -> None:
    git(repo, "mv", "a.txt", "b \u00e9.txt")
    data = await call(client, action="status")
    assert data["staged"] == [f"{repo}/b \u00e9.txt"]
    assert data["renamed"] == {f"{repo}/b \u00e9.txt": f"{repo}/a.txt"}
    assert data["message"].splitlines()[1:] == ["Staged (1):", "  a.txt -> b \u00e9.txt"]
    assert git(repo, "-c", "core.quotepath=off", "status", "--porcelain").splitlines() == ['R  a.txt -> "b \u00e9.txt"']


async def test_a_clean_diff_says_there_are_no_unstaged_changes(client: Client, repo: Path) -> None:
    data = await call(client, action="diff")
    assert data["files"] == []
    assert "No unstaged changes" in data["message"]


def conflict(repo: Path) -> None:
    """A merge stopped on two conflicts: a.txt changed on both sides, "b c.txt" changed here and deleted there."""
    (repo / "b c.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "b c.txt")
    git(repo, "commit", "-qm", "b")
    git(repo, "switch", "-qc", "other")
    (repo / "a.txt").write_text("theirs\n", encoding="utf-8")
    git(repo, "rm", "-q", "b c.txt")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "switch", "-q", "main")
    (repo / "a.txt").write_text("ours\n", encoding="utf-8")
    (repo / "b c.txt").write_text("y\n", encoding="utf-8")
    git(repo, "commit", "-qam", "ours")
    subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True, check=False)


async def test_a_diff_in_a_merge_conflict_lists_each_conflicted_path_once_and_marks_it(
    client: Client, repo: Path
) -> None:
    conflict(repo)
    unstaged = await call(client, action="diff")
    staged = await call(client, action="diff", staged=True)
    # git's numstat has a stub for each unmerged path, then a.txt again with its combined diff's counts.
    assert [(f["path"], f.get("added"), f.get("conflicted")) for f in unstaged["files"]] == [
        (f"{repo}/a.txt", 4, True),
        (f"{repo}/b c.txt", 0, True),
    ]
    assert unstaged["message"].startswith("2 files changed, +4 -0:")
    assert "  +4 -0 a.txt (conflicted)" in unstaged["message"]
    assert [f["path"] for f in staged["files"]] == [f"{repo}/a.txt", f"{repo}/b c.txt"]
    assert all(f["conflicted"] for f in staged["files"])
    assert git(repo, "diff", "--name-only", "--diff-filter=U").splitlines() == ["a.txt", "b c.txt"]


async def test_a_full_diff_of_more_than_20_files_without_paths_shows_the_stat_and_says_so(
    client: Client, repo: Path
) -> None:
    for i in range(25):
        (repo / f"f{i:02}.txt").write_text(f"{i}\n", encoding="utf-8")
    git(repo, "add", ".")
    data = await call(client, action="diff", staged=True, output="full")
    narrowed = await call(client, action="diff", staged=True, output="full", paths=["f03.txt"])
    assert data["output"] == "stat"
    assert "patch" not in data
    assert data["truncated"] is True
    assert "25 files changed" in data["note"]
    assert len(data["files"]) == 25
    assert "+3" in narrowed["patch"]
    assert "note" not in narrowed


async def test_a_long_patch_is_cut_at_max_lines_with_a_note_saying_how_to_narrow_it(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("".join(f"line {i}\n" for i in range(500)), encoding="utf-8")
    (repo / "b.txt").write_text("beta\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    data = await call(client, action="diff", rev="HEAD", output="full", max_lines=30)
    assert data["truncated"] is True
    assert data["total_lines"] > 500
    assert len(data["patch"].splitlines()) == 30
    assert "30 of" in data["note"]
    assert "paths" in data["note"]


async def test_a_range_diff_compares_two_revisions(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    git(repo, "commit", "-qam", "second")
    data = await call(client, action="diff", rev="HEAD~1..HEAD")
    assert data["files"] == [{"path": f"{repo}/a.txt", "added": 1, "deleted": 0, "binary": False}]
    assert data["compared"] == "HEAD~1..HEAD"


async def test_log_lists_commits_newest_first_with_limit_and_rev(client: Client, repo: Path) -> None:
    for subject in ("two", "three"):
        git(repo, "commit", "-q", "--allow-empty", "-m", subject)
    everything = await call(client, action="log")
    older = await call(client, action="log", rev="HEAD~1", limit=2)
    assert [c["subject"] for c in everything["commits"]] == ["three", "two", "init"]
    head = everything["commits"][0]
    assert head["hash"] == git(repo, "rev-parse", "HEAD").strip()
    assert head["author"] == "Tester"
    assert head["date"][:4].isdigit()
    assert [c["subject"] for c in older["commits"]] == ["two", "init"]


async def test_a_log_the_limit_cut_says_older_commits_were_left_out_and_how_to_see_them_in_both_voices(
    connect: ClientFactory, repo: Path
) -> None:
    for subject in ("two", "three"):
        git(repo, "commit", "-q", "--allow-empty", "-m", subject)
    async with connect() as verbose, connect(compact_mode=True) as compact:
        cut = await verbose.call_tool("git", {"action": "log", "limit": 2})
        short = text_of(await compact.call_tool("git", {"action": "log", "limit": 2}))
        whole = structured(await verbose.call_tool("git", {"action": "log", "limit": 3}))
    data = structured(cut)
    assert ([c["subject"] for c in data["commits"]], data["truncated"]) == (["three", "two"], True)
    note = "[Older commits left out at limit=2: raise limit (at most 1,000) to see them.]"
    assert (text_of(cut).splitlines()[-1], short.splitlines()[-1]) == (note, note)
    assert (len(whole["commits"]), "truncated" in whole, "note" in whole) == (3, False, False)


async def test_a_log_cut_at_the_largest_limit_sends_the_agent_to_a_range_or_paths(client: Client, repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    stream = "".join(  # 1,000 empty commits on top of init, in one git process
        f"commit refs/heads/main\ncommitter T <t@x> {i} +0000\ndata {len(f'c{i}')}\nc{i}\n"
        + (f"from {head}\n" if i == 0 else "")
        for i in range(1000)
    )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True, text=True, encoding="utf-8")
    data = await call(client, action="log", limit=1000)
    assert (len(data["commits"]), data["truncated"]) == (1000, True)
    assert data["note"] == (
        'Older commits left out at limit=1000: narrow the log with rev (a range, e.g. rev="v1.0..HEAD") or paths.'
    )


async def test_log_of_a_repository_without_commits_is_empty(client: Client, root: Path) -> None:
    make_repo(root, commit=False)
    data = await call(client, action="log")
    assert data["commits"] == []
    assert "No commits yet" in data["message"]


async def test_show_gives_the_commit_header_message_and_changes(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    body = "\n".join(f"body line {i}" for i in range(50))
    git(repo, "commit", "-qam", f"second\n\n{body}")
    data = await call(client, action="show", rev="HEAD")
    full = await call(client, action="show", rev="HEAD", output="full")
    assert data["commit"]["subject"] == "second"
    assert data["commit"]["body"].splitlines() == [f"body line {i}" for i in range(40)]
    assert "40 of 50" in data["note"]
    assert data["files"] == [{"path": f"{repo}/a.txt", "added": 1, "deleted": 0, "binary": False}]
    assert "+beta" in full["patch"]


async def test_show_of_a_file_at_a_revision_gives_its_content(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("new\n", encoding="utf-8")
    git(repo, "commit", "-qam", "second")
    data = await call(client, action="show", rev="HEAD~1:a.txt")
    assert data["patch"] == "alpha\n"
    assert "commit" not in data


async def test_show_needs_a_rev_and_a_bad_one_carries_gits_words(client: Client, repo: Path) -> None:
    missing = await client.call_tool("git", {"action": "show"})
    bad = await client.call_tool("git", {"action": "show", "rev": "no-such-commit"})
    assert error_code(missing) == "invalid_params"
    assert 'rev="HEAD"' in text_of(missing)
    assert error_code(bad) == "git_error"
    assert "no-such-commit" in text_of(bad)


# -- add, commit -----------------------------------------------------------------------------------------------


async def test_add_stages_only_the_paths_given_as_an_array_or_json_text(client: Client, repo: Path) -> None:
    for name in ("b.txt", "c d.txt", "other.txt"):
        (repo / name).write_text(f"{name}\n", encoding="utf-8")
    native = await call(client, action="add", paths=["b.txt"])
    as_text = await call(client, action="add", paths=json.dumps(["c d.txt"]))
    assert native["paths"] == [f"{repo}/b.txt"]
    assert as_text["paths"] == [f"{repo}/c d.txt"]
    assert staged_names(repo) == ["b.txt", "c d.txt"]


async def test_add_of_an_ignored_path_is_refused_and_stages_none_of_the_paths(client: Client, repo: Path) -> None:
    (repo / ".gitignore").write_text("*.log\nbuild/\n", encoding="utf-8")
    (repo / "a.txt").write_text("edited\n", encoding="utf-8")
    (repo / "x.log").write_text("log\n", encoding="utf-8")
    (repo / "build").mkdir()
    (repo / "build" / "out.txt").write_text("out\n", encoding="utf-8")
    (repo / "src").mkdir()
    (repo / "src" / "ok.py").write_text("x = 1\n", encoding="utf-8")
    (repo / "src" / "debug.log").write_text("log\n", encoding="utf-8")
    (repo / "gen").mkdir()
    (repo / "gen" / "kept.txt").write_text("tracked\n", encoding="utf-8")
    git(repo, "add", "gen/kept.txt")
    git(repo, "commit", "-qm", "gen")
    (repo / ".gitignore").write_text("*.log\nbuild/\ngen/\n", encoding="utf-8")
    (repo / "gen" / "kept.txt").write_text("changed\n", encoding="utf-8")
    cases = (("x.log", "x.log"), ("build", "build"), ("build/out.txt", "build"), ("gen", "gen"))
    for given, named in cases:  # gen/ is ignored though it holds a tracked file: git refuses it too
        refused = await client.call_tool("git", {"action": "add", "paths": ["a.txt", given]})
        assert error_code(refused) == "invalid_params"
        assert text_of(refused).startswith(f"'{named}': ignored by .gitignore")
        assert staged_names(repo) == []  # git add would have staged a.txt, then failed on the ignored path
    data = await call(client, action="add", paths=["src"])  # a directory holding an ignored file: git skips it
    assert data["paths"] == [f"{repo}/src/ok.py"]
    assert staged_names(repo) == ["src/ok.py"]


async def test_add_without_paths_is_refused_and_stages_nothing(client: Client, repo: Path) -> None:
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    refused = await client.call_tool("git", {"action": "add"})
    assert error_code(refused) == "invalid_params"
    assert "add ." in text_of(refused)
    assert staged_names(repo) == []


async def test_an_option_like_path_is_a_literal_pathspec_and_stages_nothing(client: Client, repo: Path) -> None:
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    for option in ("-A", "--pathspec-from-file=/etc/passwd"):
        result = await client.call_tool("git", {"action": "add", "paths": [option]})
        assert error_code(result) == "git_error", option
    assert staged_names(repo) == []


async def test_a_path_outside_the_root_is_refused(client: Client, repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("x\n", encoding="utf-8")
    refused = await client.call_tool("git", {"action": "add", "paths": ["../outside.txt"]})
    assert error_code(refused) == "access_denied"
    assert staged_names(repo) == []


async def test_commit_reports_the_real_insertions_deletions_and_risk(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (repo / "b.txt").write_text("".join(f"{i}\n" for i in range(900)), encoding="utf-8")
    git(repo, "add", "a.txt", "b.txt")
    data = await call(client, action="commit", message="Grow the files")
    assert data["hash"] == git(repo, "rev-parse", "HEAD").strip()
    assert (data["files_changed"], data["insertions"], data["deletions"]) == (2, 903, 1)
    assert data["risk_level"] == "MEDIUM"
    assert data["branch"] == "main"
    assert data["commit"]["subject"] == "Grow the files"
    assert git(repo, "status", "--porcelain") == ""


async def test_commit_and_show_work_when_a_work_tree_file_is_named_like_a_revision(client: Client, repo: Path) -> None:
    # "HEAD" alone is ambiguous to git when a file has that name: the commit was made, then reported as git_error.
    (repo / "HEAD").write_text("notes about HEAD\n", encoding="utf-8")
    (repo / "a.txt").write_text("one\n", encoding="utf-8")
    git(repo, "add", "HEAD", "a.txt")
    data = await call(client, action="commit", message="A file named HEAD")
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / head).write_text("named like the commit\n", encoding="utf-8")
    shown = await call(client, action="show", rev=head)
    assert data["hash"] == head
    assert (data["files_changed"], data["insertions"]) == (2, 2)
    assert shown["commit"]["subject"] == "A file named HEAD"
    assert git(repo, "log", "--format=%s", "HEAD", "--").strip().splitlines()[0] == "A file named HEAD"


async def test_a_commit_message_with_shell_metacharacters_reaches_git_byte_identical(
    client: Client, repo: Path
) -> None:
    message = "fix: & | % ^ < > \" ' $(touch pwned) `touch pwned2` ; \\ \u00e9"
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    await call(client, action="commit", message=message)
    assert git(repo, "log", "-1", "--format=%B").rstrip("\n") == message
    assert not (repo / "pwned").exists()
    assert not (repo / "pwned2").exists()


async def test_commit_with_nothing_staged_or_no_message_is_refused(client: Client, repo: Path) -> None:
    nothing = await client.call_tool("git", {"action": "commit", "message": "empty"})
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    no_message = await client.call_tool("git", {"action": "commit"})
    assert error_code(nothing) == "invalid_params"
    assert "nothing staged" in text_of(nothing)
    assert error_code(no_message) == "invalid_params"
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


async def test_a_commit_with_paths_that_hold_nothing_new_is_refused_in_plain_words(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    (repo / "a.txt").write_text("alpha\n", encoding="utf-8")  # the working tree is HEAD's again
    (repo / "new.txt").write_text("untracked\n", encoding="utf-8")
    same = await client.call_tool("git", {"action": "commit", "message": "m", "paths": ["a.txt"]})
    untracked = await client.call_tool("git", {"action": "commit", "message": "m", "paths": ["new.txt"]})
    for refused in (same, untracked):
        assert error_code(refused) == "invalid_params"
        assert text_of(refused).startswith("nothing to commit in these paths")
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(repo, "status", "--porcelain").splitlines() == ["MM a.txt", "?? new.txt"]


async def test_a_commit_with_paths_commits_those_files_as_they_are_and_nothing_else(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("edited, not staged\n", encoding="utf-8")
    (repo / "b.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    data = await call(client, action="commit", message="only a", paths=["a.txt"])
    assert data["files_changed"] == 1
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["a.txt"]
    assert staged_names(repo) == ["b.txt"]


async def test_add_names_a_conflict_it_resolved_even_when_the_file_is_back_to_this_side(
    client: Client, repo: Path
) -> None:
    conflict(repo)
    (repo / "a.txt").write_text("ours\n", encoding="utf-8")
    data = await call(client, action="add", paths=["a.txt", "b c.txt"])
    assert data["paths"] == [f"{repo}/a.txt", f"{repo}/b c.txt"]
    assert data["message"].startswith("Staged 2 files:")
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""
    assert git(repo, "diff", "--cached", "--name-only") == ""  # resolved to HEAD's bytes: no staged diff


async def test_status_says_a_merge_is_in_progress_until_a_commit_concludes_it(client: Client, repo: Path) -> None:
    conflict(repo)
    conflicted = await call(client, action="status")
    (repo / "a.txt").write_text("ours\n", encoding="utf-8")
    git(repo, "add", "a.txt", "b c.txt")
    resolved = await call(client, action="status")
    git(repo, "commit", "-q", "--no-edit")
    done = await call(client, action="status")
    assert (conflicted["merging"], conflicted["counts"]["conflicted"]) == (True, 2)
    assert "Merging: resolve the conflicted paths" in conflicted["message"]
    # Nothing staged or changed, so clean as git counts it, but the merge still waits for its commit.
    assert (resolved["merging"], resolved["clean"]) == (True, True)
    assert "concludes the merge" in resolved["message"]
    assert "nothing to commit" not in resolved["message"]
    assert "merging" not in done
    assert "Clean: nothing to commit" in done["message"]


async def test_a_commit_concludes_a_merge_whose_conflicts_were_resolved_to_this_side(
    client: Client, repo: Path
) -> None:
    conflict(repo)
    ours = git(repo, "rev-parse", "HEAD").strip()
    (repo / "a.txt").write_text("ours\n", encoding="utf-8")
    git(repo, "add", "a.txt", "b c.txt")  # the index now matches HEAD: nothing is staged, the merge is not done
    data = await call(client, action="commit", message="Merge other, keeping ours")
    parents = git(repo, "log", "-1", "--format=%P").split()
    assert data["hash"] == git(repo, "rev-parse", "HEAD").strip()
    assert parents == [ours, git(repo, "rev-parse", "other").strip()]
    assert (data["files_changed"], data["insertions"], data["deletions"]) == (0, 0, 0)
    assert (repo / "a.txt").read_text(encoding="utf-8") == "ours\n"


# -- option-like values ----------------------------------------------------------------------------------------


async def test_an_option_like_rev_name_or_remote_is_refused_and_nothing_happens(client: Client, repo: Path) -> None:
    before = git(repo, "for-each-ref")
    for arguments, field in (
        ({"action": "diff", "rev": "--output=evil.txt"}, "rev"),
        ({"action": "log", "rev": "-x"}, "rev"),
        ({"action": "restore", "paths": ["a.txt"], "rev": "--orphan", "force": True}, "rev"),
        ({"action": "branch", "name": "--output=evil.txt"}, "name"),
        ({"action": "push", "remote": "--receive-pack=touch evil.txt"}, "remote"),
    ):
        result = await client.call_tool("git", arguments)
        assert error_code(result) == "invalid_params", arguments
        assert f"invalid {field}" in text_of(result)
    assert not (repo / "evil.txt").exists()
    assert git(repo, "for-each-ref") == before


# -- restore ---------------------------------------------------------------------------------------------------


async def test_an_unforced_restore_is_refused_and_the_working_tree_keeps_its_bytes(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_bytes(b"my precious edit\r\n")
    refused = await client.call_tool("git", {"action": "restore", "paths": ["a.txt"]})
    no_paths = await client.call_tool("git", {"action": "restore", "force": True})
    assert error_code(refused) == "risk_blocked"
    assert "force=true" in text_of(refused)
    assert error_code(no_paths) == "invalid_params"
    assert (repo / "a.txt").read_bytes() == b"my precious edit\r\n"


async def test_a_forced_restore_gives_each_file_the_executable_bit_git_records_as_git_restore_does(
    client: Client, repo: Path
) -> None:
    committed(repo, "x.sh", "echo x\n")
    (repo / "e.sh").write_text("echo e\n", encoding="utf-8")
    (repo / "e.sh").chmod(0o755)
    git(repo, "add", "e.sh")
    git(repo, "commit", "-q", "-m", "e")
    (repo / "x.sh").chmod(0o755)  # a mode-only change
    (repo / "e.sh").write_text("echo edited\n", encoding="utf-8")
    (repo / "e.sh").chmod(0o644)
    await call(client, action="restore", paths=["x.sh", "e.sh"], force=True)
    assert (repo / "e.sh").read_bytes() == b"echo e\n"
    assert ((repo / "x.sh").stat().st_mode & 0o111, (repo / "e.sh").stat().st_mode & 0o111) == (0, 0o111)
    assert git(repo, "status", "--porcelain") == ""


async def test_a_forced_restore_reverts_the_file_and_undo_last_brings_the_edit_back(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_bytes(b"my precious edit\r\n")
    data = await call(client, action="restore", paths=["a.txt"], force=True)
    assert (repo / "a.txt").read_bytes() == b"alpha\n"
    assert data["paths"] == [f"{repo}/a.txt"]
    assert [b["path"] for b in data["backups"]] == [f"{repo}/a.txt"]
    undo = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert undo["restored"][0]["path"] == f"{repo}/a.txt"
    assert (repo / "a.txt").read_bytes() == b"my precious edit\r\n"


async def test_a_staged_restore_unstages_without_touching_the_working_tree(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("staged edit\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    data = await call(client, action="restore", paths=["a.txt"], staged=True)
    assert staged_names(repo) == []
    assert (repo / "a.txt").read_text(encoding="utf-8") == "staged edit\n"
    assert "backups" not in data


async def test_a_staged_restore_unstages_in_a_repository_with_no_commits_yet(client: Client, root: Path) -> None:
    repo = make_repo(root, commit=False)
    (repo / "a.txt").write_text("first\n", encoding="utf-8")
    (repo / "d").mkdir()
    (repo / "d" / "c.txt").write_text("c\n", encoding="utf-8")
    git(repo, "add", "a.txt", "d")
    (repo / "a.txt").write_text("edited since\n", encoding="utf-8")  # git rm --cached alone keeps such an entry
    data = await call(client, action="restore", paths=["a.txt", "d"], staged=True)
    assert data["paths"] == [f"{repo}/a.txt", f"{repo}/d"]
    assert staged_names(repo) == []
    assert git(repo, "status", "--porcelain", "--untracked-files=all").splitlines() == ["?? a.txt", "?? d/c.txt"]
    assert (repo / "a.txt").read_text(encoding="utf-8") == "edited since\n"
    assert (repo / "d" / "c.txt").read_text(encoding="utf-8") == "c\n"


async def test_a_restore_from_an_older_revision_puts_that_version_back(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("version 2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "v2")
    data = await call(client, action="restore", paths=["a.txt"], rev="HEAD~1", force=True)
    assert (repo / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert data["source"] == "HEAD~1"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert (repo / "a.txt").read_text(encoding="utf-8") == "version 2\n"


async def test_a_restore_git_refuses_leaves_the_undo_chain_where_it_was(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_text("edit\n", encoding="utf-8")
    failed = await client.call_tool("git", {"action": "restore", "paths": ["a.txt", "nope.txt"], "force": True})
    assert error_code(failed) == "git_error"
    assert (repo / "a.txt").read_text(encoding="utf-8") == "edit\n"
    nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"})
    assert error_code(nothing) == "nothing_to_undo"


# -- branch ----------------------------------------------------------------------------------------------------


async def test_branch_lists_creates_switches_and_deletes(client: Client, repo: Path) -> None:
    listed = await call(client, action="branch")
    created = await call(client, action="branch", name="feature/x", checkout=True)
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "feature/x"
    back = await call(client, action="branch", name="main", checkout=True)
    deleted = await call(client, action="branch", name="feature/x")
    assert listed["branches"] == ["main"]
    assert listed["current"] == "main"
    assert (created["created"], created["switched"], created["current"]) == ("feature/x", True, "feature/x")
    assert back["switched"] is True
    assert deleted["deleted"] == "feature/x"
    assert deleted["deleted_commit"] == git(repo, "rev-parse", "HEAD").strip()
    assert git(repo, "branch", "--format=%(refname:short)").split() == ["main"]


async def test_a_branch_switch_past_the_files_it_can_lock_still_switches_under_a_small_open_file_limit(
    client: Client, repo: Path
) -> None:
    # Each file a switch locks keeps two descriptors open until git is done: 300 files under a limit with room for
    # 150 more ran out of them, and the switch failed.
    names = [f"f{number:03d}.txt" for number in range(300)]
    git(repo, "switch", "-q", "-c", "wide")
    for name in names:
        (repo / name).write_text(name, encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "wide")
    git(repo, "switch", "-q", "main")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (len(list(Path("/proc/self/fd").iterdir())) + 150, hard))
    try:
        switched = await client.call_tool("git", {"action": "branch", "name": "wide", "checkout": True})
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert structured(switched)["switched"] is True, text_of(switched)
    assert all((repo / name).read_text(encoding="utf-8") == name for name in names)


async def test_an_unmerged_branch_is_deleted_only_with_force(client: Client, repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "topic")
    git(repo, "commit", "-q", "--allow-empty", "-m", "topic work")
    tip = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "switch", "-q", "main")
    refused = await client.call_tool("git", {"action": "branch", "name": "topic"})
    assert error_code(refused) == "git_error"
    assert "force=true" in text_of(refused)
    assert tip[:12] in text_of(refused)
    assert "topic" in git(repo, "branch")
    forced = await call(client, action="branch", name="topic", force=True)
    assert forced["deleted_commit"] == tip
    assert "topic" not in git(repo, "branch")


async def test_deleting_the_checked_out_branch_is_refused_with_the_way_out(client: Client, repo: Path) -> None:
    refused = await client.call_tool("git", {"action": "branch", "name": "main", "force": True})
    assert error_code(refused) == "git_error"
    assert "Switch that one to another branch first" in text_of(refused)
    assert "pass checkout=true" not in text_of(refused)  # it is checked out already: switching to it changes nothing
    assert git(repo, "branch", "--format=%(refname:short)").split() == ["main"]


async def test_a_branch_before_the_first_commit_is_refused_with_the_way_forward(client: Client, root: Path) -> None:
    repo = make_repo(root, commit=False)
    refused = await client.call_tool("git", {"action": "branch", "name": "feature"})
    switched = await call(client, action="branch", name="feature", checkout=True)
    assert error_code(refused) == "invalid_params"
    assert "has no commits" in text_of(refused)
    assert "checkout=true" in text_of(refused)
    assert (switched["created"], switched["current"]) == ("feature", "feature")
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "feature"


# -- push ------------------------------------------------------------------------------------------------------


async def test_push_goes_to_a_bare_repository_and_replacing_its_history_needs_force_with_lease(
    client: Client, repo: Path
) -> None:
    git(repo.parent, "init", "-q", "--bare", str(repo / "remote.git"))
    git(repo, "remote", "add", "origin", "remote.git")
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    first = await call(client, action="push", name="main")
    assert (first["remote"], first["branch"], first["forced"]) == ("origin", "main", False)
    assert git(repo / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    published = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    refused = await client.call_tool("git", {"action": "push"})
    assert error_code(refused) == "git_error"
    assert "force=true" in text_of(refused)
    assert git(repo / "remote.git", "rev-parse", "main").strip() == published
    forced = await call(client, action="push", force=True)
    assert forced["forced"] is True
    assert git(repo / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


async def test_a_push_into_a_local_repository_outside_the_roots_is_refused(
    client: Client, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.git"
    git(tmp_path, "init", "-q", "--bare", str(outside))
    named = await client.call_tool("git", {"action": "push", "remote": str(outside), "name": "main"})
    git(repo, "remote", "add", "backup", str(outside))
    configured = await client.call_tool("git", {"action": "push", "remote": "backup", "name": "main"})
    assert error_code(named) == "access_denied"
    assert error_code(configured) == "access_denied"
    assert git(outside, "for-each-ref") == ""


# -- containment, init, environment ----------------------------------------------------------------------------


async def test_a_repository_around_the_root_is_refused(client: Client, root: Path, tmp_path: Path) -> None:
    make_repo(tmp_path, commit=False)
    result = await client.call_tool("git", {"action": "status"})
    assert error_code(result) == "access_denied"
    assert str(tmp_path) in text_of(result)


async def test_a_gitdir_file_pointing_outside_the_roots_is_refused(client: Client, root: Path, tmp_path: Path) -> None:
    outside = make_repo(tmp_path / "elsewhere")
    (root / ".git").write_text(f"gitdir: {outside / '.git'}\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "status"})
    assert error_code(result) == "access_denied"
    assert "git directory" in text_of(result)


async def test_a_path_outside_any_repository_says_how_to_create_one(client: Client, root: Path) -> None:
    result = await client.call_tool("git", {"action": "status"})
    assert error_code(result) == "not_a_repository"
    assert 'git(action="init"' in text_of(result)


async def test_init_creates_a_repository_in_a_new_directory_and_a_second_init_says_it_existed(
    client: Client, root: Path
) -> None:
    first = await call(client, action="init", path="project/sub")
    second = await call(client, action="init", path="project/sub")
    assert (root / "project" / "sub" / ".git" / "HEAD").is_file()
    assert first["repository"] == str(root / "project" / "sub")
    assert "reinitialized" not in first or first["reinitialized"] is False
    assert second["reinitialized"] is True


async def test_a_missing_git_binary_is_git_unavailable(
    client: Client, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = await client.call_tool("git", {"action": "status"})
    assert error_code(result) == "git_unavailable"
    assert "install git" in text_of(result).lower()


def running(stat: Path) -> bool:
    """Whether the process whose /proc/<pid>/stat this is still runs (neither gone nor a zombie)."""
    try:
        return stat.read_text(encoding="utf-8").rsplit(")", 1)[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_a_git_that_hangs_is_stopped_with_its_children_after_the_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    child = tmp_path / "child.pid"
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\n/bin/sleep 60 &\necho $! > {child}\nwait\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    process = GitProcess(cast(Safeguards, SimpleNamespace(beneath=Beneath((tmp_path,)))), timeout=0.5)
    started = time.monotonic()
    with pytest.raises(GitFailedError, match=r"did not finish within 0\.5 s"):
        process.run(tmp_path, ["status"])
    assert time.monotonic() - started < 10
    state = Path(f"/proc/{child.read_text(encoding='utf-8').strip()}/stat")
    with anyio.fail_after(5):  # SIGKILL is immediate; being reaped by init may take a moment
        while running(state):
            await anyio.sleep(0.01)


async def test_a_denying_pre_write_hook_stops_git_add(connect: ClientFactory, repo: Path, tmp_path: Path) -> None:
    deny = {"type": "command", "command": "echo frozen >&2; exit 2"}
    config = hook_config(tmp_path, {"pre-write": [{"pattern": "git", "hooks": [deny]}]})
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("git", {"action": "add", "paths": ["b.txt"]})
    assert error_code(result) == "hook_denied"
    assert staged_names(repo) == []


async def test_the_compact_voice_gives_one_line_status_and_commit(connect: ClientFactory, repo: Path) -> None:
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    async with connect(compact_mode=True) as client:
        status = text_of(await client.call_tool("git", {"action": "status"}))
        await client.call_tool("git", {"action": "add", "paths": ["a.txt"]})
        committed = text_of(await client.call_tool("git", {"action": "commit", "message": "c"}))
    assert status == f"{repo} (main) | +0 ~1 ?0 | dirty"
    assert committed.startswith("[main ")
    assert committed.endswith("] c | 1 file, +1 -1 | risk:LOW")


async def test_each_mutating_action_fires_its_hook_family_as_tool_git(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    record = python_hook(
        tmp_path, "record", f"open({str(log)!r}, 'a', encoding='utf-8').write(json.dumps(event) + '\\n')"
    )
    config = hook_config(
        tmp_path, {event: [{"hooks": [{"type": "command", "command": record}]}] for event in HOOK_EVENTS}
    )
    async with connect(hooks_config=config) as client:
        await call(client, action="init")
        identify(root)
        (root / "b.txt").write_text("b\n", encoding="utf-8")
        await call(client, action="add", paths=["b.txt"])
        await call(client, action="commit", message="first")
        await call(client, action="branch", name="topic")
        await call(client, action="branch", name="topic")
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert {e["tool_name"] for e in events} == {"git"}
    assert [(e["event"], e["operation"]) for e in events] == [
        ("pre-create", "init"),
        ("post-create", "init"),
        ("pre-write", "add"),
        ("post-write", "add"),
        ("pre-write", "commit"),
        ("post-write", "commit"),
        ("pre-create", "branch"),
        ("post-create", "branch"),
        ("pre-delete", "branch"),
        ("post-delete", "branch"),
    ]
    assert events[2]["file_path"] == f"{root}/b.txt"
    assert events[5]["metadata"]["commit_hash"] == git(root, "rev-parse", "HEAD").strip()


# -- repository internals are never written by the file tools ---------------------------------------------------

PLANTED = '#!/bin/sh\necho planted > "$(git rev-parse --show-toplevel)/../pwned"\n'


async def test_file_tools_refuse_to_plant_a_hook_that_a_commit_would_run(
    client: Client, repo: Path, tmp_path: Path
) -> None:
    hooks_before = sorted(p.name for p in (repo / ".git" / "hooks").iterdir())
    config_before = (repo / ".git" / "config").read_bytes()
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "pre-commit").write_text(PLANTED, encoding="utf-8")
    (repo / "staging").mkdir()
    (repo / "staging" / "pre-commit").write_text(PLANTED, encoding="utf-8")

    attempts: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": ".git/hooks/pre-commit", "content": PLANTED}),
        ("edit_file", {"path": ".git/config", "old_text": "[core]", "new_text": "[core]\n\thooksPath = staging"}),
        ("move_file", {"source_path": "staging/pre-commit", "dest_path": ".git/hooks/pre-commit"}),
        ("copy_file", {"source_path": "staging", "dest_path": "sub/.git"}),
        ("batch_operations", {"request_json": [{"type": "write", "path": ".git/hooks/post-commit", "content": "x"}]}),
    ]
    for tool, arguments in attempts:
        result = await client.call_tool(tool, arguments)
        assert error_code(result) in ("access_denied", "batch_failed"), (tool, text_of(result))
        assert ".git" in text_of(result)

    assert sorted(p.name for p in (repo / ".git" / "hooks").iterdir()) == hooks_before
    assert (repo / ".git" / "config").read_bytes() == config_before
    assert not (repo / "sub").exists()
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    await call(client, action="add", paths=["b.txt"])
    await call(client, action="commit", message="no hook ran")
    assert not (tmp_path / "pwned").exists()
    assert not (repo.parent / "pwned").exists()


async def test_repository_hooks_run_only_when_the_operator_allows_them(
    connect: ClientFactory, repo: Path, tmp_path: Path
) -> None:
    # husky-style: the hooks live in the working tree, where any file tool can write them
    git(repo, "config", "core.hooksPath", ".githooks")
    hook = repo / ".githooks" / "pre-commit"
    hook.parent.mkdir()
    hook.write_text(f"#!/bin/sh\necho ran >> '{tmp_path / 'hook-ran'}'\n", encoding="utf-8")
    hook.chmod(0o755)
    for allowed, message in ((False, "hooks off"), (True, "hooks on")):
        (repo / "a.txt").write_text(f"{message}\n", encoding="utf-8")
        async with connect(git_hooks=allowed) as client:
            await call(client, action="add", paths=["a.txt"])
            committed = await call(client, action="commit", message=message)
        assert git(repo, "log", "-1", "--format=%s").strip() == committed["commit"]["subject"] == message
        ran = (
            (tmp_path / "hook-ran").read_text(encoding="utf-8").count("ran") if (tmp_path / "hook-ran").exists() else 0
        )
        assert ran == (1 if allowed else 0)


async def test_a_forced_restore_of_a_tracked_link_names_what_the_link_pointed_to(client: Client, repo: Path) -> None:
    (repo / "lnk").symlink_to("a.txt")
    git(repo, "add", "lnk")
    git(repo, "commit", "-q", "-m", "link")
    (repo / "lnk").unlink()
    (repo / "lnk").symlink_to("my precious target")
    data = await call(client, action="restore", paths=["lnk"], force=True)
    assert (repo / "lnk").readlink() == Path("a.txt")
    assert data["backups"] == []
    assert "lnk -> my precious target" in data["note"]
    assert "lnk -> my precious target" in data["message"]
