"""A refusal as the dashboard tells it: the engine's words, with the next step on the dashboard's pages.

The engine words its errors for an agent: the way on is a tool call (``backup(action='list')``). A person on the
dashboard has no tool to call; the same step is a page of it (each file's Files page lists its kept versions and
restores them, the Trash page lists and restores what was deleted). The sentence naming a call is cut, and the
page's step said instead.
"""

from __future__ import annotations

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


def page_message(error: FsguardError) -> str:
    """``error``'s message with the step it names as a tool call replaced by the step on the pages."""
    text = error.message
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
