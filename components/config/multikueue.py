"""The ``multiKueue`` section: a burst queue on the AKS manager whose Jobs run on ACK workers' ACS capacity.

Kueue's MultiKueue (https://kueue.sigs.k8s.io/docs/concepts/multikueue/) copies each Workload admitted to the
manager's burst ClusterQueue to the worker clusters, and creates the Job on the first worker that admits its copy.
The manager's own provisioning-gated queue stays as it is: a ClusterQueue cannot carry a MultiKueue and a
ProvisioningRequest check together (reason ``MultiKueueWithProvisioningRequest`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/cache/scheduler/clusterqueue.go). Every worker gets Kueue, the
same namespace and LocalQueue name as the manager, a ClusterQueue on an ACS flavor, and a ServiceAccount whose token
the manager holds as a kubeconfig Secret. The rules across sections are in :mod:`components.config.multikueue_rules`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from components.config.base import ConfigModel, DnsLabel, DnsSubdomain, key_path, require_unique
from components.config.kube import PositiveQuantity, Quantity
from components.config.kueue import KueueConfig
from components.config.kueue_manager import GoDuration, MultiKueueManagerSettings

MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
"""The AdmissionCheck controller that dispatches Workloads to worker clusters."""
VIRTUAL_NODE_LABEL = ("type", "virtual-kubelet")
"""The label ACK's virtual node carries: what the workers' ACS flavor selects."""
VIRTUAL_NODE_TAINT = ("virtual-kubelet.io/provider", "alibabacloud", "NoSchedule")
"""The taint ACK's virtual node carries: what the ACS flavor's pods must tolerate
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/virtual-node-faq)."""
BURST_FLAVOR = "multikueue"
"""The manager's empty ResourceFlavor of the burst ClusterQueue: the workers' flavors decide placement."""
ACS_POD_LABEL = ("alibabacloud.com/acs", "true")
"""The pod label that sends a pod on ACK's virtual node to ACS compute (not ECI). A ResourceFlavor can add node
selectors and tolerations but no pod labels, so the Job template must carry it when it is submitted to the manager."""

Origin = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]
"""A label value: the ``kueue.x-k8s.io/multikueue-origin`` label MultiKueue puts on the objects it creates."""


class Quota(ConfigModel):
    """A ClusterQueue's nominal quota: a budget, not capacity (Kueue reads no node capacity of a virtual node)."""

    cpu: Quantity
    """vCPUs the queue may hand out at once."""
    memory: Quantity
    """Memory the queue may hand out at once."""


class WorkerConfig(ConfigModel):
    """One worker: an ACK Pro cluster of ``ack.clusters`` whose ACS capacity takes the manager's burst Jobs."""

    cluster: DnsLabel
    """The ``name`` of an ``ack.clusters`` entry; it must have an ECS ``nodePool`` (Kueue's controller cannot run on
    the virtual node) and a public API endpoint (``slbInternetEnabled``) the manager can reach."""
    quota: Quota = Quota(cpu="64", memory="256Gi")
    """What the worker's ClusterQueue admits at once on ACS: the spend you allow, since ACS capacity has no ceiling
    Kueue can see."""
    chart_repository: str | None = None
    """Where the worker pulls Kueue's chart (on the machine running Pulumi); unset: the manager's
    ``kueue.chartRepository``."""
    image_repository: str | None = None
    """Where the worker's nodes pull Kueue's image; unset: the manager's ``kueue.imageRepository``. From mainland
    China regions ``registry.k8s.io`` may be unreachable: mirror the image into your ACR
    (https://www.alibabacloud.com/help/en/acr/) and name it here."""

    @model_validator(mode="after")
    def _sources_kueue_can_use(self) -> WorkerConfig:
        """The same rules as ``kueue.chartRepository`` and ``kueue.imageRepository``."""
        overrides = {"chartRepository": self.chart_repository, "imageRepository": self.image_repository}
        KueueConfig.model_validate({key: value for key, value in overrides.items() if value is not None})
        return self


class BurstSmokeJobConfig(ConfigModel):
    """An opt-in burst Job for the ephemeral runner: submitted to the manager's burst LocalQueue, run on ACS."""

    enabled: bool = False
    """Off by default; the ephemeral runner submits it and follows it to a worker and back."""
    name: DnsLabel = "burst-smoke"
    """The Job's name on the manager (and on the worker that runs it)."""
    cpu: PositiveQuantity = "1"
    """Each pod's cpu request (an ACS spec step)."""
    memory: PositiveQuantity = "2Gi"
    """Each pod's memory request (an ACS spec step)."""
    image: str = "registry.openanolis.cn/openanolis/busybox:1.36"
    """An image ACS pulls from inside China; the Job runs ``sleep 30``."""


class MultiKueueConfig(ConfigModel):
    """The burst set-up: the manager's MultiKueue objects and what each worker needs."""

    namespace: DnsLabel = "burst"
    """The namespace of the burst LocalQueue, created on the manager and on every worker (MultiKueue needs the same
    name on both sides)."""
    local_queue: DnsLabel = "burst"
    """The burst LocalQueue's name, on the manager and on every worker: the ``kueue.x-k8s.io/queue-name`` of Jobs."""
    cluster_queue: DnsSubdomain = "burst"
    """The manager's burst ClusterQueue (and, on each worker, the ClusterQueue of the ACS flavor)."""
    admission_check: DnsSubdomain = "multikueue-burst"
    """The manager's MultiKueue AdmissionCheck, and its MultiKueueConfig."""
    quota: Quota = Quota(cpu="128", memory="512Gi")
    """The burst ClusterQueue's quota on the manager; about the sum of the workers' quotas (Kueue's advice)."""
    origin: Origin = "elastic-capacity"
    """MultiKueue's origin label on the workers' copies; managers sharing workers need distinct origins."""
    workers: list[WorkerConfig] = Field(min_length=1, max_length=20)
    """The worker clusters (1..20: the MultiKueueConfig CRD's ``maxItems``)."""
    dispatcher: Literal["AllAtOnce", "Incremental"] = "AllAtOnce"
    """``AllAtOnce`` copies each Workload to every worker; ``Incremental`` to three at a time, by cluster name."""
    worker_lost_timeout: GoDuration = "15m"
    """How long a Workload stays admitted while its worker is unreachable before it is dispatched again."""
    gc_interval: GoDuration = "1m"
    """How often the manager removes remote objects whose Workload is gone."""
    token_rotation: Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?$")] = "1"
    """Any short label: changing it creates a new ServiceAccount token on each worker, rewrites the manager's
    kubeconfig Secrets (Kueue reloads them in place) and then deletes the old token."""
    wait_timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """How long ``pulumi up`` waits for every MultiKueueCluster and the MultiKueue AdmissionCheck to be Active."""
    smoke_job: BurstSmokeJobConfig = BurstSmokeJobConfig()
    """The opt-in end-to-end burst check of the ephemeral runner."""

    @model_validator(mode="after")
    def _each_worker_once(self) -> MultiKueueConfig:
        names = [worker.cluster for worker in self.workers]
        require_unique(names, lambda i: key_path("workers", i, "cluster"), "worker clusters")
        return self

    @property
    def dispatcher_name(self) -> str:
        """The manager Configuration's ``multiKueue.dispatcherName``."""
        return (
            f"kueue.x-k8s.io/multikueue-dispatcher-{'all-at-once' if self.dispatcher == 'AllAtOnce' else 'incremental'}"
        )

    def named_with(self, suffix: str) -> MultiKueueConfig:
        """The burst objects of an ephemeral stack on a shared cluster: every name and the origin with ``suffix``,
        so two pull requests never share a queue, a check or the workers' copies."""
        if not suffix:
            return self
        names = ("namespace", "local_queue", "cluster_queue", "admission_check", "origin")
        return self.model_copy(update={field: getattr(self, field) + suffix for field in names})

    def manager_settings(self) -> MultiKueueManagerSettings:
        """The manager Configuration's ``multiKueue`` block for this set-up."""
        return MultiKueueManagerSettings(
            gc_interval=self.gc_interval,
            origin=self.origin,
            worker_lost_timeout=self.worker_lost_timeout,
            dispatcher_name=self.dispatcher_name,
        )

    def worker_cluster_name(self, worker: WorkerConfig) -> str:
        """The MultiKueueCluster (and its kubeconfig Secret) on the manager for ``worker``."""
        return f"{self.origin}-{worker.cluster}"[:63].rstrip("-")
