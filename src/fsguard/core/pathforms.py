"""How clients spell paths, read before any check: quotes and spaces around them, URIs, ``~``, Windows
backslashes, Unicode forms, a trailing ``/``.

Agents copy paths from everywhere: ``file://`` URIs from resource links and MCP roots, ``~/x`` from a shell,
``src\\main.py`` from Windows. Each is read as what it names, so a call never acts on something else (a directory
called ``~``, a file whose name holds backslashes); :mod:`fsguard.core.paths` then checks the result like any path.
Then the spellings refused outright (invisible characters, Windows device names, the names ``.git`` goes by), and
which paths are judged on their text alone (:func:`is_plain`). Last, containment of checked paths in a root, on
strings (:func:`within`, :func:`names_below`).
"""

from __future__ import annotations

import os
import re
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable
from pathlib import Path

from fsguard.core.errors import FsguardError, InvalidParamsError

_DRIVE_PATH = re.compile(r"^[A-Za-z]:(?:[\\/]|$)")
# Beside controls and category Cf (bidi, zero-width, soft hyphen): the line and paragraph separators (Zl/Zp), and
# the byte order mark's character.
_INVISIBLE = frozenset({0x00AD, 0x2028, 0x2029, 0xFEFF})


def is_invisible(char: str) -> bool:
    """Whether ``char`` is one no path may hold (a control, bidi or zero-width character, a line separator): it
    hides or disguises a name, and in a text block's rows a line break forges a row of its own."""
    point = ord(char)
    return point < 0x20 or point == 0x7F or point in _INVISIBLE or unicodedata.category(char) == "Cf"


def typeable(name: str) -> bool:
    """Whether a path may hold ``name``: one with a control, bidi or zero-width character is refused as typed (so a
    listing may show it, but a suggestion of it would only lead to that refusal), and one that is not UTF-8 (its
    bytes held as lone surrogates) cannot be sent at all: it is shown with U+FFFD, which names another file."""
    if name.isascii() and name.isprintable():
        return True
    return not any(is_invisible(char) or "\ud800" <= char <= "\udfff" for char in name)


def escaped(name: str, keep: str = "") -> str:
    """``name`` with each :func:`is_invisible` character but those in ``keep`` written ``\\uXXXX``: a message or a
    text block lists a name a line, so a line break in a name forged a row of its own (``x\\nFILE fake.txt 1 B``)
    and an escape sequence or a bidi override disguised it."""
    if name.isprintable():  # nearly every name, judged in C: each character escaped below is unprintable
        return name
    return "".join(f"\\u{ord(char):04x}" if is_invisible(char) and char not in keep else char for char in name)


def local_form(user_path: str) -> str:
    """The path a ``file://`` URI or a ``~`` names; any other path as given.

    ``file:///x/a%20b`` (and ``file://localhost/x/a%20b``, ``file:/x/a%20b``) is ``/x/a b``, ``file:///C:/x`` is
    ``C:/x``: fsguard hands out such URIs itself (resource links, MCP roots) and agents pass them back. ``~`` and
    ``~/x`` start at the home directory, as in a shell, rather than naming a directory called ``~`` under the first
    root.

    Raises:
        InvalidParamsError: a URI naming another host.
    """
    if user_path[:6].lower() == "file:/":  # file:/x too, RFC 8089's form without an authority
        uri = urllib.parse.urlsplit(user_path)
        if uri.netloc.lower() not in ("", "localhost"):
            raise InvalidParamsError(
                f"{user_path!r} names a file on the host {uri.netloc!r}; fsguard reaches this machine's files only. "
                "Pass a local path, or a URI that starts with file:/// ."
            )
        path = urllib.parse.unquote(uri.path)
        return path[1:] if _DRIVE_PATH.match(path[1:]) else path
    if user_path == "~" or user_path.startswith("~/"):
        return str(Path.home()) + user_path[1:]
    return user_path


_QUOTES = frozenset("\"'`")
_DIRECTORY_ENDS = ("/", "\\", "/.", "\\.")


def unwrapped(user_path: str, base: Path) -> str:
    """A path as sent without what a model wraps it in: spaces or a line break at its ends (``"a.txt\\n"``), quotes
    around it (``"\\"src/a.py\\""``, as copied from a shell or a message), or both.

    Unless an entry spelled as sent exists (a relative path under ``base``): spaces and quotes are legal in a Linux
    name, and such a file keeps its name. A new file is never given quotes around its name, or spaces at its ends.
    """
    bare = user_path.strip()
    if len(bare) >= 2 and bare[0] == bare[-1] and bare[0] in _QUOTES:
        bare = bare[1:-1].strip()
    if bare == user_path or os.path.lexists(base / user_path):  # an absolute user_path replaces base
        return user_path
    return bare


RESERVED_DEVICE_NAMES = frozenset(
    {"CON", "PRN", "AUX", "NUL"} | {f"COM{i}" for i in range(10)} | {f"LPT{i}" for i in range(10)}
)


def refused_character(path: str) -> str | None:
    """The first character no path may contain (controls, bidi, zero-width), as ``U+XXXX``."""
    if path.isascii() and path.isprintable():  # every call checks its paths: most are plain ASCII, judged in C
        return None
    return next((f"U+{ord(char):04X}" for char in path if is_invisible(char)), None)


def reserved_component(parts: Iterable[str]) -> str | None:
    """A Windows device name (CON, NUL.txt, com1.tar.gz …) among the path components."""
    for part in parts:
        stem = part.split(".", 1)[0].rstrip(" ").upper()
        if stem in RESERVED_DEVICE_NAMES:
            return part
    return None


def is_dot_git(name: str) -> bool:
    """``.git`` as some filesystem may read the name: case-insensitive mounts (WSL's /mnt/c, macOS) fold case, and
    NTFS drops trailing dots and spaces and answers to the 8.3 short name ``GIT~1`` (git refuses the same spellings
    in the trees it checks out)."""
    return name.lower().rstrip(". ") in (".git", "git~1")


def is_plain(user_path: str) -> bool:
    """Whether the path checks (:mod:`fsguard.core.paths`) judge ``user_path`` on its text alone, never looking at
    a file: printable ASCII (no name to find in another Unicode form), nothing a model wraps a path in (spaces,
    quotes), no backslash, no ``~`` or ``file:`` form. Their answer for it can be remembered."""
    return (
        user_path.isascii()
        and user_path.isprintable()
        and user_path == user_path.strip()
        and user_path[:1] not in _QUOTES
        and user_path[-1:] not in _QUOTES
        and "\\" not in user_path
        and not user_path.startswith("~")
        and user_path[:5].lower() != "file:"
    )


def with_separators(relative: str, base: Path) -> str:
    """A relative path written with Windows backslashes (``src\\main.py``) as the path it means (``src/main.py``).

    Unless an entry spelled with the backslashes exists under ``base``: a backslash is a legal character in a
    Linux name, and such a file keeps its name. A new file is never given a name with backslashes in it.
    """
    if "\\" not in relative or os.path.lexists(base / relative):
        return relative
    return relative.replace("\\", "/")


def in_stored_form(path: Path) -> Path:
    """``path`` with each name that does not exist replaced by the one entry beside it that is the same name in
    another Unicode form, if there is one: a name typed composed (NFC) reaches the entry stored decomposed (NFD, as
    macOS writes names), and the other way round.

    Agents send names composed, whatever form the listing they copied showed: without this a read of a decomposed
    name answers not_found, and a write creates a second file that looks the same. A name that exists as given is
    kept, and two entries that differ only in form are each reached by their own spelling.
    """
    if str(path).isascii() or os.path.lexists(path):  # nearly every path: no name to look up
        return path
    current, *names = path.parts
    found = Path(current)
    for index, name in enumerate(names):
        step = found / name
        if not os.path.lexists(step):
            stored = _same_name_in(found, name)
            if stored is None:
                return Path(found, *names[index:])
            step = found / stored
        found = step
    return found


def respelled(entry: Path, user_path: str) -> Path:
    """``entry`` (``user_path`` resolved, :func:`in_stored_form` applied) under the last name ``user_path`` spells,
    when that is the entry's own name in another Unicode form: the name a rename is asked to give it. Else ``entry``.
    """
    typed = Path(local_form(user_path)).name
    if typed == entry.name or typed.isascii():
        return entry
    same = unicodedata.normalize("NFC", typed) == unicodedata.normalize("NFC", entry.name)
    return entry.with_name(typed) if same else entry


def _same_name_in(directory: Path, name: str) -> str | None:
    """The single entry of ``directory`` whose name is ``name`` in another Unicode form, else None."""
    if name.isascii():
        return None
    composed = unicodedata.normalize("NFC", name)
    try:
        entries = [entry.name for entry in directory.iterdir()]
    except OSError:
        return None
    found = [entry for entry in entries if not entry.isascii() and unicodedata.normalize("NFC", entry) == composed]
    return found[0] if len(found) == 1 else None


def check_file_spelling(user_path: str, canonical: Path) -> None:
    """Refuse to create or replace a file at a path written as a directory (``notes/``), unless it is one.

    ``write_file("notes/")`` or ``move_file("a.txt", "notes/")`` meant a directory: writing a file called
    ``notes`` would succeed at something else (POSIX refuses such a path too). Reading, editing or deleting
    ``a.txt/`` names the file unambiguously and goes on working; an existing directory is left to the caller.

    Raises:
        InvalidParamsError: ``user_path`` ends with a separator (a ``.`` after it or not) and ``canonical`` is not a
            directory.
    """
    spelled = user_path.rstrip()
    # Separators and "." components after them name a directory too ("notes/.", "a/./"), as POSIX reads them: the
    # spelling is judged here, since Path("notes/.") is Path("notes").
    bare = spelled
    while bare.endswith(_DIRECTORY_ENDS):
        bare = bare[:-2] if bare.endswith(".") else bare[:-1]
    ending = spelled[len(bare) :]
    if ending and not canonical.is_dir():
        if canonical.exists() or canonical.is_symlink():
            found, fix = f"{bare} is a file", f"drop the '{ending}' to name {bare} itself"
        else:
            found, fix = (
                "there is none",
                f"name a file inside it ({bare}/notes.txt), or drop the '{ending}' for a file {bare}",
            )
        raise InvalidParamsError(
            f"{user_path!r} ends with '{ending}', which names a directory, but {found}; nothing was written. To go on, "
            f"{fix}.",
            path=user_path,
        )


def within(path: Path | str, root: Path) -> bool:
    """``path`` is ``root`` or lies under it: ``Path.is_relative_to`` for the normalised absolute paths fsguard
    checks (no ``.``, ``..``, doubled or trailing ``/``), on their strings, since every call asks it several times
    and ``is_relative_to`` builds two paths' parts each time. A path starting ``//`` (which POSIX lets mean
    something else) is under no root, as for ``is_relative_to``."""
    text, top = str(path), str(root)
    if text.startswith("//"):
        return False
    return text == top or text.startswith(top if top.endswith("/") else top + "/")


def names_below(path: Path | str, root: Path) -> list[str]:
    """The names from ``root`` down to ``path`` (which :func:`within` holds): ``path.relative_to(root).parts``."""
    rest = str(path)[len(str(root)) :].lstrip("/")
    return rest.split("/") if rest else []


def absolute_or_given(resolve: Callable[[str], Path], user_path: str) -> str:
    """The absolute path of a path a multi-path call failed on, as every other path in its answer is (SPEC §2); what
    the caller wrote only when it names no path the policy allows (a deny rule's refusal names it absolute)."""
    try:
        return str(resolve(user_path))
    except FsguardError as exc:
        # A deny rule's refusal names the path as asked, absolute but not resolved (PathPolicy.check_not_denied).
        named = exc.fields.get("path") if "rule" in exc.fields else None
        return named if isinstance(named, str) and Path(named).is_absolute() else user_path
