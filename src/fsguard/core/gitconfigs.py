"""The config files every git run reads beside a repository's own: the user's global ones and the system one.

A filter, a diff driver or an fsmonitor named in any of them is a program git runs, in every repository. Where one
lies inside a root (the root is the home directory, or holds the dotfiles a home's ``.gitconfig`` links to), an
agent that wrote it would choose what fsguard's git runs next, so start-up denies each to every tool, as it denies
fsguard's own files (:mod:`fsguard.groundwork`). Only paths are worked out here, from the environment the git
processes inherit: no git runs, and a file that is not there yet is denied all the same.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

_SYSTEM = Path("/etc/gitconfig")


def read_by_git(environ: Mapping[str, str]) -> list[Path]:
    """The global and system config files git reads under ``environ``, absolute (links not followed): those
    GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM name, else ``~/.gitconfig``, ``/etc/gitconfig``, the ``etc/gitconfig``
    of the prefix git is installed under, and the whole ``$XDG_CONFIG_HOME/git`` (default ``~/.config/git``).

    That last is a directory: a tree moved or copied there would bring a ``config`` along, which a rule for the
    file alone never judges (it judges the directory's name); it holds git's stored credentials too."""
    found: list[Path] = []
    home = environ.get("HOME")
    if chosen := environ.get("GIT_CONFIG_GLOBAL"):
        found.append(Path(chosen))
    elif home:
        xdg = environ.get("XDG_CONFIG_HOME")
        found += [Path(home, ".gitconfig"), Path(xdg, "git") if xdg else Path(home, ".config", "git")]
    if chosen := environ.get("GIT_CONFIG_SYSTEM"):
        found.append(Path(chosen))
    else:
        found.append(_SYSTEM)
        if (git := shutil.which("git", path=environ.get("PATH", os.defpath))) is not None:
            found.append(Path(os.path.realpath(git)).parent.parent / "etc" / "gitconfig")  # a build's own prefix
    return list(dict.fromkeys(path.absolute() for path in found))
