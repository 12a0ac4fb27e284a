"""The text block of each result, in the seed's two voices: verbose (default) and compact.

Both voices carry the same facts; compact drops the labels and layout.
"""

from fsguard.voice.backups import backup_text
from fsguard.voice.editing import edit_text, multi_edit_text, write_text
from fsguard.voice.files import (
    analyze_text,
    copy_text,
    create_directory_text,
    delete_text,
    info_many_text,
    info_text,
    listing_text,
    move_text,
    read_text,
)
from fsguard.voice.git import git_text
from fsguard.voice.jsonform import json_text
from fsguard.voice.meta import artifact_text, help_text, stats_text
from fsguard.voice.minify import minify_text
from fsguard.voice.search import replace_text, search_text
from fsguard.voice.sizes import human_size
from fsguard.voice.wsl import wsl_text

__all__ = [
    "analyze_text",
    "artifact_text",
    "backup_text",
    "copy_text",
    "create_directory_text",
    "delete_text",
    "edit_text",
    "git_text",
    "help_text",
    "human_size",
    "info_many_text",
    "info_text",
    "json_text",
    "listing_text",
    "minify_text",
    "move_text",
    "multi_edit_text",
    "read_text",
    "replace_text",
    "search_text",
    "stats_text",
    "write_text",
    "wsl_text",
]
