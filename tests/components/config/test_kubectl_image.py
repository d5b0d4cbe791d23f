"""The readiness gate's kubectl: a repository whose tag follows the cluster's minor, and the version rules a Kueue
install is held to on its cluster (Kueue's minimum, kubectl's skew), refused naming the key."""

from __future__ import annotations

import pytest

from components.config import kubectl_image
from components.config.kueue import ReadinessGateConfig
from components.config.stack import load_stack_config
from tests.support.config import as_config, error_keys_on_existing_cluster, load_on_existing_cluster
from tests.support.multikueue import MIRROR

AKS_VERSIONS = [(1, 33), (1, 34), (1, 35), (1, 36), (1, 37)]


@pytest.mark.parametrize("minor", AKS_VERSIONS)
def test_every_minor_a_shipped_stack_may_run_has_a_checked_patch_of_its_own_minor(minor):
    tag = kubectl_image.kubectl_tag(minor)
    assert kubectl_image.tag_minor(tag) == minor
    assert tag == f"v{minor[0]}.{minor[1]}.{kubectl_image.KUBECTL_PATCHES[minor]}"


def test_a_minor_newer_than_the_table_gets_its_dot_zero_which_exists_once_a_cluster_can_run_it():
    newer = (1, max(minor for _, minor in kubectl_image.KUBECTL_PATCHES) + 1)
    assert newer not in kubectl_image.KUBECTL_PATCHES
    assert kubectl_image.kubectl_tag(newer) == f"v1.{newer[1]}.0"


def test_a_repository_gets_the_clusters_tag_and_a_pinned_image_is_kept():
    gate = ReadinessGateConfig()
    assert gate.image_for((1, 36)) == f"registry.k8s.io/kubectl:{kubectl_image.kubectl_tag((1, 36))}"
    assert gate.image_for((1, 35)) != gate.image_for((1, 36)), "a changed minor changes the image"
    mirror = ReadinessGateConfig(probe_image=MIRROR["probeImage"])
    assert mirror.image_for((1, 35)) == f"{MIRROR['probeImage']}:{kubectl_image.kubectl_tag((1, 35))}"
    for pinned in ("myregistry:5000/tools/kubectl:v1.34.1", "registry.k8s.io/kubectl@sha256:" + "0" * 64):
        assert ReadinessGateConfig(probe_image=pinned).image_for((1, 35)) == pinned
    assert (
        ReadinessGateConfig(probe_image="myregistry:5000/tools/kubectl")
        .image_for((1, 35))
        .endswith(f":{kubectl_image.kubectl_tag((1, 35))}")
    )


@pytest.mark.parametrize(("tag", "ok"), [("v1.34.1", True), ("v1.36.4", True), ("v1.33.4", False), ("v1.37.1", False)])
def test_a_tag_must_be_within_one_minor_of_the_cluster(tag, ok):
    refusal = kubectl_image.skew_refusal(f"registry.k8s.io/kubectl:{tag}", (1, 35))
    assert (refusal is None) is ok
    if refusal:
        assert "a tag of 1.34, 1.35, 1.36" in refusal
        assert kubectl_image.KUBECTL_PATCHES_CHECKED in refusal, "the table's date is in the message"


def test_a_cluster_given_by_kubeconfig_states_its_minor_or_the_probe_image_its_tag():
    unstated = {"existingCluster": {"source": "kubeconfig"}}
    assert error_keys_on_existing_cluster(**unstated) == ["elastic-capacity:existingCluster.kubernetesVersion"]
    pinned = load_on_existing_cluster(**unstated, kueue={"readinessGate": {"probeImage": "x.io/kubectl:v1.35.9"}})
    assert pinned.probe_image is None, "no version known: the pinned image is the stack's own choice"
    assert load_on_existing_cluster(kueue={"install": False}, **unstated).probe_image is None, "no gate, no rule"
    stated = load_on_existing_cluster(existingCluster={"source": "kubeconfig", "kubernetesVersion": "1.36"})
    assert stated.probe_image == ReadinessGateConfig().image_for((1, 36))


BY_KUBECONFIG = {"source": "kubeconfig"}
ON_AKS = {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}
VERSION_KEY = "existingCluster.kubernetesVersion"


@pytest.mark.parametrize(
    ("sections", "key"),
    [
        ({"existingCluster": {**BY_KUBECONFIG, "kubernetesVersion": "1.28"}}, VERSION_KEY),
        ({"existingCluster": {**BY_KUBECONFIG, "kubernetesVersion": 1.35}}, VERSION_KEY),
        ({"existingCluster": {**BY_KUBECONFIG, "kubernetesVersion": "1.35.2"}}, VERSION_KEY),
        ({"existingCluster": {**ON_AKS, "kubernetesVersion": "1.35"}}, VERSION_KEY),
        (
            {"kueue": {"readinessGate": {"probeImage": "registry.k8s.io/kubectl:v1.33.4"}}},
            "kueue.readinessGate.probeImage",
        ),
    ],
)
def test_a_version_kueue_or_its_gate_cannot_run_on_is_refused_naming_the_key(sections, key):
    assert error_keys_on_existing_cluster(**sections) == [f"elastic-capacity:{key}"]


def test_a_new_aks_cluster_gets_the_kubectl_of_its_minor():
    for version in ("1.35", "1.36", "1.36.2"):
        config = load_stack_config(as_config({"aks": {"kubernetesVersion": version}}))
        minor = tuple(int(part) for part in version.split(".")[:2])
        assert config.probe_image == f"registry.k8s.io/kubectl:{kubectl_image.kubectl_tag(minor)}"
