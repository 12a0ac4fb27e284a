"""The git tool's corners on real repositories, in both protocol eras: binary files shown, answers cut at the response
budget, files at reflog revisions, empty ranges, a branch only a remote has, a branch named like a tag, a detached
HEAD, a tracked file whose folder is gone, the index after a restore through line-ending filters.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_git import call, git, make_repo, staged_names

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\xfd" * 40


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


# -- binary files ----------------------------------------------------------------------------------------------------


async def test_show_of_a_binary_file_at_a_revision_gives_its_size_and_how_to_get_it_never_its_bytes(
    client: Client, repo: Path
) -> None:
    (repo / "image.png").write_bytes(PNG)
    git(repo, "add", "image.png")
    git(repo, "commit", "-qm", "image")
    shown = await client.call_tool("git", {"action": "show", "rev": "HEAD:image.png"})
    data = structured(shown)
    assert data["binary"] is True
    assert data["size"] == len(PNG)
    assert "patch" not in data
    words = text_of(shown)
    assert "\ufffd" not in words
    assert "IHDR" not in words
    assert words.startswith("Binary file (")
    assert 'git(action="restore", rev="HEAD", paths=["image.png"], force=true)' in words
    assert 'encoding="base64"' in words
    commit = await call(client, action="show", rev="HEAD", output="full")
    assert "Binary files /dev/null and b/image.png differ" in commit["patch"]
    assert commit["files"][0]["binary"] is True


async def test_show_of_a_binary_file_in_the_index_names_a_restore_from_the_index(client: Client, repo: Path) -> None:
    (repo / "image.png").write_bytes(PNG)
    git(repo, "add", "image.png")
    data = await call(client, action="show", rev=":image.png")
    assert data["binary"] is True
    assert 'git(action="restore", paths=["image.png"], force=true)' in data["note"]
    text = await call(client, action="show", rev=":a.txt")
    assert text["patch"] == "alpha\n"
    assert "binary" not in text


# -- reflog revisions ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rev", "content"), [("main@{0}:a.txt", "beta\n"), ("HEAD@{1}:a.txt", "alpha\n")])
async def test_show_of_a_file_at_a_reflog_revision_gives_its_content_not_the_commit(
    client: Client, repo: Path, rev: str, content: str
) -> None:
    (repo / "a.txt").write_text("beta\n", encoding="utf-8")
    git(repo, "commit", "-qam", "second")
    data = await call(client, action="show", rev=rev)
    assert data["patch"] == content == git(repo, "show", rev)
    assert "commit" not in data


# -- the response budget ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["diff", "show", "file"])
async def test_one_huge_line_is_cut_at_the_response_budget_with_a_note_saying_how_to_see_more(
    connect: ClientFactory, repo: Path, action: str
) -> None:
    (repo / "app.min.js").write_text("var a=1;" * 2_000 + "\n", encoding="utf-8")
    git(repo, "add", "app.min.js")
    git(repo, "commit", "-qm", "bundle")
    (repo / "app.min.js").write_text("var b=2;" + "é" * 40_000 + "\n", encoding="utf-8")
    if action != "diff":
        git(repo, "commit", "-qam", "rebuilt")
    arguments = {
        "diff": {"action": "diff", "output": "full"},
        "show": {"action": "show", "rev": "HEAD", "output": "full"},
        "file": {"action": "show", "rev": "HEAD:app.min.js"},
    }[action]
    async with connect(max_response_bytes=4096) as client:
        answer = await client.call_tool("git", arguments)
    data = structured(answer)
    assert data["truncated"] is True
    assert len(data["patch"].encode("utf-8")) <= 4096
    assert len(data["patch"]) > 1000  # cut at the budget, not at nothing
    assert "\ufffd" not in data["patch"]  # no character split at the cut
    assert "--max-response-bytes" in data["note"]
    assert len(text_of(answer).encode("utf-8")) < 4096 + 1000
    assert text_of(answer).endswith(f"[{data['note']}]")


def _long_file(repo: Path) -> None:
    """a.txt rewritten as 2,000 lines: its patch is past the compact voice's 10,000 characters and 200 lines."""
    (repo / "a.txt").write_text("".join(f"line {i} of a long file\n" for i in range(2_000)), encoding="utf-8")


async def test_the_compact_voices_cut_of_a_patch_is_the_results_patch_marked_truncated(
    connect: ClientFactory, repo: Path
) -> None:
    _long_file(repo)
    async with connect(compact_mode=True) as client:
        answer = await client.call_tool("git", {"action": "diff", "output": "full", "max_lines": 100_000})
    data = structured(answer)
    assert len(data["patch"]) == 10_000
    assert data["truncated"] is True
    assert "10,000 characters" in data["note"]
    assert data["patch"].rstrip("\n") in text_of(answer)
    assert text_of(answer).endswith(f"[{data['note']}]")


async def test_the_cut_note_of_a_one_file_patch_never_offers_paths_and_raises_max_lines_only_where_it_shows_more(
    connect: ClientFactory, repo: Path
) -> None:
    _long_file(repo)
    async with connect(compact_mode=True) as client:
        cut = await call(client, action="diff", output="full", paths=["a.txt"])
        raised = await call(client, action="diff", output="full", paths=["a.txt"], max_lines=100_000)
    assert cut["note"] == 'Patch cut at 200 of 2006 lines: raise max_lines, or use output="stat" for the summary.'
    assert len(raised["patch"]) == 10_000
    assert raised["note"] == (
        "Patch cut at 10,000 characters (the compact voice's limit): no argument returns more of it; "
        'use output="stat" for the summary.'
    )


# -- log -------------------------------------------------------------------------------------------------------------


async def test_log_of_an_empty_range_names_the_range_not_an_empty_repository(client: Client, repo: Path) -> None:
    data = await call(client, action="log", rev="HEAD..HEAD")
    assert data["commits"] == []
    assert data["message"] == "No commits in the range HEAD..HEAD."
    untouched = await call(client, action="log", paths=["never.txt"])
    assert untouched["message"] == "No commits touching never.txt."


# -- branch ----------------------------------------------------------------------------------------------------------


def cloned(root: Path) -> Path:
    """A clone inside ``root`` of a repository there whose branch ``feature`` holds a commit main lacks."""
    upstream = make_repo(root / "upstream")
    git(upstream, "switch", "-q", "-c", "feature")
    (upstream / "feature.txt").write_text("feature\n", encoding="utf-8")
    git(upstream, "add", "feature.txt")
    git(upstream, "commit", "-qm", "feature")
    git(upstream, "switch", "-q", "main")
    git(root, "clone", "-q", str(upstream), "work")
    return root / "work"


async def test_checkout_of_a_branch_only_the_remote_has_starts_it_there_and_tracks_it(
    client: Client, root: Path
) -> None:
    work = cloned(root)
    data = await call(client, action="branch", name="feature", checkout=True, path=str(work))
    assert data["created"] == "feature"
    assert data["upstream"] == "origin/feature"
    assert "tracking origin/feature" in data["message"]
    assert git(work, "rev-parse", "HEAD") == git(work, "rev-parse", "origin/feature")
    assert git(work, "rev-parse", "--abbrev-ref", "feature@{upstream}").strip() == "origin/feature"
    assert (work / "feature.txt").read_bytes() == b"feature\n"


async def test_checkout_of_a_branch_two_remotes_have_asks_which_unless_one_is_the_default_remote(
    client: Client, root: Path
) -> None:
    work = cloned(root)
    git(work, "remote", "add", "mirror", str(root / "upstream"))
    git(work, "fetch", "-q", "mirror")
    answer = await client.call_tool("git", {"action": "branch", "name": "feature", "checkout": True, "path": str(work)})
    assert error_code(answer) == "invalid_params"
    assert "(mirror/feature, origin/feature)" in text_of(answer)
    assert git(work, "branch", "--show-current").strip() == "main"
    assert not (work / "feature.txt").exists()
    git(work, "config", "checkout.defaultRemote", "mirror")
    data = await call(client, action="branch", name="feature", checkout=True, path=str(work))
    assert data["upstream"] == "mirror/feature"
    assert git(work, "rev-parse", "--abbrev-ref", "feature@{upstream}").strip() == "mirror/feature"


# -- branch names and a detached HEAD --------------------------------------------------------------------------------


async def test_a_branch_named_like_a_tag_is_listed_and_switched_to_by_its_own_name(client: Client, repo: Path) -> None:
    git(repo, "tag", "v1")
    git(repo, "branch", "v1")
    listed = await call(client, action="branch")
    assert listed["branches"] == ["main", "v1"]
    assert "heads/" not in listed["message"]
    switched = await call(client, action="branch", name=listed["branches"][1], checkout=True)
    assert (switched["switched"], switched["current"], switched["branches"]) == (True, "v1", ["main", "v1"])
    assert "* v1" in switched["message"]
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/v1"


async def test_the_branch_list_on_a_detached_head_names_the_commit_it_is_at(client: Client, repo: Path) -> None:
    git(repo, "switch", "-q", "--detach")
    head = git(repo, "rev-parse", "HEAD").strip()
    listed = await client.call_tool("git", {"action": "branch"})
    data = structured(listed)
    assert (data["branches"], data["detached_at"]) == (["main"], head)
    assert "current" not in data
    assert text_of(listed).splitlines() == [f"* (HEAD detached at {head[:12]})", "  main"]
    switched = await call(client, action="branch", name="main", checkout=True)
    assert (switched["current"], "detached_at" in switched) == ("main", False)


# -- a tracked file whose folder is gone -----------------------------------------------------------------------------


def folder_removed(repo: Path) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("guide\n", encoding="utf-8")
    git(repo, "add", "docs")
    git(repo, "commit", "-qm", "docs")
    shutil.rmtree(repo / "docs")


async def test_add_of_a_tracked_file_whose_folder_was_deleted_stages_its_removal(client: Client, repo: Path) -> None:
    folder_removed(repo)
    data = await call(client, action="add", paths=["docs/guide.md"])
    assert data["paths"] == [f"{repo}/docs/guide.md"]
    assert git(repo, "diff", "--cached", "--name-status").splitlines() == ["D\tdocs/guide.md"]


async def test_commit_with_paths_of_a_tracked_file_whose_folder_was_deleted_commits_its_removal(
    client: Client, repo: Path
) -> None:
    folder_removed(repo)
    await call(client, action="commit", paths=["docs/guide.md"], message="drop the guide")
    assert git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines() == ["a.txt"]
    assert staged_names(repo) == []
    assert git(repo, "status", "--porcelain") == ""


async def test_diff_of_a_tracked_file_whose_folder_was_deleted_shows_the_deletion(client: Client, repo: Path) -> None:
    folder_removed(repo)
    data = await call(client, action="diff", paths=["docs/guide.md"], output="full")
    assert data["deletions"] == 1
    assert "deleted file mode 100644" in data["patch"]
    assert "-guide" in data["patch"]


# -- restore under line-ending filters -------------------------------------------------------------------------------


async def test_a_forced_restore_through_a_line_ending_filter_leaves_the_index_fresh(client: Client, repo: Path) -> None:
    (repo / "notes.txt").write_bytes(b"one\ntwo\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-qm", "notes")
    (repo / ".gitattributes").write_text("*.txt text eol=crlf\n", encoding="utf-8")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "crlf")
    (repo / "notes.txt").write_bytes(b"edited\n")
    await call(client, action="restore", paths=["notes.txt"], force=True)
    assert (repo / "notes.txt").read_bytes() == b"one\r\ntwo\r\n"
    status = await call(client, action="status")
    assert status["unstaged"] == []
    assert status["clean"] is True
    assert git(repo, "diff-files", "--name-only") == ""


async def test_status_lists_untracked_files_when_the_repository_config_hides_them(client: Client, repo: Path) -> None:
    git(repo, "config", "status.showUntrackedFiles", "no")
    (repo / "new_work.txt").write_text("important\n", encoding="utf-8")
    (repo / "fresh").mkdir()
    (repo / "fresh" / "x.txt").write_text("x\n", encoding="utf-8")
    listed = await call(client, action="status")
    assert listed["clean"] is False
    assert listed["untracked"] == [str(repo / "fresh") + "/", str(repo / "new_work.txt")]


async def test_show_of_a_folder_judges_and_lists_a_name_holding_a_line_break_as_one_name(
    client: Client, repo: Path
) -> None:
    (repo / "d").mkdir()
    (repo / "d" / "new\nline.pem").write_text("PEM\n", encoding="utf-8")  # hidden by the default rules (*.pem)
    (repo / "d" / "two\nlines.txt").write_text("x\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd names")
    shown = await call(client, action="show", rev="HEAD:d")
    assert shown["patch"].splitlines()[2:] == ["two\\u000alines.txt"]
    assert shown["denied"] == 1


@pytest.mark.parametrize("rev", ["HEAD^!", "HEAD^-1", "HEAD~1..HEAD"])
async def test_diff_reads_each_spelling_of_a_commit_range_as_two_commits(client: Client, repo: Path, rev: str) -> None:
    (repo / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    git(repo, "commit", "-q", "-a", "-m", "beta")
    (repo / "b.txt").write_text("uncommitted\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    compared = await call(client, action="diff", rev=rev)
    assert [(f["path"], f["added"], f["deleted"]) for f in compared["files"]] == [(str(repo / "a.txt"), 1, 0)]


async def test_log_output_full_gives_each_commit_its_whole_message(client: Client, repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "subject line\n\nthe body\nsecond line")
    full = await client.call_tool("git", {"action": "log", "limit": 2, "output": "full"})
    commits = structured(full)["commits"]
    assert [(c["subject"], c.get("body")) for c in commits] == [
        ("subject line", "the body\nsecond line"),
        ("init", None),
    ]
    assert "    the body" in text_of(full)
    assert "body" not in structured(await client.call_tool("git", {"action": "log", "limit": 2}))["commits"][0]


async def test_show_in_a_repository_with_no_commits_says_there_are_none_yet(client: Client, root: Path) -> None:
    make_repo(root, commit=False)
    result = await client.call_tool("git", {"action": "show", "rev": "HEAD"})
    assert error_code(result) == "git_error"
    assert "no commits yet" in text_of(result)
