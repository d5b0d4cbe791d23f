"""Rules across sections that decide whether a stack can work at all: Kueue runs where it is pinned, it manages what
the stack submits, and the smoke Job fits its queue, its pool's nodes and its pool's size.

What the stack itself decides (quota, taints, frameworks) is an error. So is a smoke Job that the documented sizes of
:data:`VM_SIZES` prove can never run: its pods ask more than a node has even before AKS's reservation for memory,
or more pods than ``maxCount`` such nodes hold; the Job is this program's own, and ``pulumi up`` would wait for it
until its timeout. What only likely fails (what AKS reserves of a node's memory depends on its pods) is a warning
naming the key: the fleet logs it and goes on, as is a VM size not in the table, which is not judged.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from components.config.aks.pools import POOL_LABEL, UserPoolConfig
from components.config.aks.vm_sizes import VM_SIZES, VmSize
from components.config.base import RuleViolation, key_path
from components.config.kube import quantity_value
from components.config.pool_flavors import parse_taint, pool_resources, tolerates
from components.config.rules import rule

_CLUSTER_QUEUE_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/cluster_queue.md"
)
_RESERVATIONS_URL = "https://learn.microsoft.com/azure/aks/node-resource-reservations#cpu-reservations"
_RUN_JOBS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/run/jobs.md"
_TAINTS_URL = "https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/"

if TYPE_CHECKING:
    from components.config.stack import StackConfig

GIB = Decimal(2**30)

CPU_RESERVED_MILLICORES = {1: 60, 2: 100, 4: 140, 8: 180, 16: 260, 32: 420, 64: 740}
"""What AKS reserves for the kubelet per node, by vCPU count
(https://learn.microsoft.com/azure/aks/node-resource-reservations#cpu-reservations)."""
MEMORY_RESERVED_SHARE = Decimal("0.25")
"""The most AKS reserves of a node's memory for the kubelet and eviction (the same page: at most 25 %)."""


class Room(NamedTuple):
    """What one node of a size leaves its pods: cores and bytes."""

    cores: Decimal
    memory: Decimal


def allocatable(size: VmSize) -> Room:
    """A lower bound of a node's allocatable: the largest CPU reservation that can apply and AKS's memory cap taken
    off. A pod above it likely fits no node."""
    reserved = CPU_RESERVED_MILLICORES.get(size.vcpus, max(CPU_RESERVED_MILLICORES.values()))
    cores = Decimal(size.vcpus) - Decimal(reserved) / 1000
    return Room(cores, Decimal(size.memory_gib) * GIB * (1 - MEMORY_RESERVED_SHARE))


def most_allocatable(size: VmSize) -> Room:
    """An upper bound of a node's allocatable: the smallest CPU reservation that can apply (the table's own value for
    a listed vCPU count) and the VM's whole memory taken off. A pod above it fits no node, whatever AKS reserves."""
    reserved = max(m for vcpus, m in CPU_RESERVED_MILLICORES.items() if vcpus <= size.vcpus)
    return Room(Decimal(size.vcpus) - Decimal(reserved) / 1000, Decimal(size.memory_gib) * GIB)


@rule("feasibility.can-work", source=_RESERVATIONS_URL)
def check(config: StackConfig) -> None:
    """What cannot work whatever the cloud says (Kueue on a pool it does not tolerate, a smoke Job Kueue never
    queues or that fits no queue or node), because ``up`` would wait on it until it times out."""
    _kueue_tolerates_its_pool(config)
    _smoke_job_is_a_framework(config)
    _smoke_job_fits_its_queue(config)
    misfits = _smoke_job_misfits(config, certain=True)
    if misfits:
        key, value, message = misfits[0]
        raise RuleViolation(key, value, message)


def warnings(config: StackConfig) -> list[tuple[str, str]]:
    """``(key, message)`` for what will likely not work, judged from :data:`VM_SIZES`."""
    return [(key, message) for key, _, message in _smoke_job_misfits(config, certain=False)]


def _smoke_job_misfits(config: StackConfig, *, certain: bool) -> list[tuple[str, object, str]]:
    """``(key, value, message)`` for a smoke Job whose pods fit no node of its pool, or need more nodes than the
    pool's ``maxCount``: judged against :func:`most_allocatable` when ``certain``, else against :func:`allocatable`."""
    job, pool = config.smoke_job, _smoke_pool(config)
    if not job.enabled or pool is None or config.aks is None:
        return []
    extended = _extended_misfits(config, pool, certain=certain)
    if pool.vm_size not in VM_SIZES or extended:
        unknown = f"vmSize {pool.vm_size} of pool {pool.name} is not in the size table: its fit is not checked"
        return extended or ([] if certain else [("smokeJob.pool", pool.name, unknown)])
    size = VM_SIZES[pool.vm_size]
    room, bound = (most_allocatable(size), "at most") if certain else (allocatable(size), "about")
    requests = Room(quantity_value(job.cpu), quantity_value(job.memory))
    misfits: list[tuple[str, object, str]] = []
    for key, value, request, space, shown in (
        ("smokeJob.cpu", job.cpu, requests.cores, room.cores, f"{room.cores.normalize()} cores"),
        ("smokeJob.memory", job.memory, requests.memory, room.memory, f"{room.memory / GIB:.1f}Gi"),
    ):
        if request > space:
            message = f"{value} per pod fits no {pool.vm_size} node of pool {pool.name} ({bound} {shown} allocatable)"
            misfits.append((key, value, f"{message}: request less or give the pool a larger vmSize"))
    per_node = [int(space / request) for request, space in zip(requests, room, strict=True) if request]
    advertised = pool_resources(config.aks, pool)
    per_node += [
        int(Decimal(advertised[name] or 0) / quantity_value(count))
        for name, count in job.extended_resources.items()
        if quantity_value(count)
    ]
    if misfits or not per_node or min(per_node) * pool.max_count >= job.parallelism:
        return misfits
    nodes = -(-job.parallelism // min(per_node))
    message = (
        f"{job.parallelism} pods need {nodes} {pool.vm_size} nodes, more than pool {pool.name}'s maxCount "
        f"{pool.max_count}: lower parallelism or raise maxCount"
    )
    return [("smokeJob.parallelism", job.parallelism, message)]


def _extended_misfits(config: StackConfig, pool: UserPoolConfig, *, certain: bool) -> list[tuple[str, object, str]]:
    """A GPU (or MIG instance) request the pool's nodes never advertise, or more of it than one node has: certain for
    a size in the table, a warning for one whose GPU count is unknown."""
    assert config.aks is not None
    advertised = pool_resources(config.aks, pool)
    misfits: list[tuple[str, object, str]] = []
    for name, count in config.smoke_job.extended_resources.items():
        key, per_node = key_path("smokeJob", "extendedResources", name), advertised.get(name)
        if name not in advertised:
            if certain:
                misfits.append((key, count, f"pool {pool.name}'s nodes advertise no {name}: {sorted(advertised)}"))
        elif per_node is None:
            if not certain:
                misfits.append((key, count, f"{pool.vm_size} is not in the size table: its {name} count is unknown"))
        elif certain and quantity_value(count) > per_node:
            message = f"{count} per pod fits no {pool.vm_size} node of pool {pool.name} ({per_node} {name})"
            misfits.append((key, count, message))
    return misfits


def _smoke_pool(config: StackConfig) -> UserPoolConfig | None:
    pools = config.aks.user_pools if config.aks is not None else []
    return next((pool for pool in pools if pool.name == config.smoke_job.pool), None)


@rule("feasibility.kueue-tolerates-its-pool", source=_TAINTS_URL)
def _kueue_tolerates_its_pool(config: StackConfig) -> None:
    """Kueue pinned to the system pool must tolerate its taints, or it stays Pending and the gate times out."""
    if config.aks is None or not config.kueue.install:
        return
    system = config.aks.system_pool
    node_labels = {**system.labels, POOL_LABEL: system.name, "kubernetes.azure.com/mode": "system"}
    if any(node_labels.get(key) != value for key, value in config.kueue.node_selector.items()):
        return
    for taint in system.node_taints:
        key, value, effect = parse_taint(taint)
        if not any(tolerates(t, key, value, effect) for t in config.kueue.tolerations):
            allowed = f"kueue.nodeSelector pins Kueue to the system pool, tainted {taint}: tolerate it"
            raise RuleViolation("kueue.tolerations", [t.key for t in config.kueue.tolerations], allowed)


@rule("feasibility.smoke-job-is-a-framework", source=_RUN_JOBS_URL)
def _smoke_job_is_a_framework(config: StackConfig) -> None:
    """The smoke Job is a ``batch/v1`` Job: without the integration Kueue never suspends it, and it runs unqueued."""
    if config.smoke_job.enabled and config.kueue.install and "batch/job" not in config.kueue.frameworks:
        raise RuleViolation("kueue.frameworks", config.kueue.frameworks, "smokeJob submits a Job: include batch/job")


@rule("feasibility.smoke-job-fits-its-queue", source=_CLUSTER_QUEUE_URL)
def _smoke_job_fits_its_queue(config: StackConfig) -> None:
    """A Job asking more than its ClusterQueue can ever lend it waits forever: checked for a queue in no cohort."""
    job = config.smoke_job
    if not job.enabled:
        return
    local = next(
        (q for q in config.queues.local_queues if (q.namespace, q.name) == (job.namespace, job.local_queue)), None
    )
    queue = next((q for q in config.queues.cluster_queues if local and q.name == local.cluster_queue), None)
    if queue is None or queue.cohort_name is not None:
        return
    flavors = {f.name for f in config.queues.resource_flavors if f.node_labels.get(POOL_LABEL) == job.pool}
    for resource, request in (("cpu", job.cpu), ("memory", job.memory)):
        quota = sum(
            (
                quantity_value(q.nominal_quota)
                for group in queue.resource_groups or []
                for flavor in group.flavors
                if flavor.name in flavors
                for q in flavor.resources
                if q.name == resource
            ),
            Decimal(0),
        )
        need = quantity_value(request) * job.parallelism
        if quota and need > quota:
            allowed = f"{job.parallelism} pods need {need.normalize()} {resource}, more than {queue.name}'s quota"
            raise RuleViolation(key_path("smokeJob", resource), request, allowed)
