"""The waiters' shared parts: the bounded poll and reading a cluster by REST path."""

from __future__ import annotations

import json
import time

import pytest

from components.waiters.kube_wait import (
    ACCESS_PROPAGATION_SECONDS,
    CONNECT_TIMEOUT_SECONDS,
    AccessRefusedError,
    CredentialPluginError,
    RestCluster,
    UnreachableError,
    explained,
    poll,
)
from tests.support.fakes import FakeClock, cond, exec_kubeconfig, failing_plugin, token_plugin
from tools.mock_cloud import FAKE_KUBECONFIG


def test_poll_stops_as_soon_as_it_is_finished():
    clock, seen = FakeClock(), iter([1, 2, 3])
    assert poll(lambda: next(seen), lambda n: n == 2, 60, clock=clock, sleep=clock.sleep, interval_seconds=10) == (
        2,
        True,
    )
    assert clock.sleeps == [10]


def test_poll_observes_once_more_at_the_deadline_and_never_sleeps_past_it():
    clock = FakeClock()
    calls = []
    last, finished = poll(lambda: calls.append(1) or len(calls), lambda n: False, 25, clock=clock, sleep=clock.sleep)
    assert (last, finished) == (4, False)
    assert clock.sleeps == [10, 10, 5]


class Answered(Exception):
    def __init__(self, status: int | None, body: str | None = None) -> None:
        super().__init__(f"({status})")
        self.status, self.body = status, body


def reads(*answers: object):
    """An observe that gives (or raises) each answer in turn."""
    pending = list(answers)

    def observe() -> object:
        answer = pending.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return observe


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
def test_poll_reads_again_after_an_answer_the_server_gives_under_load_or_while_restarting(status):
    clock = FakeClock()
    observe = reads(Answered(status), Answered(status), "done")
    assert poll(observe, lambda seen: seen == "done", 60, clock=clock, sleep=clock.sleep) == ("done", True)
    assert clock.sleeps == [10, 10]


def test_poll_raises_a_transient_error_that_lasts_until_the_deadline():
    clock = FakeClock()
    with pytest.raises(Answered):
        poll(reads(*[Answered(503)] * 4), bool, 25, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == [10, 10, 5]


def test_poll_waits_out_a_403_for_as_long_as_a_grant_may_take_to_arrive():
    clock = FakeClock()
    observe = reads(*[Answered(403)] * 30, "in")
    assert poll(observe, lambda seen: seen == "in", 3600, clock=clock, sleep=clock.sleep) == ("in", True)
    assert sum(clock.sleeps) == 300


def test_poll_names_a_refusal_that_outlasts_the_propagation_window_with_the_api_servers_words():
    clock = FakeClock()
    body = json.dumps({"kind": "Status", "message": 'customresourcedefinitions is forbidden: User "u" cannot get'})
    with pytest.raises(AccessRefusedError) as raised:
        poll(reads(*[Answered(403, body)] * 100), bool, 3600, clock=clock, sleep=clock.sleep)
    assert sum(clock.sleeps) == ACCESS_PROPAGATION_SECONDS
    assert str(raised.value) == (
        "the cluster still refuses the identity running Pulumi after 600s (403 Forbidden: customresourcedefinitions "
        'is forbidden: User "u" cannot get): the role that lets it read there is missing, not late'
    )


@pytest.mark.parametrize("status", [400, 401, 404, 409, 422, None])
def test_poll_raises_any_other_error_at_once(status):
    clock = FakeClock()
    with pytest.raises(Answered):
        poll(reads(Answered(status)), bool, 3600, clock=clock, sleep=clock.sleep)
    assert clock.sleeps == []


def test_poll_reads_the_time_modules_clock_when_it_is_called(monkeypatch):
    """So a simulated world that replaces the clock reaches every wait, the ones shipped by value included."""
    clock = FakeClock()
    monkeypatch.setattr(time, "monotonic", clock)
    monkeypatch.setattr(time, "sleep", clock.sleep)
    assert poll(reads(1, 2), lambda n: n == 2, 60) == (2, True)
    assert clock.sleeps == [10]


def test_explained_gives_reason_and_message_when_present():
    assert explained(cond("Active", "False", "Inactive", "no controller")) == " (Inactive: no controller)"
    assert explained(cond("Active", "False")) == ""
    assert explained(None) == ""


class RecordingApiClient:
    def __init__(self, answer: dict) -> None:
        self.answer, self.calls = answer, []

    def call_api(self, path, method, **kwargs):
        self.calls.append((path, method, kwargs["query_params"], kwargs["_request_timeout"]))
        return self.answer


def test_rest_cluster_reads_the_server_the_kubeconfig_names_and_passes_label_selectors():
    cluster = RestCluster(FAKE_KUBECONFIG)
    assert cluster.api_client.configuration.host == "https://mock.invalid:443"
    cluster.api_client = RecordingApiClient({"items": [{"metadata": {"name": "p"}}]})
    assert cluster.list("/api/v1/namespaces/ns/pods", "app=x") == [{"metadata": {"name": "p"}}]
    [(path, method, query, _)] = cluster.api_client.calls
    assert (path, method, query) == ("/api/v1/namespaces/ns/pods", "GET", [("labelSelector", "app=x")])


def test_every_read_bounds_the_time_to_connect_but_not_the_answer():
    cluster = RestCluster(FAKE_KUBECONFIG)
    cluster.api_client = RecordingApiClient({})
    cluster.get("/api/v1/namespaces/kube-system")
    assert [call[3] for call in cluster.api_client.calls] == [(CONNECT_TIMEOUT_SECONDS, None)]


def test_a_read_without_an_answer_raises_unreachable_naming_the_server():
    cluster = RestCluster(FAKE_KUBECONFIG.replace("mock.invalid:443", "127.0.0.1:1"))
    with pytest.raises(UnreachableError, match=r"cannot reach the API server https://127\.0\.0\.1:1: .*refused"):
        cluster.get("/api/v1/namespaces/kube-system")


def test_a_credential_plugin_that_fails_is_raised_with_its_own_message(tmp_path):
    """The client's loader would only log it and send the requests anonymously."""
    plugin = failing_plugin(tmp_path, "AADSTS700024: Client assertion is not within its valid time range.")
    with pytest.raises(CredentialPluginError, match=r"plugin failed to sign in: .*AADSTS700024: Client assertion"):
        RestCluster(exec_kubeconfig("https://mock.invalid:443", plugin))


def test_a_credential_plugin_that_is_not_installed_says_how_to_install_it(tmp_path):
    hint = "kubelogin is required for Entra ID clusters: https://azure.github.io/kubelogin/install.html"
    kubeconfig = exec_kubeconfig("https://mock.invalid:443", str(tmp_path / "kubelogin"), install_hint=hint)
    with pytest.raises(CredentialPluginError, match="kubelogin: No such file or directory; kubelogin is required"):
        RestCluster(kubeconfig)


def test_a_credential_plugin_that_signs_in_gives_the_client_its_token(tmp_path):
    (tmp_path / "token").write_text("t-1")
    cluster = RestCluster(exec_kubeconfig("https://mock.invalid:443", token_plugin(tmp_path, tmp_path / "token")))
    assert cluster.api_client.configuration.api_key["BearerToken"] == "Bearer t-1"
