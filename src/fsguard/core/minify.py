"""minify_js: JavaScript minified by rjsmin, in place (backed up, undoable) or into a new file.

rjsmin is a C build of Crockford's jsmin rules: it never changes a string, a template literal or a regex
literal, and it keeps a line break wherever dropping it could change the program (``a\\n(b)``,
``return\\nx``, ``i\\n++\\nj``: automatic semicolon insertion). The seed's hand-written minifier joined
such lines and changed what programs did; this module never minifies by itself.

The seed's three flags are mapped onto what rjsmin can do, and nothing is pretended:

* ``remove_comments=false`` keeps ``/*! … */`` (license) comments, rjsmin's only way to keep any; other
  comments are removed all the same, as the parameter's description says.
* ``collapse_whitespace`` and ``single_line`` cannot be turned off: rjsmin always does both (keeping the
  line breaks a statement needs), so ``false`` is refused rather than ignored.

Bytes around the script: a ``#!`` first line is kept verbatim with its own line break (rjsmin would
collapse its spaces and could read ``//`` in it as a comment); a UTF-8 BOM is kept, like every fsguard
write keeps it; the line breaks rjsmin keeps are LF. Only UTF-8 files are minified.

As a safety net the input and output are parsed (tree-sitter, by the input's suffix): a syntax error the
output has and the input had not is reported as ``structure_warning``, in dry runs too; else one the input has
(a truncated file, a string or comment never closed: the seed flagged it ``truncated:input-malformed``), since its
output is broken with it. It never blocks.
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
    structure_warning: str | None  # a syntax error the minified text has and the input had not, or the input's


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
            InvalidParamsError: the input's suffix is not a JavaScript one; nothing was written.
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
            plan = _Plan(path, path, data, verdict, keep_bang, self._structure.check_made(path, decoded.text, text))
            if request.dry_run:
                after = decoded.bom + text.encode()
                return plan.preview(after, text, unchanged=after == data)
            substituted = change.fire_pre(hook, over=decoded, old_content=decoded.text, new_content=text)
            new = decoded.bom + (text if substituted is None else substituted).encode()
            if new == data:
                digest = content_hash(data)
                self._safe.session.record_hash(path, digest)
                return plan.report(new, digest, unchanged=True)
            done = change.commit(new, hook)
        return plan.report(new, done.content_hash, backup=done.backup)

    def _into_new_file(self, source: Path, target: Path, request: MinifyRequest, keep_bang: bool) -> MinifyReport:
        # The input is read under its own lock, released before the output's is taken: two calls minifying
        # a→b and b→a can never wait on each other.
        with mutation(self._safe, source, reading_only=True) as reading:
            data = reading.require()
            verdict = reading.check(request.expected_hash)
        decoded = _javascript(data, source)
        text = minify_source(decoded.text, keep_bang_comments=keep_bang)
        plan = _Plan(source, target, data, verdict, keep_bang, self._structure.check_made(source, decoded.text, text))
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
        return plan.report(new, done.content_hash)

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
