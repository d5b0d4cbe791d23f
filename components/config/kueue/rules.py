"""Queue settings that only work with a Kueue manager setting or feature gate, checked across the two sections.

Kueue accepts each of these queue objects without the manager setting and then silently ignores the field (a
fair-sharing weight, an admission scope) or never schedules by it (a topology), so the mistake would only show as
workloads admitted in the wrong order or place. With ``kueue.install: false`` the manager's settings are not the
stack's to know, and nothing is checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from components.config.base import RuleViolation, key_path
from components.config.kueue import gates as kueue_gates
from components.config.kueue.kueue import KueueConfig
from components.config.queues.multikueue import PATH_PREFIX
from components.config.queues.objects import FairSharing
from components.config.queues.queues import QueuesConfig
from components.config.rules import rule

_KUEUE_CONFIG_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/"
_KUEUE_FEATURES_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/features/kube_features.go"

FAIR_SHARING_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/fair_sharing/"
ADMISSION_FAIR_SHARING_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/admission_fair_sharing/"
TOPOLOGY_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/"
CONCURRENT_ADMISSION_DOCS = "https://kueue.sigs.k8s.io/docs/concepts/concurrent_admission/"
CONCURRENT_ADMISSION = "ConcurrentAdmission"
MULTIKUEUE_DOCS = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/"
QUOTA_AUTOMATION = "MultiKueueManagerQuotaAutomation"
CLUSTER_PROFILE = "MultiKueueClusterProfile"
PATH_VALIDATION = "MultiKueueKubeConfigPathValidation"


@rule("kueue.manager-settings", source=_KUEUE_CONFIG_URL)
def require_manager_settings(kueue: KueueConfig, queues: QueuesConfig) -> None:
    """Queue keys that need a manager setting or gate (fair sharing, admission fair sharing, topology, concurrent
    admission, MultiKueue) come with it, because Kueue ignores them silently otherwise. Raises at the queue key."""
    if not kueue.install:
        return
    weights = list(_fair_sharing_weights(queues))
    if weights and kueue.fair_sharing is None:
        key, value = weights[0]
        raise RuleViolation(
            key, value, f"it needs kueue.fairSharing, which turns fair sharing on ({FAIR_SHARING_DOCS})"
        )
    scopes = list(_admission_fair_sharing_keys(queues))
    if scopes and kueue.admission_fair_sharing is None:
        key, value = scopes[0]
        needs = f"it needs kueue.admissionFairSharing, which turns it on ({ADMISSION_FAIR_SHARING_DOCS})"
        raise RuleViolation(key, value, needs)
    _require_gate(kueue, "AdmissionFairSharing", scopes, ADMISSION_FAIR_SHARING_DOCS)
    _require_gate(kueue, "TopologyAwareScheduling", list(_topology_keys(queues)), TOPOLOGY_DOCS)
    _require_concurrent_admission(kueue, list(_concurrent_admission_keys(queues)))
    _require_multikueue_settings(kueue, queues)


@rule("kueue.multikueue-objects")
def _require_multikueue_settings(kueue: KueueConfig, queues: QueuesConfig) -> None:
    """What MultiKueueConfigs and MultiKueueClusters of ``queues`` need of the manager: the ``MultiKueue`` gate (beta,
    on), 0.18 for ``quotaManagement`` (the 0.17.8 CRD has no such field and the API server would prune it), the alpha
    gates ``MultiKueueManagerQuotaAutomation`` for ``Automated`` and ``MultiKueueClusterProfile`` for
    ``clusterProfileRef`` (off by default: the controllers ignore the setting without them), and with 0.19's
    ``MultiKueueKubeConfigPathValidation`` on, a ``Path`` kubeconfig under /etc/multikueue/kubeconfigs/
    (https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/features/kube_features.go)."""
    on = kueue_gates.effective(kueue.feature_gates, kueue.profile)
    configs, clusters = queues.multi_kueue_configs, queues.multi_kueue_clusters
    objects: list[tuple[str, object]] = [
        *((key_path("queues", "multiKueueConfigs", i, "name"), c.name) for i, c in enumerate(configs)),
        *((key_path("queues", "multiKueueClusters", i, "name"), c.name) for i, c in enumerate(clusters)),
    ]
    _require_gate(kueue, "MultiKueue", objects, MULTIKUEUE_DOCS)
    for i, config in enumerate(queues.multi_kueue_configs):
        key = key_path("queues", "multiKueueConfigs", i, "quotaManagement")
        if config.quota_management is None:
            continue
        if kueue.profile.minor == "0.17":
            version = f"kueue.{kueue.version_key} is {kueue.installed_version}"
            raise RuleViolation(key, config.quota_management, f"it needs Kueue 0.18 or newer ({version})")
        if config.quota_management == "Automated" and not on.get(QUOTA_AUTOMATION):
            allowed = f"it needs kueue.featureGates.{QUOTA_AUTOMATION}: true (alpha, off by default)"
            raise RuleViolation(key, config.quota_management, allowed)
    for i, cluster in enumerate(queues.multi_kueue_clusters):
        key = key_path("queues", "multiKueueClusters", i, "clusterSource")
        source = cluster.cluster_source
        if source.cluster_profile_ref is not None and not on.get(CLUSTER_PROFILE):
            allowed = f"it needs kueue.featureGates.{CLUSTER_PROFILE}: true (alpha, off by default)"
            raise RuleViolation(key_path(key, "clusterProfileRef"), source.cluster_profile_ref.name, allowed)
        kubeconfig = source.kube_config
        if kubeconfig is None or kubeconfig.location_type != "Path" or not on.get(PATH_VALIDATION):
            continue
        if not kubeconfig.location.startswith(PATH_PREFIX):
            allowed = f"with featureGates.{PATH_VALIDATION} the manager reads kubeconfigs under {PATH_PREFIX} only"
            raise RuleViolation(key_path(key, "kubeConfig", "location"), kubeconfig.location, allowed)


@rule("kueue.concurrent-admission")
def _require_concurrent_admission(kueue: KueueConfig, uses: list[tuple[str, object]]) -> None:
    """The ClusterQueue field and its alpha gate ``ConcurrentAdmission`` came with Kueue 0.18
    (https://github.com/kubernetes-sigs/kueue/blob/v0.18.0/pkg/features/kube_features.go; the 0.17.8 CRD has no
    such field, so the API server would prune it). The gate is off by default in 0.18 and 0.19, and with it off the
    scheduler ignores the policy."""
    if not uses:
        return
    key, value = uses[0]
    minor = tuple(int(part) for part in kueue.profile.minor.split("."))
    if minor < (0, 18):
        version = f"kueue.{kueue.version_key} is {kueue.installed_version}"
        raise RuleViolation(key, value, f"it needs Kueue 0.18 or newer ({version}); {CONCURRENT_ADMISSION_DOCS}")
    if kueue.feature_gates.get(CONCURRENT_ADMISSION) is not True:
        allowed = f"it needs kueue.featureGates.{CONCURRENT_ADMISSION}: true (alpha, off by default)"
        raise RuleViolation(key, value, f"{allowed}; {CONCURRENT_ADMISSION_DOCS}")


@rule("kueue.gate", source=_KUEUE_FEATURES_URL)
def _require_gate(kueue: KueueConfig, gate: str, uses: list[tuple[str, object]], docs: str) -> None:
    """Both gates are beta and on by default in Kueue 0.17; only an explicit ``false`` turns them off."""
    if uses and kueue.feature_gates.get(gate) is False:
        key, value = uses[0]
        raise RuleViolation(key, value, f"it needs kueue.featureGates.{gate}, which is set false ({docs})")


def _dump(model: BaseModel) -> object:
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def _fair_sharing_weights(queues: QueuesConfig) -> Iterator[tuple[str, object]]:
    owners: list[tuple[str, int, FairSharing | None]] = [
        *(("cohorts", i, cohort.fair_sharing) for i, cohort in enumerate(queues.cohorts)),
        *(("clusterQueues", i, queue.fair_sharing) for i, queue in enumerate(queues.cluster_queues)),
    ]
    for section, i, fair_sharing in owners:
        if fair_sharing is not None:
            yield key_path("queues", section, i, "fairSharing"), _dump(fair_sharing)


def _admission_fair_sharing_keys(queues: QueuesConfig) -> Iterator[tuple[str, object]]:
    for i, queue in enumerate(queues.cluster_queues):
        scope = queue.admission_scope
        if scope is not None and scope.admission_mode == "UsageBasedAdmissionFairSharing":
            yield key_path("queues", "clusterQueues", i, "admissionScope"), _dump(scope)
    for i, local in enumerate(queues.local_queues):
        if local.fair_sharing is not None:
            yield key_path("queues", "localQueues", i, "fairSharing"), _dump(local.fair_sharing)


def _topology_keys(queues: QueuesConfig) -> Iterator[tuple[str, object]]:
    for i, topology in enumerate(queues.topologies):
        yield key_path("queues", "topologies", i, "name"), topology.name
    for i, flavor in enumerate(queues.resource_flavors):
        if flavor.topology_name is not None:
            yield key_path("queues", "resourceFlavors", i, "topologyName"), flavor.topology_name


def _concurrent_admission_keys(queues: QueuesConfig) -> Iterator[tuple[str, object]]:
    for i, queue in enumerate(queues.cluster_queues):
        if queue.concurrent_admission_policy is not None:
            key = key_path("queues", "clusterQueues", i, "concurrentAdmissionPolicy")
            yield key, _dump(queue.concurrent_admission_policy)
