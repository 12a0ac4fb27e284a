"""edit_file's regex mode, in one pass, is Go's ReplaceAll rule by rule: the same text, count, first line and
refusals; on the lines as search reads them, each line break one."""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.errors import InvalidParamsError, TooLargeError
from fsguard.core.gotemplate import expand_go_template
from fsguard.core.growth import results_up_to
from fsguard.core.lineends import in_line_endings
from fsguard.core.modes import RegexRule, regex
from fsguard.core.patterns import compile_re2, go_matches
from fsguard.core.textio import LineIndex

PATTERNS = ["a", "(a)(b)?", "b*", r"(?P<w>\w+)", "a|\n", "$", r"\r?\n"]
TOKEN = re.compile(r"\$(?:\$|(\d+)|\{(\w+)\}|(\w+))")


def go_expanded(template: str, match: Any) -> str:
    """The Go template as a regex substitution of its tokens: the oracle the parsed template must agree with."""

    def group(token: re.Match[str]) -> str:
        if token.group() == "$$":
            return "$"
        name = token.group(1) or token.group(2) or token.group(3)
        try:
            return str(match.group(int(name) if name.isdigit() else name) or "")
        except (IndexError, KeyError) as exc:
            raise InvalidParamsError("no such group") from exc

    return TOKEN.sub(group, template)


def substituted(rules: list[RegexRule], text: str) -> tuple[str, int, int | None]:
    """The rules applied one after another over the matches Go's ReplaceAll walks: the text, the count and the
    first match's line. (re2's own ``subn`` replaces an empty match right after a match too: ``b*`` in ``b``, 2.)"""
    total, first = 0, None
    for rule in rules:
        pattern = compile_re2(rule.pattern, case_sensitive=True, what="pattern", advice="")
        found = list(islice(go_matches(pattern, text), rule.count or None))
        if not found:
            continue
        first = LineIndex(text).line_of(found[0].start()) if first is None else first
        spelled = in_line_endings(text, rule.replacement)
        pieces: list[str] = []
        kept = 0
        for match in found:
            pieces += (text[kept : match.start()], go_expanded(spelled(match), match))
            kept = match.end()
        text = "".join([*pieces, text[kept:]])
        total += len(found)
    return text, total, first


@given(
    text=st.text(alphabet="ab \n$", max_size=40),
    rules=st.lists(
        st.builds(
            RegexRule,
            st.sampled_from(PATTERNS),
            st.lists(st.sampled_from(["x", "$", "1", "2", "{w}", "w", "\n", "$$"]), max_size=5).map("".join),
            st.integers(min_value=-1, max_value=3),
        ),
        min_size=1,
        max_size=2,
    ),
)
def test_the_regex_mode_changes_text_as_go_replaces_each_match(text: str, rules: list[RegexRule]) -> None:
    try:
        expected: tuple[str, int, int | None] | None = substituted(rules, text)
    except InvalidParamsError:
        expected = None
    if expected is None:
        with pytest.raises(InvalidParamsError):
            regex(rules, case_sensitive=True, path="f")(text)
        return
    plan = regex(rules, case_sensitive=True, path="f")(text)
    assert (plan.new_text, plan.replacements, plan.first_line) == expected


@given(
    lines=st.text(alphabet="ab \n$", max_size=40).map(lambda text: text + "\n"),
    rules=st.lists(
        st.builds(
            RegexRule,
            st.sampled_from([p for p in PATTERNS if "\\r" not in p] + [r"(?m)\s+$", r"(?m)a$"]).map(lambda p: f"({p})"),
            st.lists(st.sampled_from(["x", "$1", "\n", ""]), max_size=3).map("".join),
            st.integers(min_value=-1, max_value=3),
        ),
        min_size=1,
        max_size=2,
    ),
    ending=st.sampled_from(["\r\n", "\r"]),
)
def test_a_crlf_or_cr_text_changes_as_its_lf_reading_does_each_break_kept(
    lines: str, rules: list[RegexRule], ending: str
) -> None:
    planned = regex(rules, case_sensitive=True, path="f")
    in_lf, in_ending = planned(lines), planned(lines.replace("\n", ending))
    assert in_ending.new_text == in_lf.new_text.replace("\n", ending)
    assert in_ending.replacements == in_lf.replacements
    if ending == "\r\n":  # LineIndex numbers the end of a CR text as its last line, not the one after it
        assert in_ending.first_line == in_lf.first_line


def test_a_template_names_a_group_the_pattern_lacks_and_is_refused_naming_it() -> None:
    with pytest.raises(InvalidParamsError) as refused:
        regex([RegexRule("(a)", "$1-$2")], case_sensitive=True, path="f")("a")
    assert "group '2'" in refused.value.message


def test_a_regex_result_past_the_limit_is_refused_before_it_is_joined() -> None:
    with results_up_to(150, "f"), pytest.raises(TooLargeError):
        regex([RegexRule("(a)", "$1$1")], case_sensitive=True, path="f")("a" * 100)
    with results_up_to(200, "f"):
        assert regex([RegexRule("(a)", "$1$1")], case_sensitive=True, path="f")("a" * 100).new_text == "a" * 200


def test_a_dollar_sign_is_written_for_two_and_text_after_a_group_stays() -> None:
    match = compile_re2("(?P<w>b+)", case_sensitive=True, what="pattern", advice="").search("abbc")
    assert expand_go_template("$$-${w}x-$1-$w", match) == "$-bbx-bb-bb"


def test_a_line_break_typed_after_earlier_rules_removed_every_break_takes_the_files_ending() -> None:
    # Found by the property above: the second rule saw "" and spelled its typed "\n" as LF in a CRLF file.
    rules = [RegexRule("(a|\n)", "", 0), RegexRule("(b*)", "\n", 0)]
    assert regex(rules, case_sensitive=True, path="f.txt")("\r\n").new_text == "\r\n"


def test_a_dollar_name_is_the_group_of_that_whole_name_and_else_a_number_and_the_letters_after_it() -> None:
    named = compile_re2(r"(?P<n>a)(?P<n_x>b)", case_sensitive=True, what="pattern", advice="").search("ab")
    assert expand_go_template("$n_x|$n-x|$1x|${1}x|$2_$1", named) == "b|a-x|ax|ax|b_a"
    with pytest.raises(InvalidParamsError) as refused:
        expand_go_template("$nx", named)
    assert "group 'nx'" in refused.value.message
    with pytest.raises(InvalidParamsError) as refused:
        expand_go_template("$3x", named)
    assert "group '3x'" in refused.value.message


def test_a_name_of_digits_other_than_ascii_is_a_name_not_a_group_number() -> None:
    match = compile_re2("(a)", case_sensitive=True, what="pattern", advice="").search("a")
    for name in ("²", "\u0663"):  # superscript two; ARABIC-INDIC DIGIT THREE
        with pytest.raises(InvalidParamsError) as refused:
            expand_go_template(f"${name}", match)
        assert f"group '{name}'" in refused.value.message
