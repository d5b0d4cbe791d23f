"""AdmissionChecks and ProvisioningRequestConfigs: what a workload passes after quota is reserved, before admission.

Keys mirror the Kueue ``v1beta2`` API. Each rule names where Kueue enforces it at admission time (both kinds have
no validating webhook in Kueue 0.17-0.19, so the CRDs are the whole of it; their schemas are the same in v0.17.8,
v0.18.6 and v0.19.2 but for the ``ac`` and ``prc`` short names of 0.19):

- AdmissionCheck CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_admissionchecks.yaml
- ProvisioningRequestConfig CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_provisioningrequestconfigs.yaml

``queues.provisioningChecks`` pairs one of each for the common case (an AdmissionCheck run by Kueue's
ProvisioningRequest controller, pointing at its own config); ``queues.admissionChecks`` and
``queues.provisioningRequestConfigs`` write either kind on its own, for any controller.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, model_validator

from components.config.base import (
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    Int32,
    key_path,
    refuse_renamed_keys,
    require_unique,
)
from components.config.kube import LabelKey
from components.config.queues.quota import ResourceName
from components.config.rules import rule

_PRC_MAP_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/provisioningrequestconfig_types.go#L103"
)
_PRC_SET_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/provisioningrequestconfig_types.go#L63"
)
_PRC_TYPES_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/provisioningrequestconfig_types.go"
)

API_GROUP = "kueue.x-k8s.io"
"""The API group of every Kueue object, ProvisioningRequestConfigs included."""
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
"""The AdmissionCheck controller that turns a reserved Workload into a ProvisioningRequest."""
PROVISIONING_CONFIG_KIND = "ProvisioningRequestConfig"
MULTIKUEUE_CONFIG_KIND = "MultiKueueConfig"
"""The kind a MultiKueue AdmissionCheck's parameters name: the list of worker clusters."""

ParameterValue = Annotated[str, StringConstraints(max_length=255)]
"""A ProvisioningRequest parameter value: ProvisioningRequestConfig CRD ``spec.parameters`` values have
``maxLength: 255``."""
ParametersKind = Annotated[str, StringConstraints(pattern=r"^[A-Za-z]([-A-Za-z0-9]*[A-Za-z0-9])?$", max_length=63)]
"""A kind as AdmissionCheck CRD ``spec.parameters.kind`` takes it (``^(?i)[a-z]([-a-z0-9]*[a-z0-9])?$``, ≤ 63)."""


class RetryStrategy(ConfigModel):
    """How often Kueue recreates a failed ProvisioningRequest; unset fields keep Kueue's 3 / 60 s / 1800 s.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestRetryStrategy
    """

    backoff_limit_count: Int32 | None = Field(default=None, ge=0)
    """Requeues of a Workload whose ProvisioningRequest failed, after which Kueue deactivates it (Kueue's default
    3)."""
    backoff_base_seconds: Int32 | None = Field(default=None, ge=0)
    """The first retry's delay, doubled on each retry (Kueue's default 60); 0 retries at once, as Kueue's own
    provisioning example does."""
    backoff_max_seconds: Int32 | None = Field(default=None, ge=0)
    """The longest delay between retries (Kueue's default 1800)."""


class PodSetNodeSelectorUpdate(ConfigModel):
    """A node selector entry Kueue adds to admitted pods, its value read from the ProvisioningRequest's class details.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestPodSetUpdatesNodeSelector
    """

    key: LabelKey
    """The node label key the pods select on."""
    value_from_provisioning_class_detail: str = Field(min_length=1, max_length=32768)
    """The key of ``status.provisioningClassDetails`` whose value becomes the selector's value."""


class PodSetUpdates(ConfigModel):
    """What Kueue changes in the admitted pods once their ProvisioningRequest is provisioned.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestPodSetUpdates
    """

    node_selector: list[PodSetNodeSelectorUpdate] | None = Field(default=None, max_length=8)
    """Node selector entries, one per key (a list map keyed by ``key``, at most 8: the CRD's limits)."""

    @model_validator(mode="after")
    @rule("queues.each-key-once", source=_PRC_MAP_URL)
    def _each_key_once(self) -> PodSetUpdates:
        """Each node-selector key once in ``podSetUpdates``, because the CRD keys that list by ``key`` and the API
        server refuses a repeat."""
        keys = [entry.key for entry in self.node_selector or []]
        require_unique(keys, lambda i: key_path("nodeSelector", i, "key"), "node selector keys")
        return self


class ProvisioningRequestSpec(ConfigModel):
    """The ``spec`` of a ProvisioningRequestConfig: how Kueue asks the autoscaler for a workload's nodes.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-ProvisioningRequestConfigSpec
    """

    provisioning_class_name: DnsSubdomain = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
    """The ProvisioningRequest class (``spec.provisioningClassName``); the default is Azure's article's class: the
    autoscaler adds all requested nodes in one atomic increase."""
    managed_resources: list[ResourceName] | None = Field(default=None, max_length=100)
    """Only pod sets requesting one of these go into the ProvisioningRequest; unset means every resource
    (``spec.managedResources``, a set of at most 100: the CRD's limits)."""
    retry_strategy: RetryStrategy | None = None
    """How Kueue retries a failed ProvisioningRequest (``spec.retryStrategy``); unset keeps Kueue's defaults."""
    parameters: dict[str, ParameterValue] | None = Field(default=None, max_length=100)
    """Parameters passed to the ProvisioningRequest class (``spec.parameters``, at most 100, each value at most 255
    characters: the CRD's limits)."""
    pod_set_updates: PodSetUpdates | None = None
    """What Kueue adds to the admitted pods from the provisioned class details (``spec.podSetUpdates``)."""
    pod_set_merge_policy: Literal["IdenticalPodTemplates", "IdenticalWorkloadSchedulingRequirements"] | None = None
    """Merge pod sets whose pods are alike into one ProvisioningRequest pod set (``spec.podSetMergePolicy``); unset
    keeps one pod set each."""

    @model_validator(mode="before")
    @classmethod
    @rule("queues.no-v1beta1-fields", source=_PRC_TYPES_URL)
    def _no_v1beta1_fields(cls, data: Any) -> Any:
        """No v1beta1 ``retryDelayMinutes``, because v1beta2 removed it in favour of ``retryStrategy``."""
        return refuse_renamed_keys(
            data, {"retryDelayMinutes": "it is a Kueue v1beta1 field; v1beta2 removed it, use retryStrategy"}
        )

    @model_validator(mode="after")
    @rule("queues.managed-resources-are-a-set", source=_PRC_SET_URL)
    def _managed_resources_are_a_set(self) -> ProvisioningRequestSpec:
        """ProvisioningRequestConfig CRD ``spec.managedResources`` is ``x-kubernetes-list-type: set``: the API server
        refuses a repeated entry."""
        resources = self.managed_resources or []
        require_unique(resources, lambda i: key_path("managedResources", i), "managed resources")
        return self


class ProvisioningRequestConfigConfig(ProvisioningRequestSpec):
    """A ProvisioningRequestConfig on its own, for an AdmissionCheck of ``queues.admissionChecks`` to point at."""

    name: DnsLabel
    """The object's name; AdmissionCheck ``spec.parameters.name`` only takes a DNS-1123 label (≤ 63)."""


class ProvisioningCheckConfig(ProvisioningRequestSpec):
    """One ProvisioningRequest gate: an AdmissionCheck ``name`` run by Kueue's ProvisioningRequest controller, plus
    the ProvisioningRequestConfig ``configName`` it points at."""

    name: DnsSubdomain
    """The AdmissionCheck's name, which ClusterQueues list in ``admissionChecksStrategy``."""
    config_name: DnsLabel
    """The ProvisioningRequestConfig's name, which the AdmissionCheck's ``parameters`` point at (a DNS-1123 label:
    AdmissionCheck CRD ``spec.parameters.name``)."""

    def admission_check(self) -> AdmissionCheckConfig:
        """The AdmissionCheck half of the pair."""
        parameters = CheckParameters(api_group=API_GROUP, kind=PROVISIONING_CONFIG_KIND, name=self.config_name)
        return AdmissionCheckConfig(name=self.name, controller_name=PROVISIONING_CONTROLLER, parameters=parameters)

    def provisioning_request_config(self) -> ProvisioningRequestConfigConfig:
        """The ProvisioningRequestConfig half of the pair."""
        spec = self.model_dump(exclude={"name", "config_name"}, exclude_unset=True)
        return ProvisioningRequestConfigConfig(name=self.config_name, **spec)


class CheckParameters(ConfigModel):
    """The object holding an AdmissionCheck's parameters, read by its controller.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionCheckParametersReference
    """

    api_group: DnsSubdomain
    """The API group of the parameters object, e.g. ``kueue.x-k8s.io``."""
    kind: ParametersKind
    """The kind of the parameters object, e.g. ``ProvisioningRequestConfig``."""
    name: DnsLabel
    """The name of the parameters object (a DNS-1123 label: the CRD's pattern)."""

    @property
    def is_provisioning_config(self) -> bool:
        return self.api_group == API_GROUP and self.kind == PROVISIONING_CONFIG_KIND

    @property
    def is_multikueue_config(self) -> bool:
        return self.api_group == API_GROUP and self.kind == MULTIKUEUE_CONFIG_KIND


class AdmissionCheckConfig(ConfigModel):
    """An AdmissionCheck run by any controller: Kueue's ProvisioningRequest or MultiKueue controller, or your own.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-AdmissionCheckSpec
    """

    name: DnsSubdomain
    """The AdmissionCheck's name, which ClusterQueues list in ``admissionChecksStrategy``."""
    controller_name: str = Field(min_length=1, max_length=253)
    """The controller that sets the check's state, e.g. ``kueue.x-k8s.io/provisioning-request`` (immutable once
    created: the CRD's CEL rule)."""
    parameters: CheckParameters | None = None
    """The object the controller reads its parameters from; unset when the controller takes none."""

    @property
    def runs_provisioning_requests(self) -> bool:
        """Whether Kueue's ProvisioningRequest controller runs the check (Kueue then needs the CRD at start-up)."""
        return self.controller_name == PROVISIONING_CONTROLLER
