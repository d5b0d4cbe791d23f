"""ResourceFlavors that are AKS node pools: what a flavor derives from its pool, and what it must agree with.

A flavor names its pool (``queues.resourceFlavors[].pool``) and gets the pool's ``agentpool`` node label and a
toleration of every taint its nodes carry, which Kueue injects into the pods it admits on the flavor
(https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/). The taints include the ones AKS adds itself (Spot's
``kubernetes.azure.com/scalesetpriority=spot:NoSchedule``) and the GPU taint, so nobody writes them twice. Kueue
accepts a flavor whose pods cannot land on its nodes, or quota for a resource its nodes never advertise, and then
admits Jobs that stay Pending: :func:`check` refuses both. :func:`warnings` names Spot capacity without an on-demand
fallback and flavor orders that would use Spot last.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from components.config.aks.aks import DEFAULT_CLUSTER_NODES
from components.config.aks.gpu import gpu_resources
from components.config.aks.pools import POOL_LABEL, UserPoolConfig
from components.config.aks.vm_sizes import VM_SIZES
from components.config.base import RuleViolation, key_path
from components.config.kube import Toleration, quantity_value
from components.config.queues.objects import ResourceFlavorConfig
from components.config.rules import rule

_RESOURCE_FLAVOR_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/resource_flavor.md"
)

if TYPE_CHECKING:
    from components.config.aks.aks import AksConfig
    from components.config.stack import StackConfig

GIB = Decimal(2**30)
SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")
"""The taint effects that keep a pod off a node; ``PreferNoSchedule`` only discourages it."""
EVICTION = (
    "Azure may evict Spot nodes at any time, with 30 seconds' notice: the pods of admitted Jobs on them fail (counted "
    "against the Job's backoffLimit unless its podFailurePolicy ignores DisruptionTarget) and their replacements wait "
    "Pending for a new node while the workload keeps its quota (https://learn.microsoft.com/azure/aks/spot-node-pool)"
)


def parse_taint(taint: str) -> tuple[str, str, str]:
    """``key=value:Effect`` as AKS writes it, split."""
    key_value, effect = taint.rsplit(":", 1)
    key, _, value = key_value.partition("=")
    return key, value, effect


def tolerates(toleration: Toleration, key: str, value: str, effect: str) -> bool:
    """The API server's matching (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/)."""
    if toleration.effect is not None and toleration.effect != effect:
        return False
    if toleration.key is None:
        return toleration.operator == "Exists"
    if toleration.key != key:
        return False
    return toleration.operator == "Exists" or (toleration.value or "") == value


def pool_tolerations(pool: UserPoolConfig) -> list[Toleration]:
    """A toleration of each taint that keeps pods off the pool's nodes."""
    return [
        Toleration(key=key, operator="Equal", value=value, effect=effect)  # type: ignore[arg-type]
        for key, value, effect in map(parse_taint, pool.node_taints)
        if effect in SCHEDULING_EFFECTS
    ]


def pool_resources(aks: AksConfig, pool: UserPoolConfig) -> dict[str, int | None]:
    """The extended resources one node of ``pool`` advertises (GPUs, MIG instances) and how many, when known."""
    gpu = pool.gpu_settings
    return gpu_resources(VM_SIZES.get(pool.vm_size), gpu, aks.nvidia.mig_strategy) if gpu else {}


def flavor_pool(flavor: ResourceFlavorConfig) -> str | None:
    """The pool a flavor's nodes are: the one it names, or the one its ``agentpool`` node label selects."""
    return flavor.pool or flavor.node_labels.get(POOL_LABEL)


def resolve(config: StackConfig) -> StackConfig:
    """``config`` with each flavor that names a pool given the pool's label and, unless written, its tolerations."""
    pools = {pool.name: pool for pool in config.aks.user_pools} if config.aks is not None else {}
    flavors = [
        flavor.model_copy(
            update={
                "node_labels": {POOL_LABEL: flavor.pool, **flavor.node_labels},
                "tolerations": flavor.tolerations
                if flavor.tolerations is not None
                else pool_tolerations(pools[flavor.pool]) or None,
            }
        )
        if flavor.pool in pools
        else flavor
        for flavor in config.queues.resource_flavors
    ]
    if flavors == config.queues.resource_flavors:
        return config
    return config.model_copy(update={"queues": config.queues.model_copy(update={"resource_flavors": flavors})})


@rule("pool-flavors.flavors-fit-their-pools", source=_RESOURCE_FLAVOR_URL)
def check(config: StackConfig) -> None:
    """A flavor names a pool of the stack, agrees with its label, tolerates its taints, and quota above 0 of an
    extended resource (``nvidia.com/gpu``, a MIG instance) is only for flavors whose pool advertises it (a group's
    CPU flavors list it at 0, as every flavor lists every covered resource)."""
    if config.aks is None:
        for index, flavor in enumerate(config.queues.resource_flavors):
            if flavor.pool is not None:
                key = key_path("queues", "resourceFlavors", index, "pool")
                raise RuleViolation(key, flavor.pool, "it names a pool of aks.userPools: only on a stack with aks")
        return
    pools = {pool.name: pool for pool in config.aks.user_pools}
    for index, flavor in enumerate(config.queues.resource_flavors):
        _fits_its_pool(index, flavor, pools)
    _extended_quota_provided(config, config.aks)


def _fits_its_pool(index: int, flavor: ResourceFlavorConfig, pools: dict[str, UserPoolConfig]) -> None:
    base = key_path("queues", "resourceFlavors", index)
    if flavor.pool is not None and flavor.pool not in pools:
        raise RuleViolation(key_path(base, "pool"), flavor.pool, f"it must name one of aks.userPools: {list(pools)}")
    label = flavor.node_labels.get(POOL_LABEL)
    if flavor.pool is not None and label not in (None, flavor.pool):
        raise RuleViolation(key_path(base, "nodeLabels", POOL_LABEL), label, f"pool names {flavor.pool}: drop it")
    pool = pools.get(flavor_pool(flavor) or "")
    if pool is None or (flavor.pool is not None and flavor.tolerations is None):  # derived: see resolve()
        return
    listed = {(taint.key, taint.value or "", taint.effect) for taint in flavor.node_taints or []}
    for key, value, effect in map(parse_taint, pool.node_taints):
        if effect not in SCHEDULING_EFFECTS or (key, value, effect) in listed:
            continue
        if not any(tolerates(t, key, value, effect) for t in flavor.tolerations or []):
            allowed = (
                f"pool {pool.name}'s nodes are tainted {key}={value}:{effect}: tolerate it, list it in nodeTaints, "
                "or leave tolerations unset with pool to derive them"
            )
            raise RuleViolation(key_path(base, "tolerations"), [t.key for t in flavor.tolerations or []], allowed)


EXTENDED_RESOURCE_SOURCES = (
    "kueue.resources.transformations[].outputs (a resource a transformation makes), "
    "kueue.resources.deviceClassMappings[].name (a DRA device class), "
    "aks.userPools[].extendedResources (a device plugin on a pool the stack does not install) or "
    "queues.external.extendedResources (nodes the stack does not manage)"
)
"""Where else an extended resource may come from: the keys that declare it, named in every refusal."""


def provided_elsewhere(config: StackConfig) -> dict[str, str]:
    """Extended resources that come from something other than a pool's nodes, each with the key saying so:
    transformation outputs and DRA device class mappings (Kueue computes them from what pods request), and resources
    of nodes the stack does not manage (``queues.external.extendedResources``)."""
    found: dict[str, str] = {}
    resources = config.kueue.resources
    for t, transformation in enumerate(resources.transformations or [] if resources else []):
        for output in transformation.outputs or {}:
            found.setdefault(output, key_path("kueue", "resources", "transformations", t, "outputs", output))
    for m, mapping in enumerate(resources.device_class_mappings or [] if resources else []):
        found.setdefault(mapping.name, key_path("kueue", "resources", "deviceClassMappings", m, "name"))
    for e, resource in enumerate(config.queues.external.extended_resources):
        found.setdefault(resource, key_path("queues", "external", "extendedResources", e))
    return found


def advertised(aks: AksConfig, pool: UserPoolConfig) -> set[str]:
    """What a pool's nodes advertise: the GPUs derived from its size and settings, and its declared resources."""
    return set(pool_resources(aks, pool)) | set(pool.extended_resources)


def _extended_quota_provided(config: StackConfig, aks: AksConfig) -> None:
    """Quota above 0 of an extended resource only where a pool advertises it, or where the stack says it comes from
    elsewhere (:data:`EXTENDED_RESOURCE_SOURCES`); a flavor with such quota on a pool that does not is refused at the
    flavor's own ``pool`` (or ``agentpool`` label), naming the pools that do: the mistake is the flavor's pool, not
    the resource. Quota 0 asks nothing of any node: Kueue's groups list every covered resource on every flavor."""
    flavors = {flavor.name: flavor for flavor in config.queues.resource_flavors}
    flavor_index = {flavor.name: i for i, flavor in enumerate(config.queues.resource_flavors)}
    pools = {pool.name: pool for pool in aks.user_pools}
    anywhere = {name for pool in aks.user_pools for name in advertised(aks, pool)}
    elsewhere = provided_elsewhere(config)
    holders = [("clusterQueues", i, queue.resource_groups) for i, queue in enumerate(config.queues.cluster_queues)]
    holders += [("cohorts", i, cohort.resource_groups) for i, cohort in enumerate(config.queues.cohorts)]
    for section, h, groups in holders:
        for g, group in enumerate(groups or []):
            for r, resource in enumerate(group.covered_resources):
                asked = [flavor for flavor in group.flavors if quantity_value(flavor.resources[r].nominal_quota)]
                if "/" not in resource or resource in elsewhere or not asked:
                    continue
                key = key_path("queues", section, h, "resourceGroups", g, "coveredResources", r)
                if resource not in anywhere:
                    allowed = (
                        f"no pool of aks.userPools advertises it (they advertise {sorted(anywhere)}); if it comes "
                        f"from elsewhere, declare it in {EXTENDED_RESOURCE_SOURCES}"
                    )
                    raise RuleViolation(key, resource, allowed)
                for flavor in asked:
                    written = flavors.get(flavor.name)
                    pool = pools.get(flavor_pool(written) or "") if written is not None else None
                    if written is not None and pool is not None and resource not in advertised(aks, pool):
                        quota = flavor.resources[r].nominal_quota
                        _refuse_the_flavors_pool(aks, flavor_index[flavor.name], written, pool, resource, quota)


def _refuse_the_flavors_pool(
    aks: AksConfig, index: int, flavor: ResourceFlavorConfig, pool: UserPoolConfig, resource: str, quota: str
) -> None:
    field = "pool" if flavor.pool else key_path("nodeLabels", POOL_LABEL)
    where = key_path("queues", "resourceFlavors", index, field)
    offer = sorted(p.name for p in aks.user_pools if resource in advertised(aks, p))
    listed = key_path("aks", "userPools", [p.name for p in aks.user_pools].index(pool.name), "extendedResources")
    allowed = (
        f"flavor {flavor.name} has {resource} quota {quota}, but pool {pool.name}'s nodes do not advertise it; pool "
        f"{' or '.join(offer)} does: point the flavor at it, or, if a device plugin the stack does not install adds "
        f"it to {pool.name}'s nodes, list it in {listed}"
    )
    raise RuleViolation(where, pool.name, allowed)


def warnings(config: StackConfig) -> list[tuple[str, str]]:
    """``(key, message)`` for Spot pools that keep nodes, Spot flavors with no on-demand flavor after them, on-demand
    flavors Kueue would try before Spot ones, CPU pods a group could send to GPU nodes, quota a flavor's pool can never
    hold, and a cluster that can grow past AKS's default node quota."""
    if config.aks is None:
        return []
    pools = {pool.name: pool for pool in config.aks.user_pools}
    found = [
        (key_path("aks", "userPools", i, "minCount"), f"a Spot pool that keeps {pool.min_count} nodes: {EVICTION}")
        for i, pool in enumerate(config.aks.user_pools)
        if pool.spot and pool.min_count > 0
    ]
    if config.aks.most_nodes > DEFAULT_CLUSTER_NODES:
        message = (
            f"the pools can grow to {config.aks.most_nodes} nodes, past the {DEFAULT_CLUSTER_NODES} an AKS cluster may "
            "have until support raises its quota (https://learn.microsoft.com/azure/aks/quotas-skus-regions)"
        )
        found.append(("aks.userPools", message))
    flavors = {flavor.name: pools.get(flavor_pool(flavor) or "") for flavor in config.queues.resource_flavors}
    found += _gpu_nodes_for_cpu_pods(config, flavors) + _quota_past_the_pool(config, flavors)
    for c, queue in enumerate(config.queues.cluster_queues):
        for g, group in enumerate(queue.resource_groups or []):
            spot = [_is_spot(flavors.get(f.name)) for f in group.flavors]
            for f, flavor in enumerate(group.flavors):
                key = key_path("queues", "clusterQueues", c, "resourceGroups", g, "flavors", f, "name")
                if spot[f] and not any(not later for later in spot[f + 1 :]):
                    message = f"flavor {flavor.name} is Spot with no on-demand flavor after it in the group: {EVICTION}"
                    found.append((key, f"{message}; add a Regular pool's flavor after it"))
                if not spot[f] and any(spot[f + 1 :]):
                    message = "Kueue tries a group's flavors in order, so the Spot flavors after it get Jobs only once"
                    found.append((key, f"{message} {flavor.name}'s quota is used up: put Spot flavors first"))
    return found


def _is_spot(pool: UserPoolConfig | None) -> bool:
    return pool is not None and pool.spot


def _gpu_nodes_for_cpu_pods(
    config: StackConfig, flavor_pools: dict[str, UserPoolConfig | None]
) -> list[tuple[str, str]]:
    """A group whose GPU flavor follows CPU flavors and has CPU quota, with ``whenCanBorrow: TryNextFlavor``: Kueue
    takes the first flavor a pod fits without borrowing or preemption
    (https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavorfungibility), so a CPU pod whose team has used its
    own CPU quota lands on the GPU flavor, and a GPU node is scaled up for it, before it borrows idle CPU quota."""
    found: list[tuple[str, str]] = []
    for c, queue in enumerate(config.queues.cluster_queues):
        fungibility = queue.flavor_fungibility
        if fungibility is None or fungibility.when_can_borrow != "TryNextFlavor":
            continue
        for group in queue.resource_groups or []:
            if "cpu" not in group.covered_resources:
                continue
            cpu = group.covered_resources.index("cpu")
            for f, flavor in enumerate(group.flavors):
                pool = flavor_pools.get(flavor.name)
                quota = flavor.resources[cpu].nominal_quota
                if f and pool is not None and pool.gpu_settings is not None and quantity_value(quota):
                    key = key_path("queues", "clusterQueues", c, "flavorFungibility", "whenCanBorrow")
                    message = (
                        f"TryNextFlavor sends a CPU pod to GPU flavor {flavor.name} (pool {pool.name}, CPU quota "
                        f"{quota}) as soon as the queue's own CPU quota is used, before borrowing idle CPU quota: use "
                        "MayStopSearch, or give GPU pods a ClusterQueue of their own"
                    )
                    found.append((key, message))
    return found


def _quota_past_the_pool(config: StackConfig, flavor_pools: dict[str, UserPoolConfig | None]) -> list[tuple[str, str]]:
    """Nominal quota of cpu, memory or a GPU above what the flavor's pool holds at ``maxCount``, one warning per flavor
    of a queue: a workload Kueue reserves that much for waits on a ProvisioningRequest the autoscaler can never
    provision (``CapacityIsNotFound``), or on pods that never schedule. The article's preset sets its quota past its
    pool on purpose, so that the pool's ``maxCount`` rather than Kueue caps the scale-up: only written quota is
    judged."""
    assert config.aks is not None
    found: list[tuple[str, str]] = []
    if config.queues.preset is not None:
        return found
    for c, queue in enumerate(config.queues.cluster_queues):
        for g, group in enumerate(queue.resource_groups or []):
            for f, flavor in enumerate(group.flavors):
                pool = flavor_pools.get(flavor.name)
                if pool is None:
                    continue
                held = _pool_holds(config.aks, pool)
                past = [
                    f"{resource.nominal_quota} {resource.name} (it holds at most {_shown(resource.name, most)})"
                    for resource in flavor.resources
                    if (most := held.get(resource.name)) is not None and quantity_value(resource.nominal_quota) > most
                ]
                if past:
                    key = key_path("queues", "clusterQueues", c, "resourceGroups", g, "flavors", f, "resources")
                    message = (
                        f"flavor {flavor.name}'s quota {', '.join(past)} is past what pool {pool.name} holds at "
                        f"maxCount ({pool.max_count} {pool.vm_size} nodes): the autoscaler can never provide the rest"
                    )
                    found.append((key, message))
    return found


def _pool_holds(aks: AksConfig, pool: UserPoolConfig) -> dict[str, Decimal]:
    """What ``pool``'s nodes have at ``maxCount``, by resource name, for a size in :data:`VM_SIZES`."""
    size = VM_SIZES.get(pool.vm_size)
    if size is None:
        return {}
    held = {"cpu": Decimal(size.vcpus * pool.max_count), "memory": Decimal(size.memory_gib) * GIB * pool.max_count}
    held |= {name: Decimal((count or 0) * pool.max_count) for name, count in pool_resources(aks, pool).items()}
    return held


def _shown(resource: str, amount: Decimal) -> str:
    return f"{amount / GIB:.0f}Gi" if resource == "memory" else f"{amount.normalize():f}"
