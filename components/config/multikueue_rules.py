"""What a MultiKueue burst set-up needs from the other sections, refused naming both keys when it is missing.

The manager's Kubernetes version needs no rule of its own: MultiKueue hands Jobs over through ``spec.managedBy``, on
by default from Kubernetes 1.32
(https://kubernetes.io/docs/concepts/workloads/controllers/job/#delegation-of-managing-a-job-object-to-external-controller),
and ``aks.kubernetesVersion`` only takes versions AKS supports, all later than that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import Version

from components.config.base import MisplacedKey, RuleViolation, key_path
from components.config.multikueue import BURST_FLAVOR

if TYPE_CHECKING:
    from components.config.stack import StackConfig

MIN_KUEUE = Version("0.17.8")
"""0.17.2-0.17.8 fix a dozen MultiKueue faults: hung or lost workers stalling admission, remote clean-up, reconnects
(https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.8 and the releases before it)."""
WATCHER_FRAMEWORKS = (
    "jobset.x-k8s.io/jobset",
    "pod",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
    "kubeflow.org/mpijob",
    "trainer.kubeflow.org/trainjob",
    "workload.codeflare.dev/appwrapper",
)
"""Integrations whose MultiKueue adapter watches every worker: a worker without the kind's CRD (these workers run
Kueue with batch/job only) leaves its MultiKueueCluster ``ClientConnectionFailed``
(https://github.com/kubernetes-sigs/kueue/issues/3582)."""


def check(config: StackConfig) -> None:
    """Raise :class:`RuleViolation` for the first thing the burst set-up cannot work without."""
    burst = config.multi_kueue
    if burst is None:
        return
    if config.aks is None or not config.kueue.install:
        raise MisplacedKey("multiKueue", "the manager is the stack's AKS cluster: add aks, with kueue.install true")
    if Version(config.kueue.chart_version) < MIN_KUEUE:
        allowed = f"MultiKueue needs Kueue {MIN_KUEUE} or later on the manager and the workers (its MultiKueue fixes)"
        raise RuleViolation("kueue.chartVersion", config.kueue.chart_version, allowed)
    for index, framework in enumerate(config.kueue.frameworks):
        if framework in WATCHER_FRAMEWORKS:
            allowed = "the workers serve batch/job only; MultiKueue would watch this kind on every worker and fail"
            raise RuleViolation(key_path("kueue.frameworks", index), framework, allowed)
    if config.gitops.render_to_directory is not None:
        raise MisplacedKey("multiKueue", "a worker's token exists only once it is applied: MultiKueue cannot render")
    _apart_from_the_queues_section(config)
    _workers_are_reachable_ack_clusters(config)


def _apart_from_the_queues_section(config: StackConfig) -> None:
    """The burst objects live on the manager beside the ``queues`` section's: one name, one object."""
    assert config.multi_kueue is not None
    burst, queues = config.multi_kueue, config.queues
    taken = [
        ("namespace", burst.namespace, queues.all_namespaces, "queues.namespaces/existingNamespaces"),
        ("clusterQueue", burst.cluster_queue, [q.name for q in queues.cluster_queues], "queues.clusterQueues"),
        ("admissionCheck", burst.admission_check, [c.name for c in queues.all_admission_checks], "queues' checks"),
    ]
    for key, name, names, where in taken:
        if name in names:
            raise RuleViolation(
                key_path("multiKueue", key), name, f"the burst set-up creates it: pick one not in {where}"
            )
    if BURST_FLAVOR in [flavor.name for flavor in queues.resource_flavors]:
        allowed = f"the burst set-up creates the flavor {BURST_FLAVOR!r}: rename the one in queues.resourceFlavors"
        raise RuleViolation("queues.resourceFlavors", BURST_FLAVOR, allowed)


def _workers_are_reachable_ack_clusters(config: StackConfig) -> None:
    assert config.multi_kueue is not None
    clusters = {cluster.name: cluster for cluster in (config.ack.clusters if config.ack is not None else [])}
    for index, worker in enumerate(config.multi_kueue.workers):
        key = key_path("multiKueue.workers", index, "cluster")
        cluster = clusters.get(worker.cluster)
        if cluster is None:
            raise RuleViolation(key, worker.cluster, f"it must name one of ack.clusters {sorted(clusters)}")
        if cluster.node_pool is None:
            allowed = f"Kueue's controller needs ECS nodes: give ack.clusters {worker.cluster!r} a nodePool"
            raise RuleViolation(key, worker.cluster, allowed)
        if not cluster.slb_internet_enabled:
            allowed = (
                f"the manager reaches the worker's public API: ack.clusters {worker.cluster!r} needs slbInternetEnabled"
            )
            raise RuleViolation(key, worker.cluster, allowed)


def warnings(config: StackConfig) -> list[tuple[str, str]]:
    """A worker in mainland China pulling Kueue from registry.k8s.io: reachability there is not assured."""
    if config.multi_kueue is None or config.ack is None:
        return []
    regions = {cluster.name: cluster.region for cluster in config.ack.clusters}
    found = []
    for index, worker in enumerate(config.multi_kueue.workers):
        image = worker.image_repository or config.kueue.image_repository
        if regions.get(worker.cluster, "").startswith("cn-") and image.startswith("registry.k8s.io/"):
            found.append(
                (
                    key_path("multiKueue.workers", index, "imageRepository"),
                    f"{image} may be unreachable from {regions[worker.cluster]}: mirror Kueue's image into ACR "
                    "and name it here (https://www.alibabacloud.com/help/en/acr/)",
                )
            )
    return found
