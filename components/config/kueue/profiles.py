"""Kueue's supported minors as data: one :class:`KueueProfile` per minor says what this program must know of it.

Kueue maintains the two minors before the one in development
(https://github.com/kubernetes-sigs/kueue/blob/main/RELEASE.md); 0.17 stays for the AKS walkthrough (Azure's
article pins 0.17.1). Each profile was read from the chart and sources at its newest verified patch:
``charts/kueue/values.yaml``, ``apis/config/v1beta2/configuration_types.go``, ``pkg/features/kube_features.go``,
``pkg/config/validation.go`` and the ``pkg/controller/jobs/*/*_multikueue_adapter.go`` files at https://github.com/kubernetes-sigs/kueue/tree/v0.17.8,
https://github.com/kubernetes-sigs/kueue/tree/v0.18.6 and https://github.com/kubernetes-sigs/kueue/tree/v0.19.2.
Any patch of a profiled minor at or above its ``floor`` is accepted; another minor waits for its own profile.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from components.config.kueue.gate_tables import GATES_0_17, GATES_0_18, GATES_0_19, GateTable
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, WatchedKind

KNOWN_FRAMEWORKS = (
    "batch/job",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/rayservice",
    "ray.io/raycluster",
    "jobset.x-k8s.io/jobset",
    "trainer.kubeflow.org/trainjob",
    "kubeflow.org/paddlejob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "workload.codeflare.dev/appwrapper",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
"""The integrations of 0.17-0.19 (the same set in all three), but ``sparkoperator.k8s.io/sparkapplication``, which needs
the alpha gate ``SparkApplicationIntegration``; in the chart's default order of 0.17."""
_KUBEFLOW_V1 = tuple(f"kubeflow.org/{kind}job" for kind in ("paddle", "pytorch", "tf", "xgboost", "jax"))
_CHART_FRAMEWORKS_0_18 = (
    *KNOWN_FRAMEWORKS[:6],
    *_KUBEFLOW_V1,
    "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob",
    *KNOWN_FRAMEWORKS[13:],
)
"""The chart's default frameworks from 0.18 on: 0.17's, with trainjob moved after appwrapper."""


@dataclasses.dataclass(frozen=True)
class KueueProfile:
    """One Kueue minor as this program installs it."""

    minor: str
    """``0.19``: the profile covers every patch of it from ``floor`` on."""
    floor: str
    """The lowest patch accepted: the oldest one whose chart and sources were read."""
    verified: tuple[str, ...]
    """The patches whose chart, sources and CRDs the tests read; the profile's data is the newest one's."""
    release_notes: str
    """The ``.0`` notes to read before moving to this minor."""
    changes: str
    """What the minor changes for the values and objects this program writes."""
    manager_defaults: Mapping[str, Any]
    """The chart's default manager Configuration (``managerConfig.controllerManagerConfigYaml`` of
    ``charts/kueue/values.yaml``) minus what this program sets from the stack."""
    chart_frameworks: tuple[str, ...]
    """The chart's default ``integrations.frameworks``; this program writes ``kueue.frameworks`` instead."""
    chart_values_added: tuple[str, ...]
    """Value keys the chart gained over the previous profile; this program leaves them at their defaults."""
    wait_for_pods_ready_default: str | None
    """The ``waitForPodsReady.timeout`` the manager defaults to when the Configuration has none; ``None``: off."""
    gates: GateTable
    """The manager's feature gates."""
    min_kubernetes: tuple[int, int]
    """The oldest Kubernetes the installation guide names ("version 1.29 or newer")."""
    custom_labels_max: int | None
    """The most ``metrics.customLabels`` the manager starts with, this program writing none with a ``sourceKind``
    (``validateCustomLabels`` in ``pkg/config/validation.go``); ``None``: the minor sets no limit."""
    known_frameworks: tuple[str, ...] = KNOWN_FRAMEWORKS
    """The integrations the manager knows, which ``kueue.frameworks`` accepts."""
    multikueue_adapters: Mapping[str, WatchedKind] = dataclasses.field(
        default_factory=lambda: MappingProxyType(MULTIKUEUE_ADAPTERS)
    )
    """Integration -> the kind its MultiKueue adapter watches on every worker (the same adapters in 0.17-0.19)."""

    @property
    def latest(self) -> str:
        """The newest verified patch: what a stack moving to this minor should pin."""
        return self.verified[-1]


_MANAGER_DEFAULTS_0_17: Mapping[str, Any] = MappingProxyType(
    {
        "health": {"healthProbeBindAddress": ":8081"},
        "metrics": {"bindAddress": ":8443"},
        "webhook": {"port": 9443},
        "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
        "controller": {
            "groupKindConcurrency": {
                "Job.batch": 5,
                "Pod": 5,
                "Workload.kueue.x-k8s.io": 5,
                "LocalQueue.kueue.x-k8s.io": 1,
                "ClusterQueue.kueue.x-k8s.io": 1,
                "ResourceFlavor.kueue.x-k8s.io": 1,
            }
        },
        "clientConnection": {"qps": 50, "burst": 100},
    }
)
_MANAGER_DEFAULTS_0_19: Mapping[str, Any] = MappingProxyType(
    {
        **_MANAGER_DEFAULTS_0_17,
        "controller": {
            "groupKindConcurrency": {
                "Job.batch": 5,
                "Pod": 5,
                "Workload.kueue.x-k8s.io": 10,
                "LocalQueue.kueue.x-k8s.io": 5,
                "ClusterQueue.kueue.x-k8s.io": 5,
                "ResourceFlavor.kueue.x-k8s.io": 1,
            }
        },
        "clientConnection": {"qps": 300, "burst": 500},
    }
)

PROFILES: dict[str, KueueProfile] = {
    profile.minor: profile
    for profile in (
        KueueProfile(
            minor="0.17",
            floor="0.17.1",
            verified=("0.17.1", "0.17.8"),
            release_notes="https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.0",
            changes="Out of support (0.17.8 is its last patch). 0.17.1 is the version Azure's article installs, kept "
            "to reproduce it; 0.17.8 adds values.yaml enableVisibilityAuthReaderRoleBinding and carries the line's "
            "quota, ProvisioningRequest clean-up (kueue#12654) and security fixes (kueue#10679, #12876, #13052).",
            manager_defaults=_MANAGER_DEFAULTS_0_17,
            chart_frameworks=KNOWN_FRAMEWORKS,
            chart_values_added=("enableVisibilityAuthReaderRoleBinding",),
            wait_for_pods_ready_default=None,
            gates=GATES_0_17,
            min_kubernetes=(1, 29),
            custom_labels_max=None,
        ),
        KueueProfile(
            minor="0.18",
            floor="0.18.6",
            verified=("0.18.6",),
            release_notes="https://github.com/kubernetes-sigs/kueue/releases/tag/v0.18.0",
            changes="Every integration webhook skips kube-system and the release namespace (kueue#11192), and the "
            "chart puts managedJobsNamespaceSelector, which this program always writes, on the trainjob and "
            "sparkapplication webhooks too (they had no selector in 0.17). Gates "
            "DynamicResourceAllocation and DRAExtendedResources are locked off (KueueDRAIntegration replaces them); "
            "the manager Configuration's defaults are 0.17's.",
            manager_defaults=_MANAGER_DEFAULTS_0_17,
            chart_frameworks=_CHART_FRAMEWORKS_0_18,
            chart_values_added=(
                "enableMutatingAdmissionPolicy",
                "controllerManager.strategy",
                "controllerManager.hostNetwork",
                "controllerManager.dnsPolicy",
            ),
            wait_for_pods_ready_default=None,
            gates=GATES_0_18,
            min_kubernetes=(1, 29),
            custom_labels_max=None,
        ),
        KueueProfile(
            minor="0.19",
            floor="0.19.2",
            verified=("0.19.2",),
            release_notes="https://github.com/kubernetes-sigs/kueue/releases/tag/v0.19.0",
            changes="WaitForPodsReady is on by default (timeout 30m, kueue#11855; featureGates.DisableWaitForPodsReady "
            "or kueue.waitForPodsReady opts out of the default). The chart's manager defaults rise (clientConnection "
            "qps/burst 300/500, Workload/LocalQueue/ClusterQueue concurrency 10/5/5) and the Kubeflow v1 jobs leave "
            "its default frameworks. Gates LendingLimit, LocalQueueDefaulting, MultiKueueBatchJobWithManagedBy, "
            "SanitizePodSets, DynamicResourceAllocation and DRAExtendedResources are gone; "
            "ManagedJobsNamespaceSelectorAlwaysRespected is locked on, MultiKueueAllowInsecureKubeconfigs locked off.",
            manager_defaults=_MANAGER_DEFAULTS_0_19,
            chart_frameworks=tuple(f for f in _CHART_FRAMEWORKS_0_18 if f not in _KUBEFLOW_V1),
            chart_values_added=(),
            wait_for_pods_ready_default="30m",
            gates=GATES_0_19,
            min_kubernetes=(1, 29),
            custom_labels_max=6,
        ),
    )
}
"""The supported minors, oldest first."""

LATEST_CHART_VERSION = list(PROFILES.values())[-1].latest

_PATCH = re.compile(r"^(0\.\d+)\.(\d+)$")


class UnsupportedVersion(ValueError):
    """A chart version no profile covers; the message says which are supported and why this one is not."""


def supported_versions() -> str:
    """``0.17.1 or later 0.17, ...`` for messages."""
    return ", ".join(f"{p.floor}+ ({p.minor}.x)" for p in PROFILES.values())


def profile_for(version: str) -> KueueProfile:
    """The profile of ``version`` (``0.19.2``, no ``v``), or :class:`UnsupportedVersion` saying what is supported."""
    latest = f"use {LATEST_CHART_VERSION} ({PROFILES[LATEST_CHART_VERSION.rsplit('.', 1)[0]].release_notes})"
    supported = f"supported chart versions (written without 'v'): {supported_versions()}"
    match = _PATCH.match(version)
    if match is None:
        raise UnsupportedVersion(f"{supported}; a release version such as {LATEST_CHART_VERSION}; {latest}")
    minor, patch = match.group(1), int(match.group(2))
    profile = PROFILES.get(minor)
    if profile is None:
        why = (
            f"Kueue {minor} is not yet verified by this program: its chart values, manager Configuration, feature "
            "gates and CRDs need a profile in components/config/kueue/profiles.py first"
        )
        raise UnsupportedVersion(f"{supported}; {why}; {latest}")
    if patch < int(profile.floor.rsplit(".", 1)[1]):
        why = f"{version} is older than {profile.floor}, the oldest {minor} patch verified"
        raise UnsupportedVersion(f"{supported}; {why}; use {profile.latest}")
    return profile
