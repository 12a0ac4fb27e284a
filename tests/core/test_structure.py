"""StructureChecker: warnings only for syntax problems an edit introduced, per grammar and for brace balance."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import parsetrees, structure
from fsguard.core.structure import StructureChecker, StructureProblem

# suffix, name in the warning, valid text, the same text broken by an edit, line of the first problem
GRAMMAR_CASES: list[tuple[str, str, str, str, int]] = [
    (".py", "Python", "def f(x):\n    return (x + 1)\n", "def f(x):\n    return (x + 1\n", 2),
    (".js", "JavaScript", "function f(x) {\n  return x + 1;\n}\n", "function f(x) {\n  return x + ;\n}\n", 2),
    (
        ".ts",
        "TypeScript",
        "function f(x: number): number {\n  return x + 1;\n}\n",
        "function f(x: number): number {\n  return x + ;\n}\n",
        2,
    ),
    (".tsx", "TSX", "const A = () => <div>hi</div>;\n", "const A = () => <div>hi</div;\n", 1),
    (
        ".go",
        "Go",
        "package main\n\nfunc f() int {\n\treturn 1\n}\n",
        "package main\n\nfunc f() int {\n\treturn (1\n}\n",
        4,
    ),
    (".rs", "Rust", "fn f() -> i32 {\n    let x = (1);\n    x\n}\n", "fn f() -> i32 {\n    let x = (1;\n    x\n}\n", 2),
    (".java", "Java", "class A {\n  int f() { return 1; }\n}\n", "class A {\n  int f() { return 1 }\n}\n", 2),
    (".c", "C", "int f(void) {\n  return 1;\n}\n", "int f(void) {\n  return 1\n}\n", 2),
    (".cpp", "C++", "int f() {\n  return 1;\n}\n", "int f() {\n  return 1\n}\n", 2),
    (".cs", "C#", "class A {\n  int F() { return 1; }\n}\n", "class A {\n  int F() { return 1 }\n}\n", 2),
    (".json", "JSON", '{\n  "a": 1,\n  "b": 2\n}\n', '{\n  "a": 1,\n  "b": 2,\n}\n', 3),
    (".css", "CSS", "a {\n  color: red;\n}\n", "a {\n  color: red;\n}\n}\n", 4),
    (".html", "HTML", "<p>hi</p>\n<p>there</p>\n", "<p>hi</p>\n</>\n", 2),
    (".sh", "Bash", "if true; then\n  echo hi\nfi\n", "if true; then\n  echo hi\n", 3),
    # The YAML grammar wraps the whole document in one ERROR node, so it always points at line 1.
    (".yaml", "YAML", "a: 1\nb: [1, 2]\n", "a: 1\nb: [1, 2\n", 1),
    (".toml", "TOML", "[a]\nb = 1\n", "[a]\nb = \n", 2),
    (".php", "PHP", "<?php\nfunction f() {\n  return 1;\n}\n", "<?php\nfunction f() {\n  return 1\n}\n", 3),
    (".rb", "Ruby", "def f\n  x = (1)\nend\n", "def f\n  x = (1\nend\n", 2),
]
GRAMMAR_IDS = [case[0] for case in GRAMMAR_CASES]

SUFFIX_LANGUAGES: dict[str, str] = {
    **dict.fromkeys([".py", ".pyi"], "python"),
    **dict.fromkeys([".js", ".mjs", ".cjs", ".jsx"], "javascript"),
    **dict.fromkeys([".ts", ".mts", ".cts"], "typescript"),
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    **dict.fromkeys([".c", ".h"], "c"),
    **dict.fromkeys([".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"], "cpp"),
    ".cs": "c_sharp",
    ".json": "json",
    ".css": "css",
    **dict.fromkeys([".html", ".htm"], "html"),
    **dict.fromkeys([".sh", ".bash"], "bash"),
    **dict.fromkeys([".yaml", ".yml"], "yaml"),
    ".toml": "toml",
    ".php": "php",
    ".rb": "ruby",
    **dict.fromkeys(
        [".scss", ".less", ".kt", ".kts", ".swift", ".dart", ".scala", ".groovy", ".gradle", ".razor", ".cshtml"],
        "braces",
    ),
    **dict.fromkeys([".m", ".mm", ".zig"], "braces"),
}

KOTLIN = 'fun f() {\n    val s = "}"\n    // }\n    /* { ( [ */\n    val c = \'{\'\n    println("\\"{")\n}\n'


@pytest.fixture
def checker() -> StructureChecker:
    return StructureChecker()


@pytest.mark.parametrize(("suffix", "name", "valid", "broken", "line"), GRAMMAR_CASES, ids=GRAMMAR_IDS)
def test_each_grammar_finds_no_problems_in_its_valid_sample_and_some_in_its_broken_one(
    checker: StructureChecker, suffix: str, name: str, valid: str, broken: str, line: int
) -> None:
    path = Path(f"sample{suffix}")
    assert checker.problems(path, valid) == []
    problems = checker.problems(path, broken)
    assert problems
    assert problems[0].line == line


@pytest.mark.parametrize(("suffix", "name", "valid", "broken", "line"), GRAMMAR_CASES, ids=GRAMMAR_IDS)
def test_each_grammar_stays_quiet_when_an_edit_keeps_a_valid_file_valid(
    checker: StructureChecker, suffix: str, name: str, valid: str, broken: str, line: int
) -> None:
    assert checker.check(Path(f"sample{suffix}"), valid, valid + "\n") is None


@pytest.mark.parametrize(("suffix", "name", "valid", "broken", "line"), GRAMMAR_CASES, ids=GRAMMAR_IDS)
def test_each_grammar_warns_naming_the_language_and_line_when_an_edit_breaks_a_valid_file(
    checker: StructureChecker, suffix: str, name: str, valid: str, broken: str, line: int
) -> None:
    warning = checker.check(Path(f"sample{suffix}"), valid, broken)
    assert warning is not None
    assert warning.startswith(f"structure: {name} syntax error introduced at line {line}, column ")
    assert "\n" not in warning


def test_python_edit_that_drops_a_parenthesis_is_reported_with_its_line_and_column(checker: StructureChecker) -> None:
    before = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'a')\n"
    after = "import os\n\n\ndef f(x):\n    return os.path.join(x, 'a'\n"
    assert checker.check(Path("m.py"), before, after) == (
        "structure: Python syntax error introduced at line 5, column 5 (unexpected 'return os.path.join('). "
        "The file parsed cleanly before this edit; check the edit before running it."
    )


def test_a_missing_token_is_described_as_missing_with_its_type(checker: StructureChecker) -> None:
    problems = checker.problems(Path("a.js"), "function f(x) {\n  return x + 1;\n\n")
    assert problems == [StructureProblem(line=2, column=16, detail="missing '}'")]


def test_unexpected_text_detail_is_one_line_of_at_most_twenty_characters(checker: StructureChecker) -> None:
    problems = checker.problems(Path("a.py"), "def f(x):\n    return some_long_function_name(x\n\nprint(1)\n")
    assert problems is not None
    assert problems[0].detail == "unexpected 'return some_long_fun'"


def test_columns_count_characters_not_utf8_bytes(checker: StructureChecker) -> None:
    problems = checker.problems(Path("a.js"), 'const s = "héllo wörld"; let x = ;\n')
    assert problems == [StructureProblem(line=1, column=32, detail="unexpected '='")]


def test_an_edit_to_a_file_that_was_already_broken_is_not_reported(checker: StructureChecker) -> None:
    before = "def f(:\n    pass\n"
    assert checker.check(Path("a.py"), before, before + "def g(:\n    pass\n") is None


def test_an_edit_that_fixes_a_broken_file_is_not_reported(checker: StructureChecker) -> None:
    assert checker.check(Path("a.py"), "def f(:\n    pass\n", "def f():\n    pass\n") is None


@pytest.mark.parametrize("name", ["notes.txt", "README.md", "Makefile", "archive.tar", ".bashrc"])
def test_unchecked_suffixes_give_no_language_no_problems_and_no_warning(checker: StructureChecker, name: str) -> None:
    path = Path(name)
    assert checker.language_for(path) is None
    assert checker.problems(path, "def f(:\n{{{") is None
    assert checker.check(path, "ok", "def f(:\n{{{") is None


@pytest.mark.parametrize(("suffix", "language"), sorted(SUFFIX_LANGUAGES.items()))
def test_language_for_maps_each_suffix_in_any_case(checker: StructureChecker, suffix: str, language: str) -> None:
    assert checker.language_for(Path(f"dir.v2/file{suffix}")) == language
    assert checker.language_for(Path(f"FILE{suffix.upper()}")) == language


def test_brace_languages_ignore_delimiters_inside_strings_and_comments(checker: StructureChecker) -> None:
    assert checker.problems(Path("a.kt"), KOTLIN) == []
    assert checker.problems(Path("a.js.swift"), "let s = `a\n{ ( [\nb`\n") == []


def test_brace_language_edit_that_removes_a_closing_brace_is_reported_at_the_unclosed_block(
    checker: StructureChecker,
) -> None:
    before = "fun a() {\n    x()\n}\n\nfun b() {\n    if (y) {\n        z()\n    }\n}\n"
    after = before.replace("        z()\n    }\n", "        z()\n")
    assert checker.problems(Path("a.kt"), after) == [StructureProblem(5, 9, "curly braces {} off by -1")]
    assert checker.check(Path("a.kt"), before, after) == (
        "structure: unbalanced delimiters introduced at line 5, column 9 (curly braces {} off by -1). "
        "They balanced before this edit; check the edit before running it."
    )


def test_brace_language_extra_closer_is_reported_at_the_first_closer_without_an_opener(
    checker: StructureChecker,
) -> None:
    assert checker.problems(Path("a.swift"), "f(a))\ng[0]]]\n") == [
        StructureProblem(1, 5, "parentheses () off by 1"),
        StructureProblem(2, 5, "square brackets [] off by 2"),
    ]


def test_brace_language_warns_only_for_a_kind_that_balanced_before(checker: StructureChecker) -> None:
    before = "fun f() {\n    g(\n"
    assert checker.check(Path("a.kt"), before, before + "    h(\n") is None
    warning = checker.check(Path("a.kt"), before, before + "    ]\n")
    assert warning is not None
    assert "(square brackets [] off by 1)" in warning


def test_a_url_in_scss_is_not_taken_for_a_line_comment(checker: StructureChecker) -> None:
    assert checker.problems(Path("a.scss"), "a {\n  background: url(http://x.test/a.png);\n}\n") == []


@pytest.mark.parametrize("suffix", [".json", ".py", ".kt"])
def test_deeply_nested_input_is_checked_without_hitting_the_recursion_limit(
    checker: StructureChecker, suffix: str
) -> None:
    problems = checker.problems(Path(f"deep{suffix}"), "[" * 20_000)
    assert problems
    assert problems[0].line == 1


def test_four_threads_checking_different_files_agree_with_sequential_calls() -> None:
    jobs = [(Path(f"sample{suffix}"), valid, broken) for suffix, _, valid, broken, _ in GRAMMAR_CASES]
    jobs.append((Path("a.kt"), KOTLIN, KOTLIN[:-2]))
    expected = [StructureChecker().check(path, before, after) for path, before, after in jobs]
    shared = StructureChecker()  # fresh, so the threads also race to load the grammars

    def run(offset: int) -> list[str | None]:
        order = jobs[offset:] + jobs[:offset]
        return [shared.check(path, before, after) for _ in range(5) for path, before, after in order]

    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(run, offset) for offset in range(4)]
        results = [future.result(timeout=60) for future in futures]
    for offset, result in enumerate(results):
        rotated = expected[offset:] + expected[:offset]
        assert result == rotated * 5


JUNK = b"\x00\xff\xfe{[(\"'`/*\x1b\r\n\x80\xc3(<?php \xed\xa0\x80}\t\\".decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("suffix", sorted({*SUFFIX_LANGUAGES, ".txt"}))
def test_binary_junk_text_never_raises(checker: StructureChecker, suffix: str) -> None:
    path = Path(f"junk{suffix}")
    problems = checker.problems(path, JUNK * 50)
    assert (problems is None) == (suffix == ".txt")  # only a file with no grammar goes unchecked
    assert all(p.line >= 1 and p.column >= 1 for p in problems or ())
    checker.check(path, "", JUNK)
    checker.check(path, JUNK, "")


@given(suffix=st.sampled_from(sorted(SUFFIX_LANGUAGES)), before=st.text(max_size=60), after=st.text(max_size=60))
def test_arbitrary_text_never_raises_and_warns_in_one_line(suffix: str, before: str, after: str) -> None:
    warning = StructureChecker().check(Path(f"f{suffix}"), before, after)
    assert warning is None or (warning.startswith("structure: ") and len(warning.splitlines()) == 1)


def test_a_shell_script_with_characters_beyond_the_bmp_goes_unchecked_instead_of_crashing() -> None:
    checker = StructureChecker()
    crashing = "{\U000f759d\t"  # tree-sitter-bash 0.25.1 segfaults on this within a few parses
    for _ in range(50):
        assert checker.check(Path("run.sh"), "echo ok\n", crashing) is None
    assert checker.problems(Path("run.sh"), "echo 🎉 ${x\n") is None
    assert checker.problems(Path("run.sh"), "echo ok ${x\n")


PY_LINES = ["def f(x):\n", "    return x\n", "y = (1,\n", "     2)\n", "class C:\n", "    pass\n", "z = [\n", "]\n"]


@given(
    steps=st.lists(
        st.tuples(st.integers(0, 400), st.integers(0, 12), st.sampled_from(["", "(", ")", ":", "x = 1\n", "é", "\n"])),
        min_size=1,
        max_size=8,
    )
)
def test_a_chain_of_edits_parsed_incrementally_warns_exactly_as_full_parses_do(
    steps: list[tuple[int, int, str]],
) -> None:
    """The kept tree is edited and re-parsed each time; a fresh checker parses everything in full."""
    incremental = StructureChecker()
    text = "".join(PY_LINES * 4)
    for start, length, insert in steps:
        start = min(start, len(text))
        edited = text[:start] + insert + text[start + length :]
        assert incremental.check(Path("m.py"), text, edited) == StructureChecker().check(Path("m.py"), text, edited)
        text = edited


def test_a_file_changed_behind_the_kept_tree_is_parsed_in_full_again(checker: StructureChecker) -> None:
    clean = "x = 1\n" * 50
    assert checker.check(Path("m.py"), clean, clean + "y = 2\n") is None  # keeps the tree of clean + "y = 2"
    changed_outside = "x = (\n" + clean  # not what the kept tree was parsed from: already broken
    assert checker.check(Path("m.py"), changed_outside, changed_outside + "z = 3\n") is None
    warning = checker.check(Path("m.py"), clean, clean + "w = (\n")
    assert warning is not None
    assert "line 51" in warning


def test_a_file_whose_parse_runs_past_the_budget_is_not_parsed_again_while_it_is_edited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Prose named .py sent tree-sitter's error recovery into 100 ms a parse, two parses an edit: the budget stops it.
    real, parsed = parsetrees._parse, []

    def parse(grammar: Any, data: bytes, old_tree: Any = None) -> Any:
        parsed.append(data)
        return None if data.startswith(b"prose") else real(grammar, data, old_tree)

    monkeypatch.setattr(parsetrees, "_parse", parse)
    checker = StructureChecker()
    clean = "x = 1\n" * 20
    assert checker.check(Path("m.py"), clean, "prose, not code (\n") is None  # no tree: no warning
    assert checker.check(Path("m.py"), "prose, not code (\n", "prose, not code ((\n") is None
    assert checker.check(Path("m.py"), "prose, not code ((\n", clean) is None
    assert parsed == [clean.encode(), b"prose, not code (\n"]  # nothing parsed after the parse that ran out
    warning = StructureChecker().check(Path("m.py"), clean, clean + "w = (\n")  # a budget that holds: warned
    assert warning is not None


def test_a_parse_past_its_budget_gives_no_tree() -> None:
    grammar = StructureChecker().grammar("python")
    assert grammar is not None
    assert parsetrees._parse(grammar, b"x = 1\n" * 100) is not None
    with mock.patch.object(parsetrees, "_BUDGET_S", -1.0):  # the time is up before the first piece
        assert parsetrees._parse(grammar, b"x = 1\n" * 100) is None


def test_an_edit_of_a_text_longer_than_the_checked_size_is_not_parsed_or_warned_about(
    checker: StructureChecker, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = "def f(x):\n    return (x + 1)\n"
    after = "def f(x):\n    return (x + 1\n"
    monkeypatch.setattr(structure, "MAX_CHECKED_CHARS", len(before))
    assert checker.check(Path("m.py"), before, after) is not None  # at the size: checked
    assert checker.check(Path("m.py"), before, after + "#" * (len(before) - len(after) + 1)) is None
    assert checker.check(Path("m.py"), before + "#", after) is None
    with mock.patch.object(parsetrees, "_parse", side_effect=AssertionError("parsed")):
        assert checker.check(Path("m.py"), before + "#" * 10, after) is None
