"""What the fleet builds, decided from the validated config: plain values :mod:`components.fleet` hands to the
components, so the wiring decides nothing a test of the config cannot see."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from components.config.ack.ack import AckClusterConfig
from components.config.ack.existing import AckExistingClusterConfig
from components.config.base import PROJECT, ConfigError, RuleViolation
from components.config.deploy.checks import EXISTING_CLUSTER_NAME_KEY, AckReport
from components.config.kueue import cluster as kueue_cluster
from components.config.multikueue.workers import (
    dispatching_cluster_queues,
    multikueue_checks,
    with_worker_needs,
    worker_plans,
)
from components.config.versions import ClusterNeeds

if TYPE_CHECKING:
    from components.config.ack.ack import AckConfig
    from components.config.stack import StackConfig


def activation_objects(config: StackConfig) -> list[dict[str, str]]:
    """The AdmissionChecks and ClusterQueues the activation waiter sees Active: all of the ``queues`` section's
    but MultiKueue's checks and the queues that carry them, which are Active only once a worker connects (the burst
    set-up's own proof waits for those, after the workers)."""
    burst = {("AdmissionCheck", name) for name in multikueue_checks(config.queues)}
    if config.multi_kueue is not None:
        burst |= {("ClusterQueue", name) for name in dispatching_cluster_queues(config.multi_kueue, config.queues)}
    objects = [("AdmissionCheck", c.name) for c in config.queues.all_admission_checks]
    objects += [("ClusterQueue", q.name) for q in config.queues.cluster_queues]
    return [{"kind": kind, "name": name} for kind, name in objects if (kind, name) not in burst]


def running_probe_image(config: StackConfig, version: str) -> str:
    """The readiness gate's image on the stack's existing AKS cluster, which Azure reports runs ``version`` (the
    stack file does not state it: ``config.probe_image`` is ``None``). Refuses, as the loader does where it knows the
    version, a Kueue too new for the cluster or a probe image out of kubectl's skew."""
    existing = config.existing_cluster
    assert existing is not None  # only an existing AKS cluster's version is read at deploy time
    minor = kueue_cluster.minor_of(version)
    try:
        kueue_cluster.require_fits(
            config.kueue,
            minor,
            version_key=EXISTING_CLUSTER_NAME_KEY,
            version=version,
            probe_key=kueue_cluster.PROBE_IMAGE_KEY,
        )
    except RuleViolation as violation:
        runs = f"AKS cluster {existing.resource_group_name}/{existing.cluster_name} runs Kubernetes {version}"
        raise ConfigError(
            [(f"{PROJECT}:{violation.key}", f"{runs}: {violation.allowed}")], rule=violation.rule
        ) from None
    return config.kueue.readiness_gate.image_for(minor)


@dataclasses.dataclass(frozen=True)
class AckClusterPlan:
    """One ACK cluster of the stack, new or existing: its entry, what its workloads (and burst pods) need of its
    addons, and how its deploy-time findings are worded."""

    cluster: AckClusterConfig | AckExistingClusterConfig
    needs: ClusterNeeds
    report: AckReport


def ack_cluster_plans(stack: StackConfig) -> list[AckClusterPlan]:
    """Every ACK cluster, the new ones first; an existing cluster a MultiKueue worker is on has its public endpoint
    checked for that worker's manager."""
    ack = stack.ack
    if ack is None:
        return []
    plans = [
        AckClusterPlan(c, with_worker_needs(ack.needs(c), stack, c.name), AckReport(ack.cluster_key(index)))
        for index, c in enumerate(ack.clusters)
    ]
    workers = {plan.worker.cluster: plan.key for plan in worker_plans(stack) if plan.worker.source == "ack"}
    plans += [
        AckClusterPlan(
            c,
            with_worker_needs(ack.needs(c), stack, c.name),
            AckReport(ack.existing_cluster_key(index), reached_by=workers.get(c.name)),
        )
        for index, c in enumerate(ack.existing_clusters)
    ]
    return plans


def acs_namespaces(ack: AckConfig) -> list[tuple[str, str]]:
    """``(cluster, namespace)`` of each namespace the ACS workloads share and the stack creates, once, in the order
    the workloads name them: every one but ``default``, which each cluster has."""
    wanted = [(w.cluster, w.namespace) for w in ack.workloads if w.namespace != "default"]
    return list(dict.fromkeys(wanted))
