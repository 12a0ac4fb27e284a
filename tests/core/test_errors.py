"""from_os_error gives every environment failure its own code; text_codec admits text encodings only."""

from __future__ import annotations

import errno
import os
import resource
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.charsets import text_codec
from fsguard.core.errors import (
    AccessDeniedError,
    AmbiguousMatchError,
    DiskFullError,
    FsguardError,
    HookConfigError,
    HookDeniedError,
    InvalidParamsError,
    NameTooLongError,
    NotFoundError,
    ReadOnlyFilesystemError,
    error_for_code,
)
from fsguard.core.oserrors import NAME_MAX_BYTES, from_os_error, name_length_error


def os_error(code: int) -> OSError:
    return OSError(code, os.strerror(code))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT], ids=["ENOSPC", "EDQUOT"])
def test_no_space_and_no_quota_are_disk_full_with_the_free_space_of_the_nearest_existing_directory(
    tmp_path: Path, code: int
) -> None:
    target = tmp_path / "missing" / "deeper" / "f.txt"
    error = from_os_error(os_error(code), target, needed=10_000)
    usage = os.statvfs(tmp_path)
    assert isinstance(error, DiskFullError)
    assert error.code == "disk_full"
    assert error.needed_bytes == 10_000
    assert error.free_bytes is not None
    assert abs(error.free_bytes - usage.f_bavail * usage.f_frsize) < 64 * 1024 * 1024  # the disk is shared
    assert error.fields == {"path": str(target), "needed_bytes": 10_000, "free_bytes": error.free_bytes}
    assert str(tmp_path) in error.message
    assert "then retry" in error.message


def test_a_full_disk_message_names_the_bytes_to_free_when_the_write_needs_more_than_is_free(tmp_path: Path) -> None:
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    error = from_os_error(os_error(errno.ENOSPC), tmp_path / "f.txt", needed=free + 5_000_000)
    assert isinstance(error, DiskFullError)
    assert error.message.startswith(f"{tmp_path / 'f.txt'}: no space left on the filesystem holding {tmp_path}")
    assert f"{free + 5_000_000:,} bytes needed" in error.message
    # free space moves while the test runs; the shortfall is about 5 MB either way
    shortfall = int(error.message.split("Free at least ")[1].split(" bytes")[0].replace(",", ""))
    assert 4_000_000 < shortfall < 6_000_000


def test_a_full_disk_without_a_known_size_still_says_what_is_free_and_what_to_do(tmp_path: Path) -> None:
    error = from_os_error(os_error(errno.ENOSPC), tmp_path / "f.txt")
    assert isinstance(error, DiskFullError)
    assert error.needed_bytes is None
    assert "bytes free" in error.message
    assert "Free some space there, then retry." in error.message
    assert "needed_bytes" not in error.fields


def test_a_too_long_name_reported_by_the_os_is_name_too_long_naming_the_limit(tmp_path: Path) -> None:
    error = from_os_error(os_error(errno.ENAMETOOLONG), tmp_path / ("n" * 300))
    assert isinstance(error, NameTooLongError)
    assert error.code == "name_too_long"
    assert "300 bytes" in error.message
    assert f"at most {NAME_MAX_BYTES} bytes" in error.message


def test_a_name_the_filesystem_refuses_below_the_usual_limit_is_still_name_too_long(tmp_path: Path) -> None:
    error = from_os_error(os_error(errno.ENAMETOOLONG), tmp_path / ("n" * 200))
    assert isinstance(error, NameTooLongError)
    assert "Use a shorter name" in error.message


def test_a_read_only_mount_is_read_only_filesystem_naming_the_mount_point(tmp_path: Path) -> None:
    error = from_os_error(os_error(errno.EROFS), tmp_path / "f.txt")
    assert isinstance(error, ReadOnlyFilesystemError)
    assert error.code == "read_only_filesystem"
    mount = next(p for p in (tmp_path, *tmp_path.parents) if p.is_mount())
    assert f"is on the read-only filesystem mounted at {mount}: nothing can be written there." in error.message


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "Permission denied"),
        (os_error(errno.EPERM), os.strerror(errno.EPERM)),
        (os_error(errno.ELOOP), os.strerror(errno.ELOOP)),
    ],
    ids=["EACCES", "EPERM", "ELOOP"],
)
def test_a_refusal_by_the_os_is_access_denied_and_keeps_the_os_reason(
    tmp_path: Path, exc: OSError, reason: str
) -> None:
    error = from_os_error(exc, tmp_path / "f.txt")
    assert isinstance(error, AccessDeniedError)
    assert error.message.startswith(f"the operating system refused access to {tmp_path / 'f.txt'}: {reason}.")
    assert error.fields["reason"] == reason


def test_the_existing_mappings_are_unchanged(tmp_path: Path) -> None:
    assert isinstance(from_os_error(FileNotFoundError(errno.ENOENT, "gone"), tmp_path), NotFoundError)
    other = from_os_error(os_error(errno.EIO), tmp_path)
    assert type(other) is FsguardError
    assert other.message == f"I/O error on {tmp_path}: {os.strerror(errno.EIO)}."


def test_too_many_open_files_names_the_limit_and_how_to_raise_it(tmp_path: Path) -> None:
    error = from_os_error(os_error(errno.EMFILE), tmp_path / "f.lock")
    assert error.message.startswith(f"I/O error on {tmp_path / 'f.lock'}: {os.strerror(errno.EMFILE)}")
    assert f"limit of {resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,} open files" in error.message
    assert "ulimit -n" in error.message


def test_a_huge_path_is_shortened_in_the_message_and_the_fields() -> None:
    path = "/r/" + "x" * 200_000
    error = from_os_error(os_error(errno.ENAMETOOLONG), path)
    assert len(error.message) < 500
    assert "(200,003 characters)" in error.message
    assert len(str(error.fields["path"])) < 200


def test_a_path_the_os_could_take_is_whole_in_the_fields_and_shortened_in_the_message_only() -> None:
    path = "/r/" + "x" * 300
    error = from_os_error(os_error(errno.ENAMETOOLONG), path)
    assert error.fields["path"] == path
    assert "(303 characters)" in error.message
    assert path not in error.message


def test_name_length_error_allows_255_bytes_per_name_and_4095_per_path() -> None:
    assert name_length_error("/r/" + "a" * 255) is None
    assert name_length_error("/r/" + "é" * 127) is None  # 254 bytes
    assert isinstance(name_length_error("/r/" + "é" * 128), NameTooLongError)  # 256 bytes
    assert name_length_error("/" + "d/" * 2047) is None  # 4095 bytes
    whole = name_length_error("/" + "d/" * 2047 + "f")  # 4096 bytes: PATH_MAX counts the NUL, so no syscall takes it
    assert isinstance(whole, NameTooLongError)
    assert whole.fields["limit_bytes"] == 4095


@given(
    names=st.lists(
        st.one_of(
            st.text(st.sampled_from("aé€😀"), min_size=1, max_size=70),
            # a name of 1- to 4-byte characters a few bytes either side of the limit
            st.tuples(st.sampled_from("aé€😀"), st.integers(min_value=-2, max_value=2)).map(
                lambda pick: pick[0] * (NAME_MAX_BYTES // len(pick[0].encode()) + pick[1])
            ),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_name_length_error_refuses_exactly_the_paths_with_a_name_or_a_whole_over_its_byte_limit(
    names: list[str],
) -> None:
    path = "/" + "/".join(names)
    too_long = max(len(name.encode()) for name in names) > NAME_MAX_BYTES or len(path.encode()) > 4095

    assert (name_length_error(path) is not None) == too_long


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("utf-8", "utf-8"), ("UTF8", "utf-8"), ("latin-1", "iso8859-1"), ("cp1252", "cp1252"), ("utf-16", "utf-16")],
)
def test_text_codec_accepts_text_encodings_by_their_canonical_name(name: str, canonical: str) -> None:
    assert text_codec(name) == canonical


@pytest.mark.parametrize("name", ["rot13", "hex", "zlib", "base64_codec", "bz2", "uu", "quopri", "undefined", "idna"])
def test_text_codec_refuses_codecs_that_are_not_text_encodings(name: str) -> None:
    with pytest.raises(InvalidParamsError) as caught:
        text_codec(name)
    assert "not a text encoding" in caught.value.message
    assert "utf-8, utf-16-le, cp1252 or latin-1" in caught.value.message
    assert "base64" in caught.value.message


@pytest.mark.parametrize("name", ["bogus", "not-a-codec", "", "utf-8\x00"])
def test_text_codec_refuses_unknown_names_as_invalid_params(name: str) -> None:
    with pytest.raises(InvalidParamsError) as caught:
        text_codec(name)
    assert caught.value.message.startswith(f"unknown encoding {name!r}.")


def _tree(cls: type[FsguardError]) -> list[type[FsguardError]]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in _tree(child))]


def test_each_code_is_declared_by_one_class_of_the_tree() -> None:
    declared: dict[str, list[str]] = {}
    for cls in _tree(FsguardError):
        if "code" in vars(cls):
            declared.setdefault(cls.code, []).append(cls.__name__)
    assert {code: names for code, names in declared.items() if len(names) > 1} == {}
    assert HookConfigError.code == InvalidParamsError.code  # inherited, as the drawn tree says


def test_error_for_code_finds_the_class_of_a_code_and_falls_back_to_the_base() -> None:
    assert error_for_code("ambiguous_match") is AmbiguousMatchError
    assert error_for_code("hook_denied") is HookDeniedError
    assert error_for_code("no_such_code") is FsguardError
