"""The lines a content search shows, as ripgrep's ``--json`` messages give them: file by file, in the order asked.

Two bounds keep a search's memory to about one file however many files it shows and however long their lines.
rg searches the files one after the other (``-j 1``), so each file's matches and lines are handed on as soon as
its ``end`` message arrives and can be dropped once shown, rather than held for every file shown at once (a
thousand minified bundles with a match each held a thousand whole lines). And a match message keeps only the
first submatches a search can show: rg lists every match of a line, and a 4 MB line matching every ten bytes came
as 400,000 of them, half a gigabyte once decoded for the thousand shown.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

from fsguard.core.haystack import Found
from fsguard.core.rgprocess import Cwd, named_batches, run_messages

__all__ = ["detailed"]


def detailed(common: list[str], cwd: Cwd, files: list[bytes], context: int, most: int) -> Iterator[tuple[bytes, Found]]:
    """Matches and the lines around them in ``files`` (explicit paths: no walk, no filter), file by file in the
    order given, from the first ``most`` lines with a match in each: no more can be shown, and a file matching on
    every one of a million lines would otherwise come back whole, as JSON (seconds to decode for ten matches
    shown). A file rg no longer finds a match in is not named; one that turned binary comes with no matches."""
    most = max(most, 1)
    left = most  # the submatches of the file rg is on that can still be shown: one file shows at most ``most``

    def room() -> int:
        return max(left, 0)

    for batch in named_batches(files):
        command: list[str | bytes] = [*common, "--json", "-j", "1", "-m", str(most), "-C", str(context), "--", *batch]
        found: list[tuple[int, list[tuple[int, int]]]] = []
        lines: dict[int, bytes] = {}
        for message in run_messages(command, cwd, submatches=room):
            data = message["data"]
            if message["type"] == "end":
                if data.get("binary_offset") is not None:
                    found.clear()
                found.sort()
                yield _data(data["path"]).removeprefix(b"./"), (found, lines)
                found, lines, left = [], {}, most
                continue
            number, raw = data["line_number"], _data(data["lines"])
            lines[number] = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1] if raw.endswith(b"\n") else raw
            # A line matched only by an empty match at the end of an unterminated last line has no submatches: that
            # is no match, for rg's count as for the Python engine
            if spans := [(sub["start"], sub["end"]) for sub in data.get("submatches", [])]:
                found.append((number, spans))
                left -= len(spans)


def _data(value: dict[str, str]) -> bytes:
    return value["text"].encode() if "text" in value else base64.b64decode(value["bytes"])
