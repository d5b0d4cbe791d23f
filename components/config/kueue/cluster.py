"""What a Kueue install needs of the Kubernetes version of its cluster: Kueue's minimum, and a readiness gate whose
kubectl is within one minor of it. One rule for every cluster the stack installs Kueue on (the manager's, each
MultiKueue worker's), checked wherever the stack file states the cluster's version."""

from __future__ import annotations

from typing import TYPE_CHECKING

from components.config.base import RuleViolation
from components.config.kueue import kubectl_image
from components.config.kueue.kueue import KueueConfig
from components.config.rules import rule
from components.config.versions import KubernetesVersion

if TYPE_CHECKING:
    from components.config.stack import StackConfig

KUEUE_INSTALLATION = "https://kueue.sigs.k8s.io/docs/installation/"
PROBE_IMAGE_KEY = "kueue.readinessGate.probeImage"


def minor_of(version: str) -> tuple[int, int]:
    """``(1, 35)`` of ``1.35``, ``1.35.2`` or ACK's ``1.35.1-aliyun.1``."""
    parsed = KubernetesVersion.parse(version)
    return parsed.major, parsed.minor


@rule("kueue-cluster.fits", source=KUEUE_INSTALLATION)
def require_fits(kueue: KueueConfig, minor: tuple[int, int], *, version_key: str, version: str, probe_key: str) -> None:
    """A cluster no older than the Kueue minor's ``min_kubernetes`` and a probe image within kubectl's skew of it,
    because Kueue documents a minimum Kubernetes per release and kubectl supports one minor either side.

    Raises at ``version_key`` or ``probe_key``."""
    minimum = kueue.profile.min_kubernetes
    if minor < minimum:
        allowed = (
            f"Kueue {kueue.profile.minor} (kueue.{kueue.version_key} {kueue.installed_version}) needs Kubernetes "
            f"{kubectl_image.minor_text(minimum)} or later ({KUEUE_INSTALLATION})"
        )
        raise RuleViolation(version_key, version, allowed)
    probe = kueue.readiness_gate.probe_image
    refusal = kubectl_image.skew_refusal(probe, minor)
    if refusal is not None:
        raise RuleViolation(probe_key, probe, refusal)


def stated_version(config: StackConfig) -> tuple[str, str] | None:
    """``(key, version)`` of the Kubernetes version the stack file states for Kueue's cluster:
    ``aks.kubernetesVersion`` or ``existingCluster.kubernetesVersion``; ``None`` for an existing AKS cluster, whose
    version is read from Azure at deploy time. A created AKS cluster runs the minor of ``aks.kubernetesVersion``: its
    held version (``ClusterVersion``, components/waiters/version_pin.py) changes only when that key does, to a patch of
    its minor."""
    if config.aks is not None:
        return "aks.kubernetesVersion", config.aks.kubernetes_version
    if config.existing_cluster is not None and config.existing_cluster.kubernetes_version is not None:
        return "existingCluster.kubernetesVersion", config.existing_cluster.kubernetes_version
    return None


def manager_probe_image(config: StackConfig) -> str | None:
    """The readiness gate's image on the stack's Kueue cluster, where the stack file states its version."""
    stated = stated_version(config)
    return config.kueue.readiness_gate.image_for(minor_of(stated[1])) if stated else None


@rule("kueue-cluster.own-install", source=KUEUE_INSTALLATION)
def check(config: StackConfig) -> None:
    """The stack's own Kueue install keeps :func:`require_fits` against the Kubernetes version the stack file states,
    which a cluster given by kubeconfig must state (or its probe image tag), because nothing reads it before the
    deploy."""
    if config.kueue_target is None or not config.kueue.install:
        return
    stated = stated_version(config)
    if stated is not None:
        key, version = stated
        require_fits(config.kueue, minor_of(version), version_key=key, version=version, probe_key=PROBE_IMAGE_KEY)
        return
    given = config.existing_cluster is not None and config.existing_cluster.source == "kubeconfig"
    if given and not kubectl_image.is_pinned(config.kueue.readiness_gate.probe_image):
        allowed = (
            "nothing reads a kubeconfig cluster's version before the deployment: write its Kubernetes minor, such as "
            f'"1.35", which the readiness gate\'s kubectl follows, or give {PROBE_IMAGE_KEY} a tag'
        )
        raise RuleViolation("existingCluster.kubernetesVersion", None, allowed)
