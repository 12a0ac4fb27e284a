"""Properties of the editing engine on real files: edits stay inside their span; undo matches a model."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from fsguard.config import Settings
from fsguard.core.editing import EditOptions
from fsguard.core.errors import FsguardError, NothingToUndoError, UndoConflictError
from fsguard.core.matching import Replacement
from fsguard.core.modes import replace
from fsguard.services import Services
from tests.strategies import Encoding, EndedText, encodings, lf_texts, plain_lines, texts_with_line_endings

MARKER = "\u2603OLD\u2603"  # a snowman cannot come out of texts_with_line_endings' alphabet


def services_for(base: Path) -> Services:
    root = base / "root"
    root.mkdir(parents=True, exist_ok=True)
    return Services.create(Settings(roots=(root,), state_dir=base / "state"))


@given(before=texts_with_line_endings(), after=texts_with_line_endings(), encoding=encodings(), new=plain_lines())
def test_an_edit_never_changes_bytes_outside_its_span(
    before: EndedText, after: EndedText, encoding: Encoding, new: str
) -> None:
    base = Path(tempfile.mkdtemp())
    try:
        services = services_for(base)
        prefix, suffix = before.text, after.text
        if MARKER in prefix + suffix:
            return
        target = base / "root" / "f.txt"
        encode = encoding.encode
        target.write_bytes(encode(prefix + MARKER + suffix))
        note(repr((prefix, suffix, encoding, new)))
        planner = replace(Replacement(MARKER, new), tolerant=False, path=str(target))
        services.editor.run(str(target), planner, EditOptions(tool="test"))
        data = target.read_bytes()
        head, tail = encode(prefix), encode(suffix)[len(encoding.bom) :]
        assert data.startswith(head)
        assert data.endswith(tail)
        assert data == head + encode(new)[len(encoding.bom) :] + tail
    finally:
        shutil.rmtree(base)


@given(ended=texts_with_line_endings(), encoding=encodings(), data=st.data(), new=plain_lines())
def test_an_exact_edit_of_text_copied_from_the_file_changes_its_span_and_never_half_a_crlf(
    ended: EndedText, encoding: Encoding, data: st.DataObject, new: str
) -> None:
    # old_text is any stretch of the file, line breaks included: one starting at the LF of a CRLF (or ending at its
    # CR) takes the whole CRLF; the replacement gets the span's last line break back where the span ended with one.
    text = ended.text
    assume(text)
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    old = text[start:end]
    assume(sum(text.startswith(old, at) for at in range(len(text))) == 1)
    start -= old[0] == "\n" and text[start - 1 : start] == "\r"
    end += old[-1] == "\r" and text[end : end + 1] == "\n" and bool(old.strip("\r"))
    span = text[start:end]
    ending = "\r\n" if span.endswith("\r\n") else span[-1]  # the span's own last break, in mixed endings too
    replacement = new + ending if new and span.endswith(("\n", "\r")) and end < len(text) else new
    base = Path(tempfile.mkdtemp())
    try:
        services = services_for(base)
        target = base / "root" / "f.txt"
        target.write_bytes(encoding.encode(text))
        planner = replace(Replacement(old, new), tolerant=False, path=str(target))
        report = services.editor.run(str(target), planner, EditOptions(tool="test"))
        assert report.plan.match_tier == "exact"
        assert target.read_bytes() == encoding.encode(text[:start] + replacement + text[end:])
    finally:
        shutil.rmtree(base)


class UndoModel(RuleBasedStateMachine):
    """write / edit / external change / undo through the engine, against a model of the file's bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.base = Path(tempfile.mkdtemp())
        self.services = services_for(self.base)
        self.path = self.base / "root" / "f.txt"
        self.current = b""
        self.undo_stack: list[tuple[bytes, bytes]] = []  # (bytes before, bytes after) per fsguard operation

    @initialize(text=lf_texts())
    def create(self, text: str) -> None:
        self.path.write_bytes(text.encode())
        self.current = text.encode()

    @rule(text=lf_texts())
    def write(self, text: str) -> None:
        self.services.writer.write(str(self.path), text)
        new = text.encode()
        if new != self.current:
            self.undo_stack.append((self.current, new))
        self.current = new

    @precondition(lambda self: bool(self.current.strip(b"\n")))
    @rule(data=st.data(), new=plain_lines())
    def edit(self, data: st.DataObject, new: str) -> None:
        text = self.current.decode()
        lines = [line for line in text.split("\n") if line and text.count(line) == 1]
        if not lines:
            return
        old = data.draw(st.sampled_from(lines))
        planner = replace(Replacement(old, new), tolerant=False, path=str(self.path))
        try:
            self.services.editor.run(str(self.path), planner, EditOptions(tool="test"))
        except FsguardError as exc:
            raise AssertionError(f"a unique exact line must be editable: {exc.message}") from exc
        edited = text.replace(old, new, 1).encode()
        if edited != self.current:
            self.undo_stack.append((self.current, edited))
        self.current = edited

    @rule(text=lf_texts())
    def external_change(self, text: str) -> None:
        self.path.write_bytes(text.encode())
        self.current = text.encode()

    @rule(force=st.booleans())
    def undo(self, force: bool) -> None:
        try:
            report = self.services.restorer.undo_last(str(self.path), force=force)
        except NothingToUndoError:
            assert not self.undo_stack
            return
        except UndoConflictError:
            before, after = self.undo_stack[-1]
            assert not force
            assert self.current not in (after, before)
            return
        before, after = self.undo_stack.pop()
        assert report.already_there == (self.current == before)
        assert force or self.current in (before, after)
        self.current = before

    @invariant()
    def disk_matches_the_model(self) -> None:
        assert self.path.read_bytes() == self.current

    def teardown(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


TestUndoModel = UndoModel.TestCase
# 30 runs of up to 50 steps, each step a durable write, edit or undo: half the profile's runs, for the suite's time.
TestUndoModel.settings = settings(max_examples=30)
