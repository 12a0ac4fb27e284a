"""No git config an agent could have written makes fsguard's git run a program: not one inside a ``.git`` reached
as another repository's working tree, not a git directory under another name, not the user's global config in a
root. Each test plants a filter that would touch a marker file, and checks that it never ran. Both protocol eras."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_git import call, git, identify, make_repo
from tests.tools.test_least_privilege import snapshot

pytestmark = pytest.mark.anyio


def planted(config: str, marker: Path) -> str:
    """``config`` with a clean filter that touches ``marker``, a program git runs on the next add."""
    return config + f'[filter "x"]\n\tclean = "touch {marker} && cat"\n'


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root / "r")


async def add_through_the_filter(client: Client, repo: Path) -> None:
    """What runs the planted filter, if it reached the config git reads: an add of a file it applies to."""
    (repo / ".gitattributes").write_text("*.txt filter=x\n", encoding="utf-8")
    (repo / "b.txt").write_text("b\n", encoding="utf-8")
    await client.call_tool("git", {"action": "add", "path": str(repo), "paths": ["b.txt"]})


@pytest.mark.parametrize("inside", [".git", ".git/sub", ".git/hooks"])
async def test_init_makes_no_repository_inside_a_dot_git(client: Client, repo: Path, inside: str) -> None:
    before = sorted(path.relative_to(repo) for path in (repo / ".git").rglob("*"))
    result = await client.call_tool("git", {"action": "init", "path": str(repo / inside)})
    assert error_code(result) == "access_denied"
    assert "Pass a directory outside every .git" in text_of(result)
    assert sorted(path.relative_to(repo) for path in (repo / ".git").rglob("*")) == before


@pytest.fixture
def inner(repo: Path, tmp_path: Path) -> Path:
    """A repository whose working tree is ``repo``'s .git (made by hand), with a branch ``x`` whose ``config`` is
    the outer repository's config plus a filter: restored or switched to, it becomes the outer's config."""
    dot_git = repo / ".git"
    git(dot_git, "init", "-q", "-b", "main")
    identify(dot_git)
    git(dot_git, "commit", "-q", "--allow-empty", "-m", "empty")
    config = (dot_git / "config").read_text(encoding="utf-8")
    blob = git_input(dot_git, planted(config, tmp_path / "ran"), "hash-object", "-w", "--stdin").strip()
    tree = git_input(dot_git, f"100644 blob {blob}\tconfig\n", "mktree").strip()
    git(dot_git, "branch", "x", git_input(dot_git, "planted", "commit-tree", tree, "-p", "main").strip())
    return dot_git


def git_input(cwd: Path, given: str, *args: str) -> str:
    """Run git directly with ``given`` on its stdin; its stdout."""
    return subprocess.run(
        ["git", *args], cwd=cwd, input=given, check=True, capture_output=True, text=True, encoding="utf-8"
    ).stdout


async def test_git_refuses_a_repository_whose_working_tree_is_a_dot_git(
    client: Client, repo: Path, inner: Path, tmp_path: Path
) -> None:
    config = (repo / ".git" / "config").read_bytes()
    for arguments in (
        {"action": "restore", "rev": "x", "paths": ["config"], "force": True},
        {"action": "branch", "name": "x", "checkout": True},
        {"action": "status"},
    ):
        result = await client.call_tool("git", {"path": str(inner), **arguments})
        assert error_code(result) == "access_denied", text_of(result)
        assert "working tree outside every .git" in text_of(result)
    assert (repo / ".git" / "config").read_bytes() == config
    await add_through_the_filter(client, repo)
    assert not (tmp_path / "ran").exists()


async def test_push_refuses_a_repository_inside_a_dot_git(client: Client, repo: Path, inner: Path) -> None:
    refs = git(inner, "for-each-ref")
    git(repo, "switch", "-q", "-c", "pushed")
    pushed = {"action": "push", "path": str(repo), "remote": str(inner), "name": "pushed"}
    result = await client.call_tool("git", pushed)
    assert error_code(result) == "access_denied", text_of(result)
    assert "Push to a repository outside every .git" in text_of(result)
    assert git(inner, "for-each-ref") == refs


async def test_push_to_a_repository_named_by_its_dot_git_still_works(client: Client, repo: Path, root: Path) -> None:
    other = make_repo(root / "other")
    git(repo, "switch", "-q", "-c", "pushed")
    pushed = await call(client, action="push", path=str(repo), remote=str(other / ".git"), name="pushed")
    assert pushed["updates"] == ["pushed -> pushed [new branch]"]
    assert git(other, "rev-parse", "pushed") == git(repo, "rev-parse", "pushed")


def separate_git_dir(root: Path) -> tuple[Path, Path]:
    """A repository made with ``git init --separate-git-dir``: its working tree, and its git dir beside it."""
    project, store = root / "proj", root / "proj.gitdir"
    git(root, "init", "-q", "-b", "main", f"--separate-git-dir={store}", str(project))
    return project, store


def bare_with_worktree(root: Path) -> tuple[Path, Path]:
    """A bare repository with a linked worktree, the common layout: the worktree, and the bare repository."""
    seed = make_repo(root / "seed")
    store, project = root / "proj.git", root / "wt"
    git(root, "clone", "-q", "--bare", str(seed), str(store))
    git(store, "worktree", "add", "-q", str(project), "main")
    return project, store


@pytest.mark.parametrize("layout", [separate_git_dir, bare_with_worktree])
async def test_git_refuses_a_repository_whose_git_directory_is_not_a_dot_git(
    client: Client, root: Path, tmp_path: Path, layout: Callable[[Path], tuple[Path, Path]]
) -> None:
    project, store = layout(root)
    identify(project)
    # The file tools guard only a .git: this config is one an agent could have written.
    (store / "config").write_text(
        planted((store / "config").read_text(encoding="utf-8"), tmp_path / "ran"), encoding="utf-8"
    )
    status = await client.call_tool("git", {"action": "status", "path": str(project)})
    assert error_code(status) == "access_denied", text_of(status)
    assert "is not a .git" in text_of(status)
    await add_through_the_filter(client, project)
    assert not (tmp_path / "ran").exists()
    assert git(project, "diff", "--cached", "--name-only") == ""


@pytest.mark.parametrize("config", [".gitconfig", ".config/git/config", "dotfiles/gitconfig", "custom.gitconfig"])
async def test_git_config_files_in_a_root_are_denied_so_git_runs_no_program_an_agent_wrote(
    connect: ClientFactory, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    """The root is the home directory: the user's git config, where git reads it, is the agent's to write unless
    denied; so is the file a linked .gitconfig points to, and the one GIT_CONFIG_GLOBAL names."""
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    target = root / config
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"[core]\n")
    if config == "dotfiles/gitconfig":
        (root / ".gitconfig").symlink_to(target)
    elif config == "custom.gitconfig":
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(target))
    project = make_repo(root / "project")
    marker = tmp_path / "ran"
    async with connect() as client:
        written = await client.call_tool("write_file", {"path": str(target), "content": planted("", marker)})
        assert error_code(written) == "access_denied", text_of(written)
        await add_through_the_filter(client, project)
    assert target.read_bytes() == b"[core]\n"
    assert not marker.exists()


async def test_a_tree_moved_to_the_users_git_directory_is_denied_so_it_brings_no_config(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    (root / ".config").mkdir()
    (root / "x").mkdir()
    (root / "x" / "config").write_bytes(b'[filter "x"]\n')
    async with connect() as client:
        moved = await client.call_tool(
            "move_file", {"source_path": str(root / "x"), "dest_path": str(root / ".config" / "git")}
        )
        assert error_code(moved) == "access_denied", text_of(moved)
    assert not (root / ".config" / "git").exists()
    assert (root / "x" / "config").read_bytes() == b'[filter "x"]\n'


async def test_a_tree_carrying_git_config_is_not_moved_or_copied_to_a_missing_config_directory_as_others_are(
    connect: ClientFactory, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ~/.config yet: its own name passes, but the tree's git/config would land at ~/.config/git/config."""
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    marker = tmp_path / "ran"
    for tree in ("y", "stash/.config"):
        (root / tree / "git").mkdir(parents=True)
        (root / tree / "git" / "config").write_text(planted("", marker), encoding="utf-8")
    (root / "y" / "notes.md").write_bytes(b"n\n")
    (root / "vim" / "nvim").mkdir(parents=True)
    (root / "vim" / "nvim" / "init.lua").write_bytes(b"vim.o.number = true\n")
    project = make_repo(root / "project")
    before = {name: snapshot(root / name) for name in ("y", "stash")}
    step = {"files": ["stash/.config"], "destination": "."}  # a pipeline puts a tree into a directory, by its name
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("move_file", {"source_path": "y", "dest_path": ".config"}),
        ("copy_file", {"source_path": "y", "dest_path": ".config"}),
        ("batch_operations", {"request_json": [{"type": "move", "source": "y", "destination": ".config"}]}),
        ("batch_operations", {"request_json": [{"type": "copy", "source": "y", "destination": ".config"}]}),
        *(
            ("batch_operations", {"pipeline_json": {"name": "x", "steps": [{"action": action, "params": step}]}})
            for action in ("rename", "copy")
        ),
    ]
    async with connect() as client:
        for tool, arguments in attempts:
            refused = await client.call_tool(tool, arguments)
            assert refused.is_error, (tool, arguments)
            assert "access denied: " in text_of(refused), text_of(refused)
            assert "holds git/config, which would land at .config/git/config" in text_of(refused), text_of(refused)
        assert not (root / ".config").exists()
        moved = await client.call_tool("move_file", {"source_path": "vim", "dest_path": ".config"})
        assert not moved.is_error, text_of(moved)
        await add_through_the_filter(client, project)
    assert (root / ".config" / "nvim" / "init.lua").read_bytes() == b"vim.o.number = true\n"
    assert sorted(path.name for path in root.iterdir()) == [".config", "project", "stash", "y"]
    assert {name: snapshot(root / name) for name in ("y", "stash")} == before
    assert not marker.exists()
