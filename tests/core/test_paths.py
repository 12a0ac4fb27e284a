"""PathPolicy: containment on real paths, symlinks, refused names and characters, Windows forms."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.beneath import Beneath
from fsguard.core.clientroots import ClientScope, EffectiveRoot, scoped
from fsguard.core.denial import DenyRules
from fsguard.core.errors import AccessDeniedError, FsguardError, InvalidParamsError
from fsguard.core.pathforms import names_below, within
from fsguard.core.paths import PathPolicy
from tests.strategies import path_components


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("secret", encoding="utf-8")
    return path.resolve()


@pytest.fixture
def policy(root: Path) -> PathPolicy:
    return PathPolicy.create([root])


def test_relative_paths_resolve_against_the_first_root(policy: PathPolicy, root: Path) -> None:
    assert policy.resolve("a/b.txt") == root / "a" / "b.txt"
    assert policy.resolve(".") == root


def test_dot_dot_that_leaves_the_root_is_refused_and_the_message_lists_the_roots(
    policy: PathPolicy, root: Path
) -> None:
    with pytest.raises(AccessDeniedError) as caught:
        policy.resolve("../outside/secret.txt")
    assert str(root) in caught.value.message
    assert caught.value.code == "access_denied"


def test_dot_dot_that_stays_inside_is_fine(policy: PathPolicy, root: Path) -> None:
    assert policy.resolve("a/../b.txt") == root / "b.txt"


def test_symlink_leaving_the_root_is_refused_for_an_existing_file(
    policy: PathPolicy, root: Path, outside: Path
) -> None:
    (root / "link").symlink_to(outside)
    with pytest.raises(AccessDeniedError):
        policy.resolve("link/secret.txt")


def test_symlink_leaving_the_root_is_refused_for_a_new_file_beneath_it(
    policy: PathPolicy, root: Path, outside: Path
) -> None:
    (root / "link").symlink_to(outside)
    with pytest.raises(AccessDeniedError):
        policy.resolve("link/new/deeper.txt")
    assert not (outside / "new").exists()


def test_dangling_symlink_to_outside_is_refused(policy: PathPolicy, root: Path, outside: Path) -> None:
    (root / "dangling").symlink_to(outside / "not-yet.txt")
    with pytest.raises(AccessDeniedError):
        policy.resolve("dangling")


def test_symlink_inside_the_root_resolves_to_its_canonical_target(policy: PathPolicy, root: Path) -> None:
    (root / "real").mkdir()
    (root / "alias").symlink_to(root / "real")
    assert policy.resolve("alias/x.txt") == root / "real" / "x.txt"


def test_the_pinned_walk_catches_a_directory_swapped_for_a_symlink_after_the_check(
    policy: PathPolicy, root: Path, outside: Path
) -> None:
    (root / "d").mkdir()
    checked = policy.resolve("d/file.txt")
    (root / "d").rmdir()
    (root / "d").symlink_to(outside)
    beneath = Beneath(policy.roots)
    with pytest.raises(AccessDeniedError), beneath.entry(checked):
        pass
    beneath.close()


@pytest.mark.parametrize(
    "char",
    [
        "\x00",  # NUL
        "\x1f",  # control
        "\x7f",  # DEL
        "\u202e",  # right-to-left override
        "\u200b",  # zero-width space
        "\u200f",  # right-to-left mark
        "\u2066",  # left-to-right isolate
        "\u2028",  # line separator
        "\u2029",  # paragraph separator
        "\ufeff",  # BOM / zero-width no-break space
        "\u00ad",  # soft hyphen
        "\u061c",  # Arabic letter mark: category Cf
    ],
)
def test_invisible_and_control_characters_are_always_refused(policy: PathPolicy, char: str) -> None:
    with pytest.raises(AccessDeniedError) as caught:
        policy.resolve(f"notes{char}.txt")
    assert f"U+{ord(char):04X}" in caught.value.message


@pytest.mark.parametrize("name", ["CON", "nul.txt", "com1.tar.gz", "LPT9", "aux ", "sub/PRN.log", "COM0"])
def test_windows_reserved_device_names_are_refused_with_any_extension(policy: PathPolicy, name: str) -> None:
    with pytest.raises(AccessDeniedError):
        policy.resolve(name)


@pytest.mark.parametrize("name", ["console.txt", "CONFIG", "nullable.py", "com10", "auxiliary"])
def test_names_that_only_start_like_device_names_are_fine(policy: PathPolicy, root: Path, name: str) -> None:
    assert policy.resolve(name) == root / name


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("C:\\Users\\ada\\notes.txt", "c/Users/ada/notes.txt"),
        ("D:/data/set.csv", "d/data/set.csv"),
        ("c:\\", "c"),
        ("E:", "e"),
        ("C://Users//ada/notes.txt", "c/Users/ada/notes.txt"),  # was /Users/ada/notes.txt, off the drive
        ("C:\\\\Users\\ada", "c/Users/ada"),
        ("C:\\Users\\..\\..\\..\\etc\\passwd", "c/etc/passwd"),  # climbed above the drive into /etc
        ("\\\\?\\C:\\Users\\ada", "c/Users/ada"),
    ],
)
def test_windows_forms_are_translated_to_the_mount_root(tmp_path: Path, given: str, expected: str) -> None:
    mount = tmp_path / "mnt"
    mount.mkdir()
    policy = PathPolicy.create([mount], wsl_mount_root=mount)
    assert policy.resolve(given) == mount.resolve() / expected


def test_a_wsl_unc_path_names_the_linux_path_and_a_network_share_is_refused(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    mount.mkdir()
    policy = PathPolicy.create([tmp_path], wsl_mount_root=mount)
    inner = str(tmp_path).replace("/", "\\")
    for host in ("wsl$", "wsl.localhost"):
        assert policy.resolve(f"\\\\{host}\\Ubuntu{inner}\\a.txt") == tmp_path.resolve() / "a.txt"
    with pytest.raises(InvalidParamsError, match="network share"):
        policy.resolve("\\\\server\\share\\a.txt")


def test_ntfs_stream_syntax_on_a_windows_drive_is_refused(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    mount.mkdir()
    policy = PathPolicy.create([mount], wsl_mount_root=mount)
    with pytest.raises(AccessDeniedError):
        policy.resolve("C:\\work\\file.txt:hidden")


def test_a_refused_windows_path_is_quoted_as_typed_with_single_backslashes(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    mount.mkdir()
    policy = PathPolicy.create([mount], wsl_mount_root=mount)
    for typed in ("C:\\Users\\me\\AUX.txt", "C:\\Users\\me\\a\u200bb.txt"):
        with pytest.raises(AccessDeniedError) as caught:
            policy.resolve(typed)
        assert "'C:\\Users\\me\\" in caught.value.message
        assert "\\\\" not in caught.value.message


def test_colon_in_an_ordinary_linux_name_is_fine(policy: PathPolicy, root: Path) -> None:
    assert policy.resolve("report:2026.txt") == root / "report:2026.txt"


def test_empty_path_is_invalid(policy: PathPolicy) -> None:
    with pytest.raises(InvalidParamsError):
        policy.resolve("  ")


def test_a_path_of_spaces_alone_names_an_entry_spelled_so_and_is_empty_without_one(
    policy: PathPolicy, root: Path
) -> None:
    (root / "  ").write_text("two spaces\n", encoding="utf-8")
    assert policy.resolve("  ") == root / "  "
    assert policy.resolve_entry("  ") == root / "  "
    with pytest.raises(InvalidParamsError, match="path is empty"):
        policy.resolve(" ")
    assert (root / "  ").read_text(encoding="utf-8") == "two spaces\n"


def test_unrestricted_allows_any_location_but_keeps_the_character_checks(outside: Path) -> None:
    policy = PathPolicy.create([], unrestricted=True)
    assert policy.resolve(str(outside / "secret.txt")) == outside / "secret.txt"
    with pytest.raises(AccessDeniedError):
        policy.resolve(str(outside / "a\u202etxt.exe"))


def test_roots_are_recognised_in_any_spelling(policy: PathPolicy, root: Path) -> None:
    for spelling in (str(root), f"{root}/", f"{root}/.", "."):
        assert policy.is_root(policy.resolve(spelling))
    assert not policy.is_root(policy.resolve("child"))


def test_a_root_that_does_not_exist_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidParamsError):
        PathPolicy.create([tmp_path / "missing"])


def test_several_roots_each_accept_their_own_paths(root: Path, outside: Path) -> None:
    policy = PathPolicy.create([root, outside])
    assert policy.resolve(str(outside / "secret.txt")) == outside / "secret.txt"
    assert policy.resolve("x") == root / "x"


@given(parts=path_components())
def test_resolve_never_returns_a_path_outside_the_roots(tmp_path: Path, parts: list[str]) -> None:
    root = (tmp_path / "prop-root").resolve()
    (root / "inner").mkdir(parents=True, exist_ok=True)
    escape = root / "escape"
    if not escape.is_symlink():
        escape.symlink_to(tmp_path)
    policy = PathPolicy.create([root])
    candidate = str(Path(*parts)) if parts else ""
    try:
        resolved = policy.resolve(candidate)
    except FsguardError:
        return
    assert resolved == root or resolved.is_relative_to(root)
    assert Path(os.path.realpath(resolved)) == resolved


@pytest.mark.parametrize("name", [".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", "GIT~1", "git~1"])
def test_every_spelling_a_filesystem_may_read_as_dot_git_is_refused(policy: PathPolicy, root: Path, name: str) -> None:
    for path in (root / name, root / "sub" / name, root / "sub" / name / "hooks" / "pre-commit"):
        with pytest.raises(AccessDeniedError, match=r"internals \(\.git\)"):
            policy.check_writable(path)


@pytest.mark.parametrize("name", [".github", ".gitignore", "remote.git", "git", ".git~1", "my.git."])
def test_names_that_only_look_like_dot_git_stay_writable(policy: PathPolicy, root: Path, name: str) -> None:
    policy.check_writable(root / name / "file.txt")


def test_a_root_inside_a_git_directory_stays_writable(tmp_path: Path) -> None:
    inner = tmp_path / "repo" / ".GIT" / "scratch"
    inner.mkdir(parents=True)
    PathPolicy.create([inner]).check_writable(inner.resolve() / "notes.txt")


def test_a_root_and_every_directory_holding_one_are_never_removable(tmp_path: Path) -> None:
    project, sdk = tmp_path / "project", tmp_path / "project" / "vendor" / "sdk"
    sdk.mkdir(parents=True)
    policy = PathPolicy.create([project.resolve()], read_only_roots=[sdk.resolve()])
    project, sdk = project.resolve(), sdk.resolve()
    assert policy.roots_within(project / "vendor") == [sdk]
    assert policy.roots_within(project) == [project, sdk]
    with pytest.raises(AccessDeniedError, match=r"holds .*sdk, a root of this server, which can never be moved"):
        policy.check_removable(project / "vendor", "moved")
    with pytest.raises(AccessDeniedError, match="is a root of this server and can never be deleted"):
        policy.check_removable(project, "deleted")
    policy.check_removable(project / "vendor" / "other", "deleted")


@given(parts=path_components(max_size=5), around=st.sampled_from(['"', "'", "`", " ", "\n", ' "', '"\n']))
def test_a_path_wrapped_in_quotes_or_spaces_never_resolves_outside_the_roots(
    tmp_path: Path, parts: list[str], around: str
) -> None:
    root = (tmp_path / "wrap-root").resolve()
    root.mkdir(exist_ok=True)
    policy = PathPolicy.create([root])
    inner = (str(Path(*parts)) if parts else "").strip(" \n\"'`") or "x"  # what the model meant, unwrapped
    try:
        resolved = policy.resolve(around + inner + around[::-1])
    except FsguardError:
        return
    assert resolved == root or resolved.is_relative_to(root)
    try:
        assert resolved == policy.resolve(inner)  # what is inside them, as if sent bare
    except FsguardError:
        pytest.fail(f"{inner!r} is refused where {around + inner + around[::-1]!r} was not")


@given(path_parts=path_components(max_size=6), root_parts=path_components(max_size=3), shared=st.integers(0, 9))
def test_containment_on_strings_agrees_with_pathlib_for_normalised_paths(
    path_parts: list[str], root_parts: list[str], shared: int
) -> None:
    path = Path(os.path.normpath(Path("/", *path_parts)))
    # Roots are canonical (realpath never starts one with "//"). A third of them are ancestors of the path, a third
    # a start of its string ("/a" for "/ab/c"), which must not count as holding it.
    root = Path(os.path.realpath(Path("/", *root_parts)))
    if shared % 3 == 1:
        root = Path(os.path.realpath(Path("/", *path.parts[1 : 1 + shared // 3])))
    elif shared % 3 == 2:
        root = Path(os.path.realpath(str(path)[: max(1, len(str(path)) - shared)]))

    expected = path == root or path.is_relative_to(root)
    assert within(path, root) == expected
    if expected:
        assert names_below(path, root) == list(path.relative_to(root).parts)


def test_shows_answers_for_the_roots_of_each_call_and_again_after_a_scope_changes(tmp_path: Path) -> None:
    first, second = (tmp_path / "first").resolve(), (tmp_path / "second").resolve()
    first.mkdir()
    second.mkdir()
    policy = PathPolicy.create([first, second], deny=DenyRules.create(["private/"]))
    only_second = ClientScope((EffectiveRoot(second, "both"),), (), ())
    answers = []
    for scope in (None, only_second, None, only_second):
        with scoped(scope):
            answers.append([policy.shows(f"{first}/a.txt"), policy.shows(f"{second}/b.txt")])
            assert not policy.shows(f"{second}/private/key.txt")
            assert not policy.shows(f"{tmp_path}/outside.txt")
    assert answers == [[True, True], [False, True], [True, True], [False, True]]


@pytest.mark.parametrize(
    ("asked", "entry"),
    [('"a.txt"', '"a.txt"'), (" a.txt", " a.txt"), ("d\\a.txt", "d\\a.txt"), ("caf\u00e9.txt", "cafe\u0301.txt")],
)
def test_a_spelling_whose_meaning_depends_on_the_files_is_worked_out_again_at_every_call(
    policy: PathPolicy, root: Path, asked: str, entry: str
) -> None:
    before = policy.resolve(asked)
    assert before.parent == root or before.parent == root / "d"
    assert before.name != entry  # no such entry yet: the quotes, space or backslash were taken as wrapping
    (root / entry).write_bytes(b"x")
    assert policy.resolve(asked) == root / entry


def test_a_remembered_path_follows_the_first_root_of_each_call(tmp_path: Path) -> None:
    first, second = (tmp_path / "first").resolve(), (tmp_path / "second").resolve()
    first.mkdir()
    second.mkdir()
    policy = PathPolicy.create([first, second])
    only_second = ClientScope((EffectiveRoot(second, "both"),), (), ())
    answers = []
    for scope in (None, only_second, None):
        with scoped(scope):
            answers.append(policy.resolve("src/a.py"))
    assert answers == [first / "src" / "a.py", second / "src" / "a.py", first / "src" / "a.py"]


@given(
    asked=st.lists(st.sampled_from(["a", "b.txt", "..", ".", "/", "\\", '"', " ", "~", "é", "CON", "\t"]), max_size=6)
)
def test_a_path_asked_again_resolves_as_a_fresh_policy_resolves_it(tmp_path: Path, asked: list[str]) -> None:
    root = (tmp_path / "again-root").resolve()
    root.mkdir(exist_ok=True)
    text = "".join(asked)
    seasoned, outcomes = PathPolicy.create([root]), []
    for policy in (seasoned, seasoned, PathPolicy.create([root])):
        try:
            outcomes.append(str(policy.resolve(text)))
        except FsguardError as exc:
            outcomes.append(f"{exc.code}: {exc.message}")
    assert outcomes[0] == outcomes[1] == outcomes[2]
