"""Which of Kueue's integrations MultiKueue dispatches to workers, and which kind each one watches there.

Kueue 0.17.8 registers a MultiKueue adapter for every integration below, and every one of them implements
``jobframework.MultiKueueWatcher``: when a MultiKueueCluster connects, the manager opens a watch on the worker for
Workloads and for the kind of each adapter of an integration the manager enables, and refuses the connection if any
watch fails ("let's not accept this for now", ``updateConfigAndRefreshWatchers`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go;
the adapters are the ``*_multikueue_adapter.go`` files under
https://github.com/kubernetes-sigs/kueue/tree/v0.17.8/pkg/controller/jobs). A worker without the kind's CRD, or an
identity without the right to watch it, leaves its MultiKueueCluster ``ClientConnectionFailed``. ``deployment`` has
no adapter: MultiKueue never dispatches Deployments, so it watches nothing for them.

The same table says what the manager's identity on a worker may touch: the kinds below of the integrations the
manager enables, and Kueue's Workloads, as Kueue's own script grants
(https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/site/static/examples/multikueue/create-multikueue-kubeconfig.sh).
"""

from __future__ import annotations

from typing import NamedTuple


class WatchedKind(NamedTuple):
    """The API group and resource (plural) a MultiKueue adapter creates and watches on the workers."""

    api_group: str
    resource: str


MULTIKUEUE_ADAPTERS: dict[str, WatchedKind] = {
    "batch/job": WatchedKind("batch", "jobs"),
    "jobset.x-k8s.io/jobset": WatchedKind("jobset.x-k8s.io", "jobsets"),
    "kubeflow.org/mpijob": WatchedKind("kubeflow.org", "mpijobs"),
    "kubeflow.org/pytorchjob": WatchedKind("kubeflow.org", "pytorchjobs"),
    "kubeflow.org/tfjob": WatchedKind("kubeflow.org", "tfjobs"),
    "kubeflow.org/xgboostjob": WatchedKind("kubeflow.org", "xgboostjobs"),
    "kubeflow.org/paddlejob": WatchedKind("kubeflow.org", "paddlejobs"),
    "kubeflow.org/jaxjob": WatchedKind("kubeflow.org", "jaxjobs"),
    "ray.io/rayjob": WatchedKind("ray.io", "rayjobs"),
    "ray.io/raycluster": WatchedKind("ray.io", "rayclusters"),
    "ray.io/rayservice": WatchedKind("ray.io", "rayservices"),
    "trainer.kubeflow.org/trainjob": WatchedKind("trainer.kubeflow.org", "trainjobs"),
    "workload.codeflare.dev/appwrapper": WatchedKind("workload.codeflare.dev", "appwrappers"),
    "pod": WatchedKind("", "pods"),
    "statefulset": WatchedKind("apps", "statefulsets"),
    "leaderworkerset.x-k8s.io/leaderworkerset": WatchedKind("leaderworkerset.x-k8s.io", "leaderworkersets"),
}
"""Integration (``integrations.frameworks`` name) -> the kind its MultiKueue adapter watches on every worker."""

WORKLOADS = WatchedKind("kueue.x-k8s.io", "workloads")
"""MultiKueue's own watch on every worker: the copies of the manager's Workloads."""

CLUSTER_QUEUES = WatchedKind("kueue.x-k8s.io", "clusterqueues")
LOCAL_QUEUES = WatchedKind("kueue.x-k8s.io", "localqueues")

GATE_READS: dict[str, tuple[WatchedKind, ...]] = {
    "MultiKueueManagerQuotaAutomation": (CLUSTER_QUEUES, LOCAL_QUEUES),
}
"""Manager feature gate -> the kinds it makes MultiKueue list and watch cluster-wide on every worker, besides the
adapters' kinds. ``MultiKueueManagerQuotaAutomation`` (Kueue 0.18 and later, off by default) gives the remote client an
informer cache of ClusterQueues and LocalQueues, and a connection whose queue informers fail is refused
(``newClientWithWatch``, ``startQueueWatchers`` and ``updateConfigAndRefreshWatchers`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/multikueue/multikueuecluster.go;
the cached ``List`` calls in
https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/multikueue/clusterqueue.go).
An informer lists and watches and serves every ``Get`` from its cache, so ``list``/``watch`` is all it needs."""


def gate_reads(gates: dict[str, bool]) -> tuple[WatchedKind, ...]:
    """The kinds :data:`GATE_READS` adds for the manager's effective ``gates``, each once, in the table's order."""
    kinds: list[WatchedKind] = []
    for gate, reads in GATE_READS.items():
        if gates.get(gate, False):
            kinds += [kind for kind in reads if kind not in kinds]
    return tuple(kinds)


def watched_frameworks(frameworks: list[str] | tuple[str, ...]) -> list[str]:
    """The manager's integrations whose adapter watches every worker, in the manager's order."""
    return [framework for framework in frameworks if framework in MULTIKUEUE_ADAPTERS]
