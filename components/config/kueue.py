"""The ``kueue`` section (the Kueue Helm install and its readiness gate) and the ``smokeJob`` section.

Defaults reproduce the seed (seed 000, "安装 Kueue" and "提交工作负载"; reference aks-kueue.md §1.3, §3): chart
``kueue`` 0.17.1 from ``oci://registry.k8s.io/kueue/charts/kueue`` installed as release ``kueue`` in ``kueue-system``,
and the seed's ``kueue-cas-job`` as the opt-in smoke Job. Stack files may point both at mirrors (the seed itself
uses ``oci://k8sgcr.azk8s.cn/...`` and ``mcr.azk8s.cn/...``).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from packaging.version import Version
from pydantic import AfterValidator, Field, model_validator

from components.config.base import ConfigModel, DnsLabel, RuleViolation, key_path
from components.config.kube import LabelSelector, LabelSelectorRequirement, Quantity, Toleration, quantity_value

MIN_CHART_VERSION = Version("0.15.0")
"""The first Kueue to serve ``kueue.x-k8s.io/v1beta2``, the only API this program writes (pulumi-practice §3.2)."""

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
"""The integrations Kueue 0.17.1 enables in its default manager config (reference aks-kueue.md §3.1)."""

REMOVED_FEATURE_GATES = {"ProvisioningACC": "it went GA in Kueue 0.14 and was removed in 0.15; no gate is needed"}
"""Gates Kueue >= 0.15 refuses to start with (reference aks-kueue.md §3.2)."""

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
"""The label the API server puts on every namespace: what a namespaceSelector can match a namespace by name with."""

_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
_FEATURE_GATE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_CHART_REPOSITORY = re.compile(r"^(oci|https?)://[^\s]+$")
_IMAGE_REPOSITORY = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*$")


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

    Kueue's Deployment reports Ready 10-30 s before its webhook serves (kueue#13036, reference aks-kueue.md §0.5),
    and pulumi-kubernetes does not retry webhook errors, so every Kueue object waits for this Job instead.
    """

    probe_image: PinnedImage = "registry.k8s.io/kubectl:v1.33.4"
    """kubectl runs the server-side dry-run probe; a 1.33 client is within the supported skew of AKS 1.32-1.34.
    Override for mirrors (e.g. ``k8sgcr.azk8s.cn/kubectl:v1.33.4``)."""
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
    The Azure China mirror is ``oci://k8sgcr.azk8s.cn/kueue/charts/kueue`` (seed 000)."""
    chart_version: str = "0.17.1"
    """The Kueue version the seed installs; charts are versioned without a ``v``."""
    namespace: DnsLabel = "kueue-system"
    """Kueue's webhooks break in other namespaces (kueue#3794, reference pulumi-practice §3.1)."""
    release_name: DnsLabel = "kueue"
    """Keeps object names as in Kueue's docs (``kueue-controller-manager``, ``kueue-webhook-service``), §3.1."""
    replicas: int = Field(default=1, ge=1, le=5)
    """The chart default; leader election is on, so more replicas only add failover."""
    manager_resources: Resources = Resources(
        requests={"cpu": "500m", "memory": "512Mi"}, limits={"cpu": "2", "memory": "512Mi"}
    )
    """The chart default at 0.17.1."""
    image_repository: str | None = None
    """Replace ``registry.k8s.io/kueue/kueue`` (e.g. ``mcr.microsoft.com/oss/v2/kueue/kueue``); the chart keeps
    its tag ``v<chart version>``. Unset keeps the chart's image."""
    tolerations: list[Toleration] = Field(default_factory=_default_tolerations)
    """Lets Kueue run on an AKS system pool tainted ``CriticalAddonsOnly`` (the AKS sample's Terraform, §1.4)."""
    node_selector: dict[str, str] = Field(default_factory=lambda: {"kubernetes.azure.com/mode": "system"})
    """Keeps Kueue (and its readiness probe) off the autoscaled pools it scales; set ``{}`` on non-AKS clusters."""
    frameworks: list[str] = Field(default=["batch/job"], min_length=1)
    """Job integrations Kueue manages; the seed only submits ``batch/v1`` Jobs."""
    feature_gates: dict[str, bool] = Field(default_factory=dict)
    """Kueue feature gates; none is needed for ProvisioningRequests (reference aks-kueue.md §3.2)."""
    managed_jobs_namespace_selector: LabelSelector = Field(default_factory=_default_managed_jobs_namespace_selector)
    """Always written to the manager config: only then does the chart give Kueue's ``failurePolicy: Fail`` Job
    webhook a namespaceSelector, instead of intercepting every Job in the cluster (reference aks-kueue.md §0.7).
    The default is the manager's own default."""
    readiness_gate: ReadinessGateConfig = ReadinessGateConfig()

    @model_validator(mode="after")
    def _rules(self) -> KueueConfig:
        if not _CHART_REPOSITORY.match(self.chart_repository):
            raise RuleViolation("chartRepository", self.chart_repository, "use an oci:// or https:// reference")
        self._check_chart_version()
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
        if self.image_repository is not None and not _IMAGE_REPOSITORY.match(self.image_repository):
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

    def _check_chart_version(self) -> None:
        if not _SEMVER.match(self.chart_version):
            raise RuleViolation("chartVersion", self.chart_version, "write a semantic version without 'v', e.g. 0.17.1")
        if Version(self.chart_version.split("+", 1)[0]) < MIN_CHART_VERSION:
            raise RuleViolation(
                "chartVersion",
                self.chart_version,
                f"needs >= {MIN_CHART_VERSION}, the first to serve kueue.x-k8s.io/v1beta2",
            )

    def manages_namespace(self, namespace: str) -> bool:
        """Whether Kueue manages Jobs in ``namespace`` (matched by the name label every namespace carries)."""
        return self.managed_jobs_namespace_selector.matches({NAMESPACE_NAME_LABEL: namespace})


class SmokeJobConfig(ConfigModel):
    """An opt-in end-to-end check: the seed's ``kueue-cas-job``, which ``pulumi up`` waits to see complete.

    Three 1800m pods cannot fit one 4-core ``scalepool`` node, so the Job only completes after Kueue's
    ProvisioningRequest has made the autoscaler add nodes (reference aks-kueue.md §1.3).
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
    """The seed's mirror is ``mcr.azk8s.cn/azurelinux/busybox:1.36``."""
    command: list[str] = Field(default=["sh", "-c", "echo running on $(hostname); sleep 30"], min_length=1)
    restart_policy: Literal["Never", "OnFailure"] = "Never"
    timeout_seconds: int = Field(default=1200, ge=60, le=7200)
    """How long ``pulumi up`` waits for completion: a ProvisioningRequest scale-up takes minutes, and Kueue retries
    a failed one after 60 s, 120 s ... (reference aks-kueue.md §4.4)."""

    @model_validator(mode="after")
    def _parallelism_within_completions(self) -> SmokeJobConfig:
        if self.parallelism > self.completions:
            raise RuleViolation(
                "parallelism", self.parallelism, f"at most completions ({self.completions}); extra pods never start"
            )
        return self
