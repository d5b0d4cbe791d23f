"""Version parsing, the documented minimum-version tables, and the pure rules that compare against them.

Kubernetes versions appear as ``1.35``, ``1.35.1`` or ACK's ``1.35.1-aliyun.1``; ACK addon versions as ``v2.15.0``;
ACK kube-scheduler versions as ``v1.31.0-aliyun.6.8.4.8f585f26`` (older builds write ``aliyun-6.8.4``, builds since
1.33 ``apsara.6.11.4``, https://www.alibabacloud.com/help/en/ack/product-overview/kube-scheduler). The scheduler's
feature level is the ``6.8.4`` part, so rules compare that part, and the Kubernetes part for the patch.

The minimum tables come from ACK's "Use ACS computing power in ACK Pro clusters"
(https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster). They are
minimums ("1.26 and above"): a cluster minor newer than a table's newest row needs that row's feature level, a minor
older than its oldest row is not supported.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from packaging.version import InvalidVersion, Version

_K8S = re.compile(r"^v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<patch>\d+))?(?:-aliyun\.(?P<build>\d+))?$")
_ACK_EXACT = re.compile(r"^\d+\.\d+\.\d+-aliyun\.\d+$")
_SCHEDULER = re.compile(r"^v?(?P<k8s>\d+\.\d+\.\d+)-(?:aliyun|apsara)[.-](?P<ack>\d+\.\d+\.\d+)(?:\.[0-9a-f]+)?$")


@dataclasses.dataclass(frozen=True, order=True)
class KubernetesVersion:
    major: int
    minor: int
    patch: int | None = None
    build: int | None = None
    """ACK's own patch number, the ``n`` of ``-aliyun.n``."""

    @classmethod
    def parse(cls, text: str) -> KubernetesVersion:
        match = _K8S.match(text.strip())
        if not match:
            raise ValueError(f"{text!r} is not a Kubernetes version; write it as 1.35, 1.35.1 or 1.35.1-aliyun.1")
        patch, build = match["patch"], match["build"]
        return cls(
            int(match["major"]),
            int(match["minor"]),
            int(patch) if patch is not None else None,
            int(build) if build is not None else None,
        )

    @property
    def minor_version(self) -> str:
        """``"1.31"``: the key of the per-minor tables."""
        return f"{self.major}.{self.minor}"

    @property
    def is_minor_only(self) -> bool:
        return self.patch is None

    def at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)


def resolve_ack_version(requested: str, offered: Iterable[str]) -> str:
    """The ACK version to create or keep: the newest offered patch of a minor, or an exact pin if ACK offers it.

    ``offered`` is what ``cs.get_kubernetes_version`` lists for the region. Raises ``ValueError`` saying what is
    offered when nothing matches, so a stack never asks ACK for a version it stopped offering.
    """
    wanted = KubernetesVersion.parse(requested)
    parsed = {text: KubernetesVersion.parse(text) for text in offered if _ACK_EXACT.match(text)}
    if not wanted.is_minor_only:
        if requested in parsed:
            return requested
        same_minor = sorted((v for v in parsed.values() if v.minor_version == wanted.minor_version), reverse=True)
        offers = [_ack_text(v) for v in same_minor] or sorted({v.minor_version for v in parsed.values()})
        raise ValueError(f"ACK does not offer {requested} in this region; it offers {offers}")
    candidates = [v for v in parsed.values() if v.minor_version == wanted.minor_version]
    if not candidates:
        minors = sorted({v.minor_version for v in parsed.values()}, key=lambda m: tuple(map(int, m.split("."))))
        raise ValueError(f"ACK offers no {requested}.x patch in this region any more; it offers minors {minors}")
    return _ack_text(max(candidates))


def _ack_text(version: KubernetesVersion) -> str:
    return f"{version.major}.{version.minor}.{version.patch}-aliyun.{version.build}"


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
                f"{text!r} is not an ACK kube-scheduler version; write it as v1.35.0-apsara.6.11.4.77470105"
            )
        return cls(text.strip(), Version(match["k8s"]), Version(match["ack"]))

    @property
    def minor_version(self) -> str:
        return f"{self.kubernetes.major}.{self.kubernetes.minor}"

    def sort_key(self) -> tuple[Version, Version]:
        return (self.kubernetes, self.ack)


def addon_version(text: str) -> Version:
    """Parse an ACK addon version such as ``v2.15.0``."""
    try:
        return Version(text.strip().removeprefix("v"))
    except InvalidVersion as exc:
        raise ValueError(f"{text!r} is not an addon version; write it as v2.15.0") from exc


ACK_MIN_KUBERNETES = (1, 26)
"""ACS compute in an ACK managed Pro cluster needs Kubernetes 1.26 or later."""

VIRTUAL_NODE_MIN = Version("2.13.0")
"""ack-virtual-node version ACS needs on Kubernetes 1.26 and later."""

VIRTUAL_NODE_MIN_GPU_HPN = Version("2.15.0")
"""ack-virtual-node version GPU-HPN pods need."""

SCHEDULER_MIN_ACS = Version("6.7.0")
"""kube-scheduler feature level for ACS pods through the virtual node (``1.26.3-aliyun-6.7.0``), per
https://www.alibabacloud.com/help/en/cs/user-guide/ack-cluster-supports-mixed-scheduling-of-ecs-and-acs-computing."""

SCHEDULER_MIN_ACS_UNIT = Version("6.7.1")
"""A ResourcePolicy ``resource: acs`` unit needs kube-scheduler 6.7.1+, per
https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-priority-based-resource-scheduling."""

SCHEDULER_MIN_MULTIPLE_ACS_UNITS = Version("6.8.3")
"""Several ``acs`` units in one ResourcePolicy need kube-scheduler 6.8.3+ (same page)."""


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
"""Minimum kube-scheduler per cluster minor for ACS GPU pods."""

SCHEDULER_MIN_GPU_HPN = _per_minor(
    {
        "1.28": "v1.28.12-aliyun-6.9.3.cd73f3fe",
        "1.30": "v1.30.3-aliyun.6.9.3.ce7e2faf",
        "1.31": "v1.31.0-aliyun.6.9.3.051bb0e8",
        "1.32": "v1.32.0-aliyun.6.9.3.515ac311",
        "1.33": "v1.33.0-aliyun.6.9.4.8b58e6b4",
    }
)
"""Minimum kube-scheduler per cluster minor for ACS GPU-HPN pods."""


def table_minimum(table: dict[str, SchedulerVersion], minor: str) -> SchedulerVersion | None:
    """The row that applies to a cluster minor: its own, else the newest older one; ``None`` below the table."""
    wanted = Version(minor)
    rows = [row for key, row in table.items() if Version(key) <= wanted]
    return max(rows, key=SchedulerVersion.sort_key) if rows else None


@dataclasses.dataclass(frozen=True)
class SchedulerNeed:
    """The lowest kube-scheduler one workload needs, and which workload that is."""

    reason: str
    feature_level: Version
    """The ``x.y.z`` after ``-aliyun``/``-apsara``."""
    build: SchedulerVersion | None = None
    """A per-minor build from a GPU table; the installed scheduler must be built for at least its Kubernetes."""

    @property
    def text(self) -> str:
        return self.build.text if self.build is not None else f"feature level {self.feature_level}"

    def met_by(self, installed: SchedulerVersion) -> bool:
        built_for = self.build.kubernetes if self.build is not None else Version("0")
        return installed.ack >= self.feature_level and installed.kubernetes >= built_for


@dataclasses.dataclass(frozen=True)
class VirtualNodeNeed:
    """The lowest ack-virtual-node a cluster's workloads need, and why."""

    minimum: Version
    reason: str

    def met_by(self, installed: str) -> bool:
        return addon_version(installed) >= self.minimum


@dataclasses.dataclass(frozen=True)
class ClusterNeeds:
    """Everything one cluster's workloads need of its addons."""

    scheduler: tuple[SchedulerNeed, ...]
    virtual_node: VirtualNodeNeed
