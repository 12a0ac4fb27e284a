"""Deny rules, read-only roots and the client-roots intersection, below the tools."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import unicodedata
from pathlib import Path
from typing import Literal

import pathspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.beneath import Beneath
from fsguard.core.clientroots import intersect, scoped
from fsguard.core.denial import DEFAULT_DENY, DenyRules, HiddenFiles, relative_text, root_prefixes
from fsguard.core.errors import AccessDeniedError, InvalidParamsError, ReadOnlyError
from fsguard.core.ignore import WalkOptions
from fsguard.core.listing import DirectoryLister
from fsguard.core.paths import PathPolicy
from fsguard.core.search import ContentRequest, ripgrep_path, search_content, search_names
from fsguard.core.session import Session
from tests.strategies import deny_cases, secret_trees

DEFAULTS = DenyRules.create(())


SECRETS = [".env", "app/.env", ".env.local", ".env.production", "deploy/server.pem", "tls.key", "cert.p12", "a.pfx"]
SECRETS += ["id_rsa", "home/.ssh/id_ed25519", "id_ecdsa", "id_dsa", ".aws/credentials", "x/.aws/credentials"]
SECRETS += [".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc"]
VISIBLE = [".env.example", "app/.env.sample", ".env.template", "id_rsa.pub", "notes.key.txt", "credentials", "env.txt"]
VISIBLE += ["keys/readme.md", ".aws/config", ".envrc"]


@pytest.mark.parametrize("relative", SECRETS)
def test_the_default_rules_hide_secrets_at_any_depth(relative: str) -> None:
    assert DEFAULTS.rule_for(relative) is not None


@pytest.mark.parametrize("relative", VISIBLE)
def test_the_default_rules_leave_templates_public_keys_and_look_alikes_visible(relative: str) -> None:
    assert DEFAULTS.rule_for(relative) is None


def test_a_refusal_names_the_rule_that_denied_the_path() -> None:
    with pytest.raises(AccessDeniedError) as caught:
        DEFAULTS.check(("app/.env.local",), Path("/r/app/.env.local"))
    assert "'.env.*'" in caught.value.message
    assert caught.value.fields["rule"] == ".env.*"


def test_operator_rules_come_after_the_defaults_so_a_negation_re_allows_one() -> None:
    rules = DenyRules.create(["!.npmrc", "secrets/", "*.sqlite"])
    assert rules.rule_for(".npmrc") is None
    assert rules.rule_for("secrets/token.txt") == "secrets/"
    assert rules.rule_for("data/app.sqlite") == "*.sqlite"
    assert rules.rule_for(".env") == ".env"


def test_no_default_deny_keeps_only_the_operators_rules() -> None:
    rules = DenyRules.create(["*.sqlite"], defaults=False)
    assert rules.patterns == ("*.sqlite",)
    assert rules.rule_for(".env") is None
    assert not DenyRules.create((), defaults=False).active
    assert DEFAULTS.patterns == DEFAULT_DENY


def test_a_malformed_rule_is_a_configuration_error() -> None:
    with pytest.raises(InvalidParamsError):
        DenyRules(("a\\",))


def test_the_policy_refuses_a_denied_path_even_through_a_symlink(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TOKEN=1\n", encoding="utf-8")
    (tmp_path / "config.txt").symlink_to(".env")
    policy = PathPolicy.create([tmp_path], deny=DEFAULTS)
    for user_path in (".env", "config.txt"):
        with pytest.raises(AccessDeniedError, match="deny rule"):
            policy.resolve(user_path)
    with pytest.raises(AccessDeniedError, match="deny rule"):
        policy.resolve_entry(".env")
    assert policy.resolve_entry("config.txt") == tmp_path / "config.txt"  # the link itself may be deleted or moved


def test_a_directory_move_is_refused_only_when_a_hidden_file_would_be_visible_and_counts_it() -> None:
    rules = DenyRules.create(["/vault/"])
    home, aws, vault = Path("/r/home"), Path("/r/.aws"), Path("/r/vault")
    rules.check_kept_hidden(
        [".env", "notes.md", "keys/id_rsa", ".aws/credentials"],
        ("home/",),
        ("old/home/",),
        source=home,
        destination=home,
    )
    rules.check_kept_hidden(
        ["credentials"], (".aws/",), ("vault/",), source=aws, destination=vault
    )  # another rule hides it
    with pytest.raises(AccessDeniedError) as caught:
        rules.check_kept_hidden(
            ["credentials", "config"], (".aws/",), ("aws/",), source=aws, destination=Path("/r/aws")
        )
    assert caught.value.fields == {"path": "/r/.aws", "rule": "**/.aws/credentials", "hidden": 1}
    with pytest.raises(AccessDeniedError) as unhidden:
        rules.check_kept_hidden(["a.txt", "b/.env"], ("vault/",), ("open/",), source=vault, destination=Path("/r/open"))
    assert unhidden.value.fields["hidden"] == 1  # b/.env stays hidden by '.env' at its new path
    assert "'/vault/'" in unhidden.value.message
    assert "a.txt" not in unhidden.value.message


def test_read_only_roots_are_roots_whose_changes_are_refused_the_deepest_root_deciding(tmp_path: Path) -> None:
    docs, drafts, project = tmp_path / "docs", tmp_path / "docs" / "drafts", tmp_path / "project"
    for directory in (drafts, project):
        directory.mkdir(parents=True)
    policy = PathPolicy.create([project, drafts], read_only_roots=[docs])
    assert policy.roots == (project, drafts, docs)
    assert policy.resolve(str(docs / "a.md")) == docs / "a.md"
    with pytest.raises(ReadOnlyError, match="read-only root"):
        policy.check_writable(docs / "a.md")
    policy.check_writable(drafts / "b.md")
    policy.check_writable(project / "c.py")
    assert "(read-only)" in policy.describe_roots()


def test_client_roots_narrow_keep_or_grant_nothing(tmp_path: Path) -> None:
    server_a, server_b, outside = tmp_path / "a", tmp_path / "b", tmp_path / "outside"
    for directory in (server_a / "proj", server_b, outside):
        directory.mkdir(parents=True)
    scope = intersect(
        [server_a, server_b],
        [(server_a / "proj").as_uri(), tmp_path.as_uri(), outside.as_uri(), "https://example.com/x", "file:///nope"],
    )
    assert scope is not None
    assert {(root.path, root.origin) for root in scope.roots} == {
        (server_a / "proj", "client"),
        (server_a, "command_line"),
        (server_b, "command_line"),
    }
    assert scope.ignored == (outside.as_uri(), "https://example.com/x", "file:///nope")
    assert intersect([server_a], []) is None  # no client roots: the command line's apply


def test_a_scope_changes_containment_only_while_it_is_set(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "other").mkdir()
    policy = PathPolicy.create([tmp_path])
    scope = intersect([tmp_path], [(tmp_path / "proj").as_uri()])
    with scoped(scope):
        assert policy.resolve("a.txt") == tmp_path / "proj" / "a.txt"  # relative to the first effective root
        with pytest.raises(AccessDeniedError):
            policy.resolve(str(tmp_path / "other" / "b.txt"))
        assert policy.is_root(tmp_path / "proj")
    assert policy.resolve(str(tmp_path / "other" / "b.txt")) == tmp_path / "other" / "b.txt"
    nothing = intersect([tmp_path / "proj"], [(tmp_path / "other").as_uri()])
    with scoped(nothing), pytest.raises(AccessDeniedError, match="outside the server's roots"):
        policy.resolve(str(tmp_path / "proj" / "a.txt"))


@given(tree=secret_trees())
def test_a_denied_path_is_never_listed_or_found_and_both_engines_agree(tree: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp).resolve()
        for relative, text in tree.items():
            (root / relative).parent.mkdir(parents=True, exist_ok=True)
            (root / relative).write_text(text, encoding="utf-8")
        policy = PathPolicy.create([root], deny=DEFAULTS)
        hidden = {path for path in root.rglob("*") if policy.denied_by(path) is not None}
        denied_files = {path for path in hidden if path.is_file()}
        assert denied_files == {root / relative for relative in tree if DEFAULTS.rule_for(relative) is not None}
        lister = DirectoryLister(policy, Beneath(policy.roots), Session(), max_items=1000)
        listed_denied = 0
        for directory in [root, *(path for path in root.rglob("*") if path.is_dir())]:
            page = lister.page(str(directory), include_hidden=True, offset=0, limit=None)
            assert not {directory / entry["name"] for entry in page.entries} & hidden
            listed_denied += page.denied
        assert listed_denied == len(denied_files)
        options = WalkOptions(include_hidden=True)
        engines = ["python", "ripgrep"] if ripgrep_path() is not None else ["python"]
        found = {}
        for engine in engines:
            names_hide, content_hide = policy.hidden_files(), policy.hidden_files()
            assert names_hide is not None
            assert content_hide is not None
            names = search_names(root, "*", options, engine=engine, hide=names_hide)  # type: ignore[arg-type]
            request = ContentRequest(pattern="needle", engine=engine)  # type: ignore[arg-type]
            content = search_content(root, request, options, hide=content_hide)
            assert not {Path(name) for name in names.files} & hidden
            assert not {Path(match.file) for match in content.matches} & hidden
            found[engine] = (names.files, dataclasses.replace(content, engine="python"))
        assert len(set(map(repr, found.values()))) == 1


def test_rules_match_paths_relative_to_the_deepest_root_holding_them() -> None:
    prefixes = root_prefixes([Path("/srv/app"), Path("/srv/app/vendor")])
    assert relative_text("/srv/app/config/.env", prefixes) == "config/.env"
    assert relative_text("/srv/app/vendor/tls.key", prefixes) == "tls.key"
    assert relative_text("/srv/app", prefixes) == ""
    assert relative_text("/srv/application/x", prefixes) == "srv/application/x"  # outside: the whole path
    anchored = DenyRules(("/tls.key",))
    assert anchored.rule_for(relative_text("/srv/app/vendor/tls.key", prefixes)) == "/tls.key"
    assert anchored.rule_for(relative_text("/srv/app/sub/tls.key", prefixes)) is None


@given(case=deny_cases(), prefix=st.sampled_from(["", "app/", "a b/", ".aws/", "dép/", "x\ny/"]))
def test_a_batch_of_paths_is_denied_exactly_as_each_path_alone(
    case: tuple[tuple[str, ...], list[str]], prefix: str
) -> None:
    rules = DenyRules.create(case[0])
    paths = case[1]

    assert rules.denied_among(paths) == {path for path in paths if rules.rule_for(path) is not None}
    # Names below a directory: judged as prefix + name, answered as the names.
    assert rules.denied_among(paths, prefix) == {path for path in paths if rules.rule_for(prefix + path) is not None}
    git = pathspec.GitIgnoreSpec.from_lines(rules.patterns)  # the oracle: git's rules as pathspec applies them
    assert [rules.rule_for(path) is not None for path in paths] == [
        bool(git.check_file(path).include) for path in paths
    ]


def test_a_line_break_in_a_directory_name_does_not_let_a_secret_through() -> None:
    rules = DenyRules.create([])
    paths = ["ok.txt", "evil\n.env", ".env", "a\nb/id_rsa", "z.md", "x\n/y/.aws/credentials"]

    assert rules.rule_for("a\nb/id_rsa") == "id_rsa*"
    assert rules.denied_among(paths) == {".env", "a\nb/id_rsa", "x\n/y/.aws/credentials"}


def test_hidden_files_keep_what_no_rule_hides() -> None:
    hide = HiddenFiles(DenyRules.create([]), root_prefixes([Path("/r"), Path("/r/nested")]))
    names = ["a.txt", ".env", "k/id_rsa", "id_rsa.pub"]

    assert hide.shown(names, "/r/s") == ["a.txt", "id_rsa.pub"]
    assert hide.shown(["nested/.env", "nested/ok"], "/r") == ["nested/ok"]
    assert hide.shown([".env", "b/.env", "c"], "/r/") == ["c"]
    assert hide("/r/nested/.env")
    assert not hide("/r/nested/ok")


def test_re_allowing_a_directory_does_not_re_allow_a_file_a_rule_names_inside_it() -> None:
    rules = DenyRules.create(["*.log", "!logs/", "!keep.log"])

    assert rules.rule_for("logs/app.log") == "*.log"  # git: "!logs/" un-ignores the directory, not its .log files
    assert rules.rule_for("logs/keep.log") is None
    assert rules.rule_for("certs/server.pem") == "*.pem"
    assert rules.denied_among(["logs/app.log", "logs/keep.log", "logs/notes.txt"]) == {"logs/app.log"}


@given(case=deny_cases(), nested=st.sampled_from(["a", "sub", "a/b", "sub/cache", "x/sub"]))
def test_a_nested_root_never_uncovers_a_path_the_outer_root_s_rules_hide(
    case: tuple[tuple[str, ...], list[str]], nested: str
) -> None:
    rules = DenyRules.create(case[0])
    outer = PathPolicy(roots=(Path("/srv"),), deny=rules)
    both = PathPolicy(roots=(Path("/srv"), Path("/srv") / nested), deny=rules)
    hide = both.hidden_files()
    assert hide is not None
    under = f"/srv/{nested}"
    below = [path for path in case[1] if path.startswith(f"{nested}/")]
    for path in case[1]:
        canonical = Path("/srv") / path
        if outer.denied_by(canonical) is not None:
            assert both.denied_by(canonical) is not None
        assert hide(str(canonical)) == (both.denied_by(canonical) is not None)
    # A search's batch filter judges each name as the policy does, from the outer root and from the nested one.
    for start, names in (("/srv", case[1]), (under, [path[len(nested) + 1 :] for path in below])):
        kept = hide.shown(names, start)
        assert kept == [name for name in names if both.denied_by(Path(start) / name) is None]


@pytest.mark.parametrize("rule_form", ["NFC", "NFD"])
@pytest.mark.parametrize("name_form", ["NFC", "NFD"])
def test_a_rule_hides_a_name_whichever_unicode_form_each_is_written_in(
    rule_form: Literal["NFC", "NFD"], name_form: Literal["NFC", "NFD"]
) -> None:
    # A file copied from macOS keeps its decomposed name; the operator types the composed one (or the reverse).
    rules = DenyRules.create([unicodedata.normalize(rule_form, "café.txt"), unicodedata.normalize(rule_form, "/dé/")])
    name = unicodedata.normalize(name_form, "notes/café.txt")
    folder = unicodedata.normalize(name_form, "dé/x.md")

    assert rules.rule_for(name) is not None
    assert rules.rule_for(folder) is not None
    assert rules.denied_among([name, folder, "notes/cafe.txt"]) == {name, folder}
    assert rules.rule_for("notes/cafe.txt") is None


@given(
    stem=st.text(st.characters(codec="utf-8", exclude_characters="/\x00\n"), max_size=8),
    raw=st.binary(min_size=1, max_size=4).filter(lambda b: b"/" not in b and b"\x00" not in b),  # a name's bytes
    rule=st.sampled_from(["*.txt", "?x?.txt", "dir/", "**/keys/*"]),
)
def test_a_name_that_is_not_utf8_is_judged_like_any_other_and_never_raises(stem: str, raw: bytes, rule: str) -> None:
    # A name read from disk that is not UTF-8 holds lone surrogates (os.fsdecode); a secret's extension still
    # hides it, whatever bytes come before, and no rule makes the judging fail.
    odd = os.fsdecode(os.fsencode(stem) + raw)
    rules = DenyRules.create([rule])
    assert rules.rule_for(f"{odd}.pem") is not None  # *.pem, or another secret's rule its stem meets (id_dsa*)
    assert rules.rule_for(f"keys/{odd}/id_rsa") is not None
    assert rules.denied_among([f"{odd}.pem", f"{odd}.txt"]) >= {f"{odd}.pem"}
    assert {rules.rule_for(odd), rules.rule_for(odd, is_dir=True)} <= {None, rule, *DEFAULT_DENY}


def test_a_tree_is_judged_by_its_place_only_where_a_rule_names_a_directory_on_its_way() -> None:
    own = DenyRules.create((), hidden=[".config/git"])
    assert not own.judge_by_place(("src", "lib"))  # the default rules judge names: moving src to lib walks nothing
    assert not own.judge_by_place(("home", "old/home"))
    assert own.judge_by_place(("y", ".config"))  # a file in it would land in .config/git
    assert own.judge_by_place(("y", "a/.aws"))  # **/.aws/credentials may start at any directory on the way
    assert own.judge_by_place(("", "z"))  # a root's files: anchored rules judge them from the root
    negated = DenyRules.create(["*.log", "!keep"], defaults=False)
    assert negated.judge_by_place(("keep", "z"))  # keep/ lets its logs be read: moved out, they are hidden
    assert not negated.judge_by_place(("y", "z"))
