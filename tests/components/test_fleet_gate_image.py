"""The readiness gate's kubectl on every cluster the stack installs Kueue on follows that cluster's minor: a created AKS
cluster's ``kubernetesVersion``, an existing AKS cluster's version as Azure reports it, a kubeconfig cluster's stated
minor, each MultiKueue worker's ACK cluster; and an unchanged stack previews the same Jobs again."""

from __future__ import annotations

from typing import Any

import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.kueue.kubectl_image import kubectl_tag
from components.config.loader import load_stack_config
from components.config.multikueue.workers import worker_plans
from components.fleet import deploy
from tests.support import PROJECT_ROOT
from tests.support import ack as ack_data
from tests.support.config import as_config
from tests.support.multikueue import MIRROR, stack
from tools import e2e, mock_cloud, mock_engine, mock_runtime
from tools.recording import Recording

JOB = "kubernetes:batch/v1:Job"
GATE_JOBS = ("kueue-ready",)
"""The Jobs that run kubectl: the gate alone (the CRD wait is a waiter of the program,
:mod:`components.waiters.crd_wait`)."""
OFFICIAL = ("KubernetesOfficial", "AKSLongTermSupport")
TODAY = {"1.35": OFFICIAL, "1.36": OFFICIAL, "1.37": OFFICIAL}
LATER = {"1.36": OFFICIAL, "1.37": OFFICIAL, "1.38": OFFICIAL}
EXISTING_AKS = {"source": "aks", "resourceGroupName": "rg", "clusterName": "platform"}


def gate_images(recording: Recording) -> dict[str, set[str]]:
    """Each gate Job of the stack's own Kueue: the images of its containers."""
    return {
        name: {c["image"] for c in recording.one(JOB, name).inputs["spec"]["template"]["spec"]["containers"]}
        for name in GATE_JOBS
    }


def preview(sections: dict[str, Any]) -> Recording:
    config = load_stack_config(as_config(sections))
    return mock_runtime.run(lambda: deploy(config), as_config(sections), preview=True)


@pytest.mark.parametrize(("version", "minor"), [("1.35", (1, 35)), ("1.36", (1, 36)), ("1.37", (1, 37))])
def test_a_new_aks_clusters_gate_runs_the_kubectl_of_its_minor(version, minor):
    images = gate_images(preview({"aks": {"preset": "aks-walkthrough", "kubernetesVersion": version}}))
    assert images == {name: {f"registry.k8s.io/kubectl:{kubectl_tag(minor)}"} for name in GATE_JOBS}
    assert kubectl_tag(minor).startswith(f"v{version}.")


def test_an_unchanged_stack_previews_the_same_jobs_whatever_the_catalogue_does_and_an_upgrade_changes_the_image(
    monkeypatch,
):
    """The catalogue moves on between the first two previews; the third asks for the next minor."""
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    runs = []
    for version, catalogue in (("1.35", TODAY), ("1.35", LATER), ("1.36", LATER)):
        monkeypatch.setattr(mock_cloud, "AKS_OFFERED_VERSIONS", catalogue)
        runs.append(preview({"aks": {"preset": "aks-walkthrough", "kubernetesVersion": version}}))
    first, second, upgraded = runs
    for name in GATE_JOBS:
        assert second.one(JOB, name).inputs == first.one(JOB, name).inputs, name
    assert gate_images(upgraded) == {name: {f"registry.k8s.io/kubectl:{kubectl_tag((1, 36))}"} for name in GATE_JOBS}
    assert gate_images(upgraded) != gate_images(first)


def test_an_existing_aks_cluster_gets_the_kubectl_of_the_version_azure_reports(monkeypatch):
    for running, minor in (("1.35.2", (1, 35)), ("1.37.1", (1, 37))):
        monkeypatch.setattr(mock_cloud, "EXISTING_AKS_VERSION", running)
        recording = preview({"existingCluster": EXISTING_AKS})
        assert gate_images(recording) == {name: {f"registry.k8s.io/kubectl:{kubectl_tag(minor)}"} for name in GATE_JOBS}
        reads = [c.args["resourceName"] for c in recording.invokes if c.token.endswith(":getManagedCluster")]
        assert reads == ["platform"], "read once, for both the gate and the ProvisioningRequest check"


def test_an_existing_aks_cluster_refuses_a_probe_image_out_of_its_skew_at_deploy_time(monkeypatch):
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_VERSION", "1.37.1")
    pinned = {"readinessGate": {"probeImage": "registry.k8s.io/kubectl:v1.35.9"}}
    with pytest.raises(ConfigError) as refused:
        preview({"existingCluster": EXISTING_AKS, "kueue": pinned})
    assert refused.value.keys == ["elastic-capacity:kueue.readinessGate.probeImage"]
    assert "rg/platform runs Kubernetes 1.37.1" in str(refused.value) and "1.36, 1.37, 1.38" in str(refused.value)


def test_a_kubeconfig_cluster_gets_the_kubectl_of_its_stated_minor():
    sections = {
        "existingCluster": {"source": "kubeconfig", "kubernetesVersion": "1.36"},
        "kubeconfig": "apiVersion: v1\nkind: Config\n",
    }
    secret = ["elastic-capacity:kubeconfig"]
    config = load_stack_config(as_config(sections), secret)
    recording = mock_runtime.run(lambda: deploy(config), as_config(sections), secret, preview=True)
    assert gate_images(recording) == {name: {f"registry.k8s.io/kubectl:{kubectl_tag((1, 36))}"} for name in GATE_JOBS}


def test_each_worker_gets_the_kubectl_of_its_own_ack_clusters_minor():
    worker = ack_data.cluster("worker", nodePool=ack_data.POOL, kubernetesVersion="1.36")
    config = load_stack_config(as_config(stack(ack={"clusters": [worker]})))
    [plan] = worker_plans(config)
    assert plan.probe_image == f"{MIRROR['probeImage']}:{kubectl_tag((1, 36))}"
    assert config.probe_image == f"registry.k8s.io/kubectl:{kubectl_tag((1, 35))}", "the manager's own AKS minor"
    recording = mock_runtime.run(lambda: deploy(config), as_config(stack(ack={"clusters": [worker]})))
    worker_gate = recording.one(JOB, "ack-worker-multikueue-kueue-ready")
    assert {c["image"] for c in worker_gate.inputs["spec"]["template"]["spec"]["containers"]} == {plan.probe_image}


def test_the_local_stack_states_the_minor_of_the_kind_node_the_e2e_workflow_creates():
    """The e2e workflow deploys stacks/Pulumi.local.yaml to a kind cluster of ``KIND_NODE_IMAGE``: its gate's kubectl
    follows the minor the stack file states, which must be that node's."""
    document = yaml_text.load((PROJECT_ROOT / "stacks/Pulumi.local.yaml").read_text())
    stated = document["config"]["elastic-capacity:existingCluster"]["kubernetesVersion"]
    node_version = e2e.KIND_NODE_IMAGE.split(":v", 1)[1].split("@", 1)[0]
    assert node_version.rsplit(".", 1)[0] == stated
