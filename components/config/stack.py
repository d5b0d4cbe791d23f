"""The whole stack's configuration: one typed tree read from the project's structured config.

Each top-level key of the stack file (``elastic-capacity:<key>``) is one section; the sections' own rules live in
their modules, and the rules that span sections (a flavor naming a node pool, the smoke Job naming a LocalQueue,
what the environment kind allows) live here. :func:`components.config.loader.load_stack_config` builds it from the
raw config values.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import Field, SecretStr, ValidationInfo, model_validator

from components.config import environment_rules, feasibility, pool_flavors
from components.config.ack.ack import AckConfig
from components.config.aks.aks import AksConfig
from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.aks.pools import POOL_LABEL
from components.config.base import (
    ConfigModel,
    MisplacedKey,
    RuleViolation,
    key_path,
)
from components.config.environment import EnvironmentConfig
from components.config.gitops import GitOpsConfig
from components.config.kueue import cluster as kueue_cluster
from components.config.kueue import extension as kueue_extension
from components.config.kueue import manager as kueue_manager
from components.config.kueue import rules as kueue_rules
from components.config.kueue.kueue import KueueConfig
from components.config.kueue.monitoring import ARMS, AZURE_MANAGED_PROMETHEUS, MonitoringConfig
from components.config.kueue.registries import (
    AZURE_CHINA_MIRRORS,
    AZURE_CHINA_PROXIES,
    NO_AZURE_CHINA_MIRROR,
    is_azure_china_only,
    registry_host,
)
from components.config.kueue.smoke_job import SmokeJobConfig
from components.config.multikueue import rules as multikueue_rules
from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.queues.presets import AKS_WALKTHROUGH, SETTINGS
from components.config.queues.queues import QueuesConfig
from components.config.rules import rule

_AKS_KUEUE_URL = "https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler"
_AMP_CRD_URL = "https://learn.microsoft.com/en-us/azure/azure-monitor/containers/prometheus-metrics-scrape-crd"
_AZURE_NATIVE_URL = "https://www.pulumi.com/registry/packages/azure-native/installation-configuration/"
_CLUSTER_QUEUE_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/cluster_queue.md"
)
_EXTENSION_SOURCE_URL = "https://github.com/MicrosoftDocs/azure-aks-docs/blob/main/articles/aks/kueue-overview.md"
_KUEUE_CONFIG_URL = "https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta2/"
_KUEUE_INSTALL_URL = "https://kueue.sigs.k8s.io/docs/installation/"
_LOCAL_QUEUE_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/local_queue.md"
_MK_SETUP_URL = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/"
_OPT_IN_URL = "https://kueue.sigs.k8s.io/docs/tasks/manage/enforce_job_management/opt_in_namespace_management/"
_PROTECT_URL = "https://www.pulumi.com/docs/iac/concepts/options/protect/"
_PULUMI_SECRETS_URL = "https://www.pulumi.com/docs/iac/concepts/secrets/"
_RESOURCE_FLAVOR_URL = (
    "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/site/content/en/docs/concepts/resource_flavor.md"
)

KUBECONFIG_KEY = "kubeconfig"
"""The secret config key holding the kubeconfig of an existing cluster (``existingCluster.source: kubeconfig``)."""

_EXAMPLE_REGION = {True: "chinanorth3", False: "eastus2"}


def is_azure_china_region(location: str) -> bool:
    """Azure China's regions are the ones named ``china...`` (chinanorth3, chinaeast2 ...); no global region is."""
    return location.replace(" ", "").lower().startswith("china")


class AzureCloud(NamedTuple):
    """The Azure cloud a stack deploys to, and the setting that says so (errors quote it)."""

    china: bool
    because: str

    @property
    def name(self) -> str:
        return "Azure China" if self.china else "global Azure"

    def regions_allowed(self) -> str:
        """What a location setting in another cloud is told."""
        return f"{self.because} targets {self.name}; use one of its regions, e.g. {_EXAMPLE_REGION[self.china]}"


class StackConfig(ConfigModel):
    """Everything one stack deploys. Absent sections deploy nothing; ``queues.preset`` names Azure's article."""

    aks: AksConfig | None = None
    """A new AKS cluster with autoscaling user pools; Kueue and the queues go onto it."""
    existing_cluster: ExistingClusterConfig | None = None
    """Instead of ``aks``: put Kueue and the queues onto a cluster this stack does not create."""
    kubeconfig: SecretStr | None = None
    """The existing cluster's kubeconfig (``existingCluster.source: kubeconfig``); refused unless set as a secret."""
    kueue: KueueConfig = Field(default_factory=KueueConfig)
    """How Kueue is installed (only with ``aks`` or ``existingCluster``)."""
    queues: QueuesConfig = Field(default_factory=QueuesConfig)
    """The Kueue queue objects: the ones written, or ``preset: aks-walkthrough`` for the article's provisioning-gated
    queue; left out, none (Kueue alone)."""
    smoke_job: SmokeJobConfig = Field(default_factory=SmokeJobConfig)
    """The opt-in end-to-end check: the article's Job, which ``pulumi up`` waits to see complete."""
    ack: AckConfig | None = None
    """ACK managed Pro clusters and the ACS workloads that run on them."""
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)
    """What kind of stack this is: ``dev``, ``ephemeral`` (pull requests) or ``production``, and the name suffix."""
    gitops: GitOpsConfig = Field(default_factory=GitOpsConfig)
    """Render the Kubernetes objects to a directory for a GitOps controller instead of applying them."""
    multi_kueue: MultiKueueConfig | None = None
    """A MultiKueue burst set-up: the stack's Kueue cluster (the manager) sends Jobs to worker clusters, ACK with ACS
    capacity, existing AKS clusters, or any cluster given by kubeconfig."""
    monitoring: MonitoringConfig | None = None
    """Scrape the stack's Kueue with the cluster's collector, alert on stuck queues, ship the dashboard
    (docs/monitoring.md); it also turns on the manager's ClusterQueue quota gauges the dashboard's quota panels read."""
    multi_kueue_kubeconfigs: dict[str, SecretStr] | None = None
    """The kubeconfigs of ``multiKueue.workers`` of ``source: kubeconfig``, by worker ``name``: what MultiKueue
    connects with (an inline token or client certificate and CA data, as Kueue's
    https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/site/static/examples/multikueue/create-multikueue-kubeconfig.sh
    writes). Refused unless set as a secret: ``pulumi config set --secret --path
    'multiKueueKubeconfigs.<name>' "$(cat worker.kubeconfig)"``."""

    @property
    def kueue_target(self) -> Literal["aks", "existing"] | None:
        """Where Kueue and the queues go: the AKS cluster this stack creates, an existing cluster, or nowhere."""
        if self.aks is not None:
            return "aks"
        if self.existing_cluster is not None:
            return "existing"
        return None

    @model_validator(mode="after")
    @rule("stack.one-kueue-target", source=_KUEUE_INSTALL_URL)
    def _one_kueue_target(self) -> StackConfig:
        """One Kueue cluster, ``aks`` or ``existingCluster``, and Kueue keys only with one, because the program installs
        and configures Kueue on exactly one cluster."""
        if self.aks is not None and self.existing_cluster is not None:
            raise MisplacedKey("existingCluster", "set either aks (a new cluster) or existingCluster, not both")
        if self.kueue_target is None:
            stray = [key for key in ("kueue", "queues", "smoke_job", "monitoring") if key in self.model_fields_set]
            if stray:
                name = type(self).model_fields[stray[0]].alias or stray[0]
                raise MisplacedKey(name, "Kueue needs a target cluster: add aks or existingCluster")
        return self

    @property
    def probe_image(self) -> str | None:
        """The image of the Kueue readiness gate on the stack's cluster, where its minor is known before deploy."""
        return kueue_cluster.manager_probe_image(self)

    @model_validator(mode="after")
    @rule("stack.kueue-install-on-a-new-cluster", source=_AKS_KUEUE_URL)
    def _kueue_install_on_a_new_cluster(self) -> StackConfig:
        """``kueue.install`` on a cluster the stack creates, because a new AKS cluster has no Kueue of its own."""
        if self.aks is not None and not self.kueue.install:
            raise RuleViolation("kueue.install", False, "a cluster this stack creates has no Kueue yet: keep it true")
        return self

    @model_validator(mode="after")
    @rule("stack.kueue-extension-where-it-is-offered", source=_EXTENSION_SOURCE_URL)
    def _kueue_extension_where_it_is_offered(self) -> StackConfig:
        """The managed Kueue extension's rules across sections (:func:`kueue_extension.check`), because the extension
        runs only on an AKS cluster where Azure offers it."""
        kueue_extension.check(self)
        return self

    @model_validator(mode="after")
    @rule("stack.what-the-environment-allows", source=_PROTECT_URL)
    def _what_the_environment_allows(self) -> StackConfig:
        """What ``environment.kind`` allows of the other sections (:func:`environment_rules.check`), because a
        production stack must stay protected and an ephemeral one destroyable."""
        environment_rules.check(self)
        return self

    @model_validator(mode="after")
    @rule("stack.monitoring-where-its-collector-runs", source=_AMP_CRD_URL)
    def _monitoring_where_its_collector_runs(self) -> StackConfig:
        """Monitoring scrapes the Kueue this stack installs from its chart, with a collector its cluster can run."""
        if self.monitoring is None or self.kueue_target is None:
            return self
        collector = self.monitoring.collector
        if self.kueue.install is not True:
            why = "monitoring scrapes the Kueue the stack installs from its chart (its metrics Service and role)"
            raise RuleViolation("monitoring.collector", collector, f"{why}; kueue.install is {self.kueue.install}")
        existing = self.existing_cluster
        on_existing_aks = existing is not None and existing.source == "aks"
        if collector == AZURE_MANAGED_PROMETHEUS and self.aks is None and not on_existing_aks:
            allowed = (
                "it needs aks (the program turns the cluster's metrics add-on on) or existingCluster with source aks "
                "(whose metrics add-on must already be on)"
            )
            raise RuleViolation("monitoring.collector", collector, allowed)
        if collector == AZURE_MANAGED_PROMETHEUS and on_existing_aks and self.monitoring.azure is not None:
            why = "the workspace, Grafana and rule group are created with a new cluster only (aks)"
            raise MisplacedKey("monitoring.azure", why)
        if collector == ARMS and (existing is None or existing.source != "kubeconfig"):
            allowed = "ARMS scrapes an ACK cluster: give it as existingCluster with source kubeconfig"
            raise RuleViolation("monitoring.collector", collector, allowed)
        return self

    @model_validator(mode="after")
    @rule("stack.kubeconfig-only-for-its-source", source=_PULUMI_SECRETS_URL)
    def _kubeconfig_only_for_its_source(self) -> StackConfig:
        """A ``kubeconfig`` secret exactly with ``existingCluster.source: kubeconfig``, because no other source reads
        it."""
        wants_kubeconfig = self.existing_cluster is not None and self.existing_cluster.source == "kubeconfig"
        if wants_kubeconfig and self.kubeconfig is None:
            needs = "existingCluster.source 'kubeconfig' needs it: pulumi config set --secret kubeconfig"
            raise RuleViolation(KUBECONFIG_KEY, None, needs)
        if not wants_kubeconfig and self.kubeconfig is not None:
            raise MisplacedKey(KUBECONFIG_KEY, "it is only used with existingCluster.source 'kubeconfig'")
        return self

    @model_validator(mode="after")
    @rule("stack.flavors-select-stack-pools", source=_RESOURCE_FLAVOR_URL)
    def _flavors_select_stack_pools(self) -> StackConfig:
        """A flavor's ``agentpool`` label must name an autoscaling pool of this stack, or it is never provisioned."""
        pool_flavors.check(self)
        if self.aks is None:
            return self
        pools = [pool.name for pool in self.aks.user_pools]
        for index, flavor in enumerate(self.queues.resource_flavors):
            pool = flavor.node_labels.get(POOL_LABEL)
            if pool is not None and pool not in pools:
                key = key_path("queues", "resourceFlavors", index, "nodeLabels", POOL_LABEL)
                raise RuleViolation(key, pool, f"it must name an autoscaling user pool of aks.userPools: {pools}")
        return self

    @model_validator(mode="after")
    @rule("stack.kueue-manages-the-local-queue-namespaces", source=_OPT_IN_URL)
    def _kueue_manages_the_local_queue_namespaces(self) -> StackConfig:
        """LocalQueue namespaces that Kueue's ``managedJobsNamespaceSelector`` selects, because Kueue leaves jobs in
        other namespaces unmanaged."""
        self.require_managed_local_queue_namespaces()
        return self

    @model_validator(mode="after")
    @rule("stack.queue-settings-have-their-manager-settings", source=_KUEUE_CONFIG_URL)
    def _queue_settings_have_their_manager_settings(self) -> StackConfig:
        """Queue fields that need a manager setting or gate come with it (:func:`kueue_rules.require_manager_settings`),
        because Kueue silently ignores them otherwise."""
        if self.kueue_target is not None:
            kueue_rules.require_manager_settings(self.kueue, self.queues)
        return self

    def require_managed_local_queue_namespaces(self) -> None:
        """Jobs in a namespace Kueue's webhook skips are never suspended, so they bypass their queue (lint
        ``queues.lints.managedNamespaces``). Every LocalQueue namespace carries the selector's ``matchLabels``: the
        stack puts them on the namespaces it creates and patches them onto existing ones."""
        if not self.queues.lints.managed_namespaces:
            return
        for index, queue in enumerate(self.queues.local_queues):
            if not self.kueue.manages_namespace(queue.namespace, self.kueue.managed_namespace_labels):
                key = key_path("queues", "localQueues", index, "namespace")
                allowed = (
                    "kueue.managedJobsNamespaceSelector must select it (or turn off queues.lints.managedNamespaces)"
                )
                raise RuleViolation(key, queue.namespace, allowed)

    @model_validator(mode="after")
    @rule("stack.smoke-job-targets-a-local-queue-and-pool", source=_LOCAL_QUEUE_URL)
    def _smoke_job_targets_a_local_queue_and_pool(self) -> StackConfig:
        """A smoke Job that is submitted to a LocalQueue of the stack and, on AKS, runs on one of its user pools,
        because otherwise it is never admitted or never scheduled: written, or the only one there is
        (:meth:`SmokeJobConfig.targeting`)."""
        if self.smoke_job.enabled:
            self.smoke_job_targeted()
        return self

    def smoke_job_targeted(self) -> SmokeJobConfig:
        """The smoke Job with its namespace, LocalQueue and pool filled in from the stack's objects; a disabled Job
        without a target keeps its unset ones (nothing submits it)."""
        queues = [(q.namespace, q.name) for q in self.queues.local_queues]
        pools = [p.name for p in self.aks.user_pools] if self.aks is not None else None
        try:
            return self.smoke_job.targeting(queues, pools)
        except RuleViolation:
            if self.smoke_job.enabled:
                raise
            return self.smoke_job

    @model_validator(mode="after")
    @rule("stack.multikueue-objects-apart-from-the-burst-section", source=_MK_SETUP_URL)
    def _multikueue_objects_apart_from_the_burst_section(self) -> StackConfig:
        """The ``multiKueue`` section makes its MultiKueueConfig and one MultiKueueCluster per worker: a queue object
        of the same kind and name would be the same cluster object, applied by two resources that undo each other."""
        burst = self.multi_kueue
        if burst is None:
            return self
        if burst.multikueue_config in (names := [c.name for c in self.queues.multi_kueue_configs]):
            key = key_path("queues", "multiKueueConfigs", names.index(burst.multikueue_config), "name")
            allowed = "the multiKueue section makes a MultiKueueConfig of that name (multiKueue.configName)"
            raise RuleViolation(key, burst.multikueue_config, allowed)
        made = {burst.worker_cluster_name(worker) for worker in burst.workers}
        for index, cluster in enumerate(self.queues.multi_kueue_clusters):
            if cluster.name in made:
                key = key_path("queues", "multiKueueClusters", index, "name")
                allowed = f"the multiKueue section makes MultiKueueClusters {sorted(made)} for its workers: name "
                allowed += "another, or list the section's in queues.external.multiKueueClusters"
                raise RuleViolation(key, cluster.name, allowed)
        return self

    @model_validator(mode="after")
    @rule("stack.burst-has-its-manager-and-workers", source=_MK_SETUP_URL)
    def _burst_has_its_manager_and_workers(self) -> StackConfig:
        """The MultiKueue burst set-up's rules (:func:`multikueue_rules.check`), because MultiKueue needs a Kueue
        manager and reachable workers to dispatch to."""
        multikueue_rules.check(self)
        return self

    @model_validator(mode="after")
    @rule("stack.kueue-fits-its-cluster-version", source=_KUEUE_INSTALL_URL)
    def _kueue_fits_its_cluster_version(self) -> StackConfig:
        """The Kueue install fits its cluster's Kubernetes version (:func:`kueue_cluster.check`), because each Kueue
        minor needs a minimum Kubernetes."""
        kueue_cluster.check(self)
        return self

    @model_validator(mode="after")
    @rule("stack.the-stack-can-work", source=_CLUSTER_QUEUE_URL)
    def _the_stack_can_work(self) -> StackConfig:
        """What cannot work whatever the cloud says (:func:`feasibility.check`), because ``up`` would otherwise wait on
        a queue or pod that never admits or schedules."""
        if self.kueue_target is not None:
            feasibility.check(self)
        return self

    def warnings(self) -> list[tuple[str, str]]:
        """``(key, message)`` for settings that will likely not work; the fleet logs them as warnings."""
        ack = self.ack.warnings() if self.ack is not None else []
        production = (
            [(f"aks.{key}", message) for key, message in environment_rules.aks_production_warnings(self.aks)]
            if self.aks is not None and self.environment.protect
            else []
        )
        pools = pool_flavors.warnings(self)
        manager = [(f"kueue.{key}", message) for key, message in kueue_manager.warnings(self.kueue)]
        manager += [
            (
                key_path("queues", "multiKueueClusters", i, "clusterSource", "kubeConfig", "location"),
                "the stack does not mount this kubeconfig: the file must be on the Kueue manager's pod (mounted under "
                "/etc/multikueue/kubeconfigs/, https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/)",
            )
            for i, cluster in enumerate(self.queues.multi_kueue_clusters)
            if (source := cluster.cluster_source.kube_config) is not None and source.location_type == "Path"
        ]
        return [
            *manager,
            *feasibility.warnings(self),
            *pools,
            *ack,
            *production,
            *self._no_queue_objects(),
            *self._no_azure_alerts(),
        ]

    def _no_azure_alerts(self) -> list[tuple[str, str]]:
        """On an existing AKS cluster, managed Prometheus scrapes Kueue but the program creates no rule group."""
        existing = self.existing_cluster
        if self.monitoring is None or self.monitoring.collector != AZURE_MANAGED_PROMETHEUS:
            return []
        if existing is None or existing.source != "aks":
            return []
        message = (
            "Kueue is scraped into the workspace the cluster's metrics add-on already writes to, but no alert rule "
            "is created there: add Kueue's rules to a rule group of that workspace (docs/monitoring.md#the-alert-rules)"
        )
        return [("monitoring.collector", message)]

    def _no_queue_objects(self) -> list[tuple[str, str]]:
        """Kueue alone is a valid stack, but one deployed before ``queues.preset`` existed got the walkthrough's
        objects without writing them: say so before its next ``up`` deletes them."""
        lists = (getattr(self.queues, name) for name in QueuesConfig.model_fields if name not in SETTINGS)
        if self.kueue_target is None or any(isinstance(value, list) and value for value in lists):
            return []
        message = (
            "this stack creates no queue object (Kueue alone); a stack deployed before queues.preset existed got "
            f"the walkthrough's objects without writing them, and this up deletes them: add queues.preset "
            f"{AKS_WALKTHROUGH} to keep them (docs/kueue-api.md#the-aks-walkthrough-preset)"
        )
        return [("queues", message)]

    @model_validator(mode="after")
    @rule("stack.aks-location-in-the-provider-cloud", source=_AZURE_NATIVE_URL)
    def _aks_location_in_the_provider_cloud(self, info: ValidationInfo) -> StackConfig:
        """An AKS location in the azure-native provider's cloud (Azure China or global Azure), because ARM refuses a
        location of the other cloud."""
        provider = (info.context or {}).get("azure_cloud")
        if self.aks is None or provider is None or is_azure_china_region(self.aks.location) == provider.china:
            return self
        raise RuleViolation("aks.location", self.aks.location, provider.regions_allowed())

    @model_validator(mode="after")
    @rule("stack.sources-reachable-from-the-cloud")
    def _sources_reachable_from_the_cloud(self, info: ValidationInfo) -> StackConfig:
        """Charts and images (Kueue's, the smoke Job's, NVIDIA's for GPU pools) must come from registries the stack's
        Azure cloud reaches.

        ``*.azk8s.cn`` and ``*.azure.cn`` serve Azure China only, and global registries are blocked or unreliable
        from China, where NVIDIA's have no mirror at all; the chart is pulled where ``pulumi`` runs, the images by
        the cluster's nodes
        (https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/). The cloud is the azure-native
        provider's (environment, location), else ``aks.location``; on a cluster of unknown cloud nothing is checked.
        """
        cloud = (info.context or {}).get("azure_cloud")
        if cloud is None and self.aks is not None:
            cloud = AzureCloud(is_azure_china_region(self.aks.location), f"aks.location {self.aks.location!r}")
        if cloud is None or self.kueue_target is None:
            return self
        sources = [(f"kueue.{s.key}", s) for s in self.kueue.sources()]
        sources += [(f"smokeJob.{s.key}", s) for s in self.smoke_job.sources()]
        if self.aks is not None and any(pool.gpu_settings is not None for pool in self.aks.user_pools):
            sources += [(f"aks.nvidia.{s.key}", s) for s in self.aks.nvidia.sources(self.aks.gpu_driver)]
        for key, source in sources:
            host = registry_host(source.reference)
            if not cloud.china and is_azure_china_only(host):
                raise RuleViolation(
                    key,
                    source.reference,
                    f"{host} serves Azure China addresses only ({AZURE_CHINA_PROXIES}), but {cloud.because} targets "
                    f"global Azure; use a global source such as {source.default}",
                )
            if cloud.china and host in NO_AZURE_CHINA_MIRROR:
                raise RuleViolation(
                    key,
                    source.reference,
                    f"{cloud.because} targets Azure China, which has no mirror of {NO_AZURE_CHINA_MIRROR[host]} "
                    f"({AZURE_CHINA_PROXIES}): copy it into a registry of your own there (az acr import, helm push) "
                    "and name it",
                )
            if cloud.china and host in AZURE_CHINA_MIRRORS:
                raise RuleViolation(
                    key,
                    source.reference,
                    f"{cloud.because} targets Azure China, which cannot reliably pull from {host}; use its Azure "
                    f"China mirror {AZURE_CHINA_MIRRORS[host]} or a registry of your own; see {AZURE_CHINA_PROXIES}",
                )
        return self
