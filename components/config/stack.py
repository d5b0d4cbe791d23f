"""The whole stack's configuration: one typed tree read from the project's structured config.

Each top-level key of the stack file (``elastic-capacity:<key>``) is one section; the sections' own rules live in
their modules, and the rules that span sections (a flavor naming a node pool, the smoke Job naming a LocalQueue)
live here. :func:`load_stack_config` is the single entry point: it returns a valid :class:`StackConfig` or raises
one :class:`ConfigError` naming every bad key, before any resource is registered.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any, Literal

from pydantic import SecretStr, ValidationError, model_validator

from components.config.acs import AckConfig
from components.config.aks import AksConfig
from components.config.base import PROJECT, ConfigError, ConfigModel, RuleViolation, key_path, problems_from
from components.config.kueue import KueueConfig, SmokeJobConfig
from components.config.queues import QueuesConfig

KUBECONFIG_KEY = "kubeconfig"
"""The secret config key holding the kubeconfig of an existing cluster (``existingCluster.source: kubeconfig``)."""


class ExistingClusterConfig(ConfigModel):
    """Install Kueue and the queues on a cluster this stack does not create.

    ``source: aks`` looks up an AKS cluster by resource group and name and fetches its user credentials;
    ``source: kubeconfig`` uses the secret config value ``kubeconfig`` for any conformant cluster.
    """

    source: Literal["aks", "kubeconfig"]
    resource_group_name: str | None = None
    cluster_name: str | None = None

    @model_validator(mode="after")
    def _aks_needs_its_name(self) -> ExistingClusterConfig:
        if self.source == "aks":
            for key, value in (("resourceGroupName", self.resource_group_name), ("clusterName", self.cluster_name)):
                if not value:
                    raise RuleViolation(key, value, "source 'aks' needs resourceGroupName and clusterName")
        elif self.resource_group_name or self.cluster_name:
            raise RuleViolation("source", self.source, "resourceGroupName/clusterName only go with source 'aks'")
        return self


class StackConfig(ConfigModel):
    """Everything one stack deploys. Absent sections deploy nothing; Kueue sections default to the seed."""

    aks: AksConfig | None = None
    """A new AKS cluster with autoscaling user pools; Kueue and the queues go onto it."""
    existing_cluster: ExistingClusterConfig | None = None
    """Instead of ``aks``: put Kueue and the queues onto a cluster this stack does not create."""
    kubeconfig: SecretStr | None = None
    """The existing cluster's kubeconfig (``existingCluster.source: kubeconfig``); refused unless set as a secret."""
    kueue: KueueConfig = KueueConfig()
    """How Kueue is installed (only with ``aks`` or ``existingCluster``)."""
    queues: QueuesConfig = QueuesConfig()
    """The Kueue queue objects; the defaults are the seed's provisioning-gated queue."""
    smoke_job: SmokeJobConfig = SmokeJobConfig()
    """The opt-in end-to-end check: the seed's Job, which ``pulumi up`` waits to see complete."""
    ack: AckConfig | None = None
    """ACK managed Pro clusters and the ACS workloads that run on them."""

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
            raise RuleViolation("existingCluster", "set", "set either aks (a new cluster) or existingCluster, not both")
        if self.kueue_target is None:
            stray = [key for key in ("kueue", "queues", "smoke_job") if key in self.model_fields_set]
            if stray:
                name = type(self).model_fields[stray[0]].alias or stray[0]
                raise RuleViolation(name, "set", "Kueue needs a target cluster: add aks or existingCluster")
        wants_kubeconfig = self.existing_cluster is not None and self.existing_cluster.source == "kubeconfig"
        if wants_kubeconfig and self.kubeconfig is None:
            needs = "existingCluster.source 'kubeconfig' needs it: pulumi config set --secret kubeconfig"
            raise RuleViolation(KUBECONFIG_KEY, None, needs)
        if not wants_kubeconfig and self.kubeconfig is not None:
            raise RuleViolation(KUBECONFIG_KEY, "set", "only used with existingCluster.source 'kubeconfig'")
        return self

    @model_validator(mode="after")
    def _flavors_select_stack_pools(self) -> StackConfig:
        """A flavor's ``agentpool`` label must name an autoscaling pool of this stack, or it is never provisioned."""
        if self.aks is None:
            return self
        pools = [pool.name for pool in self.aks.user_pools]
        for index, flavor in enumerate(self.queues.resource_flavors):
            pool = flavor.node_labels.get("agentpool")
            if pool is not None and pool not in pools:
                key = key_path("queues", "resourceFlavors", index, "nodeLabels", "agentpool")
                raise RuleViolation(key, pool, f"it must name an autoscaling user pool of aks.userPools: {pools}")
        return self

    @model_validator(mode="after")
    def _kueue_manages_the_local_queue_namespaces(self) -> StackConfig:
        """Jobs in a namespace Kueue's webhook skips are never suspended, so their queue would admit nothing."""
        for index, queue in enumerate(self.queues.local_queues):
            if not self.kueue.manages_namespace(queue.namespace):
                key = key_path("queues", "localQueues", index, "namespace")
                raise RuleViolation(key, queue.namespace, "kueue.managedJobsNamespaceSelector must select it")
        return self

    @model_validator(mode="after")
    def _smoke_job_targets_a_local_queue_and_pool(self) -> StackConfig:
        job = self.smoke_job
        if not job.enabled:
            return self
        queues = {(q.namespace, q.name) for q in self.queues.local_queues}
        if (job.namespace, job.local_queue) not in queues:
            allowed = sorted(f"{ns}/{name}" for ns, name in queues)
            raise RuleViolation(
                "smokeJob.localQueue", job.local_queue, f"it must be one of queues.localQueues {allowed}"
            )
        pools = [p.name for p in self.aks.user_pools] if self.aks is not None else None
        if pools is not None and job.pool not in pools:
            raise RuleViolation(
                "smokeJob.pool", job.pool, f"it must name an autoscaling pool of aks.userPools: {pools}"
            )
        return self


def _parse_value(raw: Any) -> Any:
    """Structured config arrives as JSON strings; plain strings stay strings."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def load_stack_config(values: Mapping[str, Any], secret_keys: Collection[str] = ()) -> StackConfig:
    """Validate the ``elastic-capacity:*`` config values; raise :class:`ConfigError` naming every bad key."""
    prefix = f"{PROJECT}:"
    section_values = {key.removeprefix(prefix): _parse_value(v) for key, v in values.items() if key.startswith(prefix)}
    kubeconfig_key = prefix + KUBECONFIG_KEY
    if kubeconfig_key in values and kubeconfig_key not in secret_keys:
        raise ConfigError([(kubeconfig_key, "must be a secret: pulumi config set --secret kubeconfig < kubeconfig")])
    if KUBECONFIG_KEY in section_values:
        section_values[KUBECONFIG_KEY] = values[kubeconfig_key]
    try:
        return StackConfig.model_validate(section_values)
    except ValidationError as error:
        raise ConfigError([(f"{PROJECT}:{key}", message) for key, message in problems_from(error, "")]) from None


def read_stack_config() -> StackConfig:
    """Load the running program's configuration from the Pulumi runtime (real engine or mocks)."""
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret_keys = set(runtime_config.get_config_secret_keys_env())
    secret_keys.update(key for key in values if runtime_config.is_config_secret(key))
    return load_stack_config(values, secret_keys)
