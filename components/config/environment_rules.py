"""What ``environment.kind`` allows of the other sections, and the values it gives them.

:func:`check` holds the rules (a production stack refuses the smoke Job, an ephemeral one refuses anything that
would survive ``pulumi destroy``), each naming the key it is about; :func:`resolve` turns the validated stack into
the one the components build: physical names with ``environment.nameSuffix`` and the environment's defaults for the
keys whose default depends on it (``deleteUnreachable`` of both clouds, ``ack.clusters[].deleteWithCluster`` and
``ack.clusters[].credentialMinutes``; in
production the secure values of :func:`production_aks_defaults` and :func:`production_ack_defaults`, ACK deletion
protection among them, for keys the stack file leaves unset, where writing the key is the opt-out); ACS workloads on
an ``ack.existingClusters`` entry get the suffix on their namespace; a cluster given by kubeconfig gets no default
``kueue.nodeSelector`` (the AKS system pool's is for AKS). :func:`aks_production_warnings` names what a production
stack accepts but should not leave that way. Every physical name (ACK's ``clusterName`` included) and every
per-resource flag is a value of the resolved config: components never read ``environment``, except Pulumi's
``protect`` of the AKS cluster and Kueue, which the fleet hands them as a plain flag; an ACK cluster's ``protect``
follows its ``deletionProtection``, and a shared cluster's provider never gets ``delete_unreachable``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from components.config.ack.logs import AuditLogConfig, ControlPlaneLogsConfig
from components.config.aks.entra_id import EntraIdConfig
from components.config.aks.network import API_SERVER_ACCESS_URL
from components.config.base import RuleViolation, key_path
from components.config.environment import EnvironmentConfig, suffixed
from components.config.kueue.manager import MetricsSettings
from components.config.queues.naming import renamed_namespaces
from components.config.rules import rule

_K8S_PROVIDER_URL = "https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/"
_PROTECT_URL = "https://www.pulumi.com/docs/iac/concepts/options/protect/"

if TYPE_CHECKING:
    from components.config.ack.ack import AckClusterConfig, AckConfig, DeletedWithCluster
    from components.config.ack.acs import AcsWorkloadConfig
    from components.config.aks.aks import AksConfig
    from components.config.stack import StackConfig

EPHEMERAL_CREDENTIAL_MINUTES = 60
"""``credentialMinutes`` of an ephemeral ACK cluster with ``kubeconfigMode: temporary`` unless set: long enough for
one ``up`` after the cluster exists (workloads wait up to their ``readyTimeoutMinutes``), far shorter than a day. A
later ``pulumi destroy --run-program`` fetches a fresh one."""
ACK_CLUSTER_NAME_MAX = 63
"""ACK's limit for a cluster name (``name`` of
https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

NAMESPACE_MAX = 63
"""A namespace name is a DNS label."""

PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS = ("apiserver", "kcm", "scheduler", "ccm")
"""What a production ACK cluster ships to Simple Log Service unless ``controlPlaneLogs`` says otherwise: the
components the provider's own examples log."""

_T = TypeVar("_T")


def check(config: StackConfig) -> None:
    """Raise :class:`RuleViolation` at the first key the stack's environment kind does not allow."""
    if config.environment.protect:
        _production(config)
    if config.environment.ephemeral:
        _ephemeral(config)


@rule("environment.production", source=_PROTECT_URL)
def _production(config: StackConfig) -> None:
    """A production stack without the smoke Job, with ``deleteUnreachable`` off and ACK deletion protection on, because
    it must never lose its state or its clusters by accident."""
    if config.smoke_job.enabled:
        raise RuleViolation(
            "smokeJob.enabled",
            True,
            "environment.kind production refuses the smoke Job: it scales an autoscaling pool up and holds "
            "`pulumi up` on every change; prove admission on a dev or ephemeral stack",
        )
    for key, section in _new_clusters(config):
        if section.delete_unreachable:
            raise RuleViolation(
                key_path(key, "deleteUnreachable"),
                True,
                "environment.kind production keeps Kubernetes objects in its state while their cluster is "
                "unreachable: a network failure during `pulumi refresh` would otherwise make it forget them",
            )
    for index, cluster in enumerate(config.ack.clusters if config.ack else []):
        if "deletion_protection" in cluster.model_fields_set and not cluster.deletion_protection:
            raise RuleViolation(
                key_path("ack.clusters", index, "deletionProtection"),
                False,
                "environment.kind production keeps ACK deletion protection on",
            )


def _new_clusters(config: StackConfig) -> list[tuple[str, AksConfig | AckClusterConfig]]:
    """``(key, section)`` of every cluster the stack creates: the ones whose provider may forget unreachable objects."""
    clusters: list[tuple[str, AksConfig | AckClusterConfig]] = [("aks", config.aks)] if config.aks else []
    return clusters + [
        (key_path("ack.clusters", i), c) for i, c in enumerate(config.ack.clusters if config.ack else [])
    ]


@rule("environment.ephemeral", source=_K8S_PROVIDER_URL)
def _ephemeral(config: StackConfig) -> None:
    """An ephemeral stack that ``pulumi destroy`` can always remove and that shares no default namespace, because
    pull-request stacks come and go beside each other."""
    for key, section in _new_clusters(config):
        if "delete_unreachable" in section.model_fields_set and not section.delete_unreachable:
            raise RuleViolation(
                key_path(key, "deleteUnreachable"),
                False,
                "environment.kind ephemeral must stay destroyable after its cluster is gone: leave it unset (true)",
            )
    for index, cluster in enumerate(config.ack.clusters if config.ack else []):
        key = key_path("ack.clusters", index)
        if "deletion_protection" in cluster.model_fields_set and cluster.deletion_protection:
            raise RuleViolation(
                key_path(key, "deletionProtection"),
                True,
                "environment.kind ephemeral must be deletable by `pulumi destroy`: leave it unset (false)",
            )
    shared = config.ack.existing_cluster_names if config.ack else set()
    for index, workload in enumerate(config.ack.workloads if config.ack else []):
        if workload.cluster in shared and workload.namespace == "default":
            raise RuleViolation(
                key_path("ack.workloads", index, "namespace"),
                "default",
                f"environment.kind ephemeral on existing cluster {workload.cluster} needs a namespace of its own "
                "(it gets the stack's name suffix): two pull-request stacks in default would replace each other's "
                "objects",
            )


def resolve(config: StackConfig) -> StackConfig:
    """``config`` with the physical names and environment defaults the components build from.

    Raises :class:`RuleViolation`, at the full key, for a name that would grow past its limit with the suffix.
    """
    environment = config.environment
    suffix = environment.name_suffix
    aks = None
    if config.aks is not None:
        section = config.aks
        aks = _within("aks", lambda: section.named_with(suffix))
        if environment.ephemeral:
            aks = aks.model_copy(update={"delete_unreachable": True})
        if environment.protect:
            aks = aks.model_copy(update=_unset(aks, production_aks_defaults()))
    kueue = config.kueue
    if kueue.install and _given_by_kubeconfig(config) and "node_selector" not in kueue.model_fields_set:
        kueue = kueue.model_copy(update={"node_selector": {}})
    if kueue.install and suffix:  # the stack's own Kueue manages the stack's namespaces under their new names
        selector = renamed_namespaces(kueue.managed_jobs_namespace_selector, config.queues.namespaces, suffix)
        kueue = kueue.model_copy(update={"managed_jobs_namespace_selector": selector})
    if kueue.install and kueue.extension is None and environment.protect:  # the extension takes no chart settings
        kueue = kueue.model_copy(update=_unset(kueue, PRODUCTION_KUEUE_DEFAULTS))
    if config.monitoring is not None and kueue.install is True:  # the dashboard's quota panels need the gauges
        kueue = kueue.model_copy(update={"metrics": with_cluster_queue_resources(kueue.metrics)})
    if config.multi_kueue is not None:  # the manager's side of the burst set-up
        kueue = kueue.model_copy(update={"multi_kueue": config.multi_kueue.named_with(suffix).manager_settings()})
    update: dict[str, Any] = {
        "aks": aks,
        "ack": _ack(config.ack, environment) if config.ack is not None else None,
        "multi_kueue": config.multi_kueue.named_with(suffix) if config.multi_kueue is not None else None,
        # Keyed by the workers' names, which get the suffix too.
        "multi_kueue_kubeconfigs": {name + suffix: value for name, value in config.multi_kueue_kubeconfigs.items()}
        if config.multi_kueue_kubeconfigs is not None
        else None,
    }
    if config.kueue_target is not None:  # without a cluster for them these sections are not built (nor allowed)
        update["kueue"] = kueue
        update["queues"] = _within("queues", lambda: config.queues.named_with(suffix))
        update["smoke_job"] = _within("smokeJob", lambda: config.smoke_job.named_with(suffix))
    # Only what changed: the resolved tree is validated again, and rules tell a written section from a default.
    return config.model_copy(update={key: value for key, value in update.items() if value != getattr(config, key)})


def with_cluster_queue_resources(metrics: MetricsSettings | None) -> MetricsSettings:
    """The manager's ``metrics`` with the ClusterQueue quota gauges on, unless the stack file wrote the key."""
    metrics = metrics or MetricsSettings()
    if "enable_cluster_queue_resources" in metrics.model_fields_set:
        return metrics
    return metrics.model_copy(update={"enable_cluster_queue_resources": True})


def _given_by_kubeconfig(config: StackConfig) -> bool:
    """Kueue goes onto a cluster given by kubeconfig, which may be any cluster: the AKS system-pool label its default
    node selector asks for may be on no node there, leaving Kueue Pending."""
    return config.existing_cluster is not None and config.existing_cluster.source == "kubeconfig"


PRODUCTION_KUEUE_DEFAULTS: Mapping[str, Any] = {"replicas": 2}
"""A production Kueue runs a second replica (leader election hands over in seconds) and, with it, the chart's
PodDisruptionBudget, so a node drain never stops admission; ``kueue.replicas: 1`` is the opt-out."""


def _within(section: str, build: Callable[[], _T]) -> _T:
    """``build()``, its :class:`RuleViolation` re-raised at the full key under ``section``."""
    try:
        return build()
    except RuleViolation as violation:
        raise RuleViolation(
            key_path(section, violation.key), violation.value, violation.allowed, rule=violation.rule
        ) from None


def _unset(model: BaseModel, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The ``defaults`` for the fields the stack file did not write: a written key, ``null`` included, is kept."""
    return {key: value for key, value in defaults.items() if key not in model.model_fields_set}


def production_aks_defaults() -> dict[str, Any]:
    """``aks`` keys a production stack gets when its file leaves them unset: the tier with the uptime SLA, and Entra ID
    sign-in with Azure RBAC and no local accounts. Writing the key (``skuTier: Free``, ``entraId: null``) opts out.
    Made per call, like :func:`production_ack_defaults`: an instance made at import builds its validator there."""
    return {"sku_tier": "Standard", "entra_id": EntraIdConfig()}


def production_ack_defaults() -> dict[str, Any]:
    """``ack.clusters[]`` keys a production cluster gets when its entry leaves them unset: deletion protection (ACK's
    and Pulumi's ``protect``, which :func:`check` does not let it write off), control-plane logs of
    :data:`PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS` and the API server's audit log, both in Simple Log Service.
    Writing the key (``controlPlaneLogs: null``, ``auditLog: {enabled: false}``) opts out."""
    return {
        "deletion_protection": True,
        "control_plane_logs": ControlPlaneLogsConfig.model_validate(
            {"components": list(PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS)}
        ),
        "audit_log": AuditLogConfig(),
    }


def aks_production_warnings(aks: AksConfig) -> list[tuple[str, str]]:
    """``(key under aks, message)`` for what a production cluster accepts but should not leave that way: an API
    server open to every address. A warning, not a refusal: the ranges to allow are where ``pulumi`` and the team
    run, which no default can know."""
    access = aks.api_server_access
    if access.restricted or access.allow_unrestricted:
        return []
    return [
        (
            "apiServerAccess",
            "the API server of this production cluster accepts connections from any address (Entra ID still "
            "authenticates them): set apiServerAccess.authorizedIpRanges to the egress of whatever runs pulumi "
            "(pulumi config set --path 'aks.apiServerAccess.authorizedIpRanges[0]' <CIDR>), or "
            f"apiServerAccess.allowUnrestricted: true if that is intended ({API_SERVER_ACCESS_URL})",
        )
    ]


def _ack(ack: AckConfig, environment: EnvironmentConfig) -> AckConfig:
    clusters = [resolved_ack_cluster(index, cluster, environment) for index, cluster in enumerate(ack.clusters)]
    return ack.model_copy(update={"clusters": clusters, "workloads": _workloads(ack, environment.name_suffix)})


def resolved_ack_cluster(index: int, cluster: AckClusterConfig, environment: EnvironmentConfig) -> AckClusterConfig:
    """``ack.clusters[index]`` as built: its ACK name with the suffix (its config ``name``, what workloads and outputs
    use, stays); an ephemeral cluster defaults to a provider that forgets a vanished cluster's objects, to deleting
    what ACK created for it (:func:`ephemeral_deletions`) and to :data:`EPHEMERAL_CREDENTIAL_MINUTES` (which only a
    temporary kubeconfig uses); a production one to :func:`production_ack_defaults`."""
    key = key_path("ack.clusters", index, "clusterName" if cluster.cluster_name else "name")
    name = suffixed(key, cluster.cloud_name, environment.name_suffix, ACK_CLUSTER_NAME_MAX)
    deletions = ephemeral_deletions(cluster) if environment.ephemeral else []
    cluster = cluster.model_copy(update={"cluster_name": name, **_unset(cluster, {"delete_with_cluster": deletions})})
    if environment.ephemeral:
        defaults: dict[str, Any] = {"delete_unreachable": True}
        if cluster.kubeconfig_mode == "temporary":  # the only mode that reads it (and the only one allowed to)
            defaults["credential_minutes"] = EPHEMERAL_CREDENTIAL_MINUTES
        cluster = cluster.model_copy(update=_unset(cluster, defaults))
    if environment.protect:
        cluster = cluster.model_copy(update=_unset(cluster, production_ack_defaults()))
    return cluster


def ephemeral_deletions(cluster: AckClusterConfig) -> list[DeletedWithCluster]:
    """What an ephemeral cluster's deletion takes with it: every kind ACK created for it, but no log project the stack
    file names."""
    kinds: list[DeletedWithCluster] = ["SLB", "ALB", "SLS_Data", "SLS_ControlPlane"]
    return [kind for kind in kinds if kind not in cluster.named_log_projects]


def _workloads(ack: AckConfig, suffix: str) -> list[AcsWorkloadConfig]:
    """Workloads on an existing (shared) cluster live in namespaces with the stack's suffix, so stacks sharing the
    cluster never touch each other's objects; a stack's own clusters keep the names the stack file gives."""
    shared = ack.existing_cluster_names
    return [
        workload.model_copy(
            update={
                "namespace": suffixed(
                    key_path("ack.workloads", index, "namespace"), workload.namespace, suffix, NAMESPACE_MAX
                )
            }
        )
        if suffix and workload.cluster in shared
        else workload
        for index, workload in enumerate(ack.workloads)
    ]
