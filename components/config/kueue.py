"""The ``kueue`` section (the Kueue Helm install and its readiness gate) and the ``smokeJob`` section.

Defaults follow Azure's article "Provision capacity for Kueue batch jobs with the cluster autoscaler on AKS"
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler): chart ``kueue`` from
``oci://registry.k8s.io/kueue/charts/kueue`` installed as release ``kueue`` in ``kueue-system``, and the article's
``kueue-cas-job`` as the opt-in smoke Job, all pulled from globally reachable registries. The article pins Kueue
0.17.1; the default here is 0.17.8, the last 0.17 patch (see :data:`SUPPORTED_CHART_VERSIONS`).

Every chart and image source is a config key so that a stack in Azure China can use the Azure China mirrors
(https://github.com/Azure/container-service-for-azure-china/blob/master/aks/README.md#22-container-registry-proxy);
:func:`registry_host` and :data:`AZURE_CHINA_MIRRORS` let the stack rules check that each source is reachable from
the cloud the stack deploys to.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Annotated, Literal, NamedTuple
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, model_validator

from components.config.base import ConfigModel, DnsLabel, RuleViolation, key_path
from components.config.kube import LabelSelector, LabelSelectorRequirement, Quantity, Toleration, quantity_value


@dataclasses.dataclass(frozen=True)
class KueueRelease:
    """A Kueue release this program supports: why, what its chart changes for this program, and where it is told."""

    release_notes: str
    chart_changes: str
    """Differences of the chart (values.yaml, templates) that matter to the values this program writes."""
    fixes: str
    """What the release fixes, or lacks, for a cluster running provisioning-gated queues."""


SUPPORTED_CHART_VERSIONS: dict[str, KueueRelease] = {
    "0.17.1": KueueRelease(
        release_notes="https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.1",
        chart_changes="The reference point: the manager defaults in components/manifests/kueue_install.py and "
        ":data:`KNOWN_FRAMEWORKS` are the chart's values.yaml at this tag.",
        fixes="The version Azure's article installs, kept to reproduce it. It lacks every fix of 0.17.2-0.17.8, and "
        "the 0.17 line is no longer maintained: production-like stacks use 0.17.8.",
    ),
    "0.17.8": KueueRelease(
        release_notes="https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.8",
        chart_changes="values.yaml adds enableVisibilityAuthReaderRoleBinding (default true: the kube-system "
        "RoleBinding 0.17.1 always creates; this program leaves it at its default); the manager's liveness and "
        "readiness probes use their configured periodSeconds instead of initialDelaySeconds (0.17.3, kueue#10980). "
        "The manager configuration and the default integrations are unchanged, so the same values apply.",
        fixes="Quota: stale cohort subtree quota after a child Cohort is deleted (0.17.2, kueue#10840, "
        "https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.2); int64 overflow of pod set requests that "
        "broke quota limits (0.17.3, kueue#11140, https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.3). "
        "ProvisioningRequests of finished or evicted Workloads are cleaned up (0.17.7, kueue#12654, "
        "https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.7). Security: visibility API listed workloads "
        "of same-named LocalQueues in other namespaces (0.17.2, kueue#10679); KueueViz cross-site WebSocket "
        "hijacking and oversized-frame OOM (0.17.7, kueue#12876, kueue#12703); visibility API 'limit' memory "
        "exhaustion and KueueViz sessions outliving their token (0.17.8, kueue#13052, kueue#13164).",
    ),
}
"""The chart versions this program is tested against, newest last. Charts are versioned without a ``v``."""

LATEST_CHART_VERSION = list(SUPPORTED_CHART_VERSIONS)[-1]

KNOWN_FRAMEWORKS = (
    "batch/job",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/rayservice",
    "ray.io/raycluster",
    "jobset.x-k8s.io/jobset",
    "trainer.kubeflow.org/trainjob",
    "kubeflow.org/paddlejob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "workload.codeflare.dev/appwrapper",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
"""The integrations Kueue 0.17 enables in its default manager config
(https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/charts/kueue/values.yaml)."""

REMOVED_FEATURE_GATES = {"ProvisioningACC": "it went GA in Kueue 0.14 and was removed in 0.15; no gate is needed"}
"""Gates Kueue >= 0.15 refuses to start with (https://github.com/kubernetes-sigs/kueue/pull/7465)."""

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server puts on every namespace: what a namespaceSelector can match a namespace by name with."""

AZURE_CHINA_MIRRORS = {
    "registry.k8s.io": "registryk8s.azk8s.cn",
    "k8s.gcr.io": "k8sgcr.azk8s.cn",
    "gcr.io": "gcr.azk8s.cn",
    "us.gcr.io": "usgcr.azk8s.cn",
    "quay.io": "quay.azk8s.cn",
    "docker.io": "dockerhub.azk8s.cn",
    "mcr.microsoft.com": "mcr.azure.cn (or the proxy mcr.azk8s.cn)",
}
"""Global registries and what replaces them in Azure China: the proxy table of
https://github.com/Azure/container-service-for-azure-china/blob/master/aks/README.md#22-container-registry-proxy, and
for Microsoft's registry its official Azure China endpoint ``mcr.azure.cn``
(https://github.com/microsoft/containerregistry/blob/main/docs/client-firewall-rules.md)."""

AZURE_CHINA_ONLY_SUFFIXES = (".azk8s.cn", ".azure.cn")
"""Registries that serve Azure China only: "*.azk8s.cn could only be accessed by Azure China IP" (the proxy README
above), and ``*.azure.cn`` are Azure China's own endpoints."""

_FEATURE_GATE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_CHART_REPOSITORY = re.compile(r"^(oci|https?)://[^\s]+$")
_IMAGE_REPOSITORY = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*$")


def registry_host(reference: str) -> str:
    """The registry a chart (``oci://host/...``, ``https://host/...``) or an image reference is pulled from.

    An image's first path component is a registry only if it has a ``.`` or ``:`` or is ``localhost``; otherwise the
    image is on Docker Hub, as container runtimes resolve it (``splitDockerDomain`` in
    https://github.com/distribution/reference/blob/main/normalize.go).
    """
    if "://" in reference:
        return (urlsplit(reference).hostname or "").lower()
    first, slash, _ = reference.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first.split(":", 1)[0].lower()
    return "docker.io"


def is_azure_china_only(host: str) -> bool:
    return host.endswith(AZURE_CHINA_ONLY_SUFFIXES)


class Source(NamedTuple):
    """A chart or image the stack pulls: its key (relative to the stack), its value, and the global default."""

    key: str
    reference: str
    default: str


def _check_pinned_image(text: str) -> str:
    """An image without a tag or digest means ``latest``: a moving target nobody can review or roll back."""
    last = text.rsplit("/", 1)[-1]
    if "@" not in text and ":" not in last:
        raise ValueError(f"{text!r} has no tag or digest; pin it, e.g. {text}:<version>")
    return text


PinnedImage = Annotated[str, Field(min_length=1), AfterValidator(_check_pinned_image)]
"""A container image reference with an explicit tag or digest."""


class Resources(ConfigModel):
    """Container requests and limits for cpu and memory."""

    requests: dict[Literal["cpu", "memory"], Quantity]
    limits: dict[Literal["cpu", "memory"], Quantity]

    @model_validator(mode="after")
    def _requests_within_limits(self) -> Resources:
        for name, request in self.requests.items():
            limit = self.limits.get(name)
            if limit is not None and quantity_value(request) > quantity_value(limit):
                raise RuleViolation(key_path("requests", name), request, f"it must not exceed limits.{name} {limit}")
        return self


class ReadinessGateConfig(ConfigModel):
    """The Job that proves Kueue's webhooks admit objects before anything else talks to Kueue.

    Kueue's Deployment reports Ready 10-30 s before its webhook serves
    (https://github.com/kubernetes-sigs/kueue/issues/13036), and pulumi-kubernetes does not retry webhook errors, so
    every Kueue object waits for this Job instead.
    """

    probe_image: PinnedImage = "registry.k8s.io/kubectl:v1.33.4"
    """kubectl for the server-side dry-run probe; a 1.33 client is within the supported skew of AKS 1.32-1.34. The
    ProvisioningRequest CRD check is a bash script, so the image needs bash too: registry.k8s.io/kubectl has it from
    v1.28 on (https://github.com/kubernetes/kubernetes/pull/119592,
    https://github.com/kubernetes/kubernetes/blob/master/build/server-image/kubectl/Dockerfile). Its Azure China
    mirror is ``registryk8s.azk8s.cn/kubectl``."""
    backoff_limit: int = Field(default=6, ge=1, le=20)
    """Failed probe pods before the gate gives up; the Job controller backs off 10 s, 20 s, 40 s ... between them,
    so the default covers the 10-30 s webhook window several times over."""
    timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """Upper bound for the whole gate (the Job's ``activeDeadlineSeconds`` and Pulumi's await timeout)."""


def _default_tolerations() -> list[Toleration]:
    return [Toleration(key="CriticalAddonsOnly", operator="Exists", effect="NoSchedule")]


def _default_managed_jobs_namespace_selector() -> LabelSelector:
    return LabelSelector(
        match_expressions=[
            LabelSelectorRequirement(key=NAMESPACE_NAME_LABEL, operator="NotIn", values=["kube-system", "kueue-system"])
        ]
    )


class KueueConfig(ConfigModel):
    """How Kueue is installed: chart source and version, manager settings, and the readiness gate."""

    chart_repository: str = "oci://registry.k8s.io/kueue/charts/kueue"
    """The chart's OCI reference (the chart itself) or an https Helm repository serving a chart named ``kueue``.
    Helm pulls it on the machine running ``pulumi``, at preview as well as at up. Azure's China article uses
    ``oci://k8sgcr.azk8s.cn/kueue/charts/kueue``, which only Azure China addresses can reach."""
    chart_version: str = LATEST_CHART_VERSION
    """0.17.1 or 0.17.8, without a ``v`` (``SUPPORTED_CHART_VERSIONS`` in components/config/kueue.py says what each
    changes). Azure's article pins 0.17.1; 0.17.8 carries the 0.17 line's later quota, ProvisioningRequest and
    security fixes."""
    namespace: DnsLabel = "kueue-system"
    """Kueue's webhooks break in other namespaces (https://github.com/kubernetes-sigs/kueue/issues/3794)."""
    release_name: DnsLabel = "kueue"
    """Keeps object names as in Kueue's docs (``kueue-controller-manager``, ``kueue-webhook-service``): the chart
    uses the release name as is when it contains ``kueue``."""
    replicas: int = Field(default=1, ge=1, le=5)
    """The chart default; leader election is on, so more replicas only add failover."""
    manager_resources: Resources = Resources(
        requests={"cpu": "500m", "memory": "512Mi"}, limits={"cpu": "2", "memory": "512Mi"}
    )
    """The chart default in 0.17."""
    image_repository: str = "registry.k8s.io/kueue/kueue"
    """The manager image without tag; the chart adds its tag ``v<chart version>``. The default is where the
    published chart points; other sources are Azure's ``mcr.microsoft.com/oss/v2/kueue/kueue`` or, in Azure China,
    the proxy ``registryk8s.azk8s.cn/kueue/kueue``."""
    tolerations: list[Toleration] = Field(default_factory=_default_tolerations)
    """Lets Kueue run on an AKS system pool tainted ``CriticalAddonsOnly``, as the Terraform of
    https://github.com/Azure/AKS/tree/master/examples/kueue-and-ray-on-aks does."""
    node_selector: dict[str, str] = Field(default_factory=lambda: {"kubernetes.azure.com/mode": "system"})
    """Keeps Kueue (and its readiness probe) off the autoscaled pools it scales; set ``{}`` on non-AKS clusters."""
    frameworks: list[str] = Field(default=["batch/job"], min_length=1)
    """Job integrations Kueue manages; the article only submits ``batch/v1`` Jobs."""
    feature_gates: dict[str, bool] = Field(default_factory=dict)
    """Kueue feature gates; none is needed for ProvisioningRequests since 0.15."""
    managed_jobs_namespace_selector: LabelSelector = Field(default_factory=_default_managed_jobs_namespace_selector)
    """Always written to the manager config: only then does the chart give Kueue's ``failurePolicy: Fail`` Job
    webhook a namespaceSelector, instead of intercepting every Job in the cluster
    (https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/charts/kueue/templates/webhook/manifests.yaml). The
    default is the manager's own default."""
    readiness_gate: ReadinessGateConfig = ReadinessGateConfig()

    @model_validator(mode="after")
    def _rules(self) -> KueueConfig:
        if not _CHART_REPOSITORY.match(self.chart_repository):
            raise RuleViolation("chartRepository", self.chart_repository, "use an oci:// or https:// reference")
        if self.chart_version not in SUPPORTED_CHART_VERSIONS:
            supported = ", ".join(SUPPORTED_CHART_VERSIONS)
            raise RuleViolation(
                "chartVersion",
                self.chart_version,
                f"supported chart versions (written without 'v'): {supported}; use {LATEST_CHART_VERSION} "
                f"({SUPPORTED_CHART_VERSIONS[LATEST_CHART_VERSION].release_notes})",
            )
        unknown = [f for f in self.frameworks if f not in KNOWN_FRAMEWORKS]
        if unknown:
            index = self.frameworks.index(unknown[0])
            raise RuleViolation(
                key_path("frameworks", index), unknown[0], f"known frameworks: {list(KNOWN_FRAMEWORKS)}"
            )
        if len(set(self.frameworks)) != len(self.frameworks):
            raise RuleViolation("frameworks", self.frameworks, "list each framework once")
        for gate in self.feature_gates:
            if gate in REMOVED_FEATURE_GATES:
                raise RuleViolation(key_path("featureGates", gate), gate, REMOVED_FEATURE_GATES[gate])
            if not _FEATURE_GATE.match(gate):
                raise RuleViolation(key_path("featureGates", gate), gate, "gate names are UpperCamelCase")
        if not _IMAGE_REPOSITORY.match(self.image_repository):
            raise RuleViolation(
                "imageRepository",
                self.image_repository,
                "a repository without tag, e.g. mcr.microsoft.com/oss/v2/kueue/kueue",
            )
        if self.manages_namespace(self.namespace):
            raise RuleViolation(
                "managedJobsNamespaceSelector",
                self.managed_jobs_namespace_selector.model_dump(by_alias=True, exclude_defaults=True),
                f"it must not match Kueue's own namespace {self.namespace!r}, or Kueue's Job webhook intercepts its "
                f"readiness probe; e.g. {NAMESPACE_NAME_LABEL} NotIn [kube-system, {self.namespace}]",
            )
        return self

    def manages_namespace(self, namespace: str) -> bool:
        """Whether Kueue manages Jobs in ``namespace`` (matched by the name label every namespace carries)."""
        return self.managed_jobs_namespace_selector.matches({NAMESPACE_NAME_LABEL: namespace})

    def sources(self) -> list[Source]:
        """Every chart and image the install pulls, with its key under ``kueue``."""
        defaults = KueueConfig()
        return [
            Source("chartRepository", self.chart_repository, defaults.chart_repository),
            Source("imageRepository", self.image_repository, defaults.image_repository),
            Source("readinessGate.probeImage", self.readiness_gate.probe_image, defaults.readiness_gate.probe_image),
        ]


class SmokeJobConfig(ConfigModel):
    """An opt-in end-to-end check: the article's ``kueue-cas-job``, which ``pulumi up`` waits to see complete.

    Three 1800m pods cannot fit one 4-core ``scalepool`` node, so the Job only completes after Kueue's
    ProvisioningRequest has made the autoscaler add nodes
    (https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler).
    """

    enabled: bool = False
    """Off by default: it scales a pool up and holds ``pulumi up`` until the Job completes."""
    name: DnsLabel = "kueue-cas-job"
    namespace: DnsLabel = "cas-kueue-demo"
    local_queue: DnsLabel = "cas-local-queue"
    """The LocalQueue the Job is submitted to (label ``kueue.x-k8s.io/queue-name``)."""
    pool: DnsLabel = "scalepool"
    """The node pool the pods select through the ``agentpool`` label AKS puts on every node."""
    parallelism: int = Field(default=3, ge=1, le=100)
    completions: int = Field(default=3, ge=1, le=100)
    cpu: Quantity = "1800m"
    memory: Quantity = "256Mi"
    image: PinnedImage = "mcr.microsoft.com/azurelinux/busybox:1.36"
    """The article's image; in Azure China use ``mcr.azure.cn/azurelinux/busybox:1.36`` or the proxy
    ``mcr.azk8s.cn/azurelinux/busybox:1.36``."""
    command: list[str] = Field(default=["sh", "-c", "echo running on $(hostname); sleep 30"], min_length=1)
    restart_policy: Literal["Never", "OnFailure"] = "Never"
    timeout_seconds: int = Field(default=1200, ge=60, le=7200)
    """How long ``pulumi up`` waits for completion: a ProvisioningRequest scale-up takes minutes, and Kueue retries
    a failed one after 60 s, 120 s ... (``retryStrategy`` of ProvisioningRequestConfig,
    https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/)."""

    @model_validator(mode="after")
    def _parallelism_within_completions(self) -> SmokeJobConfig:
        if self.parallelism > self.completions:
            raise RuleViolation(
                "parallelism", self.parallelism, f"at most completions ({self.completions}); extra pods never start"
            )
        return self

    def sources(self) -> list[Source]:
        """The image the Job pulls, with its key under ``smokeJob``."""
        return [Source("image", self.image, SmokeJobConfig().image)]
