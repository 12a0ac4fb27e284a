"""Indentation as the matching tiers read it: the one shift between old_text's lines and the file's, and new_text
written in the file's style (tabs or spaces, a tab counting four columns, as the seed counted it)."""

from __future__ import annotations

from fsguard.core.textio import split_lines


def indent_of(line: str) -> str:
    """The spaces and tabs ``line`` starts with."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def columns_of(indent: str) -> int:
    """The width of ``indent``, a tab counting four columns."""
    return len(indent.replace("\t", "    "))


def uniform_columns(pairs: list[tuple[str, str]]) -> int | None:
    """The one change of indentation width (a tab counting four columns) turning every old line into its file line.

    The seed's indentation tier read a tab as four spaces: old_text typed with spaces finds a tab-indented block
    (and the other way round) without tolerant_whitespace, still only as whole lines shifted alike.
    """
    shifts = {columns_of(indent_of(line)) - columns_of(indent_of(want)) for line, want in pairs}
    return shifts.pop() if len(shifts) == 1 else None


def recolumn(new: str, columns: int, tabs: bool) -> str:
    """new_text shifted by ``columns``, its indentation written in the file's style (tabs or spaces)."""
    out = []
    for line in split_lines(new):
        if line.strip():
            indent = indent_of(line)
            width = max(columns_of(indent) + columns, 0)
            spaces = "\t" * (width // 4) + " " * (width % 4) if tabs else " " * width
            line = spaces + line[len(indent) :]
        out.append(line)
    return "".join(out)


def uniform_shift(pairs: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(remove, add): the one indentation change turning every old line into its file line."""
    shifts = set()
    for line, want in pairs:
        have, had = indent_of(line), indent_of(want)
        if have.endswith(had):
            shifts.add(("", have[: len(have) - len(had)]))
        elif had.endswith(have):
            shifts.add((had[: len(had) - len(have)], ""))
        else:
            return None
    return shifts.pop() if len(shifts) == 1 else None


def reindent(new: str, remove: str, add: str) -> str:
    """new_text with ``remove`` taken from and ``add`` put before the indentation of each line that is not blank."""
    out = []
    for line in split_lines(new):
        if line.strip():
            if remove and line.startswith(remove):
                line = line[len(remove) :]
            line = add + line
        out.append(line)
    return "".join(out)


def indents_with_tabs(region: str) -> bool:
    indents = [indent_of(line) for line in split_lines(region) if line.strip()]
    return bool(indents) and all(indent.startswith("\t") or not indent for indent in indents) and any(indents)


def tabify(new: str) -> str:
    """new_text's four-space indentation as tabs, to match a tab-indented file."""
    out = []
    for line in split_lines(new):
        indent = indent_of(line)
        if indent and set(indent) == {" "}:
            line = "\t" * (len(indent) // 4) + " " * (len(indent) % 4) + line[len(indent) :]
        out.append(line)
    return "".join(out)
