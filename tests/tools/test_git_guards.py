"""The git tool under the guards of the file tools: no program an agent wrote runs, hidden files are never shown,
staged or rewritten, and read-only roots stay unchanged, whatever git itself would do. Both protocol eras."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_git import call, git, make_repo, staged_names

pytestmark = pytest.mark.anyio

SECRET = "API_KEY=do-not-print\n"


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def plant_bare_layout(directory: Path, marker: Path) -> None:
    """What an agent can write with write_file: a repository layout whose config runs a program on git add."""
    for name in ("objects", "refs"):
        (directory / name).mkdir(parents=True, exist_ok=True)
    (directory / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (directory / "config").write_text(
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = {directory}\n"
        f'[filter "x"]\n\tclean = "touch {marker} && cat"\n',
        encoding="utf-8",
    )
    (directory / ".gitattributes").write_text("* filter=x\n", encoding="utf-8")
    (directory / "a.txt").write_text("hi\n", encoding="utf-8")


async def test_git_refuses_a_directory_whose_git_is_empty_instead_of_running_the_config_beside_it(
    client: Client, root: Path, tmp_path: Path
) -> None:
    sub = root / "sub"
    (sub / ".git").mkdir(parents=True)
    marker = tmp_path / "ran"
    plant_bare_layout(sub, marker)
    result = await client.call_tool("git", {"action": "add", "path": str(sub), "paths": ["a.txt"]})
    assert error_code(result) == "not_a_repository"
    assert not marker.exists()
    assert sorted(path.name for path in (sub / ".git").iterdir()) == []


async def test_git_refuses_a_repository_whose_head_is_gone_instead_of_taking_its_top_for_a_bare_one(
    client: Client, repo: Path, tmp_path: Path
) -> None:
    (repo / ".git" / "HEAD").unlink()
    marker = tmp_path / "ran"
    plant_bare_layout(repo, marker)
    for action in ({"action": "add", "paths": ["a.txt"]}, {"action": "status"}):
        assert error_code(await client.call_tool("git", action)) == "not_a_repository"
    assert not marker.exists()


@pytest.fixture
def secret_repo(repo: Path) -> Path:
    """The repository with a committed .env (hidden by the default deny rules) changed since, beside a.txt."""
    (repo / ".env").write_text(SECRET, encoding="utf-8")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env")
    (repo / ".env").write_text("API_KEY=changed-locally\n", encoding="utf-8")
    (repo / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize(
    "rev",
    ["HEAD:.env", "HEAD:./.env", ":.env", ":0:.env", "HEAD~0:sub/../.env", "HEAD^{/:*}:.env", "main@{0}:.env"],
)
async def test_show_refuses_a_hidden_file_at_any_revision(client: Client, secret_repo: Path, rev: str) -> None:
    result = await client.call_tool("git", {"action": "show", "rev": rev})
    assert error_code(result) == "access_denied"
    assert "do-not-print" not in text_of(result)


async def test_show_refuses_a_file_named_by_its_object_id_alone(client: Client, secret_repo: Path) -> None:
    blob = git(secret_repo, "rev-parse", "HEAD:.env").strip()
    result = await client.call_tool("git", {"action": "show", "rev": blob[:10]})
    assert error_code(result) == "invalid_params"
    assert "do-not-print" not in text_of(result)


async def test_show_refuses_a_folder_named_by_its_object_id_so_a_name_inside_it_cannot_pass_the_rules(
    client: Client, repo: Path
) -> None:
    # Under the folder's own id, .aws/credentials is plain "credentials", which no rule hides.
    (repo / ".aws").mkdir()
    (repo / ".aws" / "credentials").write_text(SECRET, encoding="utf-8")
    git(repo, "add", "-f", ".aws/credentials")
    git(repo, "commit", "-q", "-m", "aws")
    folder = git(repo, "rev-parse", "HEAD:.aws").strip()
    git(repo, "tag", "-a", "folder", "-m", "a tag to a folder", folder)
    for rev in (f"{folder}:credentials", "folder:credentials", folder[:10], "folder", "folder^{}"):
        result = await client.call_tool("git", {"action": "show", "rev": rev})
        assert error_code(result) == "invalid_params", rev
        assert "do-not-print" not in text_of(result)
        assert "\ncredentials" not in text_of(result)
    # A commit's top folder still lists paths from the top, judged by the rules.
    top = await call(client, action="show", rev="HEAD^{tree}")
    assert top["patch"].splitlines()[2:] == [".aws/", "a.txt"]
    inside = await call(client, action="show", rev="HEAD^{tree}:.aws")
    assert (inside["patch"].splitlines()[2:], inside["denied"]) == ([], 1)


@pytest.mark.parametrize("rev", ["HEAD~1..HEAD", "HEAD^!", "HEAD~1...HEAD", "HEAD^@"])
async def test_show_refuses_a_range_which_git_would_print_whole(client: Client, secret_repo: Path, rev: str) -> None:
    result = await client.call_tool("git", {"action": "show", "rev": rev, "output": "full"})
    assert error_code(result) == "invalid_params"
    assert "do-not-print" not in text_of(result)


@pytest.mark.parametrize("rev", ["HEAD:.env..HEAD:a.txt", "BLOB..HEAD:a.txt", "HEAD..BLOB", "HEAD:..HEAD~1:"])
async def test_diff_refuses_revisions_that_name_files_or_folders(client: Client, secret_repo: Path, rev: str) -> None:
    blob = git(secret_repo, "rev-parse", "HEAD:.env").strip()
    result = await client.call_tool("git", {"action": "diff", "rev": rev.replace("BLOB", blob), "output": "full"})
    assert error_code(result) == "invalid_params"
    assert "do-not-print" not in text_of(result)


async def test_diff_of_a_commit_range_leaves_the_hidden_file_out(client: Client, secret_repo: Path) -> None:
    diffed = await call(client, action="diff", rev="HEAD~1..HEAD", output="full")
    assert diffed["files"] == []
    assert diffed["denied"] == 1
    assert "do-not-print" not in str(diffed)


async def test_diff_show_and_status_leave_hidden_files_out_and_count_them(client: Client, secret_repo: Path) -> None:
    diffed = await call(client, action="diff", output="full")
    assert [change["path"] for change in diffed["files"]] == [f"{secret_repo}/a.txt"]
    assert "+beta" in diffed["patch"]
    assert ".env" not in diffed["patch"]
    assert diffed["denied"] == 1
    shown = await call(client, action="show", rev="HEAD", output="full")
    assert shown["files"] == []
    assert shown["patch"] == ""
    assert "do-not-print" not in str(shown)
    assert shown["denied"] == 1
    status = await call(client, action="status")
    assert status["unstaged"] == [f"{secret_repo}/a.txt"]
    assert status["counts"]["unstaged"] == 1
    assert status["denied"] == 1
    tree = await call(client, action="show", rev="HEAD:")
    assert tree["patch"].splitlines()[2:] == ["a.txt"]


async def test_add_refuses_to_stage_a_hidden_file_even_through_a_directory(client: Client, secret_repo: Path) -> None:
    for paths in ([".env"], ["."]):
        result = await client.call_tool("git", {"action": "add", "paths": paths})
        assert error_code(result) == "access_denied"
    assert staged_names(secret_repo) == []
    # A name the agent did not send is never told (status and diff only count it): only the rule is.
    assert ".env" not in text_of(result).replace("'.env'", "")
    assert "a file the deny rule '.env' hides (not named here)" in text_of(result)


async def test_commit_of_paths_refuses_to_take_a_hidden_files_working_tree_bytes(
    client: Client, secret_repo: Path
) -> None:
    head = git(secret_repo, "rev-parse", "HEAD")
    result = await client.call_tool("git", {"action": "commit", "message": "all", "paths": ["."]})
    assert error_code(result) == "access_denied"
    assert git(secret_repo, "rev-parse", "HEAD") == head


async def test_restore_refuses_to_overwrite_a_hidden_file(client: Client, secret_repo: Path) -> None:
    result = await client.call_tool("git", {"action": "restore", "paths": ["."], "force": True})
    assert error_code(result) == "access_denied"
    assert (secret_repo / ".env").read_text(encoding="utf-8") == "API_KEY=changed-locally\n"
    assert (secret_repo / "a.txt").read_text(encoding="utf-8") == "alpha\nbeta\n"


async def test_switching_branch_refuses_to_rewrite_a_hidden_file(client: Client, repo: Path) -> None:
    git(repo, "switch", "-q", "-c", "other")
    (repo / ".env").write_text(SECRET, encoding="utf-8")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env on other")
    git(repo, "switch", "-q", "main")
    result = await client.call_tool("git", {"action": "branch", "name": "other", "checkout": True})
    assert error_code(result) == "access_denied"
    assert "(not named here)" in text_of(result)  # a file only the other branch holds: its name is no one's to learn
    assert ".env" not in text_of(result).replace("'.env'", "")
    # The next action fits a switch, which names no paths to leave out.
    assert "Switch to a branch that leaves that file as it is" in text_of(result)
    assert "paths" not in text_of(result)
    assert git(repo, "branch", "--show-current").strip() == "main"
    assert not (repo / ".env").exists()


async def test_switching_to_a_branch_named_like_a_tag_judges_the_branch_not_the_tag(client: Client, repo: Path) -> None:
    git(repo, "tag", "v1")  # at main, where .env is not: compared with it, the switch would rewrite nothing
    git(repo, "switch", "-q", "-c", "v1")
    (repo / ".env").write_text(SECRET, encoding="utf-8")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env on v1")
    git(repo, "switch", "-q", "main")
    result = await client.call_tool("git", {"action": "branch", "name": "v1", "checkout": True})
    assert error_code(result) == "access_denied"
    assert git(repo, "branch", "--show-current").strip() == "main"
    assert not (repo / ".env").exists()


async def test_git_never_changes_a_read_only_root_nested_in_the_working_tree(
    connect: ClientFactory, repo: Path
) -> None:
    vendor = repo / "vendor"
    vendor.mkdir()
    (vendor / "lib.txt").write_text("v1\n", encoding="utf-8")
    git(repo, "add", "vendor/lib.txt")
    git(repo, "commit", "-q", "-m", "vendor")
    (vendor / "lib.txt").write_text("v2, the user's uncommitted work\n", encoding="utf-8")
    async with connect(read_only_roots=(vendor,)) as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["vendor/lib.txt"], "force": True})
        assert error_code(result) == "read_only"
    assert (vendor / "lib.txt").read_text(encoding="utf-8") == "v2, the user's uncommitted work\n"


async def test_push_refuses_a_local_remote_in_a_read_only_root(connect: ClientFactory, repo: Path) -> None:
    shared = repo.parent / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", str(shared)], check=True)
    before = sorted(path.relative_to(shared) for path in shared.rglob("*"))
    async with connect(read_only_roots=(shared,)) as client:
        result = await client.call_tool("git", {"action": "push", "remote": str(shared), "name": "main"})
        assert error_code(result) == "read_only"
    assert sorted(path.relative_to(shared) for path in shared.rglob("*")) == before


@pytest.mark.parametrize(
    "spelled",
    ["file://localhost{shared}", "file://anyhost{shared}", "file://{repo}/%2E%2E/shared.git", "mirror:shared.git"],
)
async def test_push_refuses_a_read_only_repository_however_git_is_told_its_url(
    connect: ClientFactory, repo: Path, spelled: str
) -> None:
    # git skips a file:// URL's host, decodes its %-escapes and applies the url.<base>.insteadOf rewrites: each
    # spelling pushed into the read-only root, judged as written (a folder under the repository, or a network URL).
    shared = repo.parent / "shared.git"
    subprocess.run(["git", "init", "-q", "--bare", str(shared)], check=True)
    git(repo, "config", f"url.{repo.parent}/.insteadOf", "mirror:")  # the user's config, not the agent's
    before = sorted(path.relative_to(shared) for path in shared.rglob("*"))
    remote = spelled.format(shared=shared, repo=repo)
    async with connect(read_only_roots=(shared,)) as client:
        result = await client.call_tool("git", {"action": "push", "remote": remote, "name": "main"})
        assert error_code(result) == "read_only", text_of(result)
    assert sorted(path.relative_to(shared) for path in shared.rglob("*")) == before


async def test_push_refuses_a_repository_outside_the_roots_named_through_a_push_rewrite(
    connect: ClientFactory, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.git"
    subprocess.run(["git", "init", "-q", "--bare", str(outside)], check=True)
    git(repo, "config", f"url.{tmp_path}/.pushInsteadOf", "backup:")
    async with connect() as client:
        result = await client.call_tool("git", {"action": "push", "remote": "backup:outside.git", "name": "main"})
        assert error_code(result) == "access_denied", text_of(result)
    assert git(outside, "for-each-ref") == ""


async def test_a_linked_worktree_still_works_with_the_repository_named_explicitly(client: Client, repo: Path) -> None:
    linked = repo / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "-b", "side")
    (linked / "a.txt").write_text("alpha\nside\n", encoding="utf-8")
    status = await call(client, action="status", path=str(linked))
    assert status["repository"] == str(linked)
    assert status["branch"] == "side"
    assert status["unstaged"] == [f"{linked}/a.txt"]


async def test_pathspec_magic_is_a_literal_name_so_it_never_reaches_a_hidden_file(
    client: Client, secret_repo: Path
) -> None:
    for paths in ([":(glob).e*"], [":(icase).ENV"]):
        assert (await call(client, action="log", paths=paths))["commits"] == []
        result = await client.call_tool("git", {"action": "restore", "paths": paths, "staged": True, "rev": "HEAD~1"})
        assert result.is_error
    assert staged_names(secret_repo) == []


async def test_commit_refuses_a_hidden_file_someone_staged(client: Client, secret_repo: Path) -> None:
    git(secret_repo, "add", "-f", ".env")
    head = git(secret_repo, "rev-parse", "HEAD")
    result = await client.call_tool("git", {"action": "commit", "message": "all staged"})
    assert error_code(result) == "access_denied"
    assert git(secret_repo, "rev-parse", "HEAD") == head


async def test_a_push_into_a_bare_repository_made_of_plain_files_runs_none_of_its_commands(
    client: Client, repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    evil = repo / "evil"
    (evil / "refs" / "heads").mkdir(parents=True)
    (evil / "objects" / "info").mkdir(parents=True)
    (evil / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (evil / "objects" / "info" / "alternates").write_text(f"{repo / '.git' / 'objects'}\n", encoding="utf-8")
    (evil / "config").write_text(
        f'[core]\n\trepositoryformatversion = 0\n\tbare = true\n\talternateRefsCommand = "touch {marker}; true"\n',
        encoding="utf-8",
    )
    hooks = evil / "hooks"
    hooks.mkdir()
    (hooks / "pre-receive").write_text(f"#!/bin/sh\ntouch {marker}\n", encoding="utf-8")
    (hooks / "pre-receive").chmod(0o755)
    pushed = await call(client, action="push", remote=str(evil), name="main")
    assert pushed["updates"] == ["main -> main [new branch]"]
    assert git(evil, "rev-parse", "main") == git(repo, "rev-parse", "main")
    assert not marker.exists()


async def test_a_missing_path_outside_any_repository_is_not_found_and_advises_no_init(
    client: Client, root: Path
) -> None:
    result = await client.call_tool("git", {"action": "status", "path": "nope"})
    assert error_code(result) == "not_found"
    assert "nope does not exist" in text_of(result)
    assert "init" not in text_of(result)
    assert not (root / ".git").exists()


async def test_a_read_only_root_outside_any_repository_advises_no_init_that_would_be_refused(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    async with connect(read_only_roots=(shelf,)) as client:
        result = await client.call_tool("git", {"action": "status", "path": str(shelf)})
        init = await client.call_tool("git", {"action": "init", "path": str(shelf)})
    assert error_code(result) == "not_a_repository"
    assert "read-only root" in text_of(result)
    assert 'action="init"' not in text_of(result)
    assert error_code(init) == "read_only"  # what following the old advice led to
    assert list(shelf.iterdir()) == []


async def test_a_push_to_a_remote_the_repository_lacks_says_so_instead_of_advising_a_push_that_fails_alike(
    client: Client, repo: Path
) -> None:
    plain = await client.call_tool("git", {"action": "push"})
    named = await client.call_tool("git", {"action": "push", "name": "main"})
    for result in (plain, named):
        assert error_code(result) == "git_error"
        assert "has no remote 'origin'" in text_of(result)
        assert 'git(action="push"' not in text_of(result)  # what the old advice said, and it failed the same way
        assert "--set-upstream" not in text_of(result)  # git's advice for its own command line
    assert git(repo, "remote").strip() == ""


async def test_a_push_of_a_branch_without_upstream_advises_a_push_that_works(client: Client, repo: Path) -> None:
    git(repo.parent, "init", "-q", "--bare", str(repo / "remote.git"))
    git(repo, "remote", "add", "origin", "remote.git")
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    refused = await client.call_tool("git", {"action": "push"})
    assert error_code(refused) == "git_error"
    assert 'git(action="push", name="main")' in text_of(refused)
    assert "--set-upstream" not in text_of(refused)
    followed = await client.call_tool("git", {"action": "push", "name": "main"})
    assert not followed.is_error, text_of(followed)
    assert git(repo / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "HEAD")


@pytest.mark.parametrize("source", ["HEAD:deploy/.aws", "HEAD^{tree}:deploy/.aws", "HEAD~0..HEAD"])
@pytest.mark.parametrize("how", [{"staged": True}, {"force": True}])
async def test_restore_refuses_a_revision_that_is_no_commit_so_a_hidden_file_never_returns_under_another_name(
    client: Client, repo: Path, source: str, how: dict[str, bool]
) -> None:
    # From a folder, git takes names relative to it: deploy/.aws/credentials (hidden) would become credentials.
    (repo / "deploy" / ".aws").mkdir(parents=True)
    (repo / "deploy" / ".aws" / "credentials").write_text(SECRET, encoding="utf-8")
    (repo / "credentials").write_text("placeholder\n", encoding="utf-8")
    git(repo, "add", "-f", "deploy/.aws/credentials", "credentials")
    git(repo, "commit", "-q", "-m", "credentials")
    staged = git(repo, "ls-files", "-s", "credentials")
    result = await client.call_tool("git", {"action": "restore", "paths": ["credentials"], "rev": source, **how})
    assert error_code(result) == "invalid_params"
    assert git(repo, "ls-files", "-s", "credentials") == staged
    assert (repo / "credentials").read_text(encoding="utf-8") == "placeholder\n"
    shown = await client.call_tool("git", {"action": "show", "rev": ":credentials"})
    assert "do-not-print" not in text_of(shown)


@pytest.mark.parametrize("remote", ["~/victim.git", "file://~/victim.git", "~/victim"])
async def test_push_refuses_a_remote_git_reads_as_a_home_directory(
    client: Client, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, remote: str
) -> None:
    home = tmp_path / "home"  # outside the root
    victim = home / "victim.git"
    subprocess.run(["git", "init", "-q", "--bare", str(victim)], check=True)
    monkeypatch.setenv("HOME", str(home))
    result = await client.call_tool("git", {"action": "push", "remote": remote, "name": "main"})
    assert error_code(result) == "access_denied"
    assert git(victim, "for-each-ref") == ""


@pytest.mark.parametrize("link", ["victim.git", "victim/.git"])
async def test_push_refuses_a_local_remote_where_git_would_follow_a_link_out_of_the_roots(
    client: Client, repo: Path, tmp_path: Path, link: str
) -> None:
    # The remote "victim" names nothing; git takes victim/.git or victim.git for it, wherever they lead.
    outside = tmp_path / "outside.git"
    subprocess.run(["git", "init", "-q", "--bare", str(outside)], check=True)
    (repo / link).parent.mkdir(parents=True, exist_ok=True)
    (repo / link).symlink_to(outside)
    result = await client.call_tool("git", {"action": "push", "remote": "victim", "name": "main"})
    assert error_code(result) == "access_denied"
    assert git(outside, "for-each-ref") == ""
