"""What the HTTP transport tells a request it refuses before any tool runs (no token; a Host, Origin, Content-Type or
Accept it does not take), in both eras, and that nothing ran for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import INVALID_REQUEST

from fsguard.config import Settings
from tests.test_transports import http_server

pytestmark = pytest.mark.anyio

WRITE_2026 = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "write_file",
        "arguments": {"path": "w.txt", "content": "x"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}
HEADERS_2026 = {
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "write_file",
}


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside ``error``'s (nested) groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _gated(base_settings: Settings) -> Settings:
    return Settings(**{**base_settings.__dict__, "transport": "http", "auth_token": "s3cret"})


@pytest.mark.parametrize(
    ("authorization", "told"),
    [(None, "needs an Authorization: Bearer <token> header"), ("Bearer wrong", "bearer token sent is not this")],
)
async def test_an_sdk_client_without_the_right_token_is_told_which_and_how_to_fix_it(
    base_settings: Settings, mode: str, authorization: str | None, told: str
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    with anyio.fail_after(30):
        async with http_server(_gated(base_settings)) as url:
            anonymous = httpx2.AsyncClient(headers=headers)
            with pytest.RaisesGroup(MCPError, flatten_subgroups=True) as raised:
                async with anonymous, Client(streamable_http_client(url, http_client=anonymous), mode=mode):
                    pass
    [error] = _leaves(raised.value)
    assert isinstance(error, MCPError)
    assert error.code == INVALID_REQUEST
    assert told in error.message
    assert "--auth-token or FSGUARD_AUTH_TOKEN" in error.message
    assert "wrong" not in error.message


async def test_a_write_without_the_token_gets_401_with_a_json_rpc_error_and_leaves_no_file(
    base_settings: Settings, root: Path
) -> None:
    with anyio.fail_after(30):
        async with http_server(_gated(base_settings)) as url, httpx.AsyncClient() as raw:
            missing = await raw.post(url, json=WRITE_2026, headers=HEADERS_2026)
            wrong = await raw.post(url, json=WRITE_2026, headers={**HEADERS_2026, "Authorization": "Bearer nope"})
    assert (missing.status_code, wrong.status_code) == (401, 401)
    assert missing.headers["www-authenticate"] == "Bearer"
    assert wrong.headers["www-authenticate"] == 'Bearer error="invalid_token"'
    assert [answer.json()["error"]["code"] for answer in (missing, wrong)] == [INVALID_REQUEST, INVALID_REQUEST]
    assert not (root / "w.txt").exists()


@pytest.mark.parametrize("order", ["wrong first", "right first"])
async def test_a_request_with_two_authorization_headers_is_refused_whichever_holds_the_token_and_writes_nothing(
    base_settings: Settings, root: Path, order: str
) -> None:
    tokens = ["Bearer nope", "Bearer s3cret"] if order == "wrong first" else ["Bearer s3cret", "Bearer nope"]
    headers = httpx.Headers([*HEADERS_2026.items(), *(("Authorization", token) for token in tokens)])
    with anyio.fail_after(30):
        async with http_server(_gated(base_settings)) as url, httpx.AsyncClient() as raw:
            refused = await raw.post(url, json=WRITE_2026, headers=headers)
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == 'Bearer error="invalid_request"'
    assert "Send exactly one" in refused.json()["error"]["message"]
    assert not (root / "w.txt").exists()


@pytest.mark.parametrize(
    ("header", "value", "status", "told"),
    [
        ("host", "host.docker.internal:8765", 421, "Host 'host.docker.internal:8765' is not this loopback server's"),
        ("origin", "http://evil.example.com", 403, "a web page at Origin 'http://evil.example.com' may not call"),
        ("content-type", "text/plain", 400, "Unsupported Content-Type 'text/plain'"),
        ("accept", "application/json", 406, "Send Accept: application/json, text/event-stream."),
    ],
)
async def test_a_request_refused_for_its_host_origin_content_type_or_accept_gets_a_json_rpc_error_and_writes_nothing(
    base_settings: Settings, root: Path, header: str, value: str, status: int, told: str
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            content = httpx.Request("POST", url, json=WRITE_2026).content
            headers = {**HEADERS_2026, "content-type": "application/json", header: value}
            refused = await raw.post(url, content=content, headers=headers)
    assert refused.status_code == status
    error = refused.json()["error"]
    assert error["code"] == INVALID_REQUEST
    assert told in error["message"]
    assert "nothing was done" in error["message"]
    assert not (root / "w.txt").exists()


async def test_an_sdk_client_reaching_a_loopback_server_by_another_name_is_told_where_to_connect(
    base_settings: Settings, mode: str
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url:
            renamed = httpx2.AsyncClient(headers={"Host": "host.docker.internal:8765"})
            with pytest.RaisesGroup(MCPError, flatten_subgroups=True) as raised:
                async with renamed, Client(streamable_http_client(url, http_client=renamed), mode=mode):
                    pass
    [error] = _leaves(raised.value)
    assert isinstance(error, MCPError)
    assert "Misdirected request" in error.message
    assert "Connect to http://127.0.0.1:" in error.message


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


@pytest.mark.parametrize("content_type", ["Application/JSON", "APPLICATION/JSON; charset=UTF-8"])
async def test_a_content_type_in_capitals_is_taken_in_both_eras_and_the_write_reaches_disk(
    base_settings: Settings, root: Path, content_type: str
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    legacy = {"accept": "application/json, text/event-stream", "content-type": content_type}
    write = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            opened = await raw.post(url, json=INITIALIZE, headers=legacy)
            assert opened.status_code == 200, opened.text
            session = {
                **legacy,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-11-25",
            }
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await raw.post(url, json=initialized, headers=session)).status_code == 202
            arguments = {"path": "legacy.txt", "content": "1"}
            written = await raw.post(
                url, json={**write, "params": {"name": "write_file", "arguments": arguments}}, headers=session
            )
            assert written.status_code == 200, written.text
            current = await raw.post(url, json=WRITE_2026, headers={**HEADERS_2026, "content-type": content_type})
            assert current.status_code == 200, current.text
    assert (root / "legacy.txt").read_bytes() == b"1"
    assert (root / "w.txt").read_bytes() == b"x"


@pytest.mark.parametrize("last_event_id", ["5", "abc"])
async def test_a_stream_resumed_with_last_event_id_opens_the_sessions_stream_instead_of_an_http_500(
    base_settings: Settings, last_event_id: str
) -> None:
    # The SDK looked for an event store fsguard does not keep and returned without answering: 500.
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    legacy = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            opened = await raw.post(url, json=INITIALIZE, headers=legacy)
            session = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await raw.post(url, json=initialized, headers={**legacy, **session})).status_code == 202
            resume = {**session, "accept": "text/event-stream", "last-event-id": last_event_id}
            async with raw.stream("GET", url, headers=resume) as stream:
                assert stream.status_code == 200
                assert stream.headers["content-type"].startswith("text/event-stream")
            pinged = await raw.post(
                url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers={**legacy, **session}
            )
            assert pinged.status_code == 200, pinged.text


@pytest.mark.parametrize(("host", "origin"), [("127.0.0.1", None), ("localhost", "http://localhost"), ("[::1]", None)])
async def test_a_loopback_host_without_a_port_as_clients_send_it_for_port_80_is_served_and_writes(
    base_settings: Settings, root: Path, host: str, origin: str | None
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    headers = {**HEADERS_2026, "content-type": "application/json", "host": host}
    if origin is not None:
        headers["origin"] = origin
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            served = await raw.post(url, json=WRITE_2026, headers=headers)
            rebound = await raw.post(url, json=WRITE_2026, headers={**headers, "host": "evil.example.com"})
    assert served.status_code == 200, served.text
    assert rebound.status_code == 421
    assert (root / "w.txt").read_bytes() == b"x"


@pytest.mark.parametrize(
    ("header", "values", "told"),
    [
        ("content-type", ["text/plain", "application/json"], "Unsupported Content-Type 'text/plain'"),
        ("origin", ["http://evil.example.com", "http://localhost:1"], "Origin 'http://evil.example.com'"),
    ],
)
async def test_a_refusal_of_a_repeated_header_names_the_value_that_was_judged(
    base_settings: Settings, root: Path, header: str, values: list[str], told: str
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    plain = {**HEADERS_2026, "content-type": "application/json"}
    headers = [(name, value) for name, value in plain.items() if name != header]
    headers += [(header, value) for value in values]
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            refused = await raw.post(url, content=json.dumps(WRITE_2026), headers=headers)
    assert refused.status_code in (400, 403)
    assert told in refused.json()["error"]["message"]
    assert not (root / "w.txt").exists()


async def test_a_loopback_name_in_capitals_in_host_and_origin_is_served_in_both_eras_and_writes(
    base_settings: Settings, root: Path
) -> None:
    # Host names are case-insensitive (RFC 9110 §4.2.3); the SDK's allow-lists compared them exactly.
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    names = {"content-type": "application/json", "host": "LocalHost:8765", "origin": "HTTP://LOCALHOST:3000"}
    legacy = {"accept": "application/json, text/event-stream", **names}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            opened = await raw.post(url, json=INITIALIZE, headers=legacy)
            current = await raw.post(url, json=WRITE_2026, headers={**HEADERS_2026, **names})
            rebound = await raw.post(url, json=WRITE_2026, headers={**HEADERS_2026, **names, "host": "EVIL.example"})
            async with raw.stream("GET", url.removesuffix("/mcp") + "/sse", headers=names) as sse:
                assert sse.status_code == 200
    assert opened.status_code == 200, opened.text
    assert current.status_code == 200, current.text
    assert rebound.status_code == 421
    assert "Host 'EVIL.example' is not" in rebound.json()["error"]["message"]
    assert (root / "w.txt").read_bytes() == b"x"


async def test_a_page_served_from_loopback_over_https_may_call_the_server_and_writes(
    base_settings: Settings, root: Path
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    plain = {**HEADERS_2026, "content-type": "application/json"}
    origins = ["https://localhost:3000", "https://127.0.0.1", "https://[::1]:8443"]
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            served = [await raw.post(url, json=WRITE_2026, headers={**plain, "origin": origin}) for origin in origins]
            foreign = await raw.post(url, json=WRITE_2026, headers={**plain, "origin": "https://evil.example"})
    assert [answer.status_code for answer in served] == [200, 200, 200], served[0].text
    assert foreign.status_code == 403
    assert "served from localhost, 127.0.0.1 or [::1]" in foreign.json()["error"]["message"]
    assert (root / "w.txt").read_bytes() == b"x"


async def test_a_request_refused_for_a_missing_session_or_2026_header_is_told_what_to_send_and_writes_nothing(
    base_settings: Settings, root: Path
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    plain = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    call = {**WRITE_2026, "params": {"name": "write_file", "arguments": {"path": "w.txt", "content": "x"}}}
    current = {**HEADERS_2026, "content-type": "application/json"}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            sessionless = await raw.post(url, json=call, headers=plain)
            ended = await raw.post(url, json=call, headers={**plain, "mcp-session-id": "0" * 32})
            variants = [{k: v for k, v in current.items() if k != header} for header in ("mcp-method", "mcp-name")]
            variants.append({**current, "mcp-method": "tools/list"})
            unnamed = [await raw.post(url, json=WRITE_2026, headers=headers) for headers in variants]
            messages = url.removesuffix("/mcp") + "/messages/"
            stray = [
                await raw.post(messages + query, json=call)
                for query in ("", "?session_id=x", "?session_id=" + "0" * 32)
            ]
    assert sessionless.status_code == 400
    assert "mcp-session-id" not in sessionless.headers  # the refused request's session was never kept
    hint = sessionless.json()["error"]["message"]
    assert "send initialize first, then the Mcp-Session-Id header" in hint
    assert "MCP-Protocol-Version: 2026-07-28 header" in hint
    assert ended.status_code == 404  # what clients act on: they open a new session
    assert "Send initialize without Mcp-Session-Id to open a new session" in ended.json()["error"]["message"]
    assert [(answer.status_code, answer.json()["id"], answer.json()["error"]["code"]) for answer in unnamed] == [
        (400, 1, -32020),
        (400, 1, -32020),
        (400, 1, -32020),
    ]
    told = [answer.json()["error"]["message"] for answer in unnamed]
    assert "Missing Mcp-Method header" in told[0]
    assert "Missing Mcp-Name header" in told[1]
    assert "Mcp-Method 'tools/list' is not the request's method" in told[2]
    assert [answer.status_code for answer in stray] == [400, 400, 404]
    assert all("Open GET /sse" in answer.json()["error"]["message"] for answer in stray)
    assert not (root / "w.txt").exists()


async def test_a_media_type_that_is_not_application_json_is_refused_alike_in_both_eras_and_writes_nothing(
    base_settings: Settings, root: Path
) -> None:
    # The SDK's first check takes any type starting "application/json": the 2026 era served application/jsonx,
    # which the 2025 era refused with 415 and the id of a session it did not keep.
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    jsonx = {"accept": "application/json, text/event-stream", "content-type": "Application/JSONx; charset=utf-8"}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            legacy = await raw.post(url, content=json.dumps(INITIALIZE), headers=jsonx)
            current = await raw.post(url, content=json.dumps(WRITE_2026), headers={**HEADERS_2026, **jsonx})
    for answer in (legacy, current):
        assert answer.status_code == 400
        assert "mcp-session-id" not in answer.headers
        assert "Unsupported Content-Type 'Application/JSONx; charset=utf-8'" in answer.json()["error"]["message"]
    assert not (root / "w.txt").exists()


@pytest.mark.parametrize(("path", "told"), [("/", "Not Found: nothing is served at '/'"), ("/sse", "POST '/sse'")])
async def test_an_sdk_client_given_a_url_that_is_not_the_endpoint_is_told_the_url_to_connect_to(
    base_settings: Settings, root: Path, mode: str, path: str, told: str
) -> None:
    """The server's base URL answered a bare "Not Found", and the /sse URL a bare 405 ("Server returned an error
    response" to an SDK client)."""
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url:
            with pytest.RaisesGroup(MCPError, flatten_subgroups=True) as raised:
                async with Client(url.removesuffix("/mcp") + path, mode=mode):
                    pass
    [error] = _leaves(raised.value)
    assert isinstance(error, MCPError)
    assert told in error.message
    assert "nothing was done" in error.message
    assert "http://127.0.0.1:8765/mcp" in error.message  # the URL the server was configured to serve
    assert list(root.iterdir()) == []


@pytest.mark.parametrize(
    ("method", "headers", "allow", "told"),
    [
        ("GET", {"mcp-protocol-version": "2026-07-28"}, "POST", "one POST answered in full"),
        ("DELETE", {"mcp-protocol-version": "2026-07-28"}, "POST", "one POST answered in full"),
        ("PUT", {}, "GET, POST, DELETE", "Send GET, POST, DELETE."),
    ],
)
async def test_a_method_the_endpoint_does_not_take_gets_a_json_rpc_error_naming_what_it_takes(
    base_settings: Settings, method: str, headers: dict[str, str], allow: str, told: str
) -> None:
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            refused = await raw.request(method, url, headers={"accept": "text/event-stream", **headers})
    assert refused.status_code == 405
    assert refused.headers["allow"] == allow
    error = refused.json()["error"]
    assert error["code"] == INVALID_REQUEST
    assert f"Method Not Allowed: {method} '/mcp' (it takes {allow}); nothing was done." in error["message"]
    assert told in error["message"]


async def test_a_client_refused_a_session_because_too_many_are_open_is_told_how_to_free_one(
    base_settings: Settings, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's cap on 2025-11-25 sessions answered 503 "Too many open sessions", naming no way out."""
    opened = StreamableHTTPSessionManager.__init__

    def one_session(self: StreamableHTTPSessionManager, *args: Any, **kwargs: Any) -> None:
        opened(self, *args, **{**kwargs, "max_sessions": 1})

    monkeypatch.setattr(StreamableHTTPSessionManager, "__init__", one_session)
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient(headers=headers) as raw:
            first = await raw.post(url, json=INITIALIZE)
            refused = await raw.post(url, json=INITIALIZE)
            await raw.delete(url, headers={"mcp-session-id": first.headers["mcp-session-id"]})
            again = await raw.post(url, json=INITIALIZE)
    assert first.status_code == 200
    assert refused.status_code == 503
    message = refused.json()["error"]["message"]
    assert "nothing was done" in message
    assert "DELETE with their Mcp-Session-Id" in message
    assert again.status_code == 200
    assert list(root.iterdir()) == []
