"""The ``multiKueue`` section: a burst queue on the Kueue manager whose Jobs run on worker clusters.

Kueue's MultiKueue (https://kueue.sigs.k8s.io/docs/concepts/multikueue/) copies each Workload admitted to a
ClusterQueue with a MultiKueue admission check to the worker clusters, and creates the Job on the first worker that
admits its copy. The manager's own provisioning-gated queue stays as it is: a ClusterQueue cannot carry a MultiKueue
and a ProvisioningRequest check together (reason ``MultiKueueWithProvisioningRequest`` in
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/cache/scheduler/clusterqueue.go).

A worker is one of three kinds (``source``): an ACK cluster of the ``ack`` section, new or existing, which the stack
sets up for ACS (Kueue unless the cluster has its own, the burst namespaces and LocalQueues under the manager's
names, a ClusterQueue on an ACS flavor, and the manager's identity); an existing AKS cluster, where the stack adds
only the manager's identity and the burst LocalQueues, pointing at a ClusterQueue the cluster has; or a kubeconfig
held as a Pulumi secret, which MultiKueue uses as it is (the worker is set up outside the stack, as Kueue's own guide
does with its script). The rules across sections are in :mod:`components.config.multikueue.rules`, what each worker
gets in :mod:`components.config.multikueue.workers`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, StringConstraints, model_validator

from components.config.ack.acs import ComputeQos
from components.config.aks.entra_id import KubeloginConfig
from components.config.base import (
    DNS1123_SUBDOMAIN,
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    MisplacedKey,
    RuleViolation,
    key_path,
    require_unique,
)
from components.config.kube import PositiveQuantity, Quantity
from components.config.kueue.kueue import KueueConfig, ProbeImage
from components.config.kueue.manager import GoDuration, MultiKueueManagerSettings
from components.config.kueue.profiles import KNOWN_FRAMEWORKS
from components.config.kueue.registries import PinnedImage
from components.config.rules import rule

_HELM_OCI_URL = "https://helm.sh/docs/topics/registries/"
_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_KUEUE_INTEGRATIONS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L311"
_MK_SETUP_URL = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/"

MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
"""The AdmissionCheck controller that dispatches Workloads to worker clusters."""
VIRTUAL_NODE_LABEL = ("type", "virtual-kubelet")
"""The label ACK's virtual node carries: what the workers' ACS flavor selects."""
VIRTUAL_NODE_TAINT = ("virtual-kubelet.io/provider", "alibabacloud", "NoSchedule")
"""The taint ACK's virtual node carries: what the ACS flavor's pods must tolerate
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/virtual-node-faq)."""
BURST_FLAVOR = "multikueue"
"""The manager's empty ResourceFlavor of the burst ClusterQueue: the workers' flavors decide placement."""

Origin = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=63)]
"""A label value: the ``kueue.x-k8s.io/multikueue-origin`` label MultiKueue puts on the objects it creates."""
ObjectName = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
"""A MultiKueueCluster or Secret name this program writes: a DNS-1123 subdomain, kept within 63 so a suffix fits."""
WorkerSource = Literal["ack", "aks", "kubeconfig"]


@rule("multikueue.known-framework", source=_KUEUE_INTEGRATIONS_URL)
def _known_framework(name: str) -> str:
    """A framework that is one of Kueue's integrations, because the worker's manager refuses to start with an unknown
    one."""
    if name not in KNOWN_FRAMEWORKS:
        raise ValueError(f"write one of Kueue's integrations: {', '.join(KNOWN_FRAMEWORKS)}")
    return name


Framework = Annotated[str, AfterValidator(_known_framework)]
"""An integration name of ``integrations.frameworks``."""


class Quota(ConfigModel):
    """A ClusterQueue's nominal quota: a budget, not capacity (Kueue reads no node capacity of a virtual node)."""

    cpu: Quantity
    """vCPUs the queue may hand out at once."""
    memory: Quantity
    """Memory the queue may hand out at once."""


class AcsPlacement(ConfigModel):
    """The ACS compute burst pods get on an ACK worker, set by a ResourcePolicy in each burst namespace: it selects
    every burst pod by a label the worker's Kueue puts on it (``kueue.x-k8s.io/multikueue-worker-workload-pod`` from
    Kueue 0.18, https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/multikueue_types.go) and
    sends it to ACS with this class and QoS, never to ECI, whatever labels the Job carries (ACK's priority-based
    resource scheduling,
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-priority-based-resource-scheduling)."""

    compute_class: Literal["general-purpose", "performance"] = "general-purpose"
    """The ACS compute class (``alibabacloud.com/compute-class``) of burst pods: a CPU class, as batch Jobs that
    need GPUs carry their own class, model and resource labels."""
    compute_qos: ComputeQos = "default"
    """``default``, or ``best-effort`` (cheaper, preemptible by ACS with five minutes' notice)."""


_ACK_ONLY = ("cluster", "install_kueue", "quota", "acs")
_AKS_ONLY = ("resource_group_name", "cluster_name", "kubelogin", "cluster_queue")
_KUEUE_INSTALL_ONLY = ("chart_repository", "image_repository", "probe_image")


class WorkerConfig(ConfigModel):
    """One worker cluster: where its credential comes from, and what the stack sets up there."""

    source: WorkerSource = "ack"
    """``ack``: a cluster of ``ack.clusters`` or ``ack.existingClusters``, set up by the stack for ACS; ``aks``: an
    existing AKS cluster, where the stack adds the manager's identity and the burst LocalQueues; ``kubeconfig``: the
    kubeconfig MultiKueue uses as it is, the secret value ``multiKueueKubeconfigs.<name>`` (nothing is created on the
    worker)."""
    name: ObjectName | None = None
    """The MultiKueueCluster's name on the manager (and, unless ``secretName`` says otherwise, its kubeconfig
    Secret's). Unset: ``<origin>-<cluster>`` (``ack``) or ``<origin>-<clusterName>`` (``aks``); required for
    ``kubeconfig``."""
    secret_name: ObjectName | None = None
    """The manager's Secret holding the worker's kubeconfig (key ``kubeconfig``, in Kueue's namespace). Unset: the
    MultiKueueCluster's name."""
    cluster: DnsLabel | None = None
    """``ack``: the ``name`` of an ``ack.clusters`` or ``ack.existingClusters`` entry; its API endpoint must be
    public (``slbInternetEnabled``), as the manager calls it from outside the VPC."""
    install_kueue: bool | None = None
    """``ack``: whether the stack installs Kueue there (the manager's release, batch/job only, on the ECS nodes).
    Unset: true for ``ack.clusters`` (which then need a ``nodePool``), false for ``ack.existingClusters``, whose
    own Kueue takes the copies."""
    quota: Quota = Field(default_factory=lambda: Quota(cpu="64", memory="256Gi"))
    """``ack``: what the worker's ACS ClusterQueue admits at once: the spend you allow, since ACS capacity has no
    ceiling Kueue can see."""
    acs: AcsPlacement = Field(default_factory=AcsPlacement)
    """``ack``: the ACS compute class and QoS of burst pods."""
    resource_group_name: str | None = None
    """``aks``: the existing AKS cluster's resource group."""
    cluster_name: str | None = None
    """``aks``: the existing AKS cluster's name."""
    kubelogin: KubeloginConfig = Field(default_factory=KubeloginConfig)
    """``aks``: how Pulumi signs in to an Entra ID cluster without a prompt."""
    cluster_queue: DnsSubdomain | None = None
    """``aks``: the worker's own ClusterQueue the burst LocalQueues submit to (required; the stack does not create
    it)."""
    frameworks: list[Framework] | None = None
    """For a worker whose Kueue the stack does not install: the integrations its Kueue manages and whose CRDs it
    serves (MultiKueue watches each of the manager's on every worker). Unset: ``[batch/job]``."""
    chart_repository: str | None = None
    """When the stack installs Kueue there: where Helm pulls the chart (on the machine running Pulumi, at preview
    too); unset: the manager's ``kueue.chartRepository``. A runner inside mainland China cannot reach
    ``oci://registry.k8s.io/kueue/charts/kueue``: set a chart copy it reaches (a Helm chart
    repository in your ACR, https://www.alibabacloud.com/help/en/acr/), or run Pulumi outside."""
    image_repository: str | None = None
    """When the stack installs Kueue there: where the worker's nodes pull Kueue's image; unset: the manager's
    ``kueue.imageRepository``. Required in mainland China, which cannot reach ``registry.k8s.io``: a copy in your
    ACR (https://www.alibabacloud.com/help/en/acr/) or a mirror you trust."""
    probe_image: ProbeImage | None = None
    """When the stack installs Kueue there: kubectl for the worker's readiness gate (it runs kubectl alone, no
    shell), a repository whose tag follows the minor of the worker's ACK cluster, or an image tagged within one minor
    of it; unset: the manager's ``kueue.readinessGate.probeImage``. Required in mainland China, like
    ``imageRepository``."""

    @model_validator(mode="after")
    @rule("multikueue.fields-of-its-source", source=_MK_SETUP_URL)
    def _fields_of_its_source(self) -> WorkerConfig:
        """Each key belongs to one kind of worker: a key of another kind would be silently ignored. Which keys go
        with a Kueue install the stack makes is checked with the ``ack`` section (``multikueue_rules``)."""
        foreign = {
            "ack": _AKS_ONLY,
            "aks": (*_ACK_ONLY, *_KUEUE_INSTALL_ONLY),
            "kubeconfig": (*_ACK_ONLY, *_AKS_ONLY, *_KUEUE_INSTALL_ONLY),
        }[self.source]
        for field in foreign:
            if field in self.model_fields_set:
                alias = type(self).model_fields[field].alias or field
                raise MisplacedKey(alias, f"it does not apply to a worker of source {self.source!r}")
        return self

    @model_validator(mode="after")
    @rule("multikueue.names-its-cluster", source=_MK_SETUP_URL)
    def _names_its_cluster(self) -> WorkerConfig:
        """A worker that names its cluster as its source needs (an ``ack`` cluster, an AKS resource group, cluster and
        ClusterQueue, or a kubeconfig worker's name), because the MultiKueueCluster is built from it."""
        required = {"ack": ("cluster",), "aks": ("resource_group_name", "cluster_name", "cluster_queue")}
        for field in required.get(self.source, ("name",)):
            if getattr(self, field) is None:
                alias = type(self).model_fields[field].alias or field
                raise RuleViolation(alias, None, f"a worker of source {self.source!r} needs it")
        return self

    @model_validator(mode="after")
    @rule("multikueue.sources-kueue-can-use", source=_HELM_OCI_URL)
    def _sources_kueue_can_use(self) -> WorkerConfig:
        """The same rules as ``kueue.chartRepository``, ``kueue.imageRepository`` and the gate's probe image."""
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
    image: PinnedImage = "registry.openanolis.cn/openanolis/busybox:1.36"
    """An image ACS pulls from inside China; the Job runs ``sleep 30``."""


_BURST_QUEUE_KEYS = ("namespace", "local_queue", "cluster_queue", "admission_check", "quota", "smoke_job")


class MultiKueueConfig(ConfigModel):
    """The burst set-up: the manager's MultiKueue objects and what each worker needs."""

    burst_queue: bool = True
    """``true``: the section creates the manager's burst ClusterQueue (on an empty flavor), its namespace and
    LocalQueue, and the MultiKueue AdmissionCheck. ``false``: the ``queues`` section holds them, with an
    AdmissionCheck of controller ``kueue.x-k8s.io/multikueue`` whose parameters name ``configName``, as Kueue's own
    examples write them; every LocalQueue of a ClusterQueue with that check is a burst queue."""
    namespace: DnsLabel = "burst"
    """The namespace of the burst LocalQueue, created on the manager and on every worker the stack sets up
    (MultiKueue needs the same name on both sides)."""
    local_queue: DnsLabel = "burst"
    """The burst LocalQueue's name, on the manager and on every worker: the ``kueue.x-k8s.io/queue-name`` of Jobs."""
    cluster_queue: DnsSubdomain = "burst"
    """The manager's burst ClusterQueue (and, on each ACK worker, the ClusterQueue of the ACS flavor)."""
    admission_check: DnsSubdomain = "multikueue-burst"
    """The manager's MultiKueue AdmissionCheck."""
    config_name: ObjectName | None = None
    """The MultiKueueConfig listing the workers. Unset: the name of ``admissionCheck``."""
    quota: Quota = Field(default_factory=lambda: Quota(cpu="128", memory="512Gi"))
    """The burst ClusterQueue's quota on the manager; about the sum of the workers' quotas (Kueue's advice)."""
    origin: Origin = "elastic-capacity"
    """MultiKueue's origin label on the workers' copies; managers sharing workers need distinct origins."""
    acs_flavor: DnsSubdomain = "acs-virtual-node"
    """The ResourceFlavor of ACK workers' ClusterQueue: ACK's virtual node, whose pods run on ACS."""
    workers: list[WorkerConfig] = Field(min_length=1, max_length=20)
    """The worker clusters (1..20: the MultiKueueConfig CRD's ``maxItems``)."""
    dispatcher: Literal["AllAtOnce", "Incremental"] = "AllAtOnce"
    """``AllAtOnce`` copies each Workload to every worker; ``Incremental`` to three at a time, by cluster name."""
    worker_lost_timeout: GoDuration = "15m"
    """How long a Workload stays admitted while its worker is unreachable before it is dispatched again."""
    gc_interval: GoDuration = "1m"
    """How often the manager removes remote objects whose Workload is gone."""
    token_rotation: Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?$")] = "1"
    """Any short label: changing it revokes the manager's tokens on every worker the stack sets up and issues new
    ones in the same ``up`` (the manager's Secrets are updated in place, so MultiKueue never loses a worker)."""
    token_lifetime_days: int = Field(default=90, ge=1, le=365)
    """How long a worker token the stack issues lives. ``pulumi up`` issues a new one once less than a third of the
    lifetime is left (so preview shows the renewal as a replacement): run ``up`` at least that often."""
    wait_timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """How long ``pulumi up`` waits for every MultiKueueCluster and MultiKueue AdmissionCheck to be Active."""
    smoke_job: BurstSmokeJobConfig = Field(default_factory=BurstSmokeJobConfig)
    """The opt-in end-to-end burst check of the ephemeral runner (with ``burstQueue`` only)."""

    @model_validator(mode="after")
    @rule("multikueue.burst-queue-keys-with-the-burst-queue", source=_MK_SETUP_URL)
    def _burst_queue_keys_with_the_burst_queue(self) -> MultiKueueConfig:
        """The burst-queue keys only with ``burstQueue: true`` and a ``configName`` without it, because the ``queues``
        section's MultiKueue check then names the MultiKueueConfig."""
        if self.burst_queue:
            return self
        for field in _BURST_QUEUE_KEYS:
            if field in self.model_fields_set:
                alias = type(self).model_fields[field].alias or field
                raise MisplacedKey(alias, "with burstQueue false the queues section holds the burst queues")
        if self.config_name is None:
            raise RuleViolation("configName", None, "with burstQueue false the queues section's check names it")
        return self

    @model_validator(mode="after")
    @rule("multikueue.each-worker-once", source=_K8S_NAMES_URL)
    def _each_worker_once(self) -> MultiKueueConfig:
        """Each worker cluster once, with distinct DNS-1123 MultiKueueCluster and Secret names, because the API server
        keeps one object per name."""
        clusters = [(w.source, w.cluster or w.cluster_name) for w in self.workers if w.source != "kubeconfig"]
        keyed = [i for i, w in enumerate(self.workers) if w.source != "kubeconfig"]
        require_unique(clusters, lambda i: key_path("workers", keyed[i], "cluster"), "worker clusters")
        names = [self.worker_cluster_name(worker) for worker in self.workers]
        for index, name in enumerate(names):
            if not re.fullmatch(DNS1123_SUBDOMAIN, name):
                allowed = (
                    "the MultiKueueCluster name derived from the origin and the cluster is no DNS-1123 name: set name"
                )
                raise RuleViolation(key_path("workers", index, "name"), name, allowed)
        require_unique(names, lambda i: key_path("workers", i, "name"), "MultiKueueCluster names")
        secrets = [self.worker_secret_name(worker) for worker in self.workers]
        require_unique(secrets, lambda i: key_path("workers", i, "secretName"), "kubeconfig Secret names")
        return self

    @property
    def multikueue_config(self) -> str:
        """The MultiKueueConfig's name."""
        return self.config_name or self.admission_check

    @property
    def dispatcher_name(self) -> str:
        """The manager Configuration's ``multiKueue.dispatcherName``."""
        return (
            f"kueue.x-k8s.io/multikueue-dispatcher-{'all-at-once' if self.dispatcher == 'AllAtOnce' else 'incremental'}"
        )

    def named_with(self, suffix: str) -> MultiKueueConfig:
        """The burst objects of an ephemeral stack: every physical name and the origin with ``suffix``, so two pull
        requests never share a queue, a check, a worker's copies or its identity."""
        if not suffix:
            return self
        names = ("namespace", "local_queue", "cluster_queue", "admission_check", "origin", "acs_flavor")
        update = {field: getattr(self, field) + suffix for field in names}
        update["config_name"] = self.config_name + suffix if self.config_name else None
        update["workers"] = [
            worker.model_copy(
                update={
                    "name": worker.name + suffix if worker.name else None,
                    "secret_name": worker.secret_name + suffix if worker.secret_name else None,
                }
            )
            for worker in self.workers
        ]
        return self.model_copy(update=update)

    def manager_settings(self) -> MultiKueueManagerSettings:
        """The manager Configuration's ``multiKueue`` block for this set-up."""
        return MultiKueueManagerSettings(
            gc_interval=self.gc_interval,
            origin=self.origin,
            worker_lost_timeout=self.worker_lost_timeout,
            dispatcher_name=self.dispatcher_name,
        )

    def worker_cluster_name(self, worker: WorkerConfig) -> str:
        """The MultiKueueCluster on the manager for ``worker``."""
        if worker.name is not None:
            return worker.name
        return f"{self.origin}-{worker.cluster or worker.cluster_name}"[:63].rstrip("-.")

    def worker_secret_name(self, worker: WorkerConfig) -> str:
        """The manager's kubeconfig Secret for ``worker``."""
        return worker.secret_name or self.worker_cluster_name(worker)
