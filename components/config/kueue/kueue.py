"""The ``kueue`` section: the Kueue Helm install and its readiness gate.

Defaults follow Azure's article "Provision capacity for Kueue batch jobs with the cluster autoscaler on AKS"
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler): chart ``kueue`` from
``oci://registry.k8s.io/kueue/charts/kueue`` installed as release ``kueue`` in ``kueue-system``, pulled from globally
reachable registries (:mod:`components.config.kueue.registries` checks each source against the stack's cloud). The
article pins Kueue 0.17.1; the default here is the newest verified patch of the newest supported minor
(:mod:`components.config.kueue.profiles` says what each minor changes).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from components.config.base import PROJECT, ConfigModel, DnsLabel, MisplacedKey, RuleViolation, key_path, require_unique
from components.config.environment import stack_file_only
from components.config.kube import (
    NAMESPACE_NAME_LABEL,
    LabelSelector,
    LabelSelectorRequirement,
    Quantity,
    Toleration,
    quantity_value,
)
from components.config.kueue import extension as kueue_extension
from components.config.kueue import gates as kueue_gates
from components.config.kueue import kubectl_image
from components.config.kueue import manager as kueue_manager
from components.config.kueue import profiles as kueue_profiles
from components.config.kueue.extension import KueueExtensionConfig
from components.config.kueue.kubectl_image import KUBECTL_REPOSITORY
from components.config.kueue.manager import (
    AdmissionFairSharingSettings,
    FairSharingSettings,
    MetricsSettings,
    MultiKueueManagerSettings,
    ObjectRetentionPolicies,
    ResourcesSettings,
    WaitForPodsReadySettings,
)
from components.config.kueue.profiles import LATEST_CHART_VERSION, KueueProfile, UnsupportedVersion
from components.config.kueue.registries import CHART_REFERENCE, IMAGE_REPOSITORY, Source
from components.config.rules import rule

_CONTAINER_RESOURCES_URL = "https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/"
_HELM_OCI_URL = "https://helm.sh/docs/topics/registries/"
_KUBECTL_SKEW_URL = "https://kubernetes.io/releases/version-skew-policy/#kubectl"
_KUEUE_HELM_URL = "https://kueue.sigs.k8s.io/docs/installation/#install-by-helm"
_MULTIKUEUE_SETUP_URL = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/"
_VALIDATION_INTEGRATIONS_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L311"

_BOOLEAN_WORDS = {"true", "false", "yes", "no", "on", "off", "y", "n", "t", "f", "1", "0"}


class Resources(ConfigModel):
    """Container requests and limits for cpu and memory (core ``ResourceRequirements``,
    https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#resources)."""

    requests: dict[Literal["cpu", "memory"], Quantity]
    """What the scheduler reserves for the container: ``cpu`` and ``memory`` quantities."""
    limits: dict[Literal["cpu", "memory"], Quantity]
    """The most the container may use: ``cpu`` and ``memory`` quantities, each at least its request."""

    @model_validator(mode="after")
    @rule("kueue.requests-within-limits", source=_CONTAINER_RESOURCES_URL)
    def _requests_within_limits(self) -> Resources:
        """Kueue's resource requests no larger than its limits, because the API server refuses such a container."""
        for name, request in self.requests.items():
            limit = self.limits.get(name)
            if limit is not None and quantity_value(request) > quantity_value(limit):
                raise RuleViolation(key_path("requests", name), request, f"it must not exceed limits.{name} {limit}")
        return self


@rule("kueue.kubectl-repository-or-release", source=_KUBECTL_SKEW_URL)
def _kubectl_repository_or_release(value: str) -> str:
    """A repository to tag, or an image whose tag names a kubectl release (``v1.35.9``) or that a digest pins."""
    repository, tag = kubectl_image.split_reference(value)
    if not IMAGE_REPOSITORY.match(repository) or (tag is not None and kubectl_image.tag_minor(tag) is None):
        raise ValueError(
            f"write a repository such as {KUBECTL_REPOSITORY} (its tag follows the cluster's minor) or an image "
            "tagged with its kubectl version, such as v1.35.9"
        )
    return value


ProbeImage = Annotated[str, AfterValidator(_kubectl_repository_or_release)]
"""The readiness gate's kubectl image: a repository, or an image tagged with its kubectl version or pinned by digest."""


class ReadinessGateConfig(ConfigModel):
    """The Job that proves Kueue's webhooks admit objects before anything else talks to Kueue.

    Kueue's Deployment reports Ready 10-30 s before its webhook serves
    (https://github.com/kubernetes-sigs/kueue/issues/13036), and pulumi-kubernetes does not retry webhook errors, so
    every Kueue object waits for this Job instead.
    """

    probe_image: ProbeImage = KUBECTL_REPOSITORY
    """kubectl for the server-side dry-run probe: a repository, whose tag follows the Kubernetes minor of the cluster
    the gate runs on (``v<minor>.<patch>``, components/config/kueue/kubectl_image.py), as kubectl is supported within
    one minor of the API server. A tag or digest of your own is kept, and a tag is refused unless it is within one minor
    of the cluster wherever the stack knows the cluster's version. The probe runs kubectl alone, so a distroless image
    such as registry.k8s.io/kubectl serves. Its Azure China mirror is ``registryk8s.azk8s.cn/kubectl``."""
    backoff_limit: int = Field(default=6, ge=1, le=20)
    """Failed probe pods before the gate gives up; the Job controller backs off 10 s, 20 s, 40 s ... between them,
    so the default covers the 10-30 s webhook window several times over."""
    timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """Upper bound for the whole gate (the Job's ``activeDeadlineSeconds`` and Pulumi's await timeout)."""
    crd_timeout_seconds: int = Field(default=600, ge=60, le=3600)
    """How long ``pulumi up`` waits, before the chart, for the ProvisioningRequest CRD to be created and Established,
    when a queue uses a ProvisioningRequest check and ``queues.waitUntilActive.onInactive`` is ``fail``: Kueue sets up
    its provisioning controller only if the CRD exists when it starts
    (https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/cmd/kueue/main.go), and nothing public says how soon after
    the first autoscaling pool AKS serves it. Past this bound the wait fails saying what to do before Kueue is
    installed, so running ``up`` again once the CRD exists is the whole remedy. Bounded so that a region without the
    CRD fails the ``up``; the default is the gate's own ``timeoutSeconds``."""

    def image_for(self, minor: tuple[int, int]) -> str:
        """The probe image on a cluster of Kubernetes ``minor``."""
        return kubectl_image.for_cluster(self.probe_image, minor)


def _default_tolerations() -> list[Toleration]:
    return [Toleration(key="CriticalAddonsOnly", operator="Exists", effect="NoSchedule")]


OPT_IN_LABEL = ("managed-by-kueue", "true")
"""The namespace label Kueue's opt-in guide selects managed namespaces by
(https://kueue.sigs.k8s.io/docs/tasks/manage/enforce_job_management/opt_in_namespace_management/)."""


def _default_managed_jobs_namespace_selector() -> LabelSelector:
    return LabelSelector(match_labels=dict([OPT_IN_LABEL]))


PROTECTED_NAMESPACE = "kube-system"
"""The namespace besides its own that Kueue's ``managedJobsNamespaceSelector`` must never match."""


def kueue_default_selector() -> LabelSelector:
    """Kueue's own default: every namespace but ``kube-system`` and Kueue's. The opt-out of the opt-in default."""
    return LabelSelector(
        match_expressions=[
            LabelSelectorRequirement(
                key=NAMESPACE_NAME_LABEL, operator="NotIn", values=[PROTECTED_NAMESPACE, "kueue-system"]
            )
        ]
    )


CUSTOM_LABELS = "CustomMetricLabels"

SHARED_KUEUE_KEYS = ("install", "namespace", "managed_jobs_namespace_selector")
"""The keys that still mean something with ``install: false``: where the cluster's Kueue runs, and which namespaces
its Job webhook manages."""
EXTENSION_KEYS = (*SHARED_KUEUE_KEYS, "extension", "readiness_gate", "tolerations", "node_selector")
"""The keys that mean something with ``install: aks-extension``: the shared ones, the extension's own, and the
readiness gate with where its pods run. Every other key configures the chart, which the extension replaces."""


class KueueConfig(ConfigModel):
    """How Kueue is installed: chart source and version, manager settings, and the readiness gate."""

    install: bool | Literal["aks-extension"] = True
    """``true`` installs Kueue's Helm chart. ``false`` uses the Kueue the cluster already runs (only with
    ``existingCluster``): the stack creates no namespace, chart, CRD, readiness gate or RBAC of its own, only its
    queue objects. Describe that Kueue with ``namespace`` and ``managedJobsNamespaceSelector``; the install keys are
    refused. ``aks-extension`` installs AKS's managed Kueue extension (preview) pinned to ``extension.version``
    instead of the chart, behind the same readiness gate (docs/kueue-extension.md); the chart's keys are refused."""
    extension: KueueExtensionConfig | None = None
    """``install: aks-extension`` only: the extension's pinned version and the preview acknowledgement."""
    chart_repository: str = "oci://registry.k8s.io/kueue/charts/kueue"
    """The chart's OCI reference (the chart itself) or an https Helm repository serving a chart named ``kueue``.
    Helm pulls it on the machine running ``pulumi``, at preview as well as at up. Azure's China article uses
    ``oci://k8sgcr.azk8s.cn/kueue/charts/kueue``, which only Azure China addresses can reach."""
    chart_version: str = LATEST_CHART_VERSION
    """A patch of Kueue 0.17 (from 0.17.1), 0.18 (from 0.18.6) or 0.19 (from 0.19.2), without a ``v``; each minor's
    profile in components/config/kueue/profiles.py says what it changes. Azure's article pins 0.17.1, a line out of
    support; a newer minor is refused until its profile is added."""
    namespace: DnsLabel = "kueue-system"
    """The namespace Kueue is installed in (created by the stack). Keep the default: Kueue's webhooks break in other
    namespaces (https://github.com/kubernetes-sigs/kueue/issues/3794)."""
    release_name: DnsLabel = "kueue"
    """The Helm release name. The default keeps object names as in Kueue's docs (``kueue-controller-manager``,
    ``kueue-webhook-service``): the chart uses the release name as is when it contains ``kueue``."""
    replicas: int = Field(default=1, ge=1, le=5)
    """Kueue manager replicas; the default is the chart's, 2 in production stacks (``1`` there is the opt-out).
    Leader election is on, so more replicas only add failover; from 2 on the chart's PodDisruptionBudget
    (``minAvailable: 1``) is on too, so a node drain never takes both."""
    manager_resources: Resources = Field(
        default_factory=lambda: Resources(
            requests={"cpu": "500m", "memory": "512Mi"}, limits={"cpu": "2", "memory": "512Mi"}
        )
    )
    """The Kueue manager container's requests and limits; the default is the chart's (the same in 0.17-0.19)."""
    image_repository: str = "registry.k8s.io/kueue/kueue"
    """The manager image without tag; the chart adds its tag ``v<chart version>``. The default is where the
    published chart points; other sources are Azure's ``mcr.microsoft.com/oss/v2/kueue/kueue`` or, in Azure China,
    the proxy ``registryk8s.azk8s.cn/kueue/kueue``."""
    tolerations: list[Toleration] = Field(default_factory=_default_tolerations)
    """Tolerations of the Kueue manager and the readiness gate's pods. The default lets them run on an AKS system pool
    tainted ``CriticalAddonsOnly``, as the Terraform of
    https://github.com/Azure/AKS/tree/master/examples/kueue-and-ray-on-aks does."""
    node_selector: dict[str, str] = Field(default_factory=lambda: {"kubernetes.azure.com/mode": "system"})
    """The node selector of the Kueue manager and the readiness gate's pods. On AKS (new or existing) the default keeps
    them on the system pool, off the autoscaled pools Kueue scales; with ``existingCluster.source: kubeconfig``, which
    may be any cluster, it is ``{}``."""
    frameworks: list[str] = Field(default=["batch/job"], min_length=1)
    """Job integrations Kueue manages (``integrations.frameworks`` of the manager Configuration,
    https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/); the article only submits ``batch/v1`` Jobs."""
    feature_gates: dict[str, bool] = Field(default_factory=dict)
    """Kueue feature gates by name, on or off
    (https://kueue.sigs.k8s.io/docs/installation/#change-the-feature-gates-configuration); none is needed for
    ProvisioningRequests since 0.15."""
    fair_sharing: FairSharingSettings | None = None
    """Fair sharing among the ClusterQueues and Cohorts of a cohort (``fairSharing`` of the manager Configuration);
    their ``fairSharing.weight`` counts only with it. Unset leaves it off, as Kueue does."""
    admission_fair_sharing: AdmissionFairSharingSettings | None = None
    """Admission fair sharing among the LocalQueues of a ClusterQueue (``admissionFairSharing`` of the manager
    Configuration); needed by ``admissionScope`` and LocalQueue ``fairSharing``. Unset leaves it off."""
    resources: ResourcesSettings | None = None
    """Which requested resources count against quota and how they are transformed first (``resources`` of the
    manager Configuration)."""
    wait_for_pods_ready: WaitForPodsReadySettings | None = None
    """Evict admitted workloads whose pods are not ready in time (``waitForPodsReady`` of the manager
    Configuration). Unset leaves it to Kueue: off up to 0.18; from 0.19 on with a 30m timeout (kueue#11855), unless
    ``featureGates.DisableWaitForPodsReady`` is true."""
    object_retention_policies: ObjectRetentionPolicies | None = None
    """When Kueue deletes finished or deactivated Workloads (``objectRetentionPolicies`` of the manager
    Configuration). Unset keeps them."""
    multi_kueue: MultiKueueManagerSettings | None = None
    """Set from the top-level ``multiKueue`` section when the stack has one; refused here."""
    metrics: MetricsSettings | None = None
    """Custom labels on Kueue's queue metrics (``metrics.customLabels`` of the manager Configuration)."""
    managed_jobs_namespace_selector: LabelSelector = Field(default_factory=_default_managed_jobs_namespace_selector)
    """Namespaces whose Jobs Kueue manages (``managedJobsNamespaceSelector`` of the manager Configuration). Always
    written to the manager config: only then does the chart give Kueue's ``failurePolicy: Fail`` Job
    webhook a namespaceSelector, instead of intercepting every Job in the cluster
    (https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/charts/kueue/templates/webhook/manifests.yaml). The
    default is opt-in, ``managed-by-kueue: "true"``, which the stack puts on the namespaces of its LocalQueues (created
    or existing), so a Kueue outage blocks Jobs there and nowhere else. Kueue's own default, every namespace but
    ``kube-system`` and ``kueue-system``, is the opt-out: ``{matchExpressions: [{key: kubernetes.io/metadata.name,
    operator: NotIn, values: [kube-system, kueue-system]}]}``. With ``install: false`` describe the cluster's Kueue."""
    readiness_gate: ReadinessGateConfig = Field(default_factory=ReadinessGateConfig)
    """The Job every Kueue object waits for, which proves Kueue's webhooks admit objects."""

    @stack_file_only("kueue.multikueue-comes-from-its-section", source=_MULTIKUEUE_SETUP_URL)
    def _multikueue_comes_from_its_section(cls, data: Any) -> Any:
        """No ``kueue.multiKueue`` in the stack file, because the top-level ``multiKueue`` section configures MultiKueue
        and the resolution writes the manager's settings from it."""
        if isinstance(data, dict) and ("multiKueue" in data or "multi_kueue" in data):
            raise MisplacedKey("multiKueue", "MultiKueue is configured by the top-level multiKueue section")
        return data

    @field_validator("install", mode="before")
    @classmethod
    @rule("kueue.one-of-three-installs", source=_KUEUE_HELM_URL)
    def _one_of_three_installs(cls, value: Any) -> Any:
        """``install`` true (the chart), false (the cluster's own Kueue) or ``aks-extension``, because no other install
        exists."""
        if not isinstance(value, str) or value == kueue_extension.INSTALL or value.lower() in _BOOLEAN_WORDS:
            return value  # pydantic reads the rest as a boolean, as it reads every boolean key
        allowed = "true (Kueue's Helm chart), false (the cluster's own Kueue) or aks-extension (AKS's managed one)"
        raise RuleViolation("", value, allowed)

    @model_validator(mode="after")
    @rule("kueue.install-keys-only-with-an-install", source=_KUEUE_HELM_URL)
    def _install_keys_only_with_an_install(self) -> KueueConfig:
        """With ``install: false`` a chart, image or manager setting would be silently ignored: refuse it. So would
        the chart's keys with the extension, which takes no settings from this stack (none is documented)."""
        if self.install is True:
            if self.extension is not None:
                raise MisplacedKey("extension", "it configures install aks-extension; install true uses the chart")
            return self
        extension = self.install == kueue_extension.INSTALL
        kept, why = (
            (EXTENSION_KEYS, "install is aks-extension: the managed extension takes no chart or manager settings")
            if extension
            else (SHARED_KUEUE_KEYS, "install is false: the cluster's own Kueue is used and nothing is installed")
        )
        for name in type(self).model_fields:
            if name in self.model_fields_set and name not in kept:
                raise MisplacedKey(type(self).model_fields[name].alias or name, why)
        if extension and self.extension is None:
            raise RuleViolation("extension", None, "install aks-extension needs extension.version (and acceptPreview)")
        if extension and self.namespace != kueue_extension.RELEASE_NAMESPACE:
            allowed = f"the managed extension is installed in {kueue_extension.RELEASE_NAMESPACE}, as AKS documents"
            raise RuleViolation("namespace", self.namespace, allowed)
        return self

    @model_validator(mode="after")
    @rule("kueue.chart-and-image-sources", source=_HELM_OCI_URL)
    def _chart_and_image_sources(self) -> KueueConfig:
        """A chart reference Helm can pull, a version this program is tested with, an image without a tag."""
        if not CHART_REFERENCE.match(self.chart_repository):
            raise RuleViolation("chartRepository", self.chart_repository, "use an oci:// or https:// reference")
        try:
            kueue_profiles.profile_for(self.chart_version)
        except UnsupportedVersion as unsupported:
            raise RuleViolation("chartVersion", self.chart_version, str(unsupported)) from None
        if not IMAGE_REPOSITORY.match(self.image_repository):
            raise RuleViolation(
                "imageRepository",
                self.image_repository,
                "a repository without tag, e.g. mcr.microsoft.com/oss/v2/kueue/kueue",
            )
        return self

    @model_validator(mode="after")
    @rule("kueue.known-frameworks-and-gates", source=_VALIDATION_INTEGRATIONS_URL)
    def _known_frameworks_and_gates(self) -> KueueConfig:
        """Integrations and feature gates the installed minor's manager starts with; it refuses unknown or removed
        ones."""
        known = self.profile.known_frameworks
        for index, framework in enumerate(self.frameworks):
            if framework not in known:
                allowed = f"known frameworks: {list(known)}"
                raise RuleViolation(key_path("frameworks", index), framework, allowed)
        require_unique(self.frameworks, lambda index: key_path("frameworks", index), "frameworks")
        kueue_gates.require_valid(self.feature_gates, self.profile)
        on = kueue_gates.effective(self.feature_gates, self.profile)
        if self.metrics and self.metrics.custom_labels and not on[CUSTOM_LABELS]:
            allowed = f"Kueue ignores it unless featureGates.{CUSTOM_LABELS} is true"
            raise RuleViolation("metrics.customLabels", [label.name for label in self.metrics.custom_labels], allowed)
        kueue_manager.require_what_the_minor_accepts(self, self.profile, on)
        return self

    @model_validator(mode="after")
    @rule("kueue.selector-spares-kube-system-and-kueue")
    def _selector_spares_kube_system_and_kueue(self) -> KueueConfig:
        """Kueue's manager refuses a selector that matches ``kube-system`` or its own namespace, each judged by its
        name label alone, and exits at start (``validateManagedJobsNamespaceSelector`` in
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go, same in v0.17.8-v0.19.2); its
        own namespace is also where the readiness gate's Job runs, which the Job webhook must not suspend."""
        for namespace in (PROTECTED_NAMESPACE, self.namespace):
            if self.manages_namespace(namespace):
                raise RuleViolation(
                    "managedJobsNamespaceSelector",
                    self.managed_jobs_namespace_selector.model_dump(by_alias=True, exclude_defaults=True),
                    f"it must not match the {namespace!r} namespace ({NAMESPACE_NAME_LABEL}: {namespace}): Kueue's "
                    f"manager refuses such a selector and exits at start; e.g. {NAMESPACE_NAME_LABEL} NotIn "
                    f"[{PROTECTED_NAMESPACE}, {self.namespace}]",
                )
        return self

    @property
    def kueue_version(self) -> str:
        """The Kueue release installed: ``chartVersion``, or the upstream release of the extension's version."""
        return self.extension.kueue_version if self.extension is not None else self.chart_version

    @property
    def version_key(self) -> str:
        """The key that sets :attr:`installed_version`, relative to the section."""
        return "extension.version" if self.extension is not None else "chartVersion"

    @property
    def pinned_key(self) -> str:
        """The full key of :attr:`version_key`: what the deploy-time version pin names when it refuses a version."""
        return f"{PROJECT}:kueue.{self.version_key}"

    @property
    def installed_version(self) -> str:
        """What identifies the install: ``chartVersion``, or the extension's full version (``0.19.6-aks.0.4.4``)."""
        return self.extension.version if self.extension is not None else self.chart_version

    @property
    def profile(self) -> KueueProfile:
        """The profile of the installed Kueue's minor (checked when the config loads)."""
        return kueue_profiles.profile_for(self.kueue_version)

    def manages_namespace(self, namespace: str, labels: dict[str, str] | None = None) -> bool:
        """Whether Kueue manages Jobs in ``namespace``, which carries its name label and ``labels``."""
        return self.managed_jobs_namespace_selector.matches({**(labels or {}), NAMESPACE_NAME_LABEL: namespace})

    @property
    def managed_namespace_labels(self) -> dict[str, str]:
        """The labels the stack puts on the LocalQueue namespaces it creates so that Kueue manages their Jobs: the
        ``matchLabels`` of ``managedJobsNamespaceSelector`` (e.g. Kueue's opt-in ``kueue-managed: "true"``), the
        name label aside."""
        labels = self.managed_jobs_namespace_selector.match_labels or {}
        return {key: value for key, value in labels.items() if key != NAMESPACE_NAME_LABEL}

    def sources(self) -> list[Source]:
        """Every chart and image the install pulls, with its key under ``kueue``; none without an install, only the
        gate's with the extension (AKS pulls the extension's own)."""
        if not self.install:
            return []
        defaults = KueueConfig()
        gate = Source("readinessGate.probeImage", self.readiness_gate.probe_image, defaults.readiness_gate.probe_image)
        if self.extension is not None:
            return [gate]
        return [
            Source("chartRepository", self.chart_repository, defaults.chart_repository),
            Source("imageRepository", self.image_repository, defaults.image_repository),
            gate,
        ]
