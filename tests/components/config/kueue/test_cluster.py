"""What a Kueue install is held to on its cluster's version, wherever the stack file states it: Kueue's minimum
Kubernetes and a readiness gate whose kubectl is within one minor; a kubeconfig cluster must state its minor."""

from __future__ import annotations

import pytest

from components.config.base import RuleViolation
from components.config.kueue import cluster as kueue_cluster
from components.config.kueue.kubectl_image import kubectl_tag
from components.config.kueue.kueue import KueueConfig, ReadinessGateConfig
from components.config.loader import load_stack_config
from tests.support.config import as_config, error_keys_on_existing_cluster, load_on_existing_cluster


def test_minor_of_reads_every_form_a_stack_writes():
    assert [kueue_cluster.minor_of(v) for v in ("1.35", "1.35.2", "1.35.1-aliyun.1")] == [(1, 35)] * 3


def test_require_fits_names_the_version_key_for_kueues_minimum_and_the_probe_key_for_the_skew():
    kueue = KueueConfig()
    with pytest.raises(RuleViolation) as old:
        kueue_cluster.require_fits(kueue, (1, 28), version_key="v", version="1.28", probe_key="p")
    assert (old.value.key, old.value.value) == ("v", "1.28")
    assert f"Kueue {kueue.profile.minor}" in old.value.allowed and "1.29 or later" in old.value.allowed
    pinned = KueueConfig(readiness_gate={"probe_image": "registry.k8s.io/kubectl:v1.33.4"})
    with pytest.raises(RuleViolation) as skew:
        kueue_cluster.require_fits(pinned, (1, 35), version_key="v", version="1.35", probe_key="p")
    assert skew.value.key == "p"
    kueue_cluster.require_fits(kueue, (1, 29), version_key="v", version="1.29", probe_key="p")


@pytest.mark.parametrize(
    ("sections", "named"),
    [
        ({"chartVersion": "0.18.6"}, "kueue.chartVersion 0.18.6"),
        (
            {"install": "aks-extension", "extension": {"version": "0.19.6-aks.0.4.4", "acceptPreview": True}},
            "kueue.extension.version 0.19.6-aks.0.4.4",
        ),
    ],
)
def test_kueues_minimum_names_the_key_and_version_that_install_it(sections, named):
    with pytest.raises(RuleViolation) as old:
        kueue_cluster.require_fits(
            KueueConfig.model_validate(sections), (1, 28), version_key="v", version="1.28", probe_key="p"
        )
    assert named in old.value.allowed


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
        config = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough", "kubernetesVersion": version}}))
        minor = tuple(int(part) for part in version.split(".")[:2])
        assert config.probe_image == f"registry.k8s.io/kubectl:{kubectl_tag(minor)}"
