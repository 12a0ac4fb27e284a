"""minify_js: JavaScript minified by rjsmin, in place (backed up, undoable) or into a new file.

rjsmin is a C build of Crockford's jsmin rules: it leaves strings, template literals and regex literals alone
(as far as its regular expressions see them: see below), and it keeps a line break wherever dropping it could
change the program (``a\\n(b)``, ``return\\nx``, ``i\\n++\\nj``: automatic semicolon insertion). The seed's
hand-written minifier joined such lines and changed what programs did; this module never minifies by itself.

The seed's three flags are mapped onto what rjsmin can do, and nothing is pretended:

* ``remove_comments=false`` keeps ``/*! … */`` (license) comments, rjsmin's only way to keep any; other
  comments are removed all the same, as the parameter's description says.
* ``collapse_whitespace`` and ``single_line`` cannot be turned off: rjsmin always does both (keeping the
  line breaks a statement needs), so ``false`` is refused rather than ignored.

Bytes around the script: a ``#!`` first line is kept verbatim with its own line break (rjsmin would
collapse its spaces and could read ``//`` in it as a comment); a UTF-8 BOM is kept, like every fsguard
write keeps it; the line breaks rjsmin keeps are LF. Only UTF-8 files are minified.

As a safety net the input and output are parsed (tree-sitter, by the input's suffix) before anything is written,
in dry runs too. Every literal must come out as it went in (:mod:`fsguard.core.literals`: rjsmin does not follow
``${…}`` nesting nor JSX text), and the output must parse wherever the input does; else the call is refused
(``invalid_params``) with nothing written. A syntax error the input has (a truncated file, a string or comment never
closed: the seed flagged it ``truncated:input-malformed``) is reported as ``structure_warning``, since its output is
broken with it, and does not block.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import lstat_at
from fsguard.core.errors import AlreadyExistsError, EncodingError, InvalidParamsError, NotFoundError
from fsguard.core.hashing import content_hash
from fsguard.core.literals import check_literals
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.occ import OccVerdict
from fsguard.core.pathforms import check_file_spelling
from fsguard.core.safeguards import Safeguards
from fsguard.core.structure import StructureChecker
from fsguard.core.textio import DecodedText, decode

PREVIEW_CHARS = 500
# rjsmin's rules are JavaScript's: a file whose suffix names another language or markup (Python's indentation,
# Markdown's paragraphs) would be rewritten into something else. Any other suffix, or none, is taken as the seed
# took every file: JavaScript kept as .txt, .json (JavaScript's subset), .ts, a bundle without a suffix.
# fmt: off
OTHER_LANGUAGES = frozenset((
    ".py", ".pyw", ".pyi", ".md", ".markdown", ".rst", ".adoc", ".html", ".htm", ".xhtml", ".xml", ".svg", ".css",
    ".scss", ".sass", ".less", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".sh", ".bash", ".zsh", ".fish",
    ".ps1", ".bat", ".cmd", ".rb", ".go", ".rs", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".java", ".kt", ".swift",
    ".php", ".pl", ".lua", ".r", ".sql", ".tex", ".csv", ".tsv", ".vue", ".svelte",
))
# fmt: on
_SHEBANG = re.compile(r"#![^\r\n]*(?:\r\n|\r|\n)?")
_TOOL = "minify_js"


@dataclass(frozen=True, kw_only=True)
class MinifyRequest:
    """One minify_js call."""

    path: str
    output_path: str | None = None
    remove_comments: bool = True
    collapse_whitespace: bool = True
    single_line: bool = True
    dry_run: bool = False
    expected_hash: str | None = None


@dataclass(frozen=True)
class MinifyReport:
    """What a minify did, or would do in a dry run."""

    path: Path
    output_path: Path
    bytes_before: int
    bytes_after: int
    previous_hash: str  # of the input, as read
    content_hash: str | None  # of the file written (None in a dry run)
    backup: BackupRecord | None
    dry_run: bool
    unchanged: bool
    kept_bang_comments: bool
    preview: str | None
    verdict: OccVerdict
    structure_warning: str | None  # the input's first syntax error: its output is broken with it
    notes: tuple[str, ...] = ()  # what the change and the hooks told the agent (Mutation.hook_notes)


def minify_source(text: str, *, keep_bang_comments: bool = False) -> str:
    """``text`` minified by rjsmin, a ``#!`` first line kept verbatim with its line break."""
    shebang = _SHEBANG.match(text)
    head = shebang.group() if shebang else ""
    import rjsmin  # here, not at the top: start-up never pays for it

    body: str = rjsmin.jsmin(text[len(head) :], keep_bang_comments=keep_bang_comments)
    return head + body


class Minifier:
    """Minifies JavaScript files under the path policy."""

    def __init__(self, safeguards: Safeguards, structure: StructureChecker) -> None:
        self._safe = safeguards
        self._structure = structure

    def minify(self, request: MinifyRequest) -> MinifyReport:
        """Minify ``request.path`` in place, or into ``request.output_path`` (a new file).

        Raises:
            InvalidParamsError: the flags ask for something rjsmin cannot do, or for nothing.
            AlreadyExistsError: output_path is another file that exists; nothing was written.
            EncodingError, BinaryFileError: the input is not UTF-8 text.
            InvalidParamsError: the input's suffix is not a JavaScript one, or rjsmin would change a literal or
                break the syntax (dry runs too); nothing was written.
            FsguardError: the path, the hash, a hook or the filesystem refused; nothing was written.
        """
        keep_bang = _keeps_bang_comments(request)
        source = self._safe.policy.resolve(request.path)
        target = self._safe.policy.resolve(request.output_path) if request.output_path else source
        if request.output_path:
            check_file_spelling(request.output_path, target)
        if target == source:
            return self._in_place(source, request, keep_bang)
        return self._into_new_file(source, target, request, keep_bang)

    def _in_place(self, path: Path, request: MinifyRequest, keep_bang: bool) -> MinifyReport:
        hook = HookCall("edit", _TOOL, _TOOL)
        with mutation(self._safe, path) as change:
            data = change.require()
            verdict = change.check(request.expected_hash)
            decoded = _javascript(data, path)
            text = minify_source(decoded.text, keep_bang_comments=keep_bang)
            plan = _Plan(path, path, data, verdict, keep_bang, self._checked(path, decoded.text, text))
            if request.dry_run:  # its preview shows the file's text, and no pre-edit fires: a read gate does
                change.fire_read(_TOOL, f"{_TOOL}:dry_run")
                after = decoded.bom + text.encode()
                return plan.preview(after, text, unchanged=after == data)
            substituted = change.fire_pre(hook, over=decoded, old_content=decoded.text, new_content=text)
            new = decoded.bom + (text if substituted is None else substituted).encode()
            if new == data:
                digest = content_hash(data)
                self._safe.session.record_hash(path, digest)
                return plan.report(new, digest, unchanged=True)
            done = change.commit(new, hook)
        return plan.report(new, done.content_hash, backup=done.backup, notes=tuple(change.hook_notes))

    def _into_new_file(self, source: Path, target: Path, request: MinifyRequest, keep_bang: bool) -> MinifyReport:
        # The input is read under its own lock, released before the output's is taken: two calls minifying
        # a→b and b→a can never wait on each other.
        with mutation(self._safe, source, reading_only=True) as reading:
            data = reading.require()
            # The output holds the source's text: a hook keeping read_file out of the source keeps this out too.
            reading.fire_read(_TOOL, _TOOL)
            verdict = reading.check(request.expected_hash)
        decoded = _javascript(data, source)
        text = minify_source(decoded.text, keep_bang_comments=keep_bang)
        plan = _Plan(source, target, data, verdict, keep_bang, self._checked(source, decoded.text, text))
        if request.dry_run:
            if self._exists(target):
                raise _occupied(source, target)
            return plan.preview(decoded.bom + text.encode(), text)
        hook = HookCall("write", _TOOL, _TOOL, {"source_path": str(source)})
        with mutation(self._safe, target, may_be_missing=True) as change:
            if change.current is not None:
                raise _occupied(source, target)
            substituted = change.fire_pre(hook, content=text)
            new = decoded.bom + (text if substituted is None else substituted).encode()
            # A file that appears meanwhile is not clobbered: a new file is created exclusively.
            done = change.commit(new, hook, make_parents=True)
        return plan.report(new, done.content_hash, notes=tuple(change.hook_notes))

    def _checked(self, path: Path, source: str, made: str) -> str | None:
        """The structure warning about ``source`` (it does not parse), once ``made`` is proved to keep every literal
        and to parse wherever ``source`` does: rjsmin's rules miss some literals (see :mod:`fsguard.core.literals`),
        and a minifier that breaks a program must not write it, dry run or not.

        Raises:
            InvalidParamsError: ``made`` changes a literal or has a syntax error ``source`` has not.
        """
        literals = check_literals(self._structure, path, source, made)
        if literals.changed is not None:
            literal, dropped = literals.changed
            raise InvalidParamsError(
                f"minify_js refused: rjsmin would {'cut off' if dropped else 'change'} the {literal.kind} at line "
                f"{literal.line} of {path.name} ({literal.snippet()}), so the program would behave differently (it "
                "misreads templates nested in ${…}, JSX text, comment-like text in them). Nothing was written; the "
                "file is unchanged. Leave it unminified, or rewrite that literal (move a nested template into a "
                "variable) and retry.",
                parameter="path",
                path=str(path),
                line=literal.line,
            )
        if literals.clean:  # both parsed without an error in the path's own grammar: the syntax check, parsing
            return None  # them again, would find nothing to say
        check = self._structure.check_made(path, source, made)
        if check.introduced is not None:
            raise InvalidParamsError(
                f"minify_js refused: rjsmin's output of {path.name} would not parse ({check.introduced}) though "
                "the input does. Nothing was written; the file is unchanged. Leave it unminified.",
                parameter="path",
                path=str(path),
            )
        return check.warning

    def _exists(self, path: Path) -> bool:
        try:
            with self._safe.beneath.entry(path) as entry:
                return lstat_at(entry) is not None
        except NotFoundError:
            return False


@dataclass(frozen=True)
class _Plan:
    source: Path
    target: Path
    before: bytes
    verdict: OccVerdict
    keep_bang: bool
    structure_warning: str | None

    def preview(self, after: bytes, text: str, *, unchanged: bool = False) -> MinifyReport:
        """The dry run: sizes and the start of the result, nothing written; ``unchanged`` as the real call says it."""
        return self.report(after, None, dry_run=True, unchanged=unchanged, preview=text[:PREVIEW_CHARS])

    def report(
        self,
        after: bytes,
        written_hash: str | None,
        *,
        backup: BackupRecord | None = None,
        dry_run: bool = False,
        unchanged: bool = False,
        preview: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> MinifyReport:
        return MinifyReport(
            path=self.source,
            output_path=self.target,
            bytes_before=len(self.before),
            bytes_after=len(after),
            previous_hash=content_hash(self.before),
            content_hash=written_hash,
            backup=backup,
            dry_run=dry_run,
            unchanged=unchanged,
            kept_bang_comments=self.keep_bang,
            preview=preview,
            verdict=self.verdict,
            structure_warning=self.structure_warning,
            notes=notes,
        )


def _keeps_bang_comments(request: MinifyRequest) -> bool:
    """Whether rjsmin keeps ``/*! */`` comments; refuses the flags it cannot honour.

    Raises:
        InvalidParamsError: all three flags are false, or collapse_whitespace / single_line is false.
    """
    flags = {
        "remove_comments": request.remove_comments,
        "collapse_whitespace": request.collapse_whitespace,
        "single_line": request.single_line,
    }
    if not any(flags.values()):
        raise InvalidParamsError(
            "all of remove_comments, collapse_whitespace, and single_line are false — nothing to do. "
            "Set at least one to true, or leave all three out (they default to true)."
        )
    off = [name for name in ("collapse_whitespace", "single_line") if not flags[name]]
    if off:
        names = " and ".join(f"{name}=false" for name in off)
        raise InvalidParamsError(
            f"{names} cannot be honoured: rjsmin always collapses whitespace and joins lines, keeping only the "
            "line breaks a statement needs (automatic semicolon insertion). Nothing was written. Leave "
            f"{' and '.join(off)} out (default true); remove_comments=false keeps /*! */ license comments.",
            parameter=off[0],
        )
    return not request.remove_comments


def _javascript(data: bytes, path: Path) -> DecodedText:
    """The input decoded, if it is UTF-8 text in a file whose suffix names no other language or markup.

    Checked after the read so a binary, oversized or special file keeps its own refusal.

    Raises:
        BinaryFileError, EncodingError: as ``_utf8``.
        InvalidParamsError: the suffix names another language or markup (:data:`OTHER_LANGUAGES`).
    """
    decoded = _utf8(data, path)
    if path.suffix.lower() in OTHER_LANGUAGES:
        raise InvalidParamsError(
            f"{path.name} is a {path.suffix} file, not JavaScript; minify_js would rewrite its text into something "
            "else. Nothing was written. Pass a JavaScript file; to minify JavaScript kept under such a name, "
            "copy_file it to a .js file first and minify that.",
            parameter="path",
            path=str(path),
        )
    return decoded


def _utf8(data: bytes, path: Path) -> DecodedText:
    """The input decoded, if it is UTF-8 text (a BOM allowed).

    Raises:
        BinaryFileError: the file is binary.
        EncodingError: it is not UTF-8.
    """
    decoded = decode(data, path)
    if codecs.lookup(decoded.encoding).name != "utf-8":
        raise EncodingError(
            f"{path} is not UTF-8 (it reads as {decoded.encoding}); minify_js reads and writes UTF-8 only. "
            "Nothing was written. Convert it first with write_file(path, content, encoding='utf-8'), "
            "or check the file with get_file_info.",
            path=str(path),
            encoding=decoded.encoding,
        )
    return decoded


def _occupied(source: Path, target: Path) -> AlreadyExistsError:
    return AlreadyExistsError(
        f"{target} already exists; minify_js never overwrites a file other than its input. Nothing was written. "
        f"Choose a new output_path, move or delete {target.name} first, or omit output_path to minify {source} "
        "in place (backed up, undoable).",
        path=str(target),
    )
