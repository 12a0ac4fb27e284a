"""Start-up helpers: the token a dashboard or HTTP server is opened with never reaches its log, however spelled."""

from __future__ import annotations

import logging

import pytest

from fsguard.config import url_host
from fsguard.startup import TokenRedaction

TOKEN = 'Tok"en{1}|^'


def logged(*args: object) -> str:
    """The message of an access-log record (uvicorn's format) after the redaction."""
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d', args, None)
    TokenRedaction(TOKEN).filter(record)
    return record.getMessage()


@pytest.mark.parametrize(
    "query",
    [
        "token=Tok%22en{1}|^",  # as a browser sends it: only some characters encoded
        "token=Tok%22%65n%7B1%7D%7C%5E",  # letters encoded too
        "token=Tok%22en%7B1%7D|%5e&tool=x",  # a mix, lower-case hex, another parameter after it
        "tool=x&TOKEN=Tok%22en{1}|^",
    ],
)
def test_a_token_in_a_query_is_never_logged_whatever_its_spelling(query: str) -> None:
    message = logged("127.0.0.1:5000", "GET", f"/activity?{query}", "1.1", 303)
    assert "token=<token>" in message.lower()
    assert "Tok" not in message
    assert "en{1}" not in message
    assert "%7B1" not in message


def test_the_token_is_hidden_as_typed_anywhere_in_a_message_and_other_queries_are_kept() -> None:
    message = logged("127.0.0.1:5000", "GET", f"/files?path=a.txt&q={TOKEN}", "1.1", 200)
    assert message == '127.0.0.1:5000 - "GET /files?path=a.txt&q=<token> HTTP/1.1" 200'


@pytest.mark.parametrize("name", ["tok%65n", "%54OKEN", "t%6Fk%65n"])
def test_a_token_under_a_percent_encoded_name_is_never_logged(name: str) -> None:
    message = logged("127.0.0.1:5000", "GET", f"/?tool=x&{name}=Tok%22%65n%7B1%7D%7C%5E", "1.1", 303)
    assert message == f'127.0.0.1:5000 - "GET /?tool=x&{name}=<token> HTTP/1.1" 303'


def test_an_ipv6_host_is_bracketed_in_urls() -> None:
    assert [url_host(host) for host in ("::1", "127.0.0.1", "localhost")] == ["[::1]", "127.0.0.1", "localhost"]
