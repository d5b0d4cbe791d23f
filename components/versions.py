"""Version parsing and the compatibility tables from the seed documents.

Kubernetes versions appear as ``1.33``, ``1.33.1`` or ACK's ``1.33.1-aliyun.1``; ACK addon versions as ``v2.15.0``;
ACK kube-scheduler versions as ``v1.31.0-aliyun.6.8.4.8f585f26`` (the seed also writes ``aliyun-6.8.4``). The
scheduler's feature level is the ``6.8.4`` part, so rules compare that part, and the Kubernetes part for the patch.
"""

from __future__ import annotations

import dataclasses
import re

from packaging.version import InvalidVersion, Version

_K8S = re.compile(r"^v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<patch>\d+))?(?:-aliyun\.\d+)?$")
_SCHEDULER = re.compile(r"^v?(?P<k8s>\d+\.\d+\.\d+)-aliyun[.-](?P<ack>\d+\.\d+\.\d+)(?:\.[0-9a-f]+)?$")


@dataclasses.dataclass(frozen=True, order=True)
class KubernetesVersion:
    major: int
    minor: int
    patch: int | None = None

    @classmethod
    def parse(cls, text: str) -> KubernetesVersion:
        match = _K8S.match(text.strip())
        if not match:
            raise ValueError(f"{text!r} is not a Kubernetes version; write it as 1.33, 1.33.1 or 1.33.1-aliyun.1")
        patch = match["patch"]
        return cls(int(match["major"]), int(match["minor"]), int(patch) if patch is not None else None)

    @property
    def minor_version(self) -> str:
        """``"1.31"``: the key of the seed's per-minor tables."""
        return f"{self.major}.{self.minor}"

    def at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)


@dataclasses.dataclass(frozen=True)
class SchedulerVersion:
    """An ACK kube-scheduler version: the Kubernetes version it is built for plus ACK's own feature version."""

    text: str
    kubernetes: Version
    ack: Version

    @classmethod
    def parse(cls, text: str) -> SchedulerVersion:
        match = _SCHEDULER.match(text.strip())
        if not match:
            raise ValueError(
                f"{text!r} is not an ACK kube-scheduler version; write it as v1.31.0-aliyun.6.8.4.8f585f26"
            )
        return cls(text.strip(), Version(match["k8s"]), Version(match["ack"]))

    @property
    def minor_version(self) -> str:
        return f"{self.kubernetes.major}.{self.kubernetes.minor}"

    def satisfies(self, minimum: SchedulerVersion) -> bool:
        return self.kubernetes >= minimum.kubernetes and self.ack >= minimum.ack


def addon_version(text: str) -> Version:
    """Parse an ACK addon version such as ``v2.15.0``."""
    try:
        return Version(text.strip().removeprefix("v"))
    except InvalidVersion as exc:
        raise ValueError(f"{text!r} is not an addon version; write it as v2.15.0") from exc


AKS_MIN_KUBERNETES = (1, 30)
"""ProvisioningRequest support in the cluster autoscaler needs Kubernetes 1.30+ (seed prerequisites, CA >= 1.30.1)."""

ACK_MIN_KUBERNETES = (1, 26)
"""ACS compute in an ACK managed Pro cluster needs Kubernetes 1.26+ (seed 004, prerequisites)."""

VIRTUAL_NODE_MIN = Version("2.13.0")
"""ACK Virtual Node version for ACS on Kubernetes 1.26+ (seed 004)."""

VIRTUAL_NODE_MIN_GPU_HPN = Version("2.15.0")
"""ACK Virtual Node version GPU-HPN needs (seed 004, GPU-HPN section)."""

SCHEDULER_MIN_ACS_UNIT = Version("6.7.1")
"""A ResourcePolicy ``resource: acs`` unit needs kube-scheduler 6.7.1+ (reference ack-acs.md section 3.5)."""

SCHEDULER_MIN_MULTIPLE_ACS_UNITS = Version("6.8.3")
"""Several ``acs`` units in one ResourcePolicy need kube-scheduler 6.8.3+ (reference ack-acs.md section 3.5)."""


def _per_minor(table: dict[str, str]) -> dict[str, SchedulerVersion]:
    return {minor: SchedulerVersion.parse(text) for minor, text in table.items()}


SCHEDULER_MIN_GPU = _per_minor(
    {
        "1.26": "v1.26.3-aliyun-6.8.4.4b180111",
        "1.28": "v1.28.12-aliyun-6.8.4.b27c0009",
        "1.30": "v1.30.3-aliyun.6.8.4.946f90e8",
        "1.31": "v1.31.0-aliyun.6.8.4.8f585f26",
    }
)
"""Minimum kube-scheduler per cluster minor for ACS GPU pods (seed 004, "組件配置")."""

SCHEDULER_MIN_GPU_HPN = _per_minor(
    {
        "1.28": "v1.28.12-aliyun-6.9.3.cd73f3fe",
        "1.30": "v1.30.3-aliyun.6.9.3.ce7e2faf",
        "1.31": "v1.31.0-aliyun.6.9.3.051bb0e8",
        "1.32": "v1.32.0-aliyun.6.9.3.515ac311",
        "1.33": "v1.33.0-aliyun.6.9.4.8b58e6b4",
    }
)
"""Minimum kube-scheduler per cluster minor for ACS GPU-HPN pods (seed 004, GPU-HPN section)."""
