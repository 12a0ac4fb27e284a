"""File-name search: ripgrep lists the walk, the Python walk gives the very same result when rg is missing."""

# Names that lower-case oddly are the point: the Kelvin sign, the dotted capital I.

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsguard.core import names as names_module
from fsguard.core import sidewalk as sidewalk_module
from fsguard.core.errors import FsguardError, InvalidParamsError, NotDirectoryError, NotFoundError
from fsguard.core.globs import normalise_globs
from fsguard.core.ignore import WalkOptions, default_skips
from fsguard.core.names import NameSearch, search_names
from fsguard.core.ripgrep import ripgrep_path, walk_key
from tests.core.test_ignore import DEFAULT_SKIPPED, build
from tests.fifo_stall import Cancelled, cancel, made_after_the_walk_beside, run_beside_a_fifo
from tests.strategies import gitignore_trees

pytestmark = pytest.mark.skipif(ripgrep_path() is None, reason="rg is not installed")

# Names whose case folds, bytes and characters differ: a type glob's ? is one byte, Python's one character.
ODD_NAMES = ["é.py", "\u212a.k", "x.\u212a", "\u0130.py", "ab.PY", "c?d.txt", "odd\nname.py", "pkg.min.js"]
ENDINGS = ["README.", "e.py.", "dots./f.py", "back\\"]  # rg's file types never match a name ending in "."
NAME_PATTERNS = (
    *("*.py", "*.PY", "?.py", "??.py", "*.k", "*.txt", "*", "a*", "e.py", "c.txt", "*i*", "*.?", "b[1]", "{c,d}*"),
    *(r"\.py$", "^a", "ü", "a/*", "*/c.txt", "a/", "[ab]*", "(", "K", "i.py", "*.min.*"),
    *("**/c.txt", "a/**/*.py", "*.{py,txt}", "/a/*", "{a,b}/**", "[[:upper:]]*", "a/[[:alpha:]]*"),
    *("README*", "*.", "e.py?", "back*"),
)


def both(root: Path, pattern: str, options: WalkOptions, **kw: Any) -> NameSearch:
    """Search with both engines, asserting they agree; the ripgrep engine's result. rg searches twice: a tree
    searched before is walked without looking for its default skips first."""
    found = {engine: search_names(root, pattern, options, engine=engine, **kw) for engine in ("ripgrep", "python")}
    assert found["ripgrep"].engine == "ripgrep"
    assert dataclasses.replace(found["ripgrep"], engine="python") == found["python"]
    assert search_names(root, pattern, options, engine="ripgrep", **kw) == found["ripgrep"]
    return found["ripgrep"]


def relative(found: NameSearch, root: Path) -> list[str]:
    return [Path(file).relative_to(root).as_posix() for file in found.files]


@settings(max_examples=100)
@given(
    tree=gitignore_trees(),
    pattern=st.sampled_from(NAME_PATTERNS),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.sampled_from([None, True, False])),
    pick=st.integers(min_value=0),
    globs=st.sampled_from([(), ("*.txt",), ("*.py", "?.k"), ("a/**",), ("*.{py,txt}",), ("*.py", "README*")]),
    cap=st.sampled_from([1, 3, 1000]),
)
def test_both_engines_agree_on_generated_trees_patterns_and_flags(
    tree: tuple[list[str], dict[str, str]],
    pattern: str,
    flags: tuple[bool, bool, bool, bool, bool | None],
    pick: int,
    globs: tuple[str, ...],
    cap: int,
) -> None:
    hidden, gitignore, case_sensitive, skips, regex = flags
    paths, gitignores = tree
    with tempfile.TemporaryDirectory() as temp:
        top = Path(temp).resolve()
        build(top, [*paths, *DEFAULT_SKIPPED, *ODD_NAMES], gitignores)
        directories = sorted(p for p in top.rglob("*") if p.is_dir())
        root = [top, *directories][pick % (len(directories) + 1)]
        build(root, ENDINGS, {})
        options = WalkOptions(
            respect_gitignore=gitignore,
            include_hidden=hidden,
            globs=globs,
            rules_from=top,
            skip_dependencies=skips,
        )
        kw: dict[str, Any] = {"regex": regex, "case_sensitive": case_sensitive, "max_results": cap}
        try:
            found = both(root, pattern, options, **kw)
        except InvalidParamsError:
            with pytest.raises(InvalidParamsError):
                search_names(root, pattern, options, engine="python", **kw)
            return
        assert list(found.skipped) == (default_skips(root, options) if skips else [])


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*", {"README.", "e.py.", "dots./f.py", "back\\", "a.py"}),
        ("README*", {"README."}),
        ("*.", {"README.", "e.py."}),
        ("e.py?", {"e.py."}),
        ("back*", {"back\\"}),
        ("*.py", {"dots./f.py", "a.py"}),
    ],
)
def test_names_ending_in_a_dot_or_a_backslash_are_found_by_both_engines(
    root: Path, pattern: str, expected: set[str]
) -> None:
    build(root, [*ENDINGS, "a.py", "b.log"], {"": "*.log\n"})
    for globs in [(), (pattern,)]:
        assert set(relative(both(root, pattern, WalkOptions(rules_from=root, globs=globs)), root)) == expected


@pytest.fixture
def tree(root: Path) -> Path:
    build(
        root,
        [
            "a.py",
            "b.txt",
            "src/c.py",
            "src/d.PY",
            "build/e.py",
            "node_modules/m.py",
            ".hid.py",
            ".git/x.py",
            *ODD_NAMES,
        ],
        {"": "build/\n*.txt\n"},
    )
    return root


def test_names_come_in_walk_order_capped_with_the_total_and_the_default_skips(tree: Path) -> None:
    found = both(tree, "*.py", WalkOptions(skip_dependencies=True))
    assert relative(found, tree) == ["a.py", "ab.PY", "odd\nname.py", "src/c.py", "src/d.PY", "é.py", "İ.py"]
    assert found.skipped == ("node_modules/",)
    capped = both(tree, "*.py", WalkOptions(skip_dependencies=True), max_results=2)
    assert (relative(capped, tree), capped.total, capped.truncated) == (["a.py", "ab.PY"], 7, True)


def test_a_question_mark_is_one_character_and_case_folds_as_python_lowers(tree: Path) -> None:
    skips = WalkOptions(skip_dependencies=True)
    assert relative(both(tree, "?.py", skips), tree) == ["a.py", "src/c.py", "src/d.PY", "é.py"]  # İ lowers to 2
    assert relative(both(tree, "*.k", WalkOptions()), tree) == ["x.\u212a", "\u212a.k"]  # Kelvin lowers to k
    assert relative(both(tree, "x.k", WalkOptions(), regex=False), tree) == ["x.\u212a"]
    assert relative(both(tree, "*.k", WalkOptions(), case_sensitive=True), tree) == ["\u212a.k"]


def test_a_glob_reads_braces_and_paths_as_file_types_globs_do(root: Path) -> None:
    build(root, ["x", "a/x", "a/b/x", "src/a.py", "src/sub/b.py", "c.py", "d.TXT", "e.md"], {})
    assert relative(both(root, "**/x", WalkOptions()), root) == ["a/b/x", "a/x", "x"]  # ** spans zero directories
    assert relative(both(root, "src/*.py", WalkOptions()), root) == ["src/a.py"]  # * stops at /
    assert relative(both(root, "src/**/*.PY", WalkOptions()), root) == ["src/a.py", "src/sub/b.py"]
    assert relative(both(root, "*.{py,txt}", WalkOptions()), root) == ["c.py", "d.TXT", "src/a.py", "src/sub/b.py"]
    assert relative(both(root, "*.{py,txt}", WalkOptions(), case_sensitive=True), root) == [
        "c.py",
        "src/a.py",
        "src/sub/b.py",
    ]
    for pattern in ("**/x", "src/*.py", "*.{py,txt}"):  # include globs read them alike
        as_types = both(root, "*", WalkOptions(globs=normalise_globs(pattern)))
        assert as_types.files == both(root, pattern, WalkOptions(), case_sensitive=True).files


def test_a_path_glob_spans_a_directory_whose_name_holds_a_line_break(root: Path) -> None:
    build(root, ["odd\ndir/c.py", "odd\ndir/x.txt"], {})
    assert relative(both(root, "**/*.py", WalkOptions()), root) == ["odd\ndir/c.py"]
    assert relative(both(root, "*", WalkOptions(globs=("**/*.py",))), root) == ["odd\ndir/c.py"]


def test_a_path_glob_with_a_posix_class_or_an_inverted_range_is_read_or_refused_never_a_crash(root: Path) -> None:
    build(root, ["src/Up", "src/u]", "src/:x"], {})
    assert relative(both(root, "src/[[:upper:]]*", WalkOptions(), case_sensitive=True), root) == ["src/u]"]
    for engine in ("ripgrep", "python"):
        with pytest.raises(InvalidParamsError, match="src/"):
            search_names(root, "src/[c-a]*", WalkOptions(), engine=engine)
        with pytest.raises(InvalidParamsError, match="src/"):
            search_names(root, "*", WalkOptions(globs=("src/[c-a]*",)), engine=engine)


def test_hidden_gitignored_and_dependency_names_are_listed_on_request(tree: Path) -> None:
    options = WalkOptions(respect_gitignore=False, include_hidden=True)
    found = both(tree, "*.py", options)
    assert relative(found, tree)[:5] == [".hid.py", "a.py", "ab.PY", "build/e.py", "node_modules/m.py"]
    assert ".git/x.py" not in relative(found, tree)  # VCS directories never


def test_a_bare_ripgrep_walk_drops_what_the_walk_leaves_out_even_a_dependency_directory_made_meanwhile(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rg walks bare (no globs) when no dependency directory is there; hidden names a type or a negation lets
    # through, _darcs (not hidden) and a dependency directory made once the skips were looked for are dropped.
    build(root, ["a.py", ".h.py", "_darcs/d.py", "src/_darcs", "src/b.py", ".cfg/c.py"], {"": "!.h.py\n!.cfg/\n"})
    looked = default_skips

    def then_made(*args: Any, **kwargs: Any) -> list[str]:
        found = looked(*args, **kwargs)
        build(root, ["node_modules/late.py"], {})
        return found

    monkeypatch.setattr(sidewalk_module, "default_skips", then_made)
    options = WalkOptions(skip_dependencies=True, rules_from=root)
    found = search_names(root, "*", options, engine="ripgrep")
    assert (relative(found, root), found.skipped) == (["a.py", "src/b.py"], ())
    assert relative(search_names(root, "*.py", options, engine="ripgrep"), root) == ["a.py", "src/b.py"]
    assert relative(search_names(root, "*.py", options, engine="python"), root) == ["a.py", "src/b.py"]


def test_a_tree_searched_before_is_walked_bare_at_once_and_a_dependency_directory_made_since_is_dropped(
    root: Path,
) -> None:
    build(root, ["a.py", "src/b.py"], {})
    options = WalkOptions(skip_dependencies=True, rules_from=root)
    assert relative(search_names(root, "*.py", options, engine="ripgrep"), root) == ["a.py", "src/b.py"]
    build(root, ["node_modules/m.py", "src/build/c.py"], {})  # rg walks bare, trusting the first search
    again = search_names(root, "*.py", options, engine="ripgrep")
    assert (relative(again, root), again.skipped) == (["a.py", "src/b.py"], ("node_modules/", "src/build/"))
    third = both(root, "*.py", options)  # now known to hold some: the globs leave them out
    assert (relative(third, root), third.skipped) == (["a.py", "src/b.py"], ("node_modules/", "src/build/"))


def test_symlinks_are_not_followed_and_a_search_below_the_root_keeps_its_rules(tree: Path) -> None:
    (tree / "link.py").symlink_to(tree / "a.py")
    (tree / "linked").symlink_to(tree / "src")
    (tree / "src" / "f.txt").touch()
    assert "link.py" not in relative(both(tree, "*.py", WalkOptions()), tree)
    below = both(tree / "src", "*", WalkOptions(rules_from=tree))
    assert relative(below, tree / "src") == ["c.py", "d.PY"]
    assert both(tree / "build", "*", WalkOptions(rules_from=tree)).files == ()


def test_bad_patterns_and_roots_are_refused_alike(tree: Path) -> None:
    for engine in ("ripgrep", "python"):
        with pytest.raises(InvalidParamsError):
            search_names(tree, "", WalkOptions(), engine=engine)
        with pytest.raises(InvalidParamsError):
            search_names(tree, "(", WalkOptions(), regex=True, engine=engine)
        with pytest.raises(NotFoundError):
            search_names(tree / "missing", "*", WalkOptions(), engine=engine)
        with pytest.raises(NotDirectoryError):
            search_names(tree / "a.py", "*", WalkOptions(), engine=engine)


def test_a_failing_ripgrep_falls_back_to_the_python_walk_only_in_auto_mode(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "rg"
    broken.write_text("#!/bin/sh\necho boom >&2\nexit 2\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setattr(names_module, "ripgrep_path", lambda: broken)
    with caplog.at_level(logging.WARNING):
        found = search_names(tree, "*.py", WalkOptions())
    assert (found.engine, len(found.files)) == ("python", 8)
    assert "boom" in caplog.text
    with pytest.raises(FsguardError, match="boom"):
        search_names(tree, "*.py", WalkOptions(), engine="ripgrep")
    monkeypatch.setattr(names_module, "ripgrep_path", lambda: None)
    assert search_names(tree, "*.py", WalkOptions()).engine == "python"


def test_a_ripgrep_listing_stops_when_progress_raises_even_one_rg_waits_on_forever(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build(root, ["sub/a.txt"], {})
    made_after_the_walk_beside(monkeypatch, names_module)

    def search() -> object:
        return search_names(root, "*", WalkOptions(), engine="ripgrep", progress=cancel)

    assert run_beside_a_fifo(root / "sub" / ".gitignore", search) == (False, [Cancelled])
    assert relative(search_names(root, "*", WalkOptions(), engine="python"), root) == ["sub/a.txt"]


def test_undecodable_names_are_listed_exactly(root: Path) -> None:
    odd = os.fsdecode(b"bad\xff.py")
    (root / odd).touch()
    (root / "z.py").touch()
    assert both(root, "*.py", WalkOptions()).files == (str(root / odd), str(root / "z.py"))


_RECORD_PIECES = st.sampled_from([b"a", b"a.b", b"a-b", b"a b", b"ab", b"\xc3\xa9", b".x", b"a\x01", b"!"])


@given(
    records=st.lists(st.lists(_RECORD_PIECES, min_size=1, max_size=4).map(b"/".join), max_size=30, unique=True),
    lead=st.sampled_from([b"", b"a/", b"a.b/"]),
)
def test_rg_s_listing_is_put_in_walk_order_as_the_per_name_key_orders_it(records: list[bytes], lead: bytes) -> None:
    # The C-level passes ("/" sorts lowest as \x01, one split where each "./" began) against a key per name.
    output = b"".join(b"./" + record + b"\0" for record in records)
    below = [record[len(lead) :] for record in records if record.startswith(lead)]
    ordered = sorted(below, key=walk_key)
    assert names_module._walk_ordered(output, lead) == b"\0".join(ordered)


@pytest.mark.parametrize("glob", ["a\\*b.txt", "q\\?.md", "\\[x\\].c", "[^a]*", "[!a]*", "b\\\\c.txt", "*\\.txt"])
def test_a_glob_with_escapes_or_a_caret_set_finds_what_rg_files_finds(root: Path, glob: str) -> None:
    build(root, ["a*b.txt", "axb.txt", "q?.md", "qz.md", "[x].c", "x.c", "b\\c.txt", "d/[x].c"], {})
    rg = ripgrep_path()
    assert rg is not None
    listed = subprocess.run([str(rg), "--files", "-g", glob], cwd=root, capture_output=True, check=True).stdout
    expected = sorted(os.fsdecode(line) for line in listed.splitlines())
    found = both(root, "*", WalkOptions(rules_from=root, globs=(glob,)))
    assert sorted(relative(found, root)) == expected
    assert expected  # each glob names a file


NEGATION_TREE = ["a.js", "a.min.js", "b.py", "d/c.min.js", "d/e.js", "d/f/g.py", "d/f/x.js", "x.min.js/h.js"]
NEGATION_TREE += ["e.txt", "src/x/k.py", "q/src/x/m.js"]
NEGATION_GLOBS = [
    *("*.js", "!*.min.js", "d/**", "!d/**", "*.py", "!*.py", "d/*.js", "!d/*.js", "!x.min.js", "*", "!e.*"),
    *("!d", "d", "!f", "f/", "!f/", "*/x", "!*/x", "src/x/**", "!src/x", "**/x/*", "!**/f/**", "d/f/*", "!d/f"),
    *("e.txt", "!*.txt", "**"),
]


@given(globs=st.lists(st.sampled_from(NEGATION_GLOBS), min_size=1, max_size=5, unique=True))
def test_negated_globs_in_any_order_find_what_rg_files_finds(globs: list[str]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        build(root, NEGATION_TREE, {})
        rg = ripgrep_path()
        assert rg is not None
        flags = [arg for glob in globs for arg in ("-g", glob)]
        run = subprocess.run([str(rg), "--files", *flags], cwd=root, capture_output=True, check=False)
        assert run.returncode in (0, 1), run.stderr  # 1: rg listed nothing
        listed = run.stdout
        found = both(root, "*", WalkOptions(rules_from=root, globs=tuple(globs)))
        assert sorted(relative(found, root)) == sorted(os.fsdecode(line) for line in listed.splitlines())
