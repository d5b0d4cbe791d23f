"""What ``environment.kind`` allows of the other sections, and the values it gives them.

:func:`check` holds the rules (a production stack refuses the smoke Job, an ephemeral one refuses anything that
would survive ``pulumi destroy``), each naming the key it is about; :func:`resolve` turns the validated stack into
the one the components build: physical names with ``environment.nameSuffix`` and the environment's defaults for the
keys whose default depends on it (``aks.deleteUnreachable``, ``ack.clusters[].deletionProtection`` and
``credentialMinutes``); ACS workloads on an ``ack.existingClusters`` entry get the suffix on their namespace.
Settings that are not config keys (Pulumi's ``protect``, ACK delete options, ``delete_unreachable`` of the other
Kubernetes providers) follow ``environment`` in the components.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from components.config.base import RuleViolation, key_path
from components.config.environment import EnvironmentConfig, suffixed
from components.config.queues_naming import renamed_namespaces

if TYPE_CHECKING:
    from components.config.ack import AckConfig
    from components.config.acs import AcsWorkloadConfig
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

_T = TypeVar("_T")


def check(config: StackConfig) -> None:
    """Raise :class:`RuleViolation` at the first key the stack's environment kind does not allow."""
    if config.environment.protect:
        _production(config)
    if config.environment.ephemeral:
        _ephemeral(config)


def _production(config: StackConfig) -> None:
    if config.smoke_job.enabled:
        raise RuleViolation(
            "smokeJob.enabled",
            True,
            "environment.kind production refuses the smoke Job: it scales an autoscaling pool up and holds "
            "`pulumi up` on every change; prove admission on a dev or ephemeral stack",
        )
    if config.aks is not None and config.aks.delete_unreachable:
        raise RuleViolation(
            "aks.deleteUnreachable",
            True,
            "environment.kind production keeps Kubernetes objects in its state while their cluster is unreachable: "
            "a network failure during `pulumi refresh` would otherwise make it forget the Kueue install",
        )
    for index, cluster in enumerate(config.ack.clusters if config.ack else []):
        if not cluster.deletion_protection:
            raise RuleViolation(
                key_path("ack.clusters", index, "deletionProtection"),
                False,
                "environment.kind production keeps ACK deletion protection on",
            )


def _ephemeral(config: StackConfig) -> None:
    aks = config.aks
    if aks is not None and "delete_unreachable" in aks.model_fields_set and not aks.delete_unreachable:
        raise RuleViolation(
            "aks.deleteUnreachable",
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
    kueue = config.kueue
    if kueue.install and suffix:  # the stack's own Kueue manages the stack's namespaces under their new names
        selector = renamed_namespaces(kueue.managed_jobs_namespace_selector, config.queues.namespaces, suffix)
        kueue = kueue.model_copy(update={"managed_jobs_namespace_selector": selector})
    return config.model_copy(
        update={
            "aks": aks,
            "kueue": kueue,
            "queues": _within("queues", lambda: config.queues.named_with(suffix)),
            "smoke_job": _within("smokeJob", lambda: config.smoke_job.named_with(suffix)),
            "ack": _ack(config.ack, environment) if config.ack is not None else None,
        }
    )


def _within(section: str, build: Callable[[], _T]) -> _T:
    """``build()``, its :class:`RuleViolation` re-raised at the full key under ``section``."""
    try:
        return build()
    except RuleViolation as violation:
        raise RuleViolation(key_path(section, violation.key), violation.value, violation.allowed) from None


def _ack(ack: AckConfig, environment: EnvironmentConfig) -> AckConfig:
    """ACK names get their suffix in the components (the config ``name`` is also what workloads and outputs use);
    only their room is checked here. An ephemeral cluster defaults to no deletion protection and to
    :data:`EPHEMERAL_CREDENTIAL_MINUTES` (which only a temporary kubeconfig uses)."""
    clusters = []
    for index, cluster in enumerate(ack.clusters):
        key = key_path("ack.clusters", index, "name")
        suffixed(key, cluster.name, environment.name_suffix, ACK_CLUSTER_NAME_MAX)
        if environment.ephemeral:
            defaults = {"deletion_protection": False, "credential_minutes": EPHEMERAL_CREDENTIAL_MINUTES}
            unset = {key: value for key, value in defaults.items() if key not in cluster.model_fields_set}
            cluster = cluster.model_copy(update=unset)
        clusters.append(cluster)
    return ack.model_copy(update={"clusters": clusters, "workloads": _workloads(ack, environment.name_suffix)})


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
