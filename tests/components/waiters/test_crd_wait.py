"""The CRD wait before Kueue's chart: what counts as served, what is waited out, what fails at once, and what the
operator reads at the deadline."""

from __future__ import annotations

import time

import pytest

from components.waiters import crd_wait
from components.waiters.crd_wait import (
    CrdEstablishedProvider,
    CrdNotServedError,
    is_established,
    observe,
    timeout_message,
)
from components.waiters.kube_wait import ACCESS_PROPAGATION_SECONDS, PROVISIONING_REQUEST_CRD, AccessRefusedError
from tests.support.fakes import FakeClock, FakeCluster, cond, serve_from

PATH = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{PROVISIONING_REQUEST_CRD}"
ESTABLISHED = {"status": {"conditions": [cond("NamesAccepted"), cond("Established")]}}
NAMES_PENDING = {"status": {"conditions": [cond("Established", "False", "Installing", "the CRD is being installed")]}}
PROPS = {
    "crd": PROVISIONING_REQUEST_CRD,
    "kueueRevision": "kueue-ready-0-19-2-abcdef12",
    "timeoutSeconds": 0,
    "hint": "AKS hint",
    "kubeconfig": "kc",
}


class ForbiddenError(Exception):
    status = 403


def test_only_an_established_crd_counts_as_served():
    assert is_established(observe(FakeCluster({PATH: ESTABLISHED}), PROVISIONING_REQUEST_CRD))
    assert not is_established(observe(FakeCluster({PATH: NAMES_PENDING}), PROVISIONING_REQUEST_CRD))
    assert not is_established(observe(FakeCluster({PATH: {}}), PROVISIONING_REQUEST_CRD))


def test_a_missing_crd_is_waited_for_and_any_other_error_is_raised():
    assert observe(FakeCluster({}), PROVISIONING_REQUEST_CRD) is None
    with pytest.raises(ForbiddenError):
        observe(FakeCluster({PATH: ForbiddenError()}), PROVISIONING_REQUEST_CRD)


def test_the_deadline_message_names_the_key_the_state_the_hint_and_both_ways_on():
    missing = timeout_message(PROVISIONING_REQUEST_CRD, None, waited_seconds=600, hint="AKS hint")
    assert missing.startswith("Waited 600s (kueue.readinessGate.crdTimeoutSeconds): the CRD ")
    assert f"{PROVISIONING_REQUEST_CRD} does not exist, so Kueue is not installed (or upgraded) yet" in missing
    assert "AKS hint. Check: kubectl get crd provisioningrequests.autoscaling.x-k8s.io." in missing
    assert "run pulumi up again" in missing and "queues.waitUntilActive.onInactive: warn" in missing
    pending = timeout_message(PROVISIONING_REQUEST_CRD, NAMES_PENDING, waited_seconds=60, hint="h")
    assert "exists but is not Established (Installing: the CRD is being installed)" in pending


@pytest.fixture
def cluster_with(monkeypatch):
    return serve_from(monkeypatch, crd_wait)


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    """The time module's clock and sleep, as the wait looks them up: no real time passes."""
    fake = FakeClock()
    monkeypatch.setattr(time, "monotonic", fake)
    monkeypatch.setattr(time, "sleep", fake.sleep)
    return fake


def test_create_completes_once_established_and_keeps_no_kubeconfig(cluster_with):
    cluster_with({PATH: ESTABLISHED})
    result = CrdEstablishedProvider().create(PROPS)
    assert result.id == PROPS["kueueRevision"]
    assert result.outs == {key: PROPS[key] for key in crd_wait.WATCHED_INPUTS}


def test_create_fails_at_the_deadline_with_the_message(cluster_with):
    cluster_with({})
    with pytest.raises(CrdNotServedError, match=r"^Waited 0s \(kueue\.readinessGate\.crdTimeoutSeconds\)"):
        CrdEstablishedProvider().create(PROPS)


class BadRequestError(Exception):
    status = 400


def test_create_fails_at_once_on_an_error_that_is_neither_a_missing_crd_nor_worth_a_second_read(cluster_with, clock):
    cluster_with({PATH: BadRequestError()})
    with pytest.raises(BadRequestError):
        CrdEstablishedProvider().create({**PROPS, "timeoutSeconds": 3600})
    assert clock.sleeps == []


def test_a_403_is_waited_out_while_a_grant_may_still_be_on_its_way_then_named_as_a_refusal(cluster_with, clock):
    """The first read can come before the reader's role assignment reaches the API server (Azure's propagation)."""
    cluster_with({PATH: ForbiddenError()})
    with pytest.raises(AccessRefusedError, match=r"still refuses the identity running Pulumi after 600s \(403"):
        CrdEstablishedProvider().create({**PROPS, "timeoutSeconds": 3600})
    assert sum(clock.sleeps) == ACCESS_PROPAGATION_SECONDS


@pytest.mark.parametrize("key", crd_wait.WATCHED_INPUTS)
def test_a_changed_install_deadline_or_crd_waits_again_and_a_rotated_kubeconfig_does_not(key):
    provider = CrdEstablishedProvider()
    assert provider.diff("id", PROPS, {**PROPS, key: "changed"}).replaces == [key]
    assert not provider.diff("id", PROPS, {**PROPS, "kubeconfig": "rotated", "hint": "other"}).changes


def test_the_metrics_add_on_s_wait_fails_at_its_deadline_naming_its_key_the_state_and_what_to_check(cluster_with):
    cluster_with({})
    props = {**PROPS, "crd": crd_wait.AZURE_MONITOR_SERVICE_MONITORS, "hint": "the add-on installs it"}
    with pytest.raises(CrdNotServedError) as raised:
        crd_wait.MetricsAddonCrdProvider().create(props)
    assert str(raised.value) == (
        "Waited 0s (monitoring.azure.crdTimeoutSeconds): the CRD servicemonitors.azmonitoring.coreos.com does not "
        "exist, so Kueue's ServiceMonitor is not created yet. the add-on installs it. Check: kubectl get crd "
        "servicemonitors.azmonitoring.coreos.com. Once the CRD is there, run pulumi up again; it creates the "
        "ServiceMonitor."
    )
