"""The manager's worker token: issued through the TokenRequest API, bound to its anchor, renewed before it expires."""

from __future__ import annotations

import datetime
from typing import Any, ClassVar

import pytest

from components.config.deploy.checks import TOKEN_CAPPED_ADVICE
from components.waiters import worker_token
from components.waiters.worker_token import TokenCappedError, WorkerTokenProvider, renewal_due, token_request
from tests.support.fakes import FakeApiServer
from tools.mock_cloud import FAKE_KUBECONFIG

NOW = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.UTC)
DAY = 86_400
PROPS = {
    "namespace": "kueue-system",
    "serviceAccount": "elastic-capacity-multikueue",
    "anchor": {"name": "elastic-capacity-multikueue-anchor-1", "uid": "1b2c"},
    "expirationSeconds": 90 * DAY,
    "cappedAdvice": TOKEN_CAPPED_ADVICE,
    "kubeconfig": "the worker's kubeconfig",
}


class FakeTokenApi:
    """The TokenRequest endpoint: records what was asked, answers with the lifetime the server allows."""

    posts: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, kubeconfig: str, max_seconds: int | None = None) -> None:
        self.kubeconfig = kubeconfig
        self.max_seconds = max_seconds

    def post(self, path: str, body: dict[str, Any]) -> Any:
        FakeTokenApi.posts.append((path, body))
        seconds = body["spec"]["expirationSeconds"]
        if self.max_seconds is not None:
            seconds = min(seconds, self.max_seconds)
        expires = (NOW + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"status": {"token": "eyJ.issued.token", "expirationTimestamp": expires}}


@pytest.fixture
def api(monkeypatch) -> type[FakeTokenApi]:
    FakeTokenApi.posts = []
    monkeypatch.setattr(worker_token, "RestCluster", FakeTokenApi)
    monkeypatch.setattr(worker_token, "now", lambda: NOW)
    return FakeTokenApi


def test_create_asks_for_an_expiring_token_bound_to_the_anchor_and_keeps_the_kubeconfig_out(api):
    result = WorkerTokenProvider().create(dict(PROPS))
    [(path, body)] = api.posts
    assert path == "/api/v1/namespaces/kueue-system/serviceaccounts/elastic-capacity-multikueue/token"
    assert body == token_request(90 * DAY, PROPS["anchor"])
    assert body["spec"]["boundObjectRef"] == {
        "apiVersion": "v1",
        "kind": "Secret",
        "name": "elastic-capacity-multikueue-anchor-1",
        "uid": "1b2c",
    }
    assert result.outs["token"] == "eyJ.issued.token"
    assert result.outs["issuedAt"] == NOW.isoformat()
    assert result.outs["expiresAt"] == (NOW + datetime.timedelta(days=90)).isoformat()
    assert "kubeconfig" not in result.outs


def test_a_server_that_caps_the_lifetime_fails_the_create_naming_the_key(api, monkeypatch):
    monkeypatch.setattr(worker_token, "RestCluster", lambda kubeconfig: FakeTokenApi(kubeconfig, 2 * DAY))
    with pytest.raises(TokenCappedError, match=r"about 2 day\(s\).*set multiKueue\.tokenLifetimeDays to at most 2"):
        WorkerTokenProvider().create(dict(PROPS))


def test_a_cap_below_a_day_says_to_raise_the_api_servers_cap_not_to_ask_for_zero_days(api, monkeypatch):
    monkeypatch.setattr(worker_token, "RestCluster", lambda kubeconfig: FakeTokenApi(kubeconfig, 12 * 3600))
    with pytest.raises(TokenCappedError) as caught:
        WorkerTokenProvider().create(dict(PROPS))
    message = str(caught.value)
    assert "about 12 hour(s)" in message and "--service-account-max-token-expiration to 24h" in message
    assert "multiKueue.tokenLifetimeDays" in message and "at most 0" not in message


def state(issued: datetime.datetime, days: int = 90) -> dict[str, Any]:
    outs = {key: value for key, value in PROPS.items() if key != "kubeconfig"}
    return {**outs, "issuedAt": issued.isoformat(), "expiresAt": (issued + datetime.timedelta(days=days)).isoformat()}


def test_an_unchanged_fresh_token_shows_no_diff(api):
    diff = WorkerTokenProvider().diff("id", state(NOW - datetime.timedelta(days=10)), dict(PROPS))
    assert not diff.changes


def test_a_new_anchor_a_rotation_replaces_the_token_issuing_the_new_one_first(api):
    news = {**PROPS, "anchor": {"name": "elastic-capacity-multikueue-anchor-2", "uid": "9f9f"}}
    diff = WorkerTokenProvider().diff("id", state(NOW), news)
    assert (diff.changes, diff.replaces, diff.delete_before_replace) == (True, ["anchor"], False)


def test_a_token_with_less_than_a_third_of_its_life_left_is_renewed(api):
    diff = WorkerTokenProvider().diff("id", state(NOW - datetime.timedelta(days=61)), dict(PROPS))
    assert (diff.changes, diff.replaces, diff.delete_before_replace) == (True, ["expiresAt"], False)


@pytest.mark.parametrize(("days_ago", "due"), [(0, False), (59, False), (60, True), (89, True), (120, True)])
def test_renewal_is_due_once_two_thirds_of_the_lifetime_passed(days_ago, due):
    issued = NOW - datetime.timedelta(days=days_ago)
    expires = issued + datetime.timedelta(days=90)
    assert renewal_due(issued.isoformat(), expires.isoformat(), NOW) is due


def test_delete_revokes_nothing_itself():
    """The old token lapses, or dies with its anchor, which Pulumi deletes after the manager holds the new one."""
    assert WorkerTokenProvider().delete("id", dict(PROPS)) is None


def test_the_token_request_reaches_a_real_api_server_as_json_and_its_201_answer_is_read(monkeypatch):
    """Through the Kubernetes client the waiters use, against a local HTTP server: the POST, its body, the answer."""
    expires = "2027-03-01T09:00:00Z"

    def issue(path: str, request: Any) -> Any:
        return {**request, "status": {"token": "eyJ.real.token", "expirationTimestamp": expires}}

    monkeypatch.setattr(worker_token, "now", lambda: NOW)
    with FakeApiServer(lambda authorization: 200, created=issue) as server:
        kubeconfig = FAKE_KUBECONFIG.replace("https://mock.invalid:443", server.url)
        result = WorkerTokenProvider().create({**PROPS, "kubeconfig": kubeconfig})
    [(path, body, content_type)] = server.posted
    assert path == "/api/v1/namespaces/kueue-system/serviceaccounts/elastic-capacity-multikueue/token"
    assert body == token_request(90 * DAY, PROPS["anchor"]) and content_type == "application/json"
    assert (result.outs["token"], result.outs["expiresAt"]) == ("eyJ.real.token", "2027-03-01T09:00:00+00:00")
