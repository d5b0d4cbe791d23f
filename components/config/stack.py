"""The whole stack's configuration: one typed tree read from the project's structured config.

Each top-level key of the stack file (``elastic-capacity:<key>``) is one section; the sections' own rules live in
their modules, and the rules that span sections (a flavor naming a node pool, the smoke Job naming a LocalQueue,
what the environment kind allows) live here. :func:`load_stack_config` is the single entry point: it returns a valid
:class:`StackConfig` whose names are the physical ones (:meth:`StackConfig.for_environment`), or raises one
:class:`ConfigError` naming every bad key, before any resource is registered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from typing import Any, Literal, NamedTuple

import pulumi
from pydantic import SecretStr, ValidationError, ValidationInfo, model_validator

from components.config import (
    environment_rules,
    feasibility,
    kueue_cluster,
    kueue_extension,
    kueue_rules,
    multikueue_rules,
)
from components.config.ack import AckConfig
from components.config.aks import POOL_LABEL, AksConfig
from components.config.base import (
    PROJECT,
    ConfigError,
    ConfigModel,
    MisplacedKey,
    RuleViolation,
    closest,
    key_path,
    one_line,
    problems_from,
)
from components.config.environment import EnvironmentConfig
from components.config.existing_cluster import ExistingClusterConfig
from components.config.gitops import GitOpsConfig
from components.config.kueue import KueueConfig
from components.config.multikueue import MultiKueueConfig
from components.config.queues import QueuesConfig
from components.config.queues_presets import AKS_WALKTHROUGH
from components.config.registries import AZURE_CHINA_MIRRORS, AZURE_CHINA_PROXIES, is_azure_china_only, registry_host
from components.config.smoke_job import SmokeJobConfig

KUBECONFIG_KEY = "kubeconfig"
"""The secret config key holding the kubeconfig of an existing cluster (``existingCluster.source: kubeconfig``)."""
KUBECONFIG_SECRET_KEYS = {
    KUBECONFIG_KEY: "pulumi config set --secret kubeconfig < kubeconfig",
    multikueue_rules.KUBECONFIGS_KEY: "pulumi config set --secret --path 'multiKueueKubeconfigs.<name>' < kubeconfig",
}
"""Config keys that hold kubeconfigs, and how to set each as a secret: a plain-text value is refused."""

SMOKE_JOB_WITHOUT_QUEUES = (
    f"the stack creates no LocalQueue: name queues.preset {AKS_WALKTHROUGH}, whose LocalQueue is the smoke Job's "
    "default, or write queues.localQueues"
)
"""What a smoke Job is told on a stack with no queue objects."""

AZURE_ENVIRONMENT_KEY = "azure-native:environment"
"""The azure-native provider's cloud: ``public`` (the default), ``usgovernment`` or ``china``."""
AZURE_LOCATION_KEY = "azure-native:location"
"""The azure-native provider's default region."""
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


def azure_provider_cloud(values: Mapping[str, Any]) -> AzureCloud | None:
    """The cloud the azure-native provider settings of the stack name; ``None`` when they name none.

    Raises :class:`ConfigError` on ``azure-native:location`` when it lies outside ``azure-native:environment``.
    """
    environment, location = values.get(AZURE_ENVIRONMENT_KEY), values.get(AZURE_LOCATION_KEY)
    clouds = []
    if environment:
        clouds.append(AzureCloud(environment.strip().lower() == "china", f"{AZURE_ENVIRONMENT_KEY} {environment!r}"))
    if location:
        clouds.append(AzureCloud(is_azure_china_region(location), f"{AZURE_LOCATION_KEY} {location!r}"))
    if len(clouds) == 2 and clouds[0].china != clouds[1].china:
        raise ConfigError([(AZURE_LOCATION_KEY, f"{location!r} is not allowed; {clouds[0].regions_allowed()}")])
    return clouds[0] if clouds else None


class StackConfig(ConfigModel):
    """Everything one stack deploys. Absent sections deploy nothing; ``queues.preset`` names Azure's article."""

    aks: AksConfig | None = None
    """A new AKS cluster with autoscaling user pools; Kueue and the queues go onto it."""
    existing_cluster: ExistingClusterConfig | None = None
    """Instead of ``aks``: put Kueue and the queues onto a cluster this stack does not create."""
    kubeconfig: SecretStr | None = None
    """The existing cluster's kubeconfig (``existingCluster.source: kubeconfig``); refused unless set as a secret."""
    kueue: KueueConfig = KueueConfig()
    """How Kueue is installed (only with ``aks`` or ``existingCluster``)."""
    queues: QueuesConfig = QueuesConfig()
    """The Kueue queue objects: the ones written, or ``preset: aks-walkthrough`` for the article's provisioning-gated
    queue; left out, none (Kueue alone)."""
    smoke_job: SmokeJobConfig = SmokeJobConfig()
    """The opt-in end-to-end check: the article's Job, which ``pulumi up`` waits to see complete."""
    ack: AckConfig | None = None
    """ACK managed Pro clusters and the ACS workloads that run on them."""
    environment: EnvironmentConfig = EnvironmentConfig()
    """What kind of stack this is: ``dev``, ``ephemeral`` (pull requests) or ``production``, and the name suffix."""
    gitops: GitOpsConfig = GitOpsConfig()
    """Render the Kubernetes objects to a directory for a GitOps controller instead of applying them."""
    multi_kueue: MultiKueueConfig | None = None
    """A MultiKueue burst set-up: the stack's Kueue cluster (the manager) sends Jobs to worker clusters, ACK with ACS
    capacity, existing AKS clusters, or any cluster given by kubeconfig."""
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
    def _one_kueue_target(self) -> StackConfig:
        if self.aks is not None and self.existing_cluster is not None:
            raise MisplacedKey("existingCluster", "set either aks (a new cluster) or existingCluster, not both")
        if self.kueue_target is None:
            stray = [key for key in ("kueue", "queues", "smoke_job") if key in self.model_fields_set]
            if stray:
                name = type(self).model_fields[stray[0]].alias or stray[0]
                raise MisplacedKey(name, "Kueue needs a target cluster: add aks or existingCluster")
        return self

    @property
    def probe_image(self) -> str | None:
        """The image of the Kueue readiness gate on the stack's cluster, where its minor is known before deploy."""
        return kueue_cluster.manager_probe_image(self)

    @model_validator(mode="after")
    def _kueue_install_on_a_new_cluster(self) -> StackConfig:
        if self.aks is not None and not self.kueue.install:
            raise RuleViolation("kueue.install", False, "a cluster this stack creates has no Kueue yet: keep it true")
        return self

    @model_validator(mode="after")
    def _kueue_extension_where_it_is_offered(self) -> StackConfig:
        kueue_extension.check(self)
        return self

    @model_validator(mode="after")
    def _what_the_environment_allows(self) -> StackConfig:
        environment_rules.check(self)
        return self

    @model_validator(mode="after")
    def _names_fit_their_suffix(self) -> StackConfig:
        """Every suffixed name fits its limit, and Kueue still manages the renamed LocalQueue namespaces."""
        self.for_environment().require_managed_local_queue_namespaces()
        return self

    def for_environment(self) -> StackConfig:
        """This stack as :mod:`components.config.environment` says its kind needs it: physical names with
        ``environment.nameSuffix``, and the environment's defaults for ``aks.deleteUnreachable`` and
        ``ack.clusters[].deletionProtection``. Raises :class:`RuleViolation` for a name too long for the suffix."""
        return environment_rules.resolve(self)

    @model_validator(mode="after")
    def _kubeconfig_only_for_its_source(self) -> StackConfig:
        wants_kubeconfig = self.existing_cluster is not None and self.existing_cluster.source == "kubeconfig"
        if wants_kubeconfig and self.kubeconfig is None:
            needs = "existingCluster.source 'kubeconfig' needs it: pulumi config set --secret kubeconfig"
            raise RuleViolation(KUBECONFIG_KEY, None, needs)
        if not wants_kubeconfig and self.kubeconfig is not None:
            raise MisplacedKey(KUBECONFIG_KEY, "it is only used with existingCluster.source 'kubeconfig'")
        return self

    @model_validator(mode="after")
    def _flavors_select_stack_pools(self) -> StackConfig:
        """A flavor's ``agentpool`` label must name an autoscaling pool of this stack, or it is never provisioned."""
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
    def _kueue_manages_the_local_queue_namespaces(self) -> StackConfig:
        self.require_managed_local_queue_namespaces()
        return self

    @model_validator(mode="after")
    def _queue_settings_have_their_manager_settings(self) -> StackConfig:
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
    def _smoke_job_targets_a_local_queue_and_pool(self) -> StackConfig:
        job = self.smoke_job
        if not job.enabled:
            return self
        queues = {(q.namespace, q.name) for q in self.queues.local_queues}
        if (job.namespace, job.local_queue) not in queues:
            allowed = sorted(f"{ns}/{name}" for ns, name in queues)
            fix = f"it must be one of queues.localQueues {allowed}" if allowed else SMOKE_JOB_WITHOUT_QUEUES
            raise RuleViolation("smokeJob.localQueue", job.local_queue, fix)
        pools = [p.name for p in self.aks.user_pools] if self.aks is not None else None
        if pools is not None and job.pool not in pools:
            raise RuleViolation(
                "smokeJob.pool", job.pool, f"it must name an autoscaling pool of aks.userPools: {pools}"
            )
        return self

    @model_validator(mode="after")
    def _burst_has_its_manager_and_workers(self) -> StackConfig:
        multikueue_rules.check(self)
        return self

    @model_validator(mode="after")
    def _kueue_fits_its_cluster_version(self) -> StackConfig:
        kueue_cluster.check(self)
        return self

    @model_validator(mode="after")
    def _the_stack_can_work(self) -> StackConfig:
        if self.kueue_target is not None:
            feasibility.check(self)
        return self

    def warnings(self) -> list[tuple[str, str]]:
        """``(key, message)`` for settings that will likely not work; the fleet logs them as warnings."""
        ack = self.ack.warnings() if self.ack is not None else []
        return [*feasibility.warnings(self), *ack]

    @model_validator(mode="after")
    def _aks_location_in_the_provider_cloud(self, info: ValidationInfo) -> StackConfig:
        provider = (info.context or {}).get("azure_cloud")
        if self.aks is None or provider is None or is_azure_china_region(self.aks.location) == provider.china:
            return self
        raise RuleViolation("aks.location", self.aks.location, provider.regions_allowed())

    @model_validator(mode="after")
    def _kueue_sources_reachable_from_the_cloud(self, info: ValidationInfo) -> StackConfig:
        """Charts and images must come from registries the stack's Azure cloud reaches.

        ``*.azk8s.cn`` and ``*.azure.cn`` serve Azure China only, and global registries are blocked or unreliable
        from China; the chart is pulled where ``pulumi`` runs, the images by the cluster's nodes
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
        for key, source in sources:
            host = registry_host(source.reference)
            if not cloud.china and is_azure_china_only(host):
                raise RuleViolation(
                    key,
                    source.reference,
                    f"{host} serves Azure China addresses only ({AZURE_CHINA_PROXIES}), but {cloud.because} targets "
                    f"global Azure; use a global source such as {source.default}",
                )
            if cloud.china and host in AZURE_CHINA_MIRRORS:
                raise RuleViolation(
                    key,
                    source.reference,
                    f"{cloud.because} targets Azure China, which cannot reliably pull from {host}; use its Azure "
                    f"China mirror {AZURE_CHINA_MIRRORS[host]} or a registry of your own; see {AZURE_CHINA_PROXIES}",
                )
        return self


CONFIG_NAMESPACES = (PROJECT, "azure-native", "alicloud", "kubernetes", "pulumi")
"""The namespaces a stack's config keys may use: this project's, its providers' and Pulumi's own. A key in any
other namespace is read by nobody, so a misspelled one (``elastc-capacity:aks``) would leave its section unset."""
_INT64 = 2**63 - 1


def _parse_value(raw: Any) -> Any:
    """Structured config arrives as JSON strings; plain strings stay strings."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw


def _stray_key_problems(keys: Collection[str]) -> list[tuple[str, str]]:
    """Keys without a namespace (the engine refuses them in a stack file) or in one nobody reads."""
    problems = []
    for key in keys:
        namespace, colon, _ = key.partition(":")
        if not colon:
            problems.append((key, f"a config key needs its namespace: write `{PROJECT}:{key}`"))
        elif namespace not in CONFIG_NAMESPACES:
            suggestion = closest(namespace, CONFIG_NAMESPACES)
            hint = f"; did you mean `{suggestion}`?" if suggestion else ""
            problems.append((key, f"unknown namespace `{namespace}`{hint} (allowed: {', '.join(CONFIG_NAMESPACES)})"))
    return problems


def _absurd_number_problems(value: Any, key: str) -> list[tuple[str, str]]:
    """Infinity, NaN and integers beyond 64 bits: no key holds one, and JSON writers disagree on how to spell them."""
    if isinstance(value, dict):
        return [problem for k, v in value.items() for problem in _absurd_number_problems(v, key_path(key, str(k)))]
    if isinstance(value, list):
        return [problem for i, v in enumerate(value) for problem in _absurd_number_problems(v, key_path(key, i))]
    if isinstance(value, float) and not math.isfinite(value):
        return [(key, f"{value!r} is out of range; write a finite number")]
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 - 1 <= value <= _INT64:
        return [(key, f"{value!r} is out of range; integers must fit in 64 bits")]
    return []


def load_stack_config(
    values: Mapping[str, Any],
    secret_keys: Collection[str] = (),
    *,
    stack: str | None = None,
    yaml_scalars: Mapping[str, str] | None = None,
) -> StackConfig:
    """Validate the ``elastic-capacity:*`` config values of ``stack``; raise :class:`ConfigError` naming every bad key.

    The stack name is what unset names derive from (``aks`` names, an ephemeral ``environment.nameSuffix``); without
    one, the walkthrough's names are used and an ephemeral stack must set its suffix. ``yaml_scalars`` (full key ->
    text, from :mod:`tools.stack_file`) lets a type error quote the exact text of an unquoted YAML scalar.
    """
    prefix = f"{PROJECT}:"
    section_values = {key.removeprefix(prefix): _parse_value(v) for key, v in values.items() if key.startswith(prefix)}
    problems = _stray_key_problems(list(values))
    for section, value in section_values.items():
        problems += _absurd_number_problems(value, prefix + section)
    if problems:
        raise ConfigError([(one_line(key), one_line(message)) for key, message in problems])
    for key, how in KUBECONFIG_SECRET_KEYS.items():
        if prefix + key in values and prefix + key not in secret_keys:
            raise ConfigError([(prefix + key, f"must be a secret: {how}")])
    if KUBECONFIG_KEY in section_values:
        section_values[KUBECONFIG_KEY] = values[prefix + KUBECONFIG_KEY]
    context = {"azure_cloud": azure_provider_cloud(values), "stack": stack}
    try:
        return StackConfig.model_validate(section_values, context=context).for_environment()
    except ValidationError as error:
        scalars = {k.removeprefix(prefix): text for k, text in (yaml_scalars or {}).items() if k.startswith(prefix)}
        found = problems_from(error, "", root=StackConfig, yaml_scalars=scalars)
        raise ConfigError([(f"{PROJECT}:{key}", message) for key, message in found]) from None


def read_stack_config() -> StackConfig:
    """Load the running program's configuration from the Pulumi runtime (real engine or mocks)."""
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret_keys = set(runtime_config.get_config_secret_keys_env())
    secret_keys.update(key for key in values if runtime_config.is_config_secret(key))
    return load_stack_config(values, secret_keys, stack=pulumi.get_stack())
