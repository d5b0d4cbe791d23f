"""How the composition root starts Kueue: after the autoscaling pools and the ProvisioningRequest CRD when the queues
use a ProvisioningRequest check, on every kind of cluster, the wait reading it as the stack does."""

from __future__ import annotations

from components.config.loader import load_stack_config
from components.fleet import deploy
from components.waiters.job_wait import AKS_PROVISIONING_REQUESTS, GENERIC_PROVISIONING_REQUESTS
from tests.support import PROJECT_ROOT
from tests.support.config import WALKTHROUGH, as_config
from tests.support.stacks import recorded

CHART = "kubernetes:helm.sh/v4:Chart"
CRD_WAIT = "pulumi-python:dynamic/kueue:CrdEstablished"
AGENT_POOL = "azure-native:containerservice:AgentPool"
KUEUE = "elastic-capacity:kueue:Kueue"
KUBECONFIG_CLUSTER = {
    "existingCluster": {"source": "kubeconfig", "kubernetesVersion": "1.35"},
    "kubeconfig": "apiVersion: v1\nkind: Config\n",
}


def test_kueue_starts_after_the_pools_and_the_crd_they_serve_when_queues_need_provisioning_requests(run_program):
    config = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH}))
    recording = run_program(lambda: deploy(config))
    chart, pool, wait = recording.one(CHART), recording.one(AGENT_POOL), recording.one(CRD_WAIT, "kueue-crd-wait")
    assert recording.depends_on(chart, pool)
    assert wait.urn in chart.dependencies and pool.urn in wait.dependencies
    assert wait.is_secret("kubeconfig")
    assert wait.inputs["hint"] == AKS_PROVISIONING_REQUESTS
    cluster = recording.one("azure-native:containerservice:ManagedCluster")
    assert cluster.urn in wait.property_dependencies["kubeconfig"], "the new cluster's own credentials"


def test_kueue_on_an_existing_cluster_still_waits_for_the_crd_when_queues_need_provisioning_requests(run_program):
    """The CRD may be there already (the wait then ends at once); Kueue must still not start before it."""
    sections = {**KUBECONFIG_CLUSTER, **WALKTHROUGH}
    config = load_stack_config(as_config(sections), secret_keys={"elastic-capacity:kubeconfig"})
    recording = run_program(lambda: deploy(config))
    wait = recording.one(CRD_WAIT, "kueue-crd-wait")
    assert wait.urn in recording.one(CHART).dependencies
    assert wait.inputs["kubeconfig"].strip() == KUBECONFIG_CLUSTER["kubeconfig"].strip() and wait.is_secret(
        "kubeconfig"
    )
    assert wait.inputs["hint"] == GENERIC_PROVISIONING_REQUESTS, "a kubeconfig cluster may be any cluster"


def test_only_the_managers_kueue_waits_for_the_provisioning_request_crd():
    """MultiKueue workers admit burst Jobs without a ProvisioningRequest check: their Kueue starts at once."""
    recording = recorded(PROJECT_ROOT / "stacks/Pulumi.burst.yaml")
    assert {k.name for k in recording.by_type(KUEUE)} > {"kueue"}, "the workers install Kueue too"
    waits = recording.by_type(CRD_WAIT)
    assert [recording.by_urn(wait.parent).name for wait in waits] == ["kueue"]
