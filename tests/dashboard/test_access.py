"""The dashboard's token: where a valid ``?token=`` sends the browser once it has set the cookie."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from fsguard.config import Settings
from fsguard.dashboard.app import build_app, wrap


@pytest.fixture
def guarded(shared: Settings) -> Iterator[TestClient]:
    settings = Settings(**{**shared.__dict__, "host": "0.0.0.0", "auth_token": "s3cret"})
    with TestClient(
        wrap(build_app(settings), settings), base_url="http://192.0.2.1:9100", follow_redirects=False
    ) as client:
        yield client


@pytest.mark.parametrize("path", ["//evil.example/", "///evil.example", "/%2F%2Fevil.example", "//evil.example/x"])
def test_the_token_redirect_stays_on_the_dashboard_whatever_the_path(guarded: TestClient, path: str) -> None:
    answer = guarded.get(f"http://192.0.2.1:9100{path}?token=s3cret")
    assert answer.status_code == 303
    location = answer.headers["location"]
    assert location.startswith("/")
    assert not location.startswith(("//", "/\\"))
    assert location.lstrip("/").startswith("evil.example")  # a page of the dashboard's own (its 404), not the site


@pytest.mark.parametrize("order", [("s3cret", "nope"), ("nope", "s3cret")])
def test_a_request_with_two_authorization_headers_is_refused_whichever_holds_the_token(
    guarded: TestClient, order: tuple[str, str]
) -> None:
    headers = [("Authorization", f"Bearer {value}") for value in order]
    assert guarded.get("/activity", headers=headers).status_code == 401
    assert guarded.get("/activity", headers=headers[:1] if order[0] == "s3cret" else headers[1:]).status_code == 200
