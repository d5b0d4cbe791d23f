"""Rules across sections that decide whether a stack can work at all: Kueue runs where it is pinned, it manages what
the stack submits, and the smoke Job fits its queue, its pool's nodes and its pool's size.

What the stack itself decides (quota, taints, frameworks) is an error. So is a smoke Job that the documented sizes of
:data:`VM_SIZES` prove can never run: its pods ask more than a node has even before AKS's reservation for memory,
or more pods than ``maxCount`` such nodes hold; the Job is this program's own, and ``pulumi up`` would wait for it
until its timeout. What only likely fails (what AKS reserves of a node's memory depends on its pods) is a warning
naming the key: the fleet logs it and goes on. A VM size not in the table is not judged.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple

from components.config.aks import POOL_LABEL, UserPoolConfig
from components.config.base import RuleViolation, key_path
from components.config.kube import Toleration, quantity_value
from components.config.rules import rule

if TYPE_CHECKING:
    from components.config.stack import StackConfig

GIB = Decimal(2**30)


class VmSize(NamedTuple):
    vcpus: int
    memory_gib: int


VM_SIZES: dict[str, VmSize] = {
    "Standard_D2s_v3": VmSize(2, 8),
    "Standard_D4s_v3": VmSize(4, 16),
    "Standard_D8s_v3": VmSize(8, 32),
    "Standard_D16s_v3": VmSize(16, 64),
    "Standard_D2s_v5": VmSize(2, 8),
    "Standard_D4s_v5": VmSize(4, 16),
    "Standard_D8s_v5": VmSize(8, 32),
    "Standard_D2ds_v5": VmSize(2, 8),
    "Standard_D4ds_v5": VmSize(4, 16),
    "Standard_D2ds_v6": VmSize(2, 8),
    "Standard_D4ds_v6": VmSize(4, 16),
    "Standard_D8ds_v6": VmSize(8, 32),
    "Standard_E4s_v5": VmSize(4, 32),
    "Standard_F4s_v2": VmSize(4, 8),
    "Standard_NC4as_T4_v3": VmSize(4, 28),
    "Standard_NC24ads_A100_v4": VmSize(24, 220),
}
"""vCPUs and memory of common AKS node sizes, from Azure's size pages (e.g.
https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dv3-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/dsv6-series,
https://learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/ncast4v3-series). A size not listed is not
checked."""

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


@rule("feasibility.can-work")
def check(config: StackConfig) -> None:
    """Raise :class:`RuleViolation` for what cannot work whatever the cloud says."""
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
    if not job.enabled or pool is None or pool.vm_size not in VM_SIZES:
        return []
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
    if misfits or not per_node or min(per_node) * pool.max_count >= job.parallelism:
        return misfits
    nodes = -(-job.parallelism // min(per_node))
    message = (
        f"{job.parallelism} pods need {nodes} {pool.vm_size} nodes, more than pool {pool.name}'s maxCount "
        f"{pool.max_count}: lower parallelism or raise maxCount"
    )
    return [("smokeJob.parallelism", job.parallelism, message)]


def _smoke_pool(config: StackConfig) -> UserPoolConfig | None:
    pools = config.aks.user_pools if config.aks is not None else []
    return next((pool for pool in pools if pool.name == config.smoke_job.pool), None)


@rule("feasibility.kueue-tolerates-its-pool")
def _kueue_tolerates_its_pool(config: StackConfig) -> None:
    """Kueue pinned to the system pool must tolerate its taints, or it stays Pending and the gate times out."""
    if config.aks is None or not config.kueue.install:
        return
    system = config.aks.system_pool
    node_labels = {**system.labels, POOL_LABEL: system.name, "kubernetes.azure.com/mode": "system"}
    if any(node_labels.get(key) != value for key, value in config.kueue.node_selector.items()):
        return
    for taint in system.node_taints:
        key_value, effect = taint.rsplit(":", 1)
        key, _, value = key_value.partition("=")
        if not any(_tolerates(t, key, value, effect) for t in config.kueue.tolerations):
            allowed = f"kueue.nodeSelector pins Kueue to the system pool, tainted {taint}: tolerate it"
            raise RuleViolation("kueue.tolerations", [t.key for t in config.kueue.tolerations], allowed)


def _tolerates(toleration: Toleration, key: str, value: str, effect: str) -> bool:
    """The API server's matching (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)."""
    if toleration.effect is not None and toleration.effect != effect:
        return False
    if toleration.key is None:
        return toleration.operator == "Exists"
    if toleration.key != key:
        return False
    return toleration.operator == "Exists" or (toleration.value or "") == value


@rule("feasibility.smoke-job-is-a-framework")
def _smoke_job_is_a_framework(config: StackConfig) -> None:
    """The smoke Job is a ``batch/v1`` Job: without the integration Kueue never suspends it, and it runs unqueued."""
    if config.smoke_job.enabled and config.kueue.install and "batch/job" not in config.kueue.frameworks:
        raise RuleViolation("kueue.frameworks", config.kueue.frameworks, "smokeJob submits a Job: include batch/job")


@rule("feasibility.smoke-job-fits-its-queue")
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
