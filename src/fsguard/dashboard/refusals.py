"""A refusal as the dashboard tells it: the engine's words, with the next step on the dashboard's pages.

The engine words its errors for an agent: the way on is a tool call (``backup(action='list')``). A person on the
dashboard has no tool to call; the same step is a page of it (each file's Files page lists its kept versions and
restores them, the Trash page lists and restores what was deleted). The sentence naming a call is cut, and the
page's step said instead. The other agent's steps are worded for the operator, who reads these pages: a directory
asked for as a file leads to the Files index, a deny rule's refusal names the flag that set the rule, a hook's the
hooks file.
"""

from __future__ import annotations

from pathlib import Path

from fsguard.core.denial import DEFAULT_DENY, DenyRules
from fsguard.core.errors import FsguardError

_CALL = "backup(action="  # where the agent's step begins, in every refusal the dashboard's acts can meet
_FILES = "Its Files page lists the versions of it still kept, and restores any one of them."
_TRASH = "The Trash page lists what it holds, and restores an entry where nothing is in its way."
# An error's code -> the step on the pages (by what the error names, for codes that name a backup or a trash entry).
_STEP = {
    "nothing_to_undo": _FILES,
    "backup_corrupt": "Pick another version of it on its Files page.",
    "undo_conflict": "Look at what changed on its Files page, then undo again with “undo even so” ticked: the "
    "current bytes are backed up first.",
}
_IN_TRASH = "It was deleted since: restore it from the Trash page first, then undo."


# The agent's steps of the refusals the pages can meet that name no tool call, as the engine words them.
_DIRECTORY_STEP = "Use list_directory for directories."
_RULE_STEPS = ("Work with another file; only the operator can change the rules.", "Work with another file.")
_HOOK_STEP = "satisfy it or ask the user to change the hooks config."


def page_link(error: FsguardError) -> tuple[str, str] | None:
    """The page an error page links to beside Activity (href, label), for a refusal whose way on is that page."""
    return ("/files", "Files") if error.code == "is_directory" else None


def page_message(error: FsguardError, deny: DenyRules | None = None, hooks_file: Path | None = None) -> str:
    """``error``'s message with the step it names as a tool call replaced by the step on the pages; a deny rule's
    refusal says where ``deny`` got the rule, a hook's names ``hooks_file``."""
    text = error.message
    if text.endswith(_DIRECTORY_STEP):
        return text.removesuffix(_DIRECTORY_STEP) + "The Files page lists the files that have kept versions."
    if text.endswith(_HOOK_STEP):
        where = f"the hooks file {hooks_file} (--hooks-config)" if hooks_file else "the hooks file (--hooks-config)"
        return f"{text.removesuffix(_HOOK_STEP)}satisfy it, or change its entry in {where}."
    rule = error.fields.get("rule")
    cut = next((text.removesuffix(step) for step in _RULE_STEPS if text.endswith(step)), None)
    if isinstance(rule, str) and cut is not None:
        return cut + _rule_origin(rule, deny)
    call = text.find(_CALL)
    if call < 0:
        return text
    start = max(text.rfind(". ", 0, call), text.rfind("; ", 0, call), text.rfind(": ", 0, call))
    told = text[:start].rstrip(".") + "." if start >= 0 else ""
    if "sd_id" in error.fields:
        step = _IN_TRASH if error.code == "undo_conflict" else _TRASH
    elif error.code in _STEP:
        step = _STEP[error.code]
    else:
        step = "The Files page lists each file's kept versions." if "backup_id" in error.fields else ""
    return " ".join(part for part in (told, step) if part)


def _rule_origin(rule: str, deny: DenyRules | None) -> str:
    """Where the deny ``rule`` comes from, and what the operator can change to see the file here."""
    if deny is not None and rule in deny.own:
        return (
            "It is one of fsguard's own files (its state dir, audit log or hooks file), kept from every page and tool."
        )
    if rule in DEFAULT_DENY:
        return (
            f"{rule!r} is one of fsguard's default secret rules: --no-default-deny on the command line of the "
            "dashboard and of its servers turns them off (--deny puts back the ones to keep)."
        )
    return f"It is the --deny {rule!r} rule: drop it from the command line of the dashboard and of its servers."
