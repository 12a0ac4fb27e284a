"""The walk's .gitignore semantics: git's, as ripgrep implements them, checked against rg itself."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsguard.core.gitignorefile import GitignoreFile
from fsguard.core.ignore import WalkOptions, gitignore_top, normalise_globs, walk_files
from fsguard.core.rgwalk import walk_flags
from fsguard.core.ripgrep import ripgrep_path
from fsguard.core.search import ContentRequest, search_content
from tests.strategies import gitignore_trees

RG = ripgrep_path()


def build(root: Path, paths: list[str], gitignores: dict[str, str]) -> None:
    for path in paths:
        target = root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            pass  # a name already taken by a file or directory
    for directory, text in gitignores.items():
        if (root / directory).is_dir():
            (root / directory / ".gitignore").write_text(text, encoding="utf-8")


def walked(root: Path, options: WalkOptions) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in walk_files(root, options))


def ripgrep_walk(root: Path, options: WalkOptions) -> list[str]:
    assert RG is not None
    command = [str(RG), "--no-config", *walk_flags(options), "--files", "./"]
    listed = subprocess.run(command, cwd=root, capture_output=True, check=False).stdout.decode()
    return sorted(line.removeprefix("./") for line in listed.splitlines())


def ripgrep_search_walk(root: Path, options: WalkOptions) -> list[str]:
    """The files the ripgrep engine searches: every file of the tree holds one match."""
    for path in root.rglob("*"):
        if path.is_file() and path.name != ".gitignore":
            path.write_text("match\n", encoding="utf-8")
    found = search_content(root, ContentRequest(pattern="match", engine="ripgrep", max_results=0), options)
    return sorted(Path(file).relative_to(root).as_posix() for file in found.counts)


@pytest.mark.skipif(RG is None, reason="rg is not installed")
@settings(max_examples=150)
@given(tree=gitignore_trees(), hidden=st.booleans())
def test_the_walk_lists_exactly_the_files_ripgrep_walks(tree: tuple[list[str], dict[str, str]], hidden: bool) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        build(root, *tree)
        options = WalkOptions(include_hidden=hidden)
        assert walked(root, options) == ripgrep_walk(root, options)


@pytest.mark.skipif(RG is None, reason="rg is not installed")
@settings(max_examples=100)
@given(tree=gitignore_trees(), pick=st.integers(min_value=0), hidden=st.booleans())
def test_a_walk_below_the_root_applies_the_gitignore_files_above_it_as_ripgrep_does(
    tree: tuple[list[str], dict[str, str]], pick: int, hidden: bool
) -> None:
    with tempfile.TemporaryDirectory() as temp:
        top = Path(temp)
        build(top, *tree)
        directories = sorted(p for p in top.rglob("*") if p.is_dir())  # hidden and VCS ones too: asked for
        root = directories[pick % len(directories)] if directories else top
        options = WalkOptions(include_hidden=hidden, rules_from=top)
        expected = [p for p in walked(root, options) if not p.endswith(".gitignore")]
        assert expected == ripgrep_search_walk(root, options)


def test_a_pattern_ending_in_stars_excludes_the_contents_not_the_directory(root: Path) -> None:
    build(root, ["docs/a.md", "docs/keep.md", "docs/sub/b.md"], {"": "docs/**\n!docs/keep.md\n"})
    assert walked(root, WalkOptions()) == ["docs/keep.md"]


def test_everything_but_directories_and_c_files_keeps_c_files_at_any_depth(root: Path) -> None:
    build(root, ["a.c", "a.h", "src/b.c", "src/b.h", "src/deep/c.c"], {"": "*\n!*/\n!*.c\n"})
    assert walked(root, WalkOptions()) == ["a.c", "src/b.c", "src/deep/c.c"]


@pytest.mark.skipif(RG is None, reason="rg is not installed")
def test_a_line_ripgrep_cannot_read_is_dropped_and_a_posix_class_is_read_as_ripgrep_reads_it(root: Path) -> None:
    # rg's globs have no [:upper:] (a set of "[:uper" then "]"); "b\\" and "[c-a]" are errors rg drops, line by line
    lines = "[[:upper:]]*\n[[:digit:]]\nb\\\n[c-a]\n*.log\n"
    build(root, ["A", "1", "u]", "b\\", "b", "c", "x.log", "[]", "[[]"], {"": lines})
    assert walked(root, WalkOptions()) == ripgrep_walk(root, WalkOptions()) == ["1", "A", "[[]", "b", "b\\", "c"]


@pytest.mark.skipif(RG is None, reason="rg is not installed")
def test_gitignore_lines_end_at_newline_alone_so_a_form_feed_or_line_separator_belongs_to_the_pattern(
    root: Path,
) -> None:
    # CRLF files lose the "\r"; "\x0c", "\x85" and "\u2028" are characters of a name, as in git and ripgrep
    lines = "*.log\r\nform\x0cfeed\r\nnext\x85line\nsep\u2028arate\n"
    names = ["x.log", "form\x0cfeed", "form", "feed", "next\x85line", "next", "sep\u2028arate", "sep", "arate"]
    build(root, names, {"": lines})
    expected = ["arate", "feed", "form", "next", "sep"]
    assert walked(root, WalkOptions()) == ripgrep_walk(root, WalkOptions()) == expected


def test_a_gitignore_that_is_a_fifo_is_no_rules_and_never_waited_on(root: Path) -> None:
    build(root, ["sub/a.txt", "sub/b.log"], {"": "*.log\n"})
    os.mkfifo(root / "sub" / ".gitignore")
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.extend(walked(root, WalkOptions())), daemon=True)
    worker.start()
    worker.join(timeout=10)
    waiting = worker.is_alive()
    if waiting:  # let the reader the walk left waiting go: a writer opens the pipe and closes it
        os.close(os.open(root / "sub" / ".gitignore", os.O_WRONLY | os.O_NONBLOCK))
        worker.join()
    assert (waiting, found) == (False, ["sub/a.txt"])


def test_a_negation_names_its_own_entry_not_the_entries_below_it() -> None:
    rules = GitignoreFile(["a/*.txt", "!/a"])
    assert rules.decide("a/") is False
    assert rules.decide("a/c.txt/") is True
    assert rules.decide("a/c.txt") is True
    assert rules.decide("b/c.txt") is None


def test_directory_only_patterns_leave_files_of_that_name_alone(root: Path) -> None:
    build(root, ["build", "x/build/out.txt", "y/b/z.txt"], {"": "build/\nb/**/\n"})
    assert walked(root, WalkOptions()) == ["build", "y/b/z.txt"]


def test_a_whitelisted_hidden_name_stays_hidden_unless_asked(root: Path) -> None:
    build(root, [".github/ci.yml", "a.txt"], {"": "!.github\n"})
    assert walked(root, WalkOptions()) == ["a.txt"]
    assert walked(root, WalkOptions(include_hidden=True)) == [".github/ci.yml", ".gitignore", "a.txt"]


def test_a_walk_below_the_root_honours_the_roots_gitignore_and_an_excluded_directory_yields_nothing(
    root: Path,
) -> None:
    build(root, ["src/a.log", "src/b.py", "src/gen/c.py", "build/d.py"], {"": "*.log\nbuild/\n", "src": "gen/\n"})
    options = WalkOptions(rules_from=root)
    assert walked(root / "src", options) == ["b.py"]
    assert walked(root / "src", WalkOptions()) == ["a.log", "b.py"]
    assert walked(root / "build", options) == []
    assert walked(root / "build", WalkOptions(respect_gitignore=False, rules_from=root)) == ["d.py"]


def test_a_walk_starts_above_its_directory_only_when_a_gitignore_lies_on_the_way_down(root: Path) -> None:
    build(root, ["src/pkg/a.log", "src/pkg/b.py"], {})
    options = WalkOptions(rules_from=root)
    assert gitignore_top(root / "src" / "pkg", options) == root / "src" / "pkg"  # nothing above can exclude
    assert walked(root / "src" / "pkg", options) == ["a.log", "b.py"]
    (root / "src" / ".gitignore").write_text("*.log\n", encoding="utf-8")  # in a directory between them
    assert gitignore_top(root / "src" / "pkg", options) == root
    assert walked(root / "src" / "pkg", options) == ["b.py"]
    if RG is not None:
        assert ripgrep_search_walk(root / "src" / "pkg", options) == ["b.py"]


# Dependency directories and minified files met by the generated .gitignore patterns (a/, b, *.txt, ...).
DEFAULT_SKIPPED = [
    "node_modules/x.txt",
    "a/target/e.py",
    "a/b.min.txt",
    "b/c.map",
    "b/build",
    "dist/a/c.txt",
    "a/.venv/x",
]


@pytest.mark.skipif(RG is None, reason="rg is not installed")
@given(tree=gitignore_trees(), pick=st.integers(min_value=0), hidden=st.booleans())
def test_the_default_skips_leave_out_what_ripgrep_leaves_out_at_the_root_and_below_it(
    tree: tuple[list[str], dict[str, str]], pick: int, hidden: bool
) -> None:
    paths, gitignores = tree
    with tempfile.TemporaryDirectory() as temp:
        top = Path(temp)
        build(top, [*paths, *DEFAULT_SKIPPED], gitignores)
        options = WalkOptions(include_hidden=hidden, skip_dependencies=True, skip_minified=True)
        assert walked(top, options) == ripgrep_walk(top, options)
        directories = sorted(p for p in top.rglob("*") if p.is_dir())
        root = directories[pick % len(directories)]
        below = WalkOptions(include_hidden=hidden, rules_from=top, skip_dependencies=True, skip_minified=True)
        expected = [p for p in walked(root, below) if not p.endswith(".gitignore")]
        assert expected == ripgrep_search_walk(root, below)


def test_default_skips_name_directories_only_and_only_below_the_walked_directory(root: Path) -> None:
    build(root, ["build", "dist/a.js", "node_modules/m/node_modules/n.js", "node_modules/m/i.js", "x.min.js"], {})
    options = WalkOptions(skip_dependencies=True, skip_minified=True)
    assert walked(root, options) == ["build"]
    assert walked(root / "node_modules", options) == ["m/i.js"]
    assert walked(root, WalkOptions(skip_dependencies=True)) == ["build", "x.min.js"]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_an_extension_in_any_case_narrows_ripgreps_walk_to_the_files_the_walk_takes(root: Path) -> None:
    build(root, ["a.go", "d.GO", "sub/e.Go", "b.TXT", "c.gox", "go", "f.md", "g.GO.md"], {})
    options = WalkOptions(globs=normalise_globs(".go,txt"))
    assert "--type" in walk_flags(options)  # still a file type: rg itself lists only these
    assert walked(root, options) == ripgrep_walk(root, options) == ["a.go", "b.TXT", "d.GO", "sub/e.Go"]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_the_walk_yields_names_in_ripgreps_byte_order_when_some_are_not_utf8(tmp_path: Path) -> None:
    # A name that is not UTF-8 comes back holding surrogates, which sort apart from the bytes they stand for: by code
    # point, b"\x80" would follow every CJK name; by bytes (rg's order), it comes first.
    names = [b"\x80.txt", "中.txt".encode(), b"a.txt", "é.txt".encode(), b"\xff.txt", "\ue000.txt".encode()]
    for name in names:
        (tmp_path / os.fsdecode(name)).write_bytes(b"word\n")
    walked_bytes = [os.fsencode(path.name) for path in walk_files(tmp_path, WalkOptions())]
    assert RG is not None
    listed = subprocess.run(
        [RG, "--no-config", "--files", "--sort", "path", "--null", "."], cwd=tmp_path, capture_output=True, check=True
    ).stdout
    assert walked_bytes == [name.removeprefix(b"./") for name in listed.split(b"\0") if name]
    assert walked_bytes == sorted(names)
