"""Deny rules: paths no tool reads, writes, lists or finds (secrets first), as gitignore-style globs.

Patterns use pathspec's gitwildmatch (the .gitignore language), matched against a path relative to the root holding
it, and to each root holding it when roots nest (a rule written for the project, ``sub/secret.txt``, still hides
the file when ``sub`` is a root or a read-only root too): a pattern without a slash (``.env``, ``*.pem``) matches
that name at any depth, one with a slash is anchored unless it starts with ``**/``, and ``!pattern`` re-allows what
an earlier rule denied. The operator's ``--deny`` rules come after the defaults, so ``--deny '!.npmrc'`` re-allows a
default.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fsguard.core.confirmation import plural
from fsguard.core.errors import AccessDeniedError, InvalidParamsError
from fsguard.core.gitstore import in_object_store, outside_object_stores

if TYPE_CHECKING:
    import pathspec

# Secrets agents should never see. Templates of .env files are documentation, not secrets; public keys
# (id_*.pub) are meant to be shared.
DEFAULT_DENY: tuple[str, ...] = (
    ".env",
    ".env.*",
    "!.env.example",
    "!.env.sample",
    "!.env.template",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_ed25519*",
    "id_ecdsa*",
    "id_dsa*",
    "!id_*.pub",
    "**/.aws/credentials",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
)


@dataclass(frozen=True)
class DenyRules:
    """An ordered list of gitwildmatch patterns; the last pattern matching a path decides, as in .gitignore."""

    patterns: tuple[str, ...] = ()
    own: frozenset[str] = frozenset()  # the rules fsguard wrote for its own files, known good as the defaults

    def __post_init__(self) -> None:
        if not (self.own | frozenset(DEFAULT_DENY)).issuperset(self.patterns):
            self._compiled  # noqa: B018 - the operator's rules are checked at start-up; the others are known good

    @cached_property
    def names_directories(self) -> bool:
        """Whether a rule names directories only (``private/``): then whether a path is one decides."""
        return any(rule.rstrip().endswith("/") for rule in self.patterns if not rule.startswith("!"))

    @cached_property
    def _compiled(self) -> tuple[pathspec.GitIgnoreSpec, re.Pattern[str] | None]:
        """The spec and its one-regex prefilter, compiled on first use: pathspec (and re2, which it loads) is
        no start-up cost of a server with only the default rules."""
        import pathspec

        try:
            # Composed (NFC), as every path is before it is matched: a name written decomposed (macOS writes NFD)
            # looks the same as the rule naming it, and must be hidden by it. Lower case, as every path is: a
            # case-insensitive mount (macOS's default, WSL's /mnt/c) opens .env when asked for .ENV.
            spec = pathspec.GitIgnoreSpec.from_lines(_folded(rule) for rule in self.patterns)
        except (ValueError, TypeError) as exc:
            raise InvalidParamsError(f"a deny rule is not a valid glob: {exc}. Fix the --deny pattern.") from exc
        return spec, _prefilter(spec)

    @cached_property
    def _exact(self) -> pathspec.GitIgnoreSpec:
        """The rules in their own case (composed), for :meth:`rule_for`'s second look."""
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(unicodedata.normalize("NFC", rule) for rule in self.patterns)

    @cached_property
    def _negated(self) -> bool:
        return any(rule.lstrip().startswith("!") for rule in self.patterns)

    @cached_property
    def _spelled(self) -> dict[str, str]:
        """Each rule as the operator wrote it, by its folded form: what a refusal names."""
        return {_folded(rule): rule for rule in reversed(self.patterns)}

    @classmethod
    def create(cls, extra: Iterable[str], *, defaults: bool = True, hidden: Iterable[str] = ()) -> DenyRules:
        """The default secret rules (unless switched off), the operator's, then one rule for each root-relative path
        of ``hidden`` (fsguard's own files: last, so that no operator's "!" rule lets them back in)."""
        own = tuple(_literal_rule(path) for path in hidden)
        return cls(
            (*(DEFAULT_DENY if defaults else ()), *(rule for rule in extra if rule.strip()), *own), frozenset(own)
        )

    @property
    def active(self) -> bool:
        return bool(self.patterns)

    def rule_for(self, relative: str, *, is_dir: bool = False) -> str | None:
        """The pattern denying ``relative`` (a root-relative POSIX path), or None when it is allowed."""
        if not self.patterns or not relative or relative == ".":
            return None
        exact = _as_matched(relative + "/" if is_dir else relative)
        candidate = exact.lower()
        spec, prefilter = self._compiled
        if prefilter is not None and prefilter.match(candidate) is None:
            return None  # no pattern, denying or re-allowing, matches: most paths end here, in one regex
        rule = _denying(spec, candidate)
        if rule is None and self._negated:
            # A "!" rule lets one spelling back in, not every other: .env.EXAMPLE is no template on a case-sensitive
            # disk. Any spelling a rule denies stays denied.
            rule = _denying(self._exact, exact)
        return None if rule is None else self._spelled.get(rule, rule)

    def rule_among(self, views: tuple[str, ...], *, is_dir: bool = False) -> str | None:
        """The pattern denying the path in any of its ``views`` (relative to each root holding it, see
        :func:`relative_views`), or None when every view allows it."""
        for relative in views:
            rule = self.rule_for(relative, is_dir=is_dir)
            if rule is not None:
                return rule
        return None

    def judge_by_place(self, views: Iterable[str]) -> bool:
        """Whether a rule may judge a path below one of ``views`` (root-relative directories) by the directories on
        its way, not by the names below them alone: only then can a tree moved or copied from one of them to another
        be judged otherwise where it lands, and its names are worth a walk. Errs towards yes."""
        named, placed = self._places
        for view in views:
            parts = _as_matched(view).lower().split("/") if view else []
            lead = "".join(part + "/" for part in parts)
            if lead and any(regex.match(lead) for regex in named):
                return True  # a name on the way: a rule hides, or lets back in, everything below it
            # A path below starts with the lead; a "**/" rule's match may start at any directory on the way.
            tails = ["".join(part + "/" for part in parts[i:]) for i in range(len(parts))]
            for literal, anywhere in placed:
                if any(
                    literal.startswith(tail) or tail.startswith(literal) for tail in (tails if anywhere else [lead])
                ):
                    return True
        return False

    @cached_property
    def _places(self) -> tuple[list[re.Pattern[str]], list[tuple[str, bool]]]:
        """The regexes of the rules that name a file or directory at any depth (no "/" but a last one), and of the
        others the text they start with up to the first wildcard or escape, with whether it may start at any depth
        (``**/``): what :meth:`judge_by_place` compares a directory with."""
        named: list[re.Pattern[str]] = []
        placed: list[tuple[str, bool]] = []
        for pattern in self._compiled[0].patterns:
            text, regex = getattr(pattern, "pattern", None), getattr(pattern, "regex", None)
            if getattr(pattern, "include", None) is None or not isinstance(text, str):
                continue  # a blank line or comment
            body = text.rstrip().removeprefix("!")
            anchored = body.startswith("/")
            body = body.removeprefix("/")
            if not anchored and "/" not in body.rstrip("/") and isinstance(regex, re.Pattern):
                named.append(regex)
                continue
            anywhere = body.startswith("**/")
            body = body.removeprefix("**/")
            placed.append((body[: next((i for i, c in enumerate(body) if c in "*?[\\"), len(body))], anywhere))
        return named, placed

    def denied_among(self, names: list[str], prefix: str = "") -> set[str]:
        """Those of ``names`` whose root-relative path, ``prefix + name``, a rule denies (as :meth:`rule_for`
        decides); the names, without the prefix.

        A search hands over tens of thousands of names: joined one per line (each after the prefix, with no string
        built per name), the prefilter runs over them all at once in RE2 (never across a line break), and only the
        lines where some pattern may match are decided one by one. Paths past ASCII, or holding a line break, are
        decided one by one.
        """
        if not self.patterns or not names:
            return set()
        text = prefix + ("\n" + prefix).join(names)
        prefilter = self._compiled[1]
        lines = _line_prefilter(prefilter.pattern) if prefilter is not None else None
        if lines is None or not text.isascii() or text.count("\n") != len(names) - 1:
            return {name for name in names if self.rule_for(prefix + name) is not None}
        data = text.encode("ascii")
        cut = len(prefix)
        denied: set[str] = set()
        for found in lines.finditer(data.lower()):  # ASCII lower case keeps every offset
            start = data.rfind(b"\n", 0, found.start()) + 1
            end = data.find(b"\n", found.start())
            line = data[start : end if end >= 0 else len(data)].decode("ascii")
            if self.rule_for(line) is not None:
                denied.add(line[cut:])
        return denied

    def check(
        self,
        views: tuple[str, ...],
        path: Path,
        *,
        user_path: str | None = None,
        is_dir: bool = False,
        linked: Callable[[], bool] | None = None,
    ) -> None:
        """Refuse a denied path, naming the rule that denies it; ``linked()`` says whether only a link on the way made
        it so (the name asked matches no rule: saying it does sent the agent looking for a match that is not there).

        Raises:
            AccessDeniedError: one of ``views`` (the path relative to each root holding it) matches a deny rule.
        """
        rule = self.rule_among(views, is_dir=is_dir)
        if rule is None:
            return
        shown = user_path or str(path)
        if linked is not None and linked():
            raise AccessDeniedError(
                f"access denied: {shown} leads through a symbolic link to a place the deny rule {rule!r} hides. Work "
                "with another file; only the operator can change the rules.",
                path=shown,
                rule=rule,
            )
        if rule in self.own:  # not a secret the operator hid: the rule is fsguard's, which no operator can lift
            raise AccessDeniedError(
                f"access denied: {shown} is one of fsguard's own files (its state, audit log, hooks file or the git "
                "config its git reads), which no tool reads or changes. Work with another file; the backup tool "
                "lists and restores what the backups hold.",
                path=shown,
                rule=rule,
            )
        raise AccessDeniedError(
            f"access denied: {shown} matches the deny rule {rule!r} (secrets and files the operator hid are never "
            "read, written or listed). Work with another file; only the operator can change the rules.",
            path=shown,
            rule=rule,
        )

    def check_kept_hidden(
        self, files: list[str], before: tuple[str, ...], after: tuple[str, ...], *, source: Path, destination: Path
    ) -> None:
        """Refuse moving a directory when a file in it that a rule hides would be visible at its new path.

        ``files`` are relative to the directory; ``before`` and ``after`` are its root-relative paths now and after
        the move (one per root holding it), each ending in '/'. The files are counted, never named: a secret's name
        can say as much as its contents.

        Raises:
            AccessDeniedError: some file hidden under ``before`` is hidden by no rule under ``after``.
        """
        hidden = set().union(*(self.denied_among(files, prefix) for prefix in before))
        exposed = [name for name in files if name in hidden and self.rule_among(tuple(a + name for a in after)) is None]
        if not exposed:
            return
        rules = sorted({str(self.rule_among(tuple(b + name for b in before))) for name in exposed})
        named = ("the deny rule " if len(rules) == 1 else "the deny rules ") + ", ".join(map(repr, rules))
        raise AccessDeniedError(
            f"{source} holds {plural(len(exposed), 'file')} hidden by {named} that would be readable at {destination}; "
            "nothing was moved. Move the other entries out one at a time instead, or pick a destination where the "
            "rules still hide them (keeping the directory's name usually does).",
            path=str(source),
            rule=rules[0],
            hidden=len(exposed),
        )


def _prefilter(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    """One regex matching wherever any of ``spec``'s patterns matches (pathspec tries them one by one, which
    makes a 20,000-entry listing 2.5 times slower); None when a pattern's regex is not available to join."""
    sources: list[str] = []
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if getattr(pattern, "include", None) is None:
            continue  # a blank line or comment
        if not isinstance(regex, re.Pattern):
            return None
        sources.append(_UNNAMED.sub("(?:", regex.pattern))
    if not sources:
        return None
    # Name patterns (.env, *.pem) all start "at any depth": that prefix is tried once for all of them.
    anywhere = [source.removeprefix(_ANY_DEPTH) for source in sources if source.startswith(_ANY_DEPTH)]
    rest = [source for source in sources if not source.startswith(_ANY_DEPTH)]
    branches = [f"{_ANY_DEPTH}(?:{'|'.join(anywhere)})"] if anywhere else []
    return re.compile("|".join(f"(?:{branch})" for branch in branches + rest))


@lru_cache(maxsize=8)
def _line_prefilter(source: str) -> Any | None:
    """``source`` (the joined prefilter) for RE2 over ASCII lines: ``^`` at each line, no match across a line
    break; None if RE2 reads it otherwise (each name is then decided alone)."""
    import re2  # here, not at the top: start-up never pays for it

    options = re2.Options()
    options.log_errors = False
    options.never_nl = True
    try:
        return re2.compile(b"(?m)" + source.encode("ascii"), options)
    except (re2.error, UnicodeEncodeError):
        return None


_UNPAIRED = re.compile("[\ud800-\udfff]")
_UNNAMED = re.compile(r"\(\?P<[^>]+>")  # group names repeat across patterns; joined, they must go
_ANY_DEPTH = "^(?:.+/)?"


def _denying(spec: pathspec.GitIgnoreSpec, path: str) -> str | None:
    """The pattern of ``spec`` denying ``path``, None when none does or the last match re-allows it."""
    result = spec.check_file(path)
    if not result.include or result.index is None:
        return None
    return str(spec.patterns[result.index].pattern)  # not self.patterns: pathspec drops blank lines


def _as_matched(path: str) -> str:
    """``path`` as the rules are matched against it, before its case is folded."""
    # pathspec's "*" and "**" stop at a line break, so "a\nb/id_rsa" was not denied; no pattern holds a NUL,
    # and "*" and "?" take one as any other character.
    exact = path.replace("\n", "\0")
    if not exact.isascii():
        # A name that is not UTF-8 (``caf\xe9.pem`` on disk) arrives holding lone surrogates, which pathspec's
        # RE2 cannot encode: each stands as U+FFFD, one character any "*" or "?" takes, as a byte is in git.
        exact = _UNPAIRED.sub("\ufffd", unicodedata.normalize("NFC", exact))
    return exact


def _folded(rule: str) -> str:
    return unicodedata.normalize("NFC", rule).lower()


def _literal_rule(relative: str) -> str:
    """A rule denying exactly the root-relative path ``relative`` and all below it: anchored at the root, every
    character that means something to a gitignore pattern escaped."""
    escaped = re.sub(r"([\\*?\[\]!#])", r"\\\1", relative)
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "  # a trailing space is dropped unless escaped
    return "/" + escaped


def root_prefixes(roots: Iterable[Path]) -> tuple[str, ...]:
    """Each root as ``"/its/path/"``, deepest first: what :func:`relative_views` strips."""
    return tuple(sorted((str(root).rstrip("/") + "/" for root in roots), key=len, reverse=True))


def relative_text(path: str, prefixes: tuple[str, ...]) -> str:
    """``path`` relative to the deepest root holding it, its first view (see :func:`relative_views`)."""
    return relative_views(path, prefixes)[0]


def relative_views(path: str, prefixes: tuple[str, ...]) -> tuple[str, ...]:
    """``path`` relative to each root holding it, deepest first (one view, without its leading '/', outside every
    root): deny rules judge every view, so a rule written for an outer root holds below a nested one as well. On
    strings: callers ask about every name a walk meets, and Path arithmetic per name would cost more than the rules
    themselves."""
    views = tuple(
        path[len(prefix) :] if path.startswith(prefix) else ""
        for prefix in prefixes
        if path.startswith(prefix) or (len(path) + 1 == len(prefix) and prefix.startswith(path))
    )
    return views or (path.lstrip("/"),)


class HiddenFiles:
    """A search's filter: True for a path a deny rule hides, or a git object store or list of the tracked files
    holds (absolute path in; see :mod:`fsguard.core.gitstore`). It counts nothing: how many hidden files a pattern
    matched would answer, one search at a time, what a secret holds or is called."""

    def __init__(self, rules: DenyRules, prefixes: tuple[str, ...]) -> None:
        self._rules = rules
        self._prefixes = prefixes

    def __call__(self, path: str) -> bool:
        return in_object_store(path) or self._rules.rule_among(relative_views(path, self._prefixes)) is not None

    def shown(self, names: list[str], under: str) -> list[str]:
        """``names`` (relative to ``under``; a directory ends in ``/``) less those a rule hides or a store holds."""
        names = outside_object_stores(names, under)
        lead = under.rstrip("/") + "/"
        if any(prefix != lead and prefix.startswith(lead) for prefix in self._prefixes):  # a root nested below
            views = [relative_views(lead + name, self._prefixes) for name in names]
            denied = self._rules.denied_among(list({view for each in views for view in each}))
            if not denied:
                return names
            return [name for name, each in zip(names, views, strict=True) if denied.isdisjoint(each)]
        # Every name below the same roots: judged after the prefix of each, no string built per name.
        hidden = set().union(*(self._rules.denied_among(names, view) for view in relative_views(lead, self._prefixes)))
        if not hidden:
            return names
        return [name for name in names if name not in hidden]
