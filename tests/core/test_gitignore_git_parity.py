"""The walk's .gitignore decisions checked against git itself (``git check-ignore --no-index``, every path of a tree
in one call), for odd patterns and names: brackets that never close, lone slashes, line breaks in names.

Where git and ripgrep read a line differently, both engines follow ripgrep, and such lines are left out here:
POSIX classes (``[[:alpha:]]``; ``[[:alpha:]`` is a class then a set never closed to git), a backslash inside a set
(``[\\]]``, ``[a\\-z]``) and a reversed range (``[z-a]``, which git lets match its first character). A set
spanning a slash (``[a/b]``) is left out too: pathspec splits the pattern at the slash first, so the Python engine
names nothing by it, where git and ripgrep name ``a``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsguard.core.gitignorefile import GitignoreFile
from fsguard.core.ignore import IgnoreRules

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

PATTERNS = (
    *("/", "/ ", "!/", "//", "/a/", "a//", "[", "d[", "*[", "[a", "a[b", "[]", "[!]"),
    *("[]a]", "[!]a]", "[a-]", "[]-a]", "[[]", "[[]]", "[^a]", "[!a]*", "\\[", "\\[a", "a]", "[]]", "[!]]"),
    *("*.TXT", "?", "a?", "*", "*/", "**", "/**", "**/", "a/**", "**/a", "a/**/b", "***", "a**", "**a", "c/**/a"),
    *("/c/b", "c/b/**", "/*/", "*/a", "a\\", "\\!x", "\\#x", "\\*", " a", "a ", "a\\ ", "[a-c-e]", "[--a]"),
    # Trailing whitespace: git strips unescaped spaces alone; a name may end in "à", whose last UTF-8 byte is "\xa0"
    *("a\t", "a\t ", "\t", "a\\\t", "a \t", "x\\  ", "voil\u00e0", "nb\u00a0", "\u0160", "*\u00e0", "a\x0b", "a\x0c"),
)
NAMES = (
    *("a/", "a/b", "a/x/", "a/x/b", "b", "[", "d[/", "d[/key", "]", "a]", "x[", "[a", "a[b", "TXT.TXT", "x.TXT"),
    *("new\nline/", "new\nline/d.TXT", "new\nline/a", "a\nb", "\n", "a\n", "\na", "x\ny/", "x\ny/a", "ab", "A"),
    *("-", "d", "a\\", "\\", "c/", "c/a", "c/ab", "c/b/", "c/b/a", "c/x\n/", "c/x\n/a", " a", "a ", "!x", "#x", "*"),
    *("a\t", "\t", "a \t", "x ", "x", "voil\u00e0", "voil", "voil\u00c3", "nb\u00a0", "nb", "\u0160", "a\x0b", "a\x0c"),
)


def git_ignored(root: Path, relatives: list[str]) -> set[str]:
    """The paths of ``relatives`` (below ``root``, a repository) that git ignores."""
    assert GIT is not None
    config = ("-c", "core.excludesFile=/dev/null", "-c", "core.ignoreCase=false")
    command = [GIT, *config, "check-ignore", "--no-index", "--verbose", "--non-matching", "--stdin", "-z"]
    stdin = b"".join(os.fsencode(relative) + b"\0" for relative in relatives)
    fields = subprocess.run(command, cwd=root, input=stdin, capture_output=True, check=False).stdout.split(b"\0")
    # Four fields a path: the .gitignore (none if no pattern names it), the line number, the pattern, the path.
    return {
        os.fsdecode(path)
        for source, _, pattern, path in zip(*[iter(fields)] * 4, strict=False)
        if source and not pattern.startswith(b"!")
    }


def compare(root: Path, texts: list[str], names: list[str]) -> list[tuple[str, str, bool]]:
    """Each ``.gitignore`` text of ``texts`` in a directory of its own under ``root`` above the tree ``names`` (a
    directory's name ends in ``/``): the entries where the walk's rules decide otherwise than git, with git's
    decision."""
    subprocess.run([str(GIT), "init", "--quiet", str(root)], check=True)
    asked: list[tuple[str, str, bool]] = []
    for index, text in enumerate(texts):
        home = root / f"p{index}"
        home.mkdir()
        (home / ".gitignore").write_text(text, encoding="utf-8")
        for name in names:
            path = home / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith("/"):
                path.mkdir(exist_ok=True)
            elif not path.is_dir():
                path.touch()
            asked.append((text, f"p{index}/{name.removesuffix('/')}", name.endswith("/")))
    ignored = git_ignored(root, [relative for _, relative, _ in asked])
    rules = IgnoreRules(root)
    return [
        (text, relative, relative in ignored)
        for text, relative, is_dir in asked
        if rules.ignored(root / relative, is_dir=is_dir) != (relative in ignored)
    ]


def test_odd_patterns_name_what_git_names_among_odd_names(tmp_path: Path) -> None:
    assert compare(tmp_path, [pattern + "\n" for pattern in PATTERNS], list(NAMES)) == []


def test_negated_odd_patterns_let_back_in_what_git_lets_back_in(tmp_path: Path) -> None:
    texts = [f"*\n!*/\n!{pattern}\n" for pattern in ("/", "/ ", "[", "*[", "[*", "d[")]
    texts += ["*.TXT\n!/\n", "c/\n!/\n"]
    assert compare(tmp_path, texts, list(NAMES)) == []


# Pattern parts that git and ripgrep read alike: no backslash, colon or tab, so no set holds an escape or a class,
# and the slashes come only before or after the part that may hold a set.
PATTERN_CHARS = "ab*?[]!- ^"
NAME_CHARS = "ab[]!- ^*\n"


@st.composite
def odd_patterns(draw: st.DrawFn) -> str:
    body = draw(st.text(PATTERN_CHARS, min_size=1, max_size=6))
    return draw(st.sampled_from(("", "/", "**/", "!", "a/", "a/**/"))) + body + draw(st.sampled_from(("", "/", "/**")))


odd_names = st.lists(st.text(NAME_CHARS, min_size=1, max_size=3), min_size=1, max_size=3).map("/".join)


@settings(max_examples=25, deadline=None)
@given(patterns=st.lists(odd_patterns(), min_size=1, max_size=6), names=st.lists(odd_names, min_size=1, max_size=12))
def test_generated_odd_patterns_decide_as_git_decides(patterns: list[str], names: list[str]) -> None:
    tree = {name for name in names if not any(other.startswith(name + "/") for other in names)}
    tree |= {"/".join(n.split("/")[:i]) + "/" for n in names for i in range(1, n.count("/") + 1)}
    with tempfile.TemporaryDirectory() as temp:
        # One .gitignore holding each pattern alone, one holding them all: the last naming an entry decides.
        texts = [pattern + "\n" for pattern in patterns] + ["".join(pattern + "\n" for pattern in patterns)]
        assert compare(Path(temp), texts, sorted(tree)) == []


def test_a_set_opening_on_a_bracket_holds_the_bracket_and_nothing_else() -> None:
    # Spelled "[\\[" to spare Python's warning of a nested set, the set also held a backslash in pathspec's regex.
    rules = GitignoreFile(["[[]", "a[^[]"])
    assert [rules.decide(name) for name in ("[", "\\", "ab", "a[", "a\\")] == [True, None, True, None, True]
