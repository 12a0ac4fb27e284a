"""Result models: each tool's outputSchema is generated from one of these, so schema and payload cannot drift.

Optional fields are left out of structuredContent when they do not apply (``exclude_none``).
"""

from fsguard.models.backups import BackupAction, BackupInfo, BackupResult, RestoredFile, TrashInfo
from fsguard.models.base import Result
from fsguard.models.editing import EditFileResult, EditOutcomeFields, EditStatus, MultiEditResult, WriteFileResult
from fsguard.models.files import (
    AnalyzeResult,
    CopyResult,
    CreateDirectoryResult,
    DeletedPath,
    DeleteResult,
    DirectoryEntry,
    EntryType,
    FileFacts,
    FileInfo,
    GetFileInfoResult,
    ListDirectoryResult,
    MoveResult,
    ReadFileEntry,
    ReadFileResult,
    TreeNode,
)
from fsguard.models.meta import (
    Artifact,
    BackupStoreStats,
    HelpResult,
    ServerInfoResult,
    Stats,
    ToolExample,
    ToolSummary,
)
from fsguard.models.search import ProjectReplaceResult, ReplacedFile, SearchMatch, SearchResult

__all__ = [
    "AnalyzeResult",
    "Artifact",
    "BackupAction",
    "BackupInfo",
    "BackupResult",
    "BackupStoreStats",
    "CopyResult",
    "CreateDirectoryResult",
    "DeleteResult",
    "DeletedPath",
    "DirectoryEntry",
    "EditFileResult",
    "EditOutcomeFields",
    "EditStatus",
    "EntryType",
    "FileFacts",
    "FileInfo",
    "GetFileInfoResult",
    "HelpResult",
    "ListDirectoryResult",
    "MoveResult",
    "MultiEditResult",
    "ProjectReplaceResult",
    "ReadFileEntry",
    "ReadFileResult",
    "ReplacedFile",
    "RestoredFile",
    "Result",
    "SearchMatch",
    "SearchResult",
    "ServerInfoResult",
    "Stats",
    "ToolExample",
    "ToolSummary",
    "TrashInfo",
    "TreeNode",
    "WriteFileResult",
]
