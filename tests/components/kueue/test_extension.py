"""``kueue.install: aks-extension`` through the composition root: one pinned ``microsoft.kueue`` extension on the
stack's AKS cluster in place of the chart, behind the same readiness gate, with the queues waiting for it as they
wait for the chart."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.fleet import deploy
from tests.support.config import WALKTHROUGH, as_config
from tools import mock_cloud, mock_engine, mock_runtime
from tools.recording import Recording

EXTENSION = "azure-native:kubernetesconfiguration:Extension"
CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"
NAMESPACE = "kubernetes:core/v1:Namespace"
CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
QUEUES_ACTIVE = "pulumi-python:dynamic/kueue:QueuesActive"
VERSION = "0.19.6-aks.0.4.4"
KUEUE_EXTENSION = {"install": "aks-extension", "extension": {"version": VERSION, "acceptPreview": True}}
NEW_AKS = {"aks": {"preset": "aks-walkthrough", "location": "eastus"}, "kueue": KUEUE_EXTENSION, **WALKTHROUGH}
EXISTING_AKS = {
    "existingCluster": {"source": "aks", "resourceGroupName": "platform", "clusterName": "shared"},
    "kueue": KUEUE_EXTENSION,
    **WALKTHROUGH,
}


def deployed(sections: dict[str, Any], *, preview: bool = False):
    config = load_stack_config(as_config(sections))
    return mock_runtime.run(lambda: deploy(config), {}, preview=preview)


@functools.cache
def new_aks() -> Recording:
    """``deployed(NEW_AKS)``, made once for the tests that only read it: read it, never change it."""
    return deployed(NEW_AKS)


def test_the_extension_is_the_documented_request_pinned_and_no_chart_is_installed():
    recording = new_aks()
    extension = recording.one(EXTENSION, "kueue-extension")
    assert extension.inputs == {
        "resourceGroupName": "kueue-cas-demo",
        "clusterName": recording.one(CLUSTER).inputs["resourceName"],
        "clusterRp": "Microsoft.ContainerService",
        "clusterResourceName": "managedClusters",
        "extensionName": "kueue",
        "extensionType": "microsoft.kueue",
        "autoUpgradeMinorVersion": False,
        "releaseTrain": "Stable",
        "version": VERSION,
        "scope": {"cluster": {"releaseNamespace": "kueue-system"}},
    }
    assert not recording.by_type(CHART)
    assert recording.provider_of(extension) is None, "Azure's default provider, not the cluster's Kubernetes one"


def test_the_chart_install_registers_no_extension():
    recording = deployed({"aks": {"preset": "aks-walkthrough", "location": "eastus"}, **WALKTHROUGH})
    assert recording.one(CHART) and not recording.by_type(EXTENSION)


def test_the_extension_follows_the_namespace_and_the_crd_wait_which_follows_the_pools():
    recording = new_aks()
    extension, wait = recording.one(EXTENSION), recording.one("pulumi-python:dynamic/kueue:CrdEstablished")
    assert recording.one(NAMESPACE, "kueue-namespace").urn in extension.dependencies
    assert wait.urn in extension.dependencies
    assert {pool.urn for pool in recording.by_type(AGENT_POOL)} <= set(wait.dependencies)
    assert recording.one(CLUSTER).urn in extension.property_dependencies["clusterName"]


def test_the_readiness_gate_probes_the_extensions_webhooks_and_the_queues_wait_for_it():
    recording = new_aks()
    extension, gate = recording.one(EXTENSION), recording.one(JOB, "kueue-ready")
    assert extension.urn in gate.dependencies
    for queue in recording.by_type(CLUSTER_QUEUE):
        assert recording.depends_on(queue, gate)
    name = gate.inputs["metadata"]["name"]
    assert name.startswith("kueue-ready-0-19-6-aks-0-4-4-"), name
    assert gate.inputs["metadata"]["labels"]["app.kubernetes.io/version"] == VERSION
    assert recording.one(QUEUES_ACTIVE).inputs["kueueRevision"] == name


def test_a_new_extension_version_runs_the_gate_again():
    other = {**KUEUE_EXTENSION, "extension": {"version": "0.19.6-aks.0.4.5", "acceptPreview": True}}
    names = [
        deployed({**NEW_AKS, "kueue": kueue}).one(JOB, "kueue-ready").inputs["metadata"]["name"]
        for kueue in (KUEUE_EXTENSION, other)
    ]
    assert names[0] != names[1]


@pytest.mark.parametrize("kind", ["dev", "production"])
def test_the_extension_is_protected_in_production_as_the_chart_is(kind):
    sections = {**NEW_AKS, "environment": {"kind": kind}}
    assert deployed(sections).one(EXTENSION).protect is (kind == "production")


def test_an_existing_aks_cluster_gets_the_extension_once_its_region_and_version_are_checked(monkeypatch):
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_LOCATION", "westus2")
    recording = deployed(EXISTING_AKS)
    extension = recording.one(EXTENSION)
    assert (extension.inputs["resourceGroupName"], extension.inputs["clusterName"]) == ("platform", "shared")
    lookups = [i for i in recording.invokes if i.token == "azure-native:containerservice:getManagedCluster"]
    assert {(i.args["resourceGroupName"], i.args["resourceName"]) for i in lookups} == {("platform", "shared")}


@pytest.mark.parametrize(
    ("location", "version", "says"),
    [("eastus2", "1.35.2", "offered only in"), ("eastus", "1.33.9", "needs AKS 1.34 or later")],
)
def test_an_existing_cluster_where_the_extension_is_not_offered_is_refused_naming_it(
    monkeypatch, location, version, says
):
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_LOCATION", location)
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_VERSION", version)
    with pytest.raises(ConfigError) as caught:
        deployed(EXISTING_AKS)
    assert caught.value.keys == ["elastic-capacity:existingCluster.clusterName"]
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_second_preview_of_an_unchanged_stack_registers_the_same_inputs(monkeypatch):
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    first, second = (deployed(NEW_AKS, preview=True) for _ in range(2))
    assert second.one(EXTENSION).inputs == first.one(EXTENSION).inputs
    kinds = {EXTENSION, JOB, NAMESPACE, CLUSTER_QUEUE, CLUSTER, AGENT_POOL}
    assert {r.urn: r.inputs for r in second.registrations if r.type in kinds} == {
        r.urn: r.inputs for r in first.registrations if r.type in kinds
    }


def test_the_extensions_version_is_pinned_under_its_own_key_and_the_extension_waits_for_the_pin():
    recording = new_aks()
    pin = recording.one("pulumi-python:dynamic/kueue:KueueVersion")
    assert (pin.inputs["key"], pin.inputs["requested"]) == ("elastic-capacity:kueue.extension.version", VERSION)
    assert pin.urn in recording.one(EXTENSION).dependencies
