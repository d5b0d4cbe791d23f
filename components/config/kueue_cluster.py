"""What a Kueue install needs of the Kubernetes version of its cluster: Kueue's minimum, and a readiness gate whose
kubectl is within one minor of it. One rule for every cluster the stack installs Kueue on (the manager's, each
MultiKueue worker's), checked wherever the stack file states the cluster's version."""

from __future__ import annotations

from components.config import kubectl_image
from components.config.base import RuleViolation
from components.config.kueue import KueueConfig
from components.versions import KubernetesVersion

KUEUE_INSTALLATION = "https://kueue.sigs.k8s.io/docs/installation/"
PROBE_IMAGE_KEY = "kueue.readinessGate.probeImage"


def minor_of(version: str) -> tuple[int, int]:
    """``(1, 35)`` of ``1.35``, ``1.35.2`` or ACK's ``1.35.1-aliyun.1``."""
    parsed = KubernetesVersion.parse(version)
    return parsed.major, parsed.minor


def require_fits(kueue: KueueConfig, minor: tuple[int, int], *, version_key: str, version: str, probe_key: str) -> None:
    """Refuse a cluster older than the Kueue minor's ``min_kubernetes`` at ``version_key``, and a probe image whose
    tag is out of kubectl's skew at ``probe_key``."""
    minimum = kueue.profile.min_kubernetes
    if minor < minimum:
        allowed = (
            f"Kueue {kueue.profile.minor} (kueue.chartVersion {kueue.chart_version}) needs Kubernetes "
            f"{kubectl_image.minor_text(minimum)} or later ({KUEUE_INSTALLATION})"
        )
        raise RuleViolation(version_key, version, allowed)
    probe = kueue.readiness_gate.probe_image
    refusal = kubectl_image.skew_refusal(probe, minor)
    if refusal is not None:
        raise RuleViolation(probe_key, probe, refusal)
