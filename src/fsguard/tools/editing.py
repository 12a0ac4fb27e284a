"""edit_file and multi_edit."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from fsguard.core import modes
from fsguard.core.diff import DiffFormat
from fsguard.core.editing import EditOptions, EditReport
from fsguard.core.errors import ExternalChangeError, InvalidParamsError, IsDirectoryError, RewriteBlockedError
from fsguard.core.matching import Replacement
from fsguard.core.oserrors import shorten
from fsguard.core.requests import EditMode, EditRequest, planner_for
from fsguard.core.shortlist import shortlist
from fsguard.models import EditFileResult, MultiEditResult
from fsguard.services import Services
from fsguard.tools._arguments import ALIASES
from fsguard.tools._edit_results import edit_result, multi_result
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, ExpectedHash, PathArg, hints, voiced
from fsguard.voice import edit_text, multi_edit_text
from fsguard.voice.notes import ENDINGS_KEPT

DryRun = Annotated[bool, Field(description="Show what would change (with the diff) and write nothing.")]
DiffFormatArg = Annotated[
    DiffFormat, Field(description="auto (full diff up to 40 lines, else summary), full, summary, stat, none.")
]
Tolerant = Annotated[bool, Field(description="Match tabs as 4 spaces and CRLF/CR as LF (last matching tier).")]
Force = Annotated[
    bool, Field(description="Accepted as the seed sends it: edits never block on risk, so there is nothing to lift.")
]
EditForce = Annotated[
    bool,
    Field(description="Accepted as the seed sends it: edits never block on risk; only allow_rewrite lifts a guard."),
]
CreateBackup = Annotated[
    bool, Field(description="Accepted as the seed sends it: fsguard backs up every change it writes, even with false.")
]


class EditArg(BaseModel):
    """One edit of multi_edit."""

    model_config = ConfigDict(extra="forbid")
    old_text: str = Field(description="Exact text to change.")
    new_text: str = Field(description="Its replacement.")
    replace_all: bool = Field(False, description="Change every occurrence.")
    occurrence: int | None = Field(
        None, description="Change only this occurrence (1 = first, -1 = last); not with replace_all."
    )

    @model_validator(mode="before")
    @classmethod
    def _accept_aliases(cls, data: Any) -> Any:
        """old_str/old_string and new_str/new_string, as edit_file accepts them.

        An edit with none of the old_text spellings is refused by name, in the seed's words (catalog §1.4), so
        oldString/newString sent by another tool's habits are not reported as two unrelated field errors.
        """
        if isinstance(data, dict):
            data = dict(data)
            for alias, name in ALIASES.items():
                if alias in data and name not in data:
                    data[name] = data.pop(alias)
            if "old_text" not in data:
                got = shortlist(sorted(shorten(key) for key in map(str, data))) or "none"
                raise ValueError(
                    f"edit has no recognized old key (expected old_text, old_str or old_string; got keys: {got}). "
                    'Write each edit as {"old_text": "...", "new_text": "..."}'
                )
        return data

    @model_validator(mode="after")
    def _one_way_to_choose(self) -> EditArg:
        if self.occurrence and self.replace_all:
            raise ValueError("occurrence changes one match and replace_all every match: pass one of them")
        return self


class PatternArg(BaseModel):
    """One regex rule of edit_file mode regex."""

    model_config = ConfigDict(extra="forbid")
    pattern: str = Field(description="RE2 pattern.")
    replacement: str = Field("", description="Go-style template: $1, ${name}, $$ for a dollar.")
    limit: int = Field(0, description="Replace at most this many matches (0 or -1 = all).")


# The items' schemas are inlined, never a $ref into $defs: VS Code Copilot drops $defs before the model sees the
# tool, and Gemini CLI and Copilot CLI cannot resolve them, so edits would be sent without their shape.
EditItem = Annotated[EditArg, WithJsonSchema(EditArg.model_json_schema())]
PatternItem = Annotated[PatternArg, WithJsonSchema(PatternArg.model_json_schema())]


def register(catalog: Catalog) -> None:
    """Add edit_file and multi_edit to the catalog."""
    services = catalog.services
    compact = catalog.compact
    context = 0 if compact else 3

    @bridge
    def edit_file(
        path: PathArg,
        old_text: Annotated[
            str | None, Field(description="replace: the exact text to change (copy from read_file).")
        ] = None,
        new_text: Annotated[str | None, Field(description="replace/insert/replace_range: the new text.")] = None,
        mode: Annotated[EditMode, Field(description="How to place the edit (default replace).")] = "replace",
        replace_all: Annotated[
            bool, Field(description="replace: change every occurrence, not just a unique one.")
        ] = False,
        occurrence: Annotated[
            int | None,
            Field(description="replace: change only this occurrence (1 = first, -1 = last); not with replace_all."),
        ] = None,
        whole_word: Annotated[bool, Field(description="replace: match old_text only as a whole word.")] = False,
        pattern: Annotated[str | None, Field(description="search_replace: literal text; regex: RE2 pattern.")] = None,
        replacement: Annotated[str | None, Field(description="search_replace/regex replacement ($1, ${name}).")] = None,
        patterns_json: Annotated[list[PatternItem] | None, Field(description="regex: several rules in order.")] = None,
        case_sensitive: Annotated[bool, Field(description="search_replace/regex: match case.")] = True,
        anchor: Annotated[
            str | None, Field(description="insert: text that occurs once, next to the insertion.")
        ] = None,
        position: Annotated[
            Literal["before", "after"], Field(description="insert: before or after the anchor's lines.")
        ] = "after",
        start_line: Annotated[int | None, Field(ge=1, description="replace_range/delete_range: first line.")] = None,
        end_line: Annotated[
            int | None, Field(ge=1, description="replace_range/delete_range: last line, inclusive.")
        ] = None,
        expected_hash: ExpectedHash = None,
        dry_run: DryRun = False,
        diff_format: DiffFormatArg = "auto",
        tolerant_whitespace: Tolerant = False,
        allow_rewrite: Annotated[
            bool, Field(description="Allow a replace whose new_text looks like a whole-file rewrite.")
        ] = False,
        force: EditForce = False,
        create_backup: CreateBackup = True,
    ) -> Annotated[CallToolResult, EditFileResult]:
        """Change one place in a file; several in one file: multi_edit; the same text in many: project_replace.

        mode replace (default) swaps old_text for new_text; old_text must match exactly one place (ladder:
        exact, escaped newlines, trailing whitespace, indentation; tolerant_whitespace adds tabs/CRLF)
        unless replace_all or occurrence. Other modes: search_replace (literal), regex (RE2), insert
        (anchor + position), replace_range / delete_range (start_line..end_line). Every mode honours
        expected_hash and dry_run, keeps untouched bytes, encoding and line endings, and is undoable with
        backup(action="undo_last", file_path=...).
        """
        request = EditRequest(
            mode=mode,
            old_text=old_text,
            new_text=new_text,
            replace_all=replace_all,
            occurrence=occurrence,
            whole_word=whole_word,
            pattern=pattern,
            replacement=replacement,
            rules=tuple(modes.RegexRule(p.pattern, p.replacement, p.limit) for p in patterns_json or ()),
            case_sensitive=case_sensitive,
            anchor=anchor,
            position=position,
            start_line=start_line,
            end_line=end_line,
            tolerant=tolerant_whitespace,
        )
        options = EditOptions(
            tool="edit_file",
            mode=mode,
            expected_hash=expected_hash,
            dry_run=dry_run,
            diff_format=diff_format,
            diff_context=context,
            allow_rewrite=allow_rewrite,
            match_text=old_text if mode == "replace" else None,
        )
        planner = planner_for(request, str(path))
        report = _run(services, path, planner, options, force=force)
        notes = _flag_notes(report, force, create_backup) + _ending_notes(request, report) + list(report.hook_notes)
        result = edit_result(report).model_copy(update={"notes": notes or None})
        return voiced(result, edit_text, compact)

    @bridge
    def multi_edit(
        path: PathArg,
        edits_json: Annotated[
            list[EditItem] | None,
            Field(description='Edits in order: [{"old_text": …, "new_text": …}], as an array or JSON text.'),
        ] = None,
        edits: Annotated[list[EditItem] | None, Field(description="Same as edits_json.")] = None,
        expected_hash: ExpectedHash = None,
        dry_run: DryRun = False,
        diff_format: DiffFormatArg = "auto",
        tolerant_whitespace: Tolerant = False,
        force: Force = False,
        create_backup: CreateBackup = True,
    ) -> Annotated[CallToolResult, MultiEditResult]:
        """Make several edits to one file in one call, all or nothing; for one edit use edit_file.

        Each edit is placed like edit_file's replace mode on the text left by the edits before it. If any
        edit cannot be placed the file is untouched and the error lists every edit's status.
        """
        if edits_json is not None and edits is not None and edits_json != edits:
            raise InvalidParamsError(
                "edits_json and edits are one list sent twice, with different edits: send it once, as edits_json."
            )
        given = edits_json if edits_json is not None else edits
        if not given:
            example = 'multi_edit needs edits_json: [{"old_text": "...", "new_text": "..."}, ...].'
            # The seed's words for an empty array, which its callers match on.
            raise InvalidParamsError(example if given is None else f"edits array cannot be empty: {example}")
        replacements = [
            Replacement(e.old_text, e.new_text, replace_all=e.replace_all, occurrence=e.occurrence or None)
            for e in given
        ]
        planner = modes.multi(replacements, tolerant=tolerant_whitespace, path=str(path))
        options = EditOptions(
            tool="multi_edit",
            expected_hash=expected_hash,
            dry_run=dry_run,
            diff_format=diff_format,
            diff_context=context,
        )
        report = services.editor.run(path, planner, options)
        notes = _flag_notes(report, force, create_backup) + list(report.hook_notes)
        result = multi_result(report).model_copy(update={"notes": notes or None})
        return voiced(result, multi_edit_text, compact)

    catalog.add(
        edit_file,
        hints("Edit File", read_only=False, destructive=True, idempotent=False),
        [
            ("replace one place", {"path": "src/app.py", "old_text": "x = 1\n", "new_text": "x = 2\n"}),
            ("preview", {"path": "src/app.py", "old_text": "debug=True", "new_text": "debug=False", "dry_run": True}),
            (
                "regex with groups",
                {"path": "a.txt", "mode": "regex", "pattern": "(\\w+)@(\\w+)", "replacement": "$2 at $1"},
            ),
            ("insert after a line", {"path": "a.py", "mode": "insert", "anchor": "import os", "new_text": "import re"}),
            ("delete lines", {"path": "a.py", "mode": "delete_range", "start_line": 10, "end_line": 12}),
        ],
        on_loop="edit",
    )
    catalog.add(
        multi_edit,
        hints("Multi Edit", read_only=False, destructive=True, idempotent=False),
        [
            (
                "two edits at once",
                {
                    "path": "a.py",
                    "edits_json": [{"old_text": "a", "new_text": "b"}, {"old_text": "c", "new_text": "d"}],
                },
            )
        ],
        on_loop="edit",
    )


def _run(services: Services, path: str, planner: modes.Planner, options: EditOptions, *, force: bool) -> EditReport:
    """Run the edit; a directory is pointed to project_replace, and a rewrite refusal of a forced call says that
    force is not the flag that lifts it."""
    try:
        return services.editor.run(path, planner, options)
    except IsDirectoryError as exc:
        # The seed's search_replace walked a directory (catalog §1.3 B); fsguard's edits stay on one file.
        raise IsDirectoryError(
            f"cannot edit directory: {path} is a directory; edit_file changes one file. To replace text in every "
            f"file under it, see the counts with project_replace(path={path!r}, find=..., replace=..., "
            "preview=true), then run it as its preview says.",
            **exc.fields,
        ) from exc
    except ExternalChangeError as exc:  # the seed named the tool: "edit_file blocked: file changed on disk …"
        raise ExternalChangeError(f"edit_file {exc.message}", **exc.fields) from exc
    except RewriteBlockedError as exc:
        if not force:
            raise
        raise RewriteBlockedError(
            exc.message + " (force=true does not lift this guard, as in the seed: allow_rewrite=true does.)",
            **exc.fields,
        ) from exc


def _flag_notes(report: EditReport, force: bool, create_backup: bool) -> list[str]:
    """What the seed's force and create_backup did: fsguard never blocks an edit on risk and always backs up."""
    notes = []
    if force:
        if report.mode == "multi_edit":
            notes.append("force=true changes nothing here: multi_edit never blocks on risk (it is only reported).")
        else:
            notes.append(
                "force=true changes nothing here: edit_file never blocks on risk (it is only reported); "
                "allow_rewrite is what lifts the rewrite guard."
            )
    if not create_backup:
        taken = (
            f"backup {report.backup.backup_id}; undo_last reverts this edit"
            if report.backup is not None
            else "this call wrote nothing"
        )
        notes.append(f"create_backup=false is ignored: fsguard backs up every change it writes ({taken}).")
    return notes


def _ending_notes(request: EditRequest, report: EditReport) -> list[str]:
    """Why an edit that only retypes line breaks changed nothing, and what does change a file's endings."""
    if not report.plan.replacements or report.content_hash != report.previous_hash:
        return []
    if not request.retypes_line_breaks():
        return []
    return [
        f"{ENDINGS_KEPT} To convert a file's line endings, send the whole file with write_file content_base64 "
        "(CRLF to LF: mode search_replace, pattern '\\r', replacement '')."
    ]
