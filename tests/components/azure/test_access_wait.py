"""The access waiter: it waits out Azure RBAC propagation (403), and only that."""

from __future__ import annotations

import functools

import pytest

from components.azure import access_wait
from components.azure.access_wait import (
    PROBE_PATH,
    AccessDeniedError,
    ApiServerUnreachableError,
    AuthenticationError,
    ClusterAccessProvider,
    has_access,
    unreachable_hint,
)
from components.azure.aks import AksCluster
from components.config.aks.aks import AksConfig
from components.waiters import kube_wait
from components.waiters.kube_wait import CredentialPluginError
from tests.support.fakes import FakeApiServer, FakeClock, FakeCluster, exec_kubeconfig, failing_plugin, token_plugin
from tools.mock_cloud import FAKE_KUBECONFIG

KEY = "elastic-capacity:aks.apiServerAccess"


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


def test_a_403_means_not_yet():
    assert not has_access(FakeCluster({PROBE_PATH: RefusedError(403)}))


def test_a_401_is_an_authentication_error_not_a_role_on_its_way():
    with pytest.raises(AuthenticationError, match=r"401 Unauthorized.*waiting cannot fix it"):
        has_access(FakeCluster({PROBE_PATH: RefusedError(401)}))


def test_an_answer_means_access():
    assert has_access(FakeCluster({PROBE_PATH: {"metadata": {"name": "kube-system"}}}))


def test_other_errors_are_not_about_access_and_propagate():
    with pytest.raises(RefusedError):
        has_access(FakeCluster({PROBE_PATH: RefusedError(500)}))


PROPS = {
    "roleAssignmentIds": ["/ra/1", "/ra/0"],
    "adminsKey": access_wait.ADMINS_KEY,
    "clusterId": "/mc/1",
    "timeoutSeconds": 0,
    "apiServerAccessKey": KEY,
    "authorizedIpRanges": [],
    "privateCluster": False,
    "kubeconfig": "kc",
}


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The waiter's poll on a fake clock: it sleeps no real time, and ``clock.sleeps`` says how long it waited."""
    fake = FakeClock()
    monkeypatch.setattr(access_wait, "poll", functools.partial(kube_wait.poll, clock=fake, sleep=fake.sleep))
    return fake


def test_create_fails_naming_the_role_assignment_when_access_never_comes(monkeypatch):
    monkeypatch.setattr(access_wait, "RestCluster", lambda kubeconfig: CountingCluster(refusals=1_000))
    with pytest.raises(AccessDeniedError) as raised:
        ClusterAccessProvider().create(dict(PROPS))
    assert "role assignments /ra/1, /ra/0 have not reached the cluster, or that identity is none of " in str(
        raised.value
    )
    assert "elastic-capacity:aks.entraId.clusterAdmins (nor a member of a group there)" in str(raised.value)


def test_create_returns_once_the_cluster_answers_and_keeps_the_kubeconfig_out(monkeypatch):
    monkeypatch.setattr(access_wait, "RestCluster", lambda kubeconfig: CountingCluster(refusals=0))
    result = ClusterAccessProvider().create(dict(PROPS))
    assert result.id == "/ra/0"
    assert "kubeconfig" not in result.outs


def test_only_a_new_role_assignment_reruns_the_wait():
    provider = ClusterAccessProvider()
    assert not provider.diff("id", PROPS, {**PROPS, "kubeconfig": "rotated"}).changes
    assert provider.diff("id", PROPS, {**PROPS, "roleAssignmentIds": ["/ra/2"]}).replaces == ["roleAssignmentIds"]


# --- with the real Kubernetes client, a real credential plugin and an API server on localhost -------------------


def test_a_sign_in_that_fails_stops_the_wait_at_once_with_kubelogins_message(tmp_path, clock):
    """kubelogin failing (here: an expired federated token) is not a role still on its way."""
    plugin = failing_plugin(tmp_path, "AADSTS700024: Client assertion is not within its valid time range.")
    with FakeApiServer(lambda authorization: 200 if authorization else 401) as server:
        props = {**PROPS, "timeoutSeconds": 900, "kubeconfig": exec_kubeconfig(server.url, plugin)}
        with pytest.raises(CredentialPluginError, match="AADSTS700024"):
            ClusterAccessProvider().create(props)
    assert (server.seen, clock.sleeps) == ([], []), "nothing was sent anonymously, and nothing was waited for"


def test_a_credential_the_cluster_rejects_fails_at_once_as_authentication(tmp_path, clock):
    (tmp_path / "token").write_text("token-of-another-tenant")
    with FakeApiServer(lambda authorization: 401) as server:
        kubeconfig = exec_kubeconfig(server.url, token_plugin(tmp_path, tmp_path / "token"))
        with pytest.raises(AuthenticationError):
            ClusterAccessProvider().create({**PROPS, "timeoutSeconds": 900, "kubeconfig": kubeconfig})
    assert server.seen == ["Bearer token-of-another-tenant"] and clock.sleeps == []


def test_every_read_signs_in_again_so_a_credential_renewed_meanwhile_is_used(tmp_path, clock):
    """The identity's first token is refused; once the plugin hands out another one, the next read uses it."""
    token = tmp_path / "token"
    token.write_text("first")

    def answer(authorization: str | None) -> int:
        if authorization == "Bearer first":
            token.write_text("renewed")  # what the plugin hands out from now on
            return 403
        return 200 if authorization == "Bearer renewed" else 401

    with FakeApiServer(answer) as server:
        kubeconfig = exec_kubeconfig(server.url, token_plugin(tmp_path, token))
        result = ClusterAccessProvider().create({**PROPS, "timeoutSeconds": 900, "kubeconfig": kubeconfig})
    assert result.id == "/ra/0"
    assert server.seen == ["Bearer first", "Bearer renewed"] and clock.sleeps == [10]


def test_an_api_server_that_cannot_be_reached_names_the_authorized_ranges_and_their_key(clock):
    kubeconfig = FAKE_KUBECONFIG.replace("mock.invalid:443", "127.0.0.1:1")
    props = {**PROPS, "timeoutSeconds": 900, "authorizedIpRanges": ["20.30.40.0/24"], "kubeconfig": kubeconfig}
    with pytest.raises(ApiServerUnreachableError) as caught:
        ClusterAccessProvider().create(props)
    message = str(caught.value)
    assert message.startswith("cannot reach the API server https://127.0.0.1:1: ")
    assert f"{KEY}.authorizedIpRanges lets only 20.30.40.0/24 reach it" in message
    assert clock.sleeps == []


@pytest.mark.parametrize(
    ("ranges", "needle"),
    [
        (["20.30.40.0/24", "52.1.2.7/32"], f"{KEY}.authorizedIpRanges lets only 20.30.40.0/24, 52.1.2.7/32"),
        ([], f"nothing in {KEY} restricts it"),
    ],
)
def test_the_unreachable_hint_says_what_api_server_access_lets_through(ranges, needle):
    assert needle in unreachable_hint(KEY, ranges)


@pytest.mark.parametrize(
    ("access", "ranges"), [({"authorizedIpRanges": ["20.30.40.0/24"]}, ["20.30.40.0/24"]), ({}, [])]
)
def test_the_aks_clusters_waiter_knows_what_api_server_access_lets_through(run_program, access, ranges):
    """So that an API server it cannot reach is reported with the ranges and their key."""
    config = AksConfig.model_validate({"entraId": {}, "apiServerAccess": access})
    waiter = run_program(lambda: AksCluster("demo", config)).one("pulumi-python:dynamic/azure:ClusterAccess")
    assert waiter.inputs["apiServerAccessKey"] == KEY
    assert waiter.inputs["authorizedIpRanges"] == ranges
