"""textio on real files: decoding and line endings, binary detection, AtomicWriter, read_snapshot."""

from __future__ import annotations

import os
import resource
import signal
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fsguard.core.disk import AtomicWriter, read_snapshot
from fsguard.core.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    BinaryFileError,
    EncodingError,
    FsguardError,
    IsDirectoryError,
    NotFoundError,
    TooLargeError,
)
from fsguard.core.textio import (
    Breaks,
    BreakTally,
    count_lines,
    decode,
    is_binary,
    line_ending_of,
    sniff,
    split_bom,
    split_lines,
    tail_lines,
)
from tests.strategies import (
    LOOKALIKE_BREAKS,
    SUPPORTED_ENCODINGS,
    Encoding,
    EndedText,
    cp1252_texts,
    encodings,
    texts_with_line_endings,
    western_texts,
)

TEMP_MARK = ".fsguard-tmp-"
MIB = 1024 * 1024


def _temps(directory: Path) -> list[str]:
    """Names of AtomicWriter temp files in ``directory``."""
    return sorted(entry.name for entry in directory.iterdir() if TEMP_MARK in entry.name)


def _journal(state_dir: Path) -> list[Path]:
    return list((state_dir / "inflight").iterdir())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.fixture
def writer(state_dir: Path) -> AtomicWriter:
    return AtomicWriter(state_dir)


# --- decoding ---------------------------------------------------------------------------------------------------


def test_decode_reads_utf8_without_a_bom() -> None:
    decoded = decode("naïve ☃\n".encode())
    assert (decoded.text, decoded.encoding, decoded.bom) == ("naïve ☃\n", "utf-8", b"")
    assert (decoded.line_ending, decoded.final_newline) == ("lf", True)


def test_decode_reports_a_utf8_bom_as_utf8_and_keeps_the_bom() -> None:
    data = b"\xef\xbb\xbfhi\r\nthere"
    decoded = decode(data)
    assert (decoded.text, decoded.encoding, decoded.bom) == ("hi\r\nthere", "utf-8", b"\xef\xbb\xbf")
    assert (decoded.line_ending, decoded.final_newline) == ("crlf", False)
    assert decoded.encode(decoded.text) == data


@pytest.mark.parametrize("encoding", [e for e in SUPPORTED_ENCODINGS if e.bom and e.codec != "utf-8"], ids=str)
def test_decode_follows_a_utf16_or_utf32_bom(encoding: Encoding) -> None:
    data = encoding.encode("naïve ☃ 𝄞\r\n")
    decoded = decode(data)
    assert (decoded.text, decoded.encoding, decoded.bom) == ("naïve ☃ 𝄞\r\n", encoding.codec, encoding.bom)
    assert decoded.encode("x") == encoding.bom + "x".encode(encoding.codec)


def test_decode_of_no_bytes_is_empty_utf8_text() -> None:
    decoded = decode(b"")
    assert (decoded.text, decoded.encoding, decoded.bom, decoded.line_ending) == ("", "utf-8", b"", "none")
    assert decoded.final_newline is False


def test_decode_refuses_nul_data_as_binary_and_names_the_path() -> None:
    with pytest.raises(BinaryFileError) as info:
        decode(b"\x7fELF\x02\x01\x01\x00\x00", "bin/tool")
    assert "bin/tool" in info.value.message
    assert info.value.fields == {"path": "bin/tool"}


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_text_without_a_bom_is_binary_naming_the_encoding_to_decode_it_in(encoding: str) -> None:
    # It was "a binary file" like any executable: the encoding its base64 bytes decode in was left to guess.
    data = ("Grüße, line one\r\n" * 1000).encode(encoding)  # cut by the 8 KiB sniff inside a character
    with pytest.raises(BinaryFileError, match=f"looks like {encoding} text without a byte-order mark"):
        decode(data, "notes.txt")
    with pytest.raises(BinaryFileError) as info:
        decode(b"\x7fELF\x02\x01\x01\x00\x00" + bytes(64), "bin/tool")
    assert "byte-order mark" not in info.value.message
    with pytest.raises(BinaryFileError) as info:
        decode("a\nb\n".encode("utf-32-le"), "wide.txt")  # no UTF-16: a NUL between its letters
    assert "byte-order mark" not in info.value.message


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xff\xfe" + b"a\x00b", id="utf-16-le BOM then an odd number of bytes"),
        pytest.param(b"\xfe\xff" + b"\x00a\x00", id="utf-16-be BOM then an odd number of bytes"),
        pytest.param(b"\xff\xfe" + b"\x00\xd8a\x00", id="utf-16-le lone surrogate"),
        pytest.param(b"\xef\xbb\xbf" + b"ok\xff\xfe", id="utf-8 BOM then invalid utf-8"),
        pytest.param(b"\xff\xfe\x00\x00" + b"\x00\x00\x11\x00", id="utf-32-le code point above U+10FFFF"),
    ],
)
def test_decode_raises_encoding_error_for_bytes_their_bom_does_not_decode(data: bytes) -> None:
    with pytest.raises(EncodingError) as info:
        decode(data, "f.txt")
    assert "f.txt" in info.value.message


def test_decode_refuses_nul_after_a_utf8_bom_as_binary_as_is_binary_does() -> None:
    data = b"\xef\xbb\xbfhead\x00\x00\x00tail"
    assert is_binary(data)
    with pytest.raises(BinaryFileError):
        decode(data)


@given(sample=texts_with_line_endings(), encoding=encodings())
def test_decoding_then_encoding_any_text_gives_back_the_original_bytes(sample: EndedText, encoding: Encoding) -> None:
    data = encoding.encode(sample.text)

    decoded = decode(data)

    assert decoded.encode(decoded.text) == data
    assert decoded.encoding == encoding.codec
    # Without a BOM, text that starts with U+FEFF is indistinguishable from a UTF-8 BOM; bytes still round-trip.
    leading_feff = not encoding.bom and sample.text.startswith("\ufeff")
    assert decoded.text == (sample.text[1:] if leading_feff else sample.text)
    assert decoded.line_ending == sample.line_ending
    assert decoded.final_newline == sample.text.endswith(("\n", "\r"))


# --- legacy code pages ------------------------------------------------------------------------------------------

LEGACY = [
    pytest.param("Le café est très bon, déjà vu.", "latin-1", "cp1252", id="french-latin1-one-line"),
    pytest.param("« Le cœur » coûte 5 € — c\u2019est “l\u2019été”.\r\n", "cp1252", "cp1252", id="french-cp1252"),
    pytest.param("Größe: Straße, Äpfel, Öl.\n", "latin-1", "cp1252", id="german-latin1"),
    pytest.param("¿Dónde está el niño?\n", "latin-1", "cp1252", id="spanish-latin1"),
    pytest.param("año", "latin-1", "cp1252", id="año (Big5 to charset-normalizer)"),
    pytest.param("très", "latin-1", "cp1252", id="très"),
    pytest.param("日本語のテキストです。\n", "shift_jis", "cp932", id="shift-jis"),
    pytest.param("東京", "shift_jis", "cp932", id="shift-jis-two-kanji"),
    pytest.param("中文文本测试\uff0c你好世界。\n", "gb18030", "gb18030", id="gb18030"),
    pytest.param("你好", "gb18030", "gb18030", id="gb18030-two-hanzi"),
    pytest.param("Привет, мир!\n", "cp1251", "cp1251", id="cp1251"),
    pytest.param("Привет", "cp1251", "cp1251", id="cp1251-one-word"),
    pytest.param("Київ — столиця України.\n", "cp1251", "cp1251", id="cp1251-ukrainian"),
    pytest.param("Москва - столица России.\n", "koi8-r", "koi8-r", id="koi8-r"),
]


@pytest.mark.parametrize(("text", "codec", "reported"), LEGACY)
def test_decode_reads_legacy_text_as_a_person_would_and_encodes_back_the_same_bytes(
    text: str, codec: str, reported: str
) -> None:
    data = text.encode(codec)

    decoded = decode(data)

    assert (decoded.text, decoded.encoding) == (text, reported)
    assert decoded.encode(decoded.text) == data


def test_bytes_cp1252_leaves_undefined_make_the_file_latin1_and_are_kept() -> None:
    data = b"Caf\xe9 cr\xe8me \x81\x8d\x8f\x90\x9d\r\n"

    decoded = decode(data)

    assert (decoded.text, decoded.encoding) == (data.decode("latin-1"), "iso8859-1")
    assert decoded.encode(decoded.text.replace("crème", "brûlée")) == data.replace(b"cr\xe8me", b"br\xfbl\xe9e")


def test_an_undefined_byte_past_the_judged_sample_still_makes_the_file_latin1() -> None:
    data = "Déjà vu, très bien.\n".encode("latin-1") * 2000 + b"odd \x8f byte\n"

    decoded = decode(data)

    assert decoded.encoding == "iso8859-1"
    assert decoded.encode(decoded.text) == data


@pytest.mark.parametrize(
    ("text", "codec"), [("中文文本测试\uff0c你好世界。", "gb18030"), ("Это пример текста. ", "cp1251")]
)
def test_a_long_legacy_file_is_judged_by_its_start_and_decoded_whole(text: str, codec: str) -> None:
    data = (text * 3000).encode(codec)  # no line break: the judged sample ends inside a character

    decoded = decode(data)

    assert (decoded.text, decoded.encoding) == (text * 3000, codec)


@given(text=cp1252_texts())
def test_decoding_any_text_cp1252_encodes_gives_back_its_bytes(text: str) -> None:
    data = text.encode("cp1252")

    decoded = decode(data)

    assert decoded.encode(decoded.text) == data


@given(text=western_texts(), codec=st.sampled_from(["cp1252", "latin-1"]))
def test_western_text_in_cp1252_or_latin1_reads_as_itself(text: str, codec: str) -> None:
    data = text.encode(codec, errors="ignore")  # Latin-1 has no œ nor curly quotes: words lose them
    assume(not _is_utf8(data))

    decoded = decode(data)

    assert (decoded.text, decoded.encoding) == (data.decode("cp1252"), "cp1252")


@given(data=st.binary(max_size=300))
def test_any_bytes_either_decode_to_text_that_encodes_back_to_them_or_are_refused(data: bytes) -> None:
    try:
        decoded = decode(data)
    except (BinaryFileError, EncodingError):
        assert is_binary(data) or split_bom(data)[1] is not None  # only NULs or a BOM the bytes belie refuse
        return
    assert decoded.encode(decoded.text) == data


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# --- line endings -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\nb\n", "lf"),
        ("a\r\nb\r\n", "crlf"),
        ("a\rb\r", "cr"),
        ("a\nb\r\n", "mixed"),
        ("a\rb\n", "mixed"),
        ("a\r\nb\r", "mixed"),
        ("no ending", "none"),
        ("", "none"),
        ("a\x0bb\x0cc\x85d\u2028e", "none"),
    ],
)
def test_line_ending_of_names_the_style_of_the_text(text: str, expected: str) -> None:
    assert line_ending_of(text) == expected


def test_split_lines_keeps_each_lines_own_ending() -> None:
    assert split_lines("a\nb\r\nc\rd") == ["a\n", "b\r\n", "c\r", "d"]
    assert split_lines("\n\r\n\r") == ["\n", "\r\n", "\r"]
    assert split_lines("") == []


@pytest.mark.parametrize("char", list(LOOKALIKE_BREAKS), ids=lambda char: f"U+{ord(char):04X}")
def test_split_lines_does_not_split_on_characters_only_str_splitlines_treats_as_breaks(char: str) -> None:
    assert split_lines(f"a{char}b\nc{char}") == [f"a{char}b\n", f"c{char}"]


@given(sample=texts_with_line_endings())
def test_split_lines_and_line_ending_of_agree_with_the_generated_endings(sample: EndedText) -> None:
    assert split_lines(sample.text) == sample.split
    assert "".join(split_lines(sample.text)) == sample.text
    assert line_ending_of(sample.text) == sample.line_ending


# --- binary detection ---------------------------------------------------------------------------------------------


def test_is_binary_sees_a_nul_byte() -> None:
    assert is_binary(b"text\x00more")
    assert not is_binary("plain text, naïve\n".encode())


@pytest.mark.parametrize("encoding", [e for e in SUPPORTED_ENCODINGS if e.codec != "utf-8"], ids=str)
def test_is_binary_does_not_mistake_utf16_or_utf32_text_for_binary(encoding: Encoding) -> None:
    data = encoding.encode("hello\n")
    assert b"\x00" in data
    assert not is_binary(data)


def test_is_binary_only_sniffs_the_first_8_kib() -> None:
    assert not is_binary(b"a" * 8192 + b"\x00")
    assert is_binary(b"a" * 8191 + b"\x00")


# --- AtomicWriter -------------------------------------------------------------------------------------------------


def test_atomic_write_puts_exactly_the_given_bytes_on_disk(tmp_path: Path, writer: AtomicWriter) -> None:
    path = tmp_path / "f.bin"
    data = bytes(range(256)) * 64

    writer.write(path, data)
    assert path.read_bytes() == data
    writer.write(path, b"short")

    assert path.read_bytes() == b"short"
    assert _temps(tmp_path) == []


def test_atomic_write_leaves_no_journal_entry_after_it_finishes(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    writer.write(tmp_path / "f.txt", b"done\n")
    assert (tmp_path / "f.txt").read_bytes() == b"done\n"
    assert _journal(state_dir) == []


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600, 0o444], ids=oct)
def test_atomic_write_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path, writer: AtomicWriter, mode: int) -> None:
    path = tmp_path / "script.sh"
    path.write_bytes(b"old\n")
    path.chmod(mode)

    writer.write(path, b"new\n")

    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("exclusive", [False, True])
def test_atomic_write_gives_a_new_file_0666_less_the_umask(
    tmp_path: Path, writer: AtomicWriter, exclusive: bool
) -> None:
    path = tmp_path / "new.txt"

    writer.write(path, b"fresh\n", exclusive=exclusive)

    assert path.read_bytes() == b"fresh\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()
    assert _temps(tmp_path) == []


def test_exclusive_write_refuses_an_existing_path_and_leaves_it_untouched(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    path = tmp_path / "taken.txt"
    path.write_bytes(b"original\n")
    path.chmod(0o600)
    before = path.stat()

    with pytest.raises(AlreadyExistsError):
        writer.write(path, b"intruder\n", exclusive=True)

    assert path.read_bytes() == b"original\n"
    after = path.stat()
    assert (after.st_ino, stat.S_IMODE(after.st_mode), after.st_nlink) == (before.st_ino, 0o600, 1)
    assert _temps(tmp_path) == []
    assert _journal(state_dir) == []


def test_a_write_into_a_missing_directory_fails_and_leaves_no_temp_file(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    with pytest.raises(NotFoundError):
        writer.write(tmp_path / "missing" / "f.txt", b"data")

    assert not (tmp_path / "missing").exists()
    assert _temps(tmp_path) == []
    assert _journal(state_dir) == []


def test_a_write_over_a_directory_fails_after_the_temp_exists_and_removes_it(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    target = tmp_path / "dir"
    target.mkdir()
    (target / "inside.txt").write_bytes(b"kept")

    with pytest.raises(IsDirectoryError):
        writer.write(target, b"data")

    assert (target / "inside.txt").read_bytes() == b"kept"
    assert _temps(tmp_path) == []
    assert _journal(state_dir) == []


def test_a_failed_data_write_leaves_the_old_bytes_and_no_temp_file(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    path = tmp_path / "f.bin"
    path.write_bytes(b"old bytes")
    # A real write failure: above RLIMIT_FSIZE the kernel fails write() with EFBIG (once SIGXFSZ is ignored).
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))
    try:
        with pytest.raises(FsguardError) as info:
            writer.write(path, b"x" * MIB)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)

    assert "too large" in info.value.message.lower()
    assert path.read_bytes() == b"old bytes"
    assert _temps(tmp_path) == []
    assert _journal(state_dir) == []


def test_atomic_write_accepts_a_file_name_of_the_longest_length_the_filesystem_allows(
    tmp_path: Path, writer: AtomicWriter
) -> None:
    path = tmp_path / ("n" * os.pathconf(tmp_path, "PC_NAME_MAX"))
    path.write_bytes(b"old")  # the name itself is valid

    writer.write(path, b"new")

    assert path.read_bytes() == b"new"
    assert _temps(tmp_path) == []


def test_atomic_write_in_a_directory_whose_name_is_not_utf8_journals_its_temp_and_leaves_no_stray(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    directory = tmp_path / os.fsdecode(b"caf\xe9")  # Latin-1 bytes: a lone surrogate in the str
    directory.mkdir()
    path = directory / "notes.txt"
    path.write_bytes(b"old")

    writer.write(path, b"new")

    assert path.read_bytes() == b"new"
    assert _temps(directory) == []
    assert _journal(state_dir) == []


def test_clean_strays_removes_a_temp_under_a_directory_whose_name_is_not_utf8(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    work = tmp_path / os.fsdecode(b"caf\xe9")
    work.mkdir()
    stray = work / f"{TEMP_MARK}0123456789abcdef0123456789abcdef"
    stray.write_bytes(b"half writ")
    (state_dir / "inflight" / "0123456789abcdef0123456789abcdef").write_bytes(os.fsencode(stray))

    assert writer.clean_strays() == [stray]

    assert list(work.iterdir()) == []
    assert _journal(state_dir) == []


def test_clean_strays_removes_the_temp_file_of_an_interrupted_write(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_bytes(b"the real file")
    stray = work / f".notes.txt{TEMP_MARK}0123456789abcdef0123456789abcdef"
    stray.write_bytes(b"half writ")
    # What a crash between journaling the temp and renaming it leaves behind.
    (state_dir / "inflight" / "0123456789abcdef0123456789abcdef").write_text(str(stray), encoding="utf-8")

    assert writer.clean_strays() == [stray]

    assert sorted(entry.name for entry in work.iterdir()) == ["notes.txt"]
    assert (work / "notes.txt").read_bytes() == b"the real file"
    assert _journal(state_dir) == []


def test_clean_strays_leaves_alone_files_the_journal_does_not_name_as_temps(
    tmp_path: Path, state_dir: Path, writer: AtomicWriter
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    real = work / "notes.txt"
    real.write_bytes(b"precious")
    unjournaled = work / f".other.txt{TEMP_MARK}ffff"  # another process's write may still own it
    unjournaled.write_bytes(b"in flight")
    inflight = state_dir / "inflight"
    (inflight / "a").write_text(str(real), encoding="utf-8")  # names a file without the temp mark
    (inflight / "b").write_text(str(work / f".gone{TEMP_MARK}0000"), encoding="utf-8")  # already gone

    assert writer.clean_strays() == []

    assert real.read_bytes() == b"precious"
    assert unjournaled.read_bytes() == b"in flight"
    assert _journal(state_dir) == []


def test_a_concurrent_reader_only_ever_sees_one_complete_version(tmp_path: Path, writer: AtomicWriter) -> None:
    path = tmp_path / "big.bin"
    versions = (b"a" * MIB, b"b" * MIB)
    writer.write(path, versions[0])
    first_read = threading.Event()
    stop = threading.Event()
    reads = 0
    problems: list[str] = []

    def read_in_a_loop() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                data = path.read_bytes()
            except OSError as exc:
                problems.append(repr(exc))
            else:
                if data not in versions:
                    problems.append(f"{len(data)} bytes starting {data[:1]!r} ending {data[-1:]!r}")
                reads += 1
            first_read.set()

    reader = threading.Thread(target=read_in_a_loop, daemon=True)
    reader.start()
    try:
        assert first_read.wait(5)
        for index in range(1, 201):
            writer.write(path, versions[index % 2])
    finally:
        stop.set()
        reader.join(5)

    assert not reader.is_alive()
    assert problems == []
    assert reads > 0
    assert path.read_bytes() == versions[200 % 2]


# --- read_snapshot ------------------------------------------------------------------------------------------------


def test_read_snapshot_returns_the_bytes_and_the_stat_they_were_read_under(tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"snapshot\n")

    data, stat_result = read_snapshot(path, max_size=9)

    assert data == b"snapshot\n"
    assert stat_result is not None
    assert (stat_result.st_size, stat_result.st_ino) == (9, path.stat().st_ino)


def test_read_snapshot_refuses_a_file_above_max_size(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"0123456789")

    with pytest.raises(TooLargeError) as info:
        read_snapshot(path, max_size=9)

    assert "10 bytes" in info.value.message
    assert path.read_bytes() == b"0123456789"


def test_read_snapshot_of_a_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_snapshot(tmp_path / "missing.txt")


def test_read_snapshot_of_a_directory_is_is_directory(tmp_path: Path) -> None:
    with pytest.raises(IsDirectoryError):
        read_snapshot(tmp_path)


def test_read_snapshot_of_a_directory_is_is_directory_even_under_a_small_size_limit(tmp_path: Path) -> None:
    directory = tmp_path / "dir"
    directory.mkdir()
    (directory / "entry.txt").write_bytes(b"")  # a directory with entries is over 0 bytes

    with pytest.raises(IsDirectoryError):
        read_snapshot(directory, max_size=0)


def test_read_snapshot_does_not_follow_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_bytes(b"behind the link")
    (tmp_path / "link.txt").symlink_to(target)

    with pytest.raises(AccessDeniedError):
        read_snapshot(tmp_path / "link.txt")


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252", "shift_jis", "utf-16-le", "utf-16-be", "utf-32-le"])
@given(text=st.text(alphabet="ab\r\n é語", max_size=60))
def test_break_tally_counts_lines_and_style_as_decode_does(encoding: str, text: str) -> None:
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    tally = BreakTally(Breaks.of(encoding))
    tally.add(data)
    assert tally.line_count == count_lines(text)
    assert tally.line_ending == line_ending_of(text)
    assert Breaks.of(encoding).count(data) == count_lines(text) - (0 if not text or text.endswith(("\n", "\r")) else 1)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@given(
    units=st.lists(st.sampled_from(["\n", "\r", "a", "\u0a0d", "\u0d0a", "\U0010000a", "\ud83d", "\ude00", "\x00"])),
    tail=st.binary(max_size=3),
)
def test_breaks_counted_in_wide_units_are_the_aligned_breaks_even_among_bytes_that_do_not_decode(
    encoding: str, units: list[str], tail: bytes
) -> None:
    breaks = Breaks.of(encoding)
    # Lone surrogates, a unit past U+10FFFF and a cut unit at the end: none decodes, none may hide a break.
    data = b"".join(unit.encode(encoding, "surrogatepass") for unit in units) + tail
    data += b"\xff\xff\x11\x00" if encoding == "utf-32-le" else b""
    ends = breaks.ends(data, 0)
    tally = BreakTally(breaks)
    tally.add(data)
    assert breaks.count(data) == len(ends)
    assert tally.crlf + tally.lf + tally.cr == len(ends)
    assert tally.crlf == sum(1 for end in ends if data[end - 2 * breaks.unit : end] == breaks.cr + breaks.lf)


def test_sniff_judges_a_prefix_cut_inside_a_character_as_utf8() -> None:
    assert sniff("aé\n".encode() * 10 + "é".encode()[:1]) == ("utf-8", b"")
    assert sniff(b"\xff\xfea\x00") == ("utf-16-le", b"\xff\xfe")


@given(
    pieces=st.lists(st.sampled_from(["a", "bb\n", "\r", "\r\n", "\n", "x" * 60, "é\r\n"]), max_size=600),
    count=st.integers(min_value=1, max_value=300),
)
def test_tail_lines_equal_the_last_lines_of_a_full_split_whatever_the_endings(pieces: list[str], count: int) -> None:
    text = "".join(pieces)  # up to ~36k characters: past the first suffix tail_lines tries, so it grows it
    assert tail_lines(text, count) == split_lines(text)[-count:]


@given(
    chunk=st.one_of(
        st.binary(max_size=60).map(lambda raw: raw.translate(bytes.maketrans(b"\x00\x01", b"\r\n"))),
        st.lists(st.sampled_from([b"a", b"\n", "é".encode()]), max_size=60).map(b"".join),  # LFs alone
    )
)
def test_the_last_line_ends_found_from_the_right_are_the_last_of_all_line_ends(chunk: bytes) -> None:
    breaks = Breaks.of("utf-8")
    every = breaks.ends(chunk, 100)

    for count in (1, 2, 5, 100):
        assert breaks.last_ends(chunk, 100, count) == every[-count:]


@given(
    chunk=st.one_of(
        st.binary(max_size=60).map(lambda raw: raw.translate(bytes.maketrans(b"\x00\x01", b"\r\n"))),
        st.lists(st.sampled_from([b"a", b"\n", "é".encode()]), max_size=60).map(b"".join),  # LFs alone
        st.lists(st.sampled_from([b"ab\n", b"\n", b"\r\n", b"x"]), max_size=30).map(b"".join),  # a CRLF among LFs
    ),
    cut=st.integers(min_value=0, max_value=61),
    count=st.integers(min_value=1, max_value=12),
)
def test_the_earliest_of_the_last_line_starts_before_a_stop_is_that_of_all_line_starts(
    chunk: bytes, cut: int, count: int
) -> None:
    breaks = Breaks.of("utf-8")
    stop = 100 + min(cut, len(chunk))
    starts = [start for start in breaks.ends(chunk, 100) if start <= stop][-count:]
    first, found = breaks.last_starts(chunk, 100, stop, count)
    assert found == len(starts)
    if starts:
        assert first == starts[0]
