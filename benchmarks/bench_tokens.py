"""Tokens: the text an agent reads (and pays for) in one fixed, realistic session, per server and voice.

The session works on a generated Python project (a small shop package with tests): list the tree, find a
symbol, read two ranges, three edits (one ambiguous, one from a stale memory of the file), verify with a read,
undo one edit, search again. It runs against fsguard in its verbose voice, fsguard with ``--compact-mode``, and
the reference TypeScript server (``run.sh reference-server`` of the external harness) for the steps it has
a tool for, each on a fresh copy of the project, over stdio (raw JSON-RPC, the client of ``bench_scale.py``).

Counted per step: the bytes of the text blocks (what the model reads) and the number of calls. The reference
has no line ranges, content search or undo: a range is read with ``head`` (the first range) or as the whole
file (the second), which is what an agent with that server does; the steps it has no tool for are ``-``.
Ratios: compact / verbose over the whole session, and compact / reference over the steps the reference has.

    .venv/bin/python benchmarks/bench_tokens.py [--no-reference] [--show-texts]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_read import fsguard_executable
from bench_scale import find_reference
from stdio_client import Server

TIMEOUT_S = 60.0
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Step:
    """One thing the agent does: fsguard's calls, and the reference's (None: it has no tool for it)."""

    name: str
    fsguard: tuple[Call, ...]
    reference: tuple[Call, ...] | None


@dataclass
class Tally:
    """One server's text bytes and calls per step."""

    label: str
    bytes: dict[str, int] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    texts: list[str] = field(default_factory=list)


# -- the project -------------------------------------------------------------------------------------

MODULES = ("pricing", "orders", "inventory", "customers", "shipping", "reports")


def module_source(name: str, index: int) -> str:
    """A plausible module: imports, a dataclass, a dozen functions that each end in ``return total``."""
    lines = [
        f'"""The {name} of the shop: records and the sums over them."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass",
        "from decimal import Decimal",
        "",
        "from shop.util import rounded" if name != "pricing" else "from shop.util import rounded, percent",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "@dataclass(frozen=True)",
        f"class {name.title()}Line:",
        '    """One line of a record."""',
        "",
        "    sku: str",
        "    quantity: int",
        "    price: Decimal",
        "",
    ]
    if name == "pricing":
        lines += [
            "",
            "def apply_discount(price: Decimal, rate: Decimal) -> Decimal:",
            '    """The price after a discount of ``rate`` (0.1 is ten percent)."""',
            "    if rate < 0 or rate > 1:",
            '        raise ValueError(f"discount rate out of range: {rate}")',
            "    return rounded(price * (1 - rate))",
            "",
        ]
    else:
        lines.insert(9, "from shop.pricing import apply_discount")
    for number in range(12):
        lines += [
            "",
            f"def {name}_total_{number}(lines: list[{name.title()}Line], rate: Decimal = Decimal(0)) -> Decimal:",
            f'    """Total of the {name} lines in group {number}, after the discount."""',
            "    total = Decimal(0)",
            "    for line in lines:",
            f"        if line.quantity > {number + index}:",
            "            total += apply_discount(line.price, rate) * line.quantity"
            if name != "pricing"
            else "            total += line.price * line.quantity",
            f'    logger.debug("{name} group {number}: %s", total)',
            "    return total",
            "",
        ]
    return "\n".join(lines)


def make_project(root: Path) -> None:
    """The shop package, its tests and the project files, always the same bytes."""
    package = root / "shop"
    (package).mkdir(parents=True)
    (root / "tests").mkdir()
    (package / "__init__.py").write_text('"""A small shop."""\n', encoding="utf-8")
    util = (
        '"""Numbers for money."""\n\nfrom decimal import ROUND_HALF_UP, Decimal\n\n\n'
        "def rounded(value: Decimal) -> Decimal:\n"
        '    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)\n\n\n'
        "def percent(value: Decimal) -> str:\n"
        '    return f"{value * 100:.0f}%"\n'
    )
    (package / "util.py").write_text(util, encoding="utf-8")
    for index, name in enumerate(MODULES):
        (package / f"{name}.py").write_text(module_source(name, index), encoding="utf-8")
        test = (
            f"from decimal import Decimal\n\nfrom shop.{name} import {name}_total_0\n"
            + ("from shop.pricing import apply_discount\n" if name == "pricing" else "")
            + f"\n\ndef test_{name}_total_of_nothing_is_zero() -> None:\n"
            f"    assert {name}_total_0([]) == Decimal(0)\n"
        )
        (root / "tests" / f"test_{name}.py").write_text(test, encoding="utf-8")
    (root / "README.md").write_text("# shop\n\nPrices, orders and reports.\n", encoding="utf-8")
    (root / "pyproject.toml").write_text('[project]\nname = "shop"\nversion = "0.1.0"\n', encoding="utf-8")


# -- the session -------------------------------------------------------------------------------------

STALE_OLD = "    if rate < 0 or rate > 1:\n"  # what the agent remembers of pricing.py from before edit 1
EDIT_OLD = "    if rate < 0 or rate > 1:\n        raise ValueError"
EDIT_NEW = "    if not 0 <= rate <= 1:\n        raise ValueError"
AMBIGUOUS_OLD = "    return total\n"  # ends each of the 12 functions of orders.py
AMBIGUOUS_NEW = "    return rounded(total)\n"


def session(root: Path) -> list[Step]:
    """The steps; paths are given as an agent types them (relative to the root) to fsguard, absolute to the
    reference (which has no relative paths)."""
    pricing, orders = "shop/pricing.py", "shop/orders.py"
    ab = {name: str(root / name) for name in (pricing, orders)}
    return [
        Step(
            "list the tree",
            (("list_directory", {"path": ".", "output_format": "tree"}),),
            (("directory_tree", {"path": str(root)}),),
        ),
        Step(
            "find a symbol",
            (("search_files", {"pattern": "def apply_discount", "include_content": True}),),
            None,
        ),
        Step(
            "read two ranges",
            (
                ("read_file", {"path": pricing, "start_line": 20, "end_line": 30}),
                ("read_file", {"path": orders, "start_line": 25, "end_line": 45}),
            ),
            (
                ("read_text_file", {"path": ab[pricing], "head": 30}),
                ("read_text_file", {"path": ab[orders]}),
            ),
        ),
        Step(
            "edit: applies",
            (("edit_file", {"path": pricing, "old_text": EDIT_OLD, "new_text": EDIT_NEW}),),
            (("edit_file", {"path": ab[pricing], "edits": [{"oldText": EDIT_OLD, "newText": EDIT_NEW}]}),),
        ),
        Step(
            "edit: ambiguous",
            (("edit_file", {"path": orders, "old_text": AMBIGUOUS_OLD, "new_text": AMBIGUOUS_NEW}),),
            (("edit_file", {"path": ab[orders], "edits": [{"oldText": AMBIGUOUS_OLD, "newText": AMBIGUOUS_NEW}]}),),
        ),
        Step(
            "edit: stale",
            (("edit_file", {"path": pricing, "old_text": STALE_OLD, "new_text": "    if rate > 1:\n"}),),
            (("edit_file", {"path": ab[pricing], "edits": [{"oldText": STALE_OLD, "newText": "    if rate > 1:\n"}]}),),
        ),
        Step(
            "verify with a read",
            (("read_file", {"path": pricing, "start_line": 22, "end_line": 28}),),
            (("read_text_file", {"path": ab[pricing], "head": 28}),),
        ),
        Step("undo one", (("backup", {"action": "undo_last", "file_path": pricing}),), None),
        Step("search again", (("search_files", {"pattern": "apply_discount", "include_content": True}),), None),
    ]


def run(label: str, command: list[str], steps: Sequence[Step], reference: bool, log: Path) -> Tally:
    """Every step's calls on one fresh server; the bytes of the text blocks each answer carries."""
    tally = Tally(label)
    server = Server(command, TIMEOUT_S, log)
    try:
        server.ready()
        for step in steps:
            calls = step.reference if reference else step.fsguard
            if calls is None:
                continue
            total = 0
            for tool, args in calls:
                _, outcome = server.call(tool, args)
                total += len(outcome.text.encode())
                tally.texts.append(f"--- {label} · {step.name} · {tool}\n{outcome.text}")
            tally.bytes[step.name] = total
            tally.calls[step.name] = len(calls)
    finally:
        server.close()
    return tally


def table(steps: Sequence[Step], tallies: Sequence[Tally]) -> str:
    """Markdown: bytes (calls) per step and server, totals, and the ratios."""
    head = "| step | " + " | ".join(t.label for t in tallies) + " |"
    rows = [head, "|" + " --- |" * (len(tallies) + 1)]
    for step in steps:
        cells = [f"{t.bytes[step.name]:,} ({t.calls[step.name]})" if step.name in t.bytes else "-" for t in tallies]
        rows.append(f"| {step.name} | " + " | ".join(cells) + " |")
    totals = [f"**{sum(t.bytes.values()):,}** ({sum(t.calls.values())})" for t in tallies]
    rows.append("| total | " + " | ".join(totals) + " |")
    lines = ["\n".join(rows), ""]
    verbose, compact = tallies[0], tallies[1]
    lines.append(f"compact / verbose: {sum(compact.bytes.values()) / sum(verbose.bytes.values()):.2f}")
    if len(tallies) > 2:
        reference = tallies[2]
        shared = list(reference.bytes)
        mine = sum(compact.bytes[name] for name in shared)
        theirs = sum(reference.bytes[name] for name in shared)
        verbose_shared = sum(verbose.bytes[name] for name in shared)
        lines.append(
            f"compact / reference on the {len(shared)} steps the reference has: {mine / theirs:.2f} "
            f"({mine:,} / {theirs:,} bytes; verbose {verbose_shared / theirs:.2f})"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-reference", action="store_true", help="skip the reference server")
    parser.add_argument("--show-texts", action="store_true", help="print every text block after the table")
    args = parser.parse_args()
    reference_command = find_reference(args.no_reference)
    fsguard = fsguard_executable()
    tallies: list[Tally] = []
    with tempfile.TemporaryDirectory(prefix="bench_tokens_") as tmp:
        base = Path(tmp)
        log = base / "servers.log"
        targets: list[tuple[str, list[str], bool]] = [
            ("fsguard verbose", [fsguard], False),
            ("fsguard compact", [fsguard, "--compact-mode"], False),
        ]
        if reference_command:
            targets.append(("reference", reference_command, True))
        for number, (label, command, is_reference) in enumerate(targets):
            root = base / f"project{number}"
            make_project(root)
            state = ["--state-dir", str(base / f"state{number}")] if not is_reference else []
            tallies.append(run(label, [*command, *state, str(root)], session(root), is_reference, log))
            shutil.rmtree(root)
        print(table(session(Path("/")), tallies))
        if args.show_texts:
            for tally in tallies:
                print("\n\n".join(tally.texts), end="\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
