"""MultiKueueConfigs and MultiKueueClusters as queue objects of their own, as Kueue's guide writes them.

The top-level ``multiKueue`` section builds a burst set-up whole: its workers' credentials, their MultiKueueClusters
and the MultiKueueConfig listing them. These two lists say the objects themselves instead
(https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/), for a manager whose workers' kubeconfigs someone else
provides: a Secret in Kueue's namespace (key ``kubeconfig``) or a file on the manager's pod, neither made by the stack.
Kueue has no webhook for either kind; the rules below are the CRDs' (same in v0.17.8-v0.19.2 but where noted):

- MultiKueueConfig CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_multikueueconfigs.yaml
- MultiKueueCluster CRD: https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_multikueueclusters.yaml

What needs a manager setting, a gate or a minor (``quotaManagement`` from 0.18 with
``MultiKueueManagerQuotaAutomation`` for ``Automated``, ``clusterProfileRef`` with ``MultiKueueClusterProfile``) is
checked with the manager's settings in :mod:`components.config.kueue.rules`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from components.config.base import DNS1123_SUBDOMAIN, ConfigModel, DnsSubdomain, RuleViolation, key_path, require_unique
from components.config.rules import rule

_MKCL_CRD_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_multikueueclusters.yaml#L239"
_MKC_CRD_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_multikueueconfigs.yaml#L97"
_MK_TYPES_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/apis/kueue/v1beta2/multikueue_types.go#L47"

PATH_PREFIX = "/etc/multikueue/kubeconfigs/"
"""Where ``MultiKueueKubeConfigPathValidation`` (0.19, alpha) lets a ``Path`` kubeconfig be
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/tasks/manage/setup_multikueue.md)."""


class MultiKueueConfigObject(ConfigModel):
    """A MultiKueueConfig: the workers a MultiKueue AdmissionCheck dispatches to, most preferred first.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-MultiKueueConfigSpec
    """

    name: Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=63)]
    """The MultiKueueConfig's name, which a MultiKueue AdmissionCheck's ``parameters.name`` names (so at most 63: that
    field's limit)."""
    clusters: list[DnsSubdomain] = Field(min_length=1, max_length=20)
    """The MultiKueueClusters, each once (1..20: the CRD's limits), in the order the incremental dispatcher tries
    them (0.19's ``MultiKueueIncrementalDispatcherRespectConfigOrder``, on by default); each one of
    ``queues.multiKueueClusters`` or ``queues.external.multiKueueClusters``."""
    quota_management: Literal["Manual", "Automated"] | None = None
    """``Automated`` lets MultiKueue set the manager ClusterQueue's quota from the workers' (Kueue 0.18 or newer, with
    ``kueue.featureGates.MultiKueueManagerQuotaAutomation: true``); unset keeps Kueue's ``Manual``."""

    @model_validator(mode="after")
    @rule("queues-multikueue.clusters-unique", source=_MKC_CRD_URL)
    def _clusters_unique(self) -> MultiKueueConfigObject:
        """CEL on MultiKueueConfig ``spec.clusters``: "must be unique"."""
        require_unique(self.clusters, lambda i: key_path("clusters", i), "clusters")
        return self


class KubeConfigSource(ConfigModel):
    """Where the manager reads a worker's kubeconfig: a Secret in Kueue's namespace, or a file on its pod."""

    location_type: Literal["Secret", "Path"] | None = None
    """``Secret`` (the CRD's default): ``location`` is a Secret in Kueue's namespace whose ``kubeconfig`` key holds
    it; ``Path``: a file on the manager's pod, which the stack does not mount."""
    location: str = Field(min_length=1, max_length=256)
    """The Secret's name, or the file's absolute path (at most 256: the CRD's limit)."""

    @model_validator(mode="after")
    @rule("queues-multikueue.location-of-its-type", source=_MK_TYPES_URL)
    def _location_of_its_type(self) -> KubeConfigSource:
        """A Secret's name is a DNS subdomain, or the API server refuses it and the cluster stays ``BadKubeConfig``;
        a path is absolute and free of ``..`` (what 0.19's ``MultiKueueKubeConfigPathValidation`` enforces; a
        relative one would be read from the manager's working directory)."""
        if self.location_type == "Path":
            if not self.location.startswith("/") or ".." in self.location.split("/"):
                allowed = f"a Path location is absolute and has no '..', e.g. {PATH_PREFIX}worker1.kubeconfig"
                raise RuleViolation("location", self.location, allowed)
            return self
        if not re.match(DNS1123_SUBDOMAIN, self.location) or len(self.location) > 253:
            allowed = "a Secret location is the Secret's name in Kueue's namespace: a DNS-1123 subdomain"
            raise RuleViolation("location", self.location, allowed)
        return self


class ClusterProfileRef(ConfigModel):
    """A ClusterProfile of the Cluster Inventory API (https://github.com/kubernetes-sigs/cluster-inventory-api)."""

    name: str = Field(min_length=1, max_length=256)
    """The ClusterProfile's name; needs ``kueue.featureGates.MultiKueueClusterProfile: true`` (alpha)."""


class ClusterSource(ConfigModel):
    """How the manager reaches the worker: exactly one of a kubeconfig and a ClusterProfile."""

    kube_config: KubeConfigSource | None = None
    """A kubeconfig the user provides (a Secret or a file)."""
    cluster_profile_ref: ClusterProfileRef | None = None
    """A ClusterProfile (``MultiKueueClusterProfile`` gate)."""

    @model_validator(mode="after")
    @rule("queues-multikueue.one-cluster-source", source=_MKCL_CRD_URL)
    def _one_cluster_source(self) -> ClusterSource:
        """CEL on MultiKueueCluster ``spec.clusterSource``: "exactly one of the fields in [kubeConfig
        clusterProfileRef] must be set"."""
        if (self.kube_config is None) == (self.cluster_profile_ref is None):
            given = [key for key, value in (("kubeConfig", self.kube_config),
                                            ("clusterProfileRef", self.cluster_profile_ref)) if value]  # fmt: skip
            raise RuleViolation("", given, "exactly one of kubeConfig and clusterProfileRef")
        return self


class MultiKueueClusterObject(ConfigModel):
    """A MultiKueueCluster: one worker the manager dispatches to.

    https://kueue.sigs.k8s.io/docs/reference/kueue.v1beta2/#kueue-x-k8s-io-v1beta2-MultiKueueClusterSpec
    """

    name: DnsSubdomain
    """The MultiKueueCluster's name, which MultiKueueConfigs list."""
    cluster_source: ClusterSource
    """Where its credentials are."""
