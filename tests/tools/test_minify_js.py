"""minify_js through the in-memory Client, in both protocol eras: rjsmin's bytes on disk, undo, no clobbering."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import anyio
import pytest
import rjsmin
from mcp import Client

from fsguard.core.hashing import content_hash
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

SOURCE = """/*! app v1 | MIT */
// the greeting
function greet(name) {
    /* say hello */
    return "Hello, " + name + "! // not a comment";
}
var total = 10 / 2 / 1;
console.log(greet("world"), total);
"""

# Each trap broke the seed's line-joining minifier; node must print the same lines before and after.
ASI_PROGRAM = r"""#!/usr/bin/env node
// ASI and lexical traps
var out = []
function log(v) { out.push(String(v)) }
var a = 1
var b = 2
var c = a
++b
log(c + ":" + a + ":" + b)
function f() {
  return
  42
}
log(f())
var g = function () { return 7 }
var r = g
(function () { return 3 })
log(typeof r)
var i = 5
i
++
i
log(i)
var re = /ab+c\/[/*]x/g, s = "a /* not */ b // nor"
log("xabbc/ abc/[x".replace(/ab+c\/\[/g, "R") + "|" + re.source + "|" + s)
var t = `two
lines ${a + b}   // kept   /* kept */ ${`nested ${"x"}`}`
log(t)
var d = 10 / 2 / 1, e = a
/b/i
log(d + ":" + e)
var q = 'it\'s "q" // no'
log(q)
let x1 = a ?? b, x2 = ({p: {q: 1}})?.p?.q
log(x1 + ":" + x2)
var arr = [/x]y/.test("x]y"), 1 - -1, a - --b, a + +b]
log(arr.join(","))
console.log(out.join("\n"))
"""


def minified(text: str, *, keep_bang_comments: bool = False) -> bytes:
    out: str = rjsmin.jsmin(text, keep_bang_comments=keep_bang_comments)
    return out.encode("utf-8")


async def test_in_place_writes_rjsmins_bytes_and_undo_last_brings_back_the_exact_original(
    client: Client, root: Path
) -> None:
    original = SOURCE.replace("\n", "\r\n").encode("utf-8")
    (root / "app.js").write_bytes(original)
    result = await client.call_tool("minify_js", {"path": "app.js"})
    data = structured(result)
    after = (root / "app.js").read_bytes()
    assert after == minified(original.decode("utf-8"))
    assert b"the greeting" not in after
    assert b"app v1" not in after
    assert b'"Hello, "+name+"! // not a comment"' in after
    assert (data["path"], data["output_path"]) == (str(root / "app.js"), str(root / "app.js"))
    assert (data["bytes_before"], data["bytes_after"]) == (len(original), len(after))
    assert data["saved_percent"] == round((len(original) - len(after)) / len(original) * 100, 1)
    assert data["backup_id"]
    assert data["dry_run"] is False
    assert "preview" not in data
    read = structured(await client.call_tool("read_file", {"path": "app.js"}))
    assert data["content_hash"] == read["content_hash"]
    assert data["message"] == text_of(result)
    assert 'backup(action="undo_last"' in data["message"]
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "app.js"}))
    assert (root / "app.js").read_bytes() == original


async def test_output_path_creates_a_new_file_and_leaves_the_input_untouched(client: Client, root: Path) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    data = structured(await client.call_tool("minify_js", {"path": "app.js", "output_path": "dist/js/app.min.js"}))
    target = root / "dist" / "js" / "app.min.js"
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    assert target.read_bytes() == minified(SOURCE)
    assert data["output_path"] == str(target)
    assert "backup_id" not in data
    assert (
        data["content_hash"] == structured(await client.call_tool("read_file", {"path": str(target)}))["content_hash"]
    )
    assert f"into {target.relative_to(root)} (new file;" in data["message"]


async def test_output_path_onto_another_existing_file_is_refused_and_both_files_stay(
    client: Client, root: Path
) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    (root / "other.js").write_bytes(b"keep me\n")
    for dry_run in (False, True):
        refused = await client.call_tool("minify_js", {"path": "app.js", "output_path": "other.js", "dry_run": dry_run})
        assert error_code(refused) == "already_exists"
        assert "never overwrites" in text_of(refused)
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    assert (root / "other.js").read_bytes() == b"keep me\n"


async def test_output_path_spelling_the_input_minifies_in_place_with_a_backup(client: Client, root: Path) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    data = structured(await client.call_tool("minify_js", {"path": "./app.js", "output_path": str(root / "app.js")}))
    assert (root / "app.js").read_bytes() == minified(SOURCE)
    assert data["output_path"] == data["path"]
    assert data["backup_id"]


async def test_dry_run_writes_nothing_and_shows_sizes_and_a_preview(client: Client, root: Path) -> None:
    big = SOURCE * 40
    (root / "app.js").write_text(big, encoding="utf-8")
    result = await client.call_tool("minify_js", {"path": "app.js", "dry_run": True, "output_path": "out.js"})
    data = structured(result)
    assert (root / "app.js").read_text(encoding="utf-8") == big
    assert not (root / "out.js").exists()
    expected = minified(big)
    assert (data["dry_run"], data["bytes_before"], data["bytes_after"]) == (True, len(big), len(expected))
    assert data["preview"] == expected.decode("utf-8")[:500]
    assert "content_hash" not in data
    assert "backup_id" not in data
    assert "DRY RUN, nothing written" in text_of(result)
    nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "app.js"})
    assert error_code(nothing) == "nothing_to_undo"


async def test_a_shebang_line_is_kept_verbatim_with_its_own_line_break(client: Client, root: Path) -> None:
    shebang = "#!/usr/bin/env  node --flag=/x/  // not a comment\r\n"
    (root / "cli.js").write_text(shebang + SOURCE, encoding="utf-8", newline="")
    structured(await client.call_tool("minify_js", {"path": "cli.js"}))
    assert (root / "cli.js").read_bytes() == shebang.encode("utf-8") + minified(SOURCE)


async def test_a_utf8_bom_is_kept(client: Client, root: Path) -> None:
    (root / "bom.js").write_bytes(b"\xef\xbb\xbf" + SOURCE.encode("utf-8"))
    structured(await client.call_tool("minify_js", {"path": "bom.js"}))
    assert (root / "bom.js").read_bytes() == b"\xef\xbb\xbf" + minified(SOURCE)


async def test_a_file_that_is_not_utf8_text_is_refused_with_its_code(client: Client, root: Path) -> None:
    latin = b'var s = "caf\xe9";  // latin-1\n'
    (root / "latin.js").write_bytes(latin)
    refused = await client.call_tool("minify_js", {"path": "latin.js"})
    assert error_code(refused) == "encoding_error"
    assert "UTF-8" in text_of(refused)
    assert (root / "latin.js").read_bytes() == latin
    (root / "blob.js").write_bytes(b"var x = 1;\x00\x01\x02")
    assert error_code(await client.call_tool("minify_js", {"path": "blob.js"})) == "binary_file"
    assert (root / "blob.js").read_bytes() == b"var x = 1;\x00\x01\x02"


async def test_a_stale_expected_hash_is_refused_and_the_previous_hash_of_a_dry_run_is_accepted(
    client: Client, root: Path
) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    stale = await client.call_tool("minify_js", {"path": "app.js", "expected_hash": "deadbeef"})
    assert error_code(stale) == "stale_edit"
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    stale_to_new = await client.call_tool(
        "minify_js", {"path": "app.js", "output_path": "n.js", "expected_hash": "deadbeef"}
    )
    assert error_code(stale_to_new) == "stale_edit"
    assert not (root / "n.js").exists()
    planned = structured(await client.call_tool("minify_js", {"path": "app.js", "dry_run": True}))
    structured(await client.call_tool("minify_js", {"path": "app.js", "expected_hash": planned["previous_hash"]}))
    assert (root / "app.js").read_bytes() == minified(SOURCE)


async def test_flags_rjsmin_cannot_honour_are_refused_and_remove_comments_false_keeps_bang_comments(
    client: Client, root: Path
) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    off = {"remove_comments": False, "collapse_whitespace": False, "single_line": False}
    nothing = await client.call_tool("minify_js", {"path": "app.js", **off})
    assert error_code(nothing) == "invalid_params"
    assert all(word in text_of(nothing) for word in ("nothing to do", *off))
    lines = await client.call_tool("minify_js", {"path": "app.js", "single_line": False})
    assert error_code(lines) == "invalid_params"
    assert "single_line=false cannot be honoured" in text_of(lines)
    assert error_code(await client.call_tool("minify_js", {"path": "app.js", "collapse_whitespace": False})) == (
        "invalid_params"
    )
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    data = structured(await client.call_tool("minify_js", {"path": "app.js", "remove_comments": False}))
    assert (root / "app.js").read_bytes() == minified(SOURCE, keep_bang_comments=True)
    assert (root / "app.js").read_bytes().startswith(b"/*! app v1 | MIT */")
    assert data["kept_bang_comments"] is True


async def test_an_already_minified_file_is_left_alone_without_a_backup(client: Client, root: Path) -> None:
    (root / "app.js").write_bytes(minified(SOURCE))
    data = structured(await client.call_tool("minify_js", {"path": "app.js", "create_backup": False}))
    assert (data["unchanged"], data["saved_percent"]) == (True, 0.0)
    assert "backup_id" not in data
    assert (root / "app.js").read_bytes() == minified(SOURCE)


@pytest.mark.parametrize("dry_run", [False, True])
async def test_a_file_that_is_not_javascript_is_refused_and_its_bytes_stay(
    client: Client, root: Path, dry_run: bool
) -> None:
    files = {"mod.py": b"def f(x):\n    if x:\n        return 1\n", "notes.md": b"# Title\n\nSome  text.\n\n- one\n"}
    for name, data in files.items():
        (root / name).write_bytes(data)
        refused = await client.call_tool("minify_js", {"path": name, "dry_run": dry_run})
        assert error_code(refused) == "invalid_params"
        assert f"{name} is a {Path(name).suffix} file, not JavaScript" in text_of(refused)
        assert "copy_file" in text_of(refused)
        refused = await client.call_tool("minify_js", {"path": name, "output_path": "out.js", "dry_run": dry_run})
        assert error_code(refused) == "invalid_params"
    assert {path.name: path.read_bytes() for path in root.iterdir() if path.is_file()} == files


@pytest.mark.parametrize("name", ["m.mjs", "c.cjs", "v.JSX", "bundle", "code.txt", "data.json", "t.ts"])
async def test_a_javascript_suffix_or_one_naming_no_other_language_is_minified(
    client: Client, root: Path, name: str
) -> None:
    (root / name).write_bytes(SOURCE.encode())
    structured(await client.call_tool("minify_js", {"path": name}))
    assert (root / name).read_bytes() == minified(SOURCE)


async def test_a_dry_run_of_an_already_minified_file_says_unchanged_as_the_real_call_does(
    client: Client, root: Path
) -> None:
    (root / "app.js").write_bytes(minified(SOURCE))
    dry = await client.call_tool("minify_js", {"path": "app.js", "dry_run": True})
    real = structured(await client.call_tool("minify_js", {"path": "app.js"}))
    assert structured(dry)["unchanged"] is real["unchanged"] is True
    assert "app.js is already minified; minifying it would write nothing" in text_of(dry)
    into_new = {"path": "app.js", "output_path": "b.js", "dry_run": True}
    assert structured(await client.call_tool("minify_js", into_new))["unchanged"] is False  # a new file would be made
    assert (root / "app.js").read_bytes() == minified(SOURCE)


async def test_pre_edit_and_pre_write_hooks_of_minify_js_can_stop_it(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    deny = [{"pattern": "minify_js", "hooks": [{"type": "command", "command": "echo frozen >&2; exit 2"}]}]
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": {"pre-edit": deny, "pre-write": deny}}), encoding="utf-8")
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    async with connect(hooks_config=config) as client:
        in_place = await client.call_tool("minify_js", {"path": "app.js"})
        to_new = await client.call_tool("minify_js", {"path": "app.js", "output_path": "app.min.js"})
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert (error_code(in_place), error_code(to_new)) == ("hook_denied", "hook_denied")
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    assert not (root / "app.min.js").exists()
    assert listing["total"] == 0


async def test_a_syntax_error_the_minifier_would_introduce_is_refused_and_nothing_is_written(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str, keep_bang_comments: bool = False) -> str:
        return "".join(text.rsplit("}", 1))  # drops the last closing brace, and keeps every literal

    monkeypatch.setattr(rjsmin, "jsmin", broken)
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    for arguments in ({"dry_run": True}, {}, {"output_path": "app.min.js"}):
        refused = await client.call_tool("minify_js", {"path": "app.js", **arguments})
        assert error_code(refused) == "invalid_params"
        assert "would not parse (JavaScript syntax error introduced at line" in text_of(refused)
    assert (root / "app.js").read_text(encoding="utf-8") == SOURCE
    assert not (root / "app.min.js").exists()
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


# rjsmin 1.3.0 reads a template nested in ${…} (or a backtick string there) as the outer template's end.
NESTED_TEMPLATES = [
    ("`inner  /* x */  y`", b"const s = `a${ `inner  /* x */  y` }b`;\nconsole.log(s);\n"),
    ("`x${…}   /* k */  y`", b"let s = `x${ '`' }   /* k */  y`;\n"),
    ("`x${…}`", b"let s = `x${ f(`q  //  w`) }`;\nfoo();\n"),  # cut at //: the rest of the file would be lost
]


@pytest.mark.parametrize(("literal", "source"), NESTED_TEMPLATES, ids=["nested", "backtick", "slashes"])
async def test_a_template_literal_rjsmin_would_rewrite_is_refused_and_the_file_stays_byte_for_byte(
    client: Client, root: Path, literal: str, source: bytes
) -> None:
    (root / "t.js").write_bytes(source)
    for dry_run in (True, False):
        refused = await client.call_tool("minify_js", {"path": "t.js", "dry_run": dry_run})
        assert error_code(refused) == "invalid_params"
        assert f"the template literal at line 1 of t.js ({literal})" in text_of(refused)
        assert "Nothing was written; the file is unchanged" in text_of(refused)
    assert (root / "t.js").read_bytes() == source
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_jsx_text_whose_spaces_rjsmin_would_collapse_is_refused(client: Client, root: Path) -> None:
    source = b"const e = <p>Don't   do this</p>;\n"
    (root / "e.jsx").write_bytes(source)
    refused = await client.call_tool("minify_js", {"path": "e.jsx"})
    assert error_code(refused) == "invalid_params"
    assert "the JSX text at line 1 of e.jsx (Don't   do this)" in text_of(refused)
    assert (root / "e.jsx").read_bytes() == source


async def test_strings_templates_regexes_and_jsx_text_rjsmin_keeps_are_minified(client: Client, root: Path) -> None:
    source = (
        "const a = `one  ${ b  +  `two ${ c }` }  three`, d = 'x  /* y */', r = /a  b\\/c/g;\n"
        "const e = <div>\n    hello\n    <b>{a}</b>\n  </div>;  // done\n"
    )
    (root / "ok.jsx").write_text(source, encoding="utf-8")
    data = structured(await client.call_tool("minify_js", {"path": "ok.jsx"}))
    assert data["bytes_after"] < data["bytes_before"]
    assert (root / "ok.jsx").read_bytes() == minified(source)


async def test_compact_voice_is_one_line_with_sizes_the_new_hash_and_the_undo_id(
    connect: ClientFactory, root: Path
) -> None:
    (root / "app.js").write_text(SOURCE, encoding="utf-8")
    async with connect(compact_mode=True) as client:
        data = structured(await client.call_tool("minify_js", {"path": "app.js"}))
    assert data["message"] == (
        f"MINIFIED app.js | {data['bytes_before']}→{data['bytes_after']}B "
        f"({data['bytes_after'] - data['bytes_before']}, {data['saved_percent']:.1f}%) | "
        f"hash {content_hash((root / 'app.js').read_bytes())} | undo:{data['backup_id']}"
    )


async def test_help_shows_the_three_examples(client: Client) -> None:
    data = structured(await client.call_tool("help", {"tool": "minify_js"}))
    assert [e["description"] for e in data["examples"]] == [
        "in place (backed up)",
        "into another file",
        "dry run: sizes and a preview",
    ]


async def run_node(script: Path) -> str:
    with anyio.fail_after(30):
        done = await anyio.run_process(["node", str(script)])
    return done.stdout.decode("utf-8")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: cannot run the minified program")
async def test_the_minified_program_prints_what_the_original_prints_under_node(client: Client, root: Path) -> None:
    program = root / "traps.js"
    program.write_text(ASI_PROGRAM, encoding="utf-8")
    expected = await run_node(program)
    assert expected.splitlines()[:4] == ["1:1:3", "undefined", "number", "6"]
    data = structured(await client.call_tool("minify_js", {"path": "traps.js"}))
    assert data["bytes_after"] < data["bytes_before"]
    assert "structure_warning" not in data
    assert program.read_bytes() == b"#!/usr/bin/env node\n" + minified(ASI_PROGRAM.split("\n", 1)[1])
    assert await run_node(program) == expected


@pytest.mark.parametrize(
    ("source", "column"), [('var x = "never ends', 1), ("var x = 1; /* never ends", 12), ("f(`open ${a}", 1)]
)
async def test_a_truncated_input_is_minified_with_a_warning_that_names_where_it_breaks(
    client: Client, root: Path, source: str, column: int
) -> None:
    """The seed flagged an unterminated string or comment (``truncated:input-malformed``): the output of a broken
    file is broken with it, so the answer says so rather than report a clean minify."""
    (root / "cut.js").write_text(source, encoding="utf-8")
    data = structured(await client.call_tool("minify_js", {"path": "cut.js", "output_path": "cut.min.js"}))
    warning = data["structure_warning"]
    assert warning.startswith(f"structure: the input does not parse (line 1, column {column}:")
    assert "truncated or malformed" in warning
    assert warning in data["message"]
    assert (root / "cut.js").read_text(encoding="utf-8") == source
    assert (root / "cut.min.js").read_bytes() == minified(source)


async def test_in_place_on_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    client: Client, root: Path
) -> None:
    # The replace-by-rename gives the name a new file; the other name keeps the unminified bytes, and is now told.
    original = SOURCE.encode("utf-8")
    (root / "app.js").write_bytes(original)
    os.link(root / "app.js", root / "copy.js")
    result = await client.call_tool("minify_js", {"path": "app.js"})
    data = structured(result)
    assert (root / "copy.js").read_bytes() == original
    assert (root / "app.js").read_bytes() == minified(SOURCE)
    assert "app.js had another hard link: that name keeps the old bytes" in "\n".join(data["notes"])
    assert "hard link" in text_of(result)


async def test_in_place_on_a_file_without_other_links_has_no_notes(client: Client, root: Path) -> None:
    (root / "app.js").write_bytes(SOURCE.encode("utf-8"))
    result = await client.call_tool("minify_js", {"path": "app.js"})
    assert "notes" not in structured(result)
    assert "hard link" not in text_of(result)
