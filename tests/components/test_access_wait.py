"""The access waiter: it waits out Azure RBAC propagation, and only that."""

from __future__ import annotations

import pytest

from components import access_wait
from components.access_wait import PROBE_PATH, AccessDeniedError, ClusterAccessProvider, has_access
from tests.support.fakes import FakeCluster


class RefusedError(Exception):
    def __init__(self, status: int) -> None:
        self.status = status


class CountingCluster(FakeCluster):
    """Refuses the first ``refusals`` reads with 403, then answers."""

    def __init__(self, refusals: int) -> None:
        super().__init__({PROBE_PATH: {"metadata": {"name": "kube-system"}}})
        self.refusals = refusals

    def get(self, path: str):
        if self.refusals:
            self.refusals -= 1
            raise RefusedError(403)
        return super().get(path)


@pytest.mark.parametrize("status", [401, 403])
def test_refusals_mean_not_yet(status):
    assert not has_access(FakeCluster({PROBE_PATH: RefusedError(status)}))


def test_an_answer_means_access():
    assert has_access(FakeCluster({PROBE_PATH: {"metadata": {"name": "kube-system"}}}))


def test_other_errors_are_not_about_access_and_propagate():
    with pytest.raises(RefusedError):
        has_access(FakeCluster({PROBE_PATH: RefusedError(500)}))


PROPS = {"roleAssignmentId": "/ra/1", "clusterId": "/mc/1", "timeoutSeconds": 0, "kubeconfig": "kc"}


def test_create_fails_naming_the_role_assignment_when_access_never_comes(monkeypatch):
    monkeypatch.setattr(access_wait, "RestCluster", lambda kubeconfig: CountingCluster(refusals=1_000))
    with pytest.raises(AccessDeniedError, match="role assignment /ra/1 has not reached the cluster"):
        ClusterAccessProvider().create(dict(PROPS))


def test_create_returns_once_the_cluster_answers_and_keeps_the_kubeconfig_out(monkeypatch):
    monkeypatch.setattr(access_wait, "RestCluster", lambda kubeconfig: CountingCluster(refusals=0))
    result = ClusterAccessProvider().create(dict(PROPS))
    assert result.id == "/ra/1"
    assert "kubeconfig" not in result.outs


def test_only_a_new_role_assignment_reruns_the_wait():
    provider = ClusterAccessProvider()
    assert not provider.diff("id", PROPS, {**PROPS, "kubeconfig": "rotated"}).changes
    assert provider.diff("id", PROPS, {**PROPS, "roleAssignmentId": "/ra/2"}).replaces == ["roleAssignmentId"]
