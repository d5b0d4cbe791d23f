"""The waiters' shared parts: the bounded poll and reading a cluster by REST path."""

from __future__ import annotations

from components.kube_wait import RestCluster, explained, poll
from tests.support.fakes import FakeClock, cond
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


def test_explained_gives_reason_and_message_when_present():
    assert explained(cond("Active", "False", "Inactive", "no controller")) == " (Inactive: no controller)"
    assert explained(cond("Active", "False")) == ""
    assert explained(None) == ""


class RecordingApiClient:
    def __init__(self, answer: dict) -> None:
        self.answer, self.calls = answer, []

    def call_api(self, path, method, **kwargs):
        self.calls.append((path, method, kwargs["query_params"]))
        return self.answer


def test_rest_cluster_reads_the_server_the_kubeconfig_names_and_passes_label_selectors():
    cluster = RestCluster(FAKE_KUBECONFIG)
    assert cluster.api_client.configuration.host == "https://mock.invalid:443"
    cluster.api_client = RecordingApiClient({"items": [{"metadata": {"name": "p"}}]})
    assert cluster.list("/api/v1/namespaces/ns/pods", "app=x") == [{"metadata": {"name": "p"}}]
    assert cluster.api_client.calls == [("/api/v1/namespaces/ns/pods", "GET", [("labelSelector", "app=x")])]
