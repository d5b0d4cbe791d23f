"""How deploy-time findings are worded: a component reports what the cloud or the cluster showed, with no stack key,
and this module names the key the user changes and the rule broken (docs/rules.md).

Components never name config keys (they would have to follow every rename of the stack file): an ACK cluster's
components get the :class:`AckReport` of its entry, the render transform words its refusal with
:func:`secret_data_rendered`, and a worker token the cap it meets with :data:`TOKEN_CAPPED_ADVICE`. What they raise
stays a :class:`ConfigError`, which the render tool locates in the stack file by its key.
"""

from __future__ import annotations

import dataclasses
import enum

from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.aks.versions import AKS_PROVISIONING_REQUESTS_MIN
from components.config.base import PROJECT, ConfigError, RuleViolation, key_path
from components.config.gitops import RENDER_KEY
from components.config.kueue import extension as kueue_extension
from components.config.versions import KubernetesVersion

EXISTING_CLUSTER_NAME_KEY = "existingCluster.clusterName"
"""The key that names an existing AKS cluster, which refusals of what Azure reports it runs name."""


class AckCheck(enum.Enum):
    """What a deploy-time check of one ``ack`` entry looked at; :data:`ACK_CHECKS` says the field it reports on."""

    VERSION_OFFERED = enum.auto()
    VERSION_HELD = enum.auto()
    ENHANCED_NAT_ZONE = enum.auto()
    ZONES_ADDED = enum.auto()
    VSWITCHES_ADDED = enum.auto()
    SCHEDULER = enum.auto()
    SCHEDULER_UNREAD = enum.auto()
    VIRTUAL_NODE = enum.auto()
    VIRTUAL_NODE_UNREAD = enum.auto()
    API_ENDPOINT = enum.auto()
    EXISTING_CLUSTER = enum.auto()
    EXISTING_MINOR = enum.auto()
    EXISTING_VERSION_UNREAD = enum.auto()
    EXISTING_ADDONS = enum.auto()
    EXISTING_ADDONS_UNREAD = enum.auto()
    EXISTING_ENDPOINT = enum.auto()
    PRIVATE_ENDPOINT = enum.auto()


ACK_CHECKS: dict[AckCheck, tuple[tuple[str | int, ...], str | None]] = {
    AckCheck.VERSION_OFFERED: (("kubernetesVersion",), "deploy.ack-version-offered"),
    AckCheck.VERSION_HELD: (("kubernetesVersion",), None),
    AckCheck.ENHANCED_NAT_ZONE: (("network", "zones", 0, "zoneId"), "deploy.ack-enhanced-nat-zone"),
    AckCheck.ZONES_ADDED: (("network", "zones"), None),
    AckCheck.VSWITCHES_ADDED: (("network", "vswitchIds"), None),
    AckCheck.SCHEDULER: (("scheduler",), "deploy.ack-scheduler-version"),
    AckCheck.SCHEDULER_UNREAD: (("scheduler",), None),
    AckCheck.VIRTUAL_NODE: (("virtualNode", "version"), "deploy.ack-virtual-node-version"),
    AckCheck.VIRTUAL_NODE_UNREAD: (("virtualNode", "version"), None),
    AckCheck.API_ENDPOINT: (("slbInternetEnabled",), "deploy.ack-api-endpoint"),
    AckCheck.EXISTING_CLUSTER: (("clusterId",), "deploy.ack-existing-cluster"),
    AckCheck.EXISTING_MINOR: (("kubernetesVersion",), "deploy.ack-existing-cluster"),
    AckCheck.EXISTING_VERSION_UNREAD: ((), None),
    AckCheck.EXISTING_ADDONS: (("clusterId",), "deploy.ack-existing-addons"),
    AckCheck.EXISTING_ADDONS_UNREAD: (("clusterId",), None),
    AckCheck.EXISTING_ENDPOINT: (("clusterId",), "deploy.ack-existing-endpoint"),
    AckCheck.PRIVATE_ENDPOINT: (("clusterId",), "deploy.ack-existing-endpoint"),
}
"""Each check's field of the entry (what the user changes) and the rule a refusal breaks (``None``: it only warns)."""


@dataclasses.dataclass(frozen=True)
class AckFinding:
    """What a deploy-time check found, as ACK reports it: ``found`` is the message without the key."""

    check: AckCheck
    found: str


SCHEDULER_FIX = "upgrade it in the ACK console (Add-ons) or set {key} to a newer build"
"""What a kube-scheduler below a need asks for: ACK's upgrade, or a newer pin."""


@dataclasses.dataclass(frozen=True)
class AckReport:
    """How the findings of one ``ack.clusters[i]`` or ``ack.existingClusters[i]`` entry are said: under that entry's
    keys. ``reached_by`` is the MultiKueue worker on the cluster, whose manager needs its public endpoint."""

    entry: str
    reached_by: str | None = None

    def key(self, check: AckCheck) -> str:
        return key_path(self.entry, *ACK_CHECKS[check][0])

    def message(self, finding: AckFinding) -> str:
        """The finding in words: with the fix a key of the entry gives, where one does."""
        if finding.check is AckCheck.SCHEDULER:
            return f"{finding.found}: {SCHEDULER_FIX.format(key=key_path(self.key(finding.check), 'version'))}"
        if finding.check is AckCheck.PRIVATE_ENDPOINT:
            return (
                f"ACK's credential names the private API endpoint {finding.found}, which the MultiKueue manager of "
                f"{self.reached_by} cannot reach: give the cluster a public API endpoint (an EIP on its API server SLB)"
            )
        return finding.found

    def refusal(self, finding: AckFinding) -> ConfigError:
        """The one-line error of a check that refuses, naming the key and the rule."""
        return ConfigError([(self.key(finding.check), self.message(finding))], rule=ACK_CHECKS[finding.check][1])

    def warning(self, finding: AckFinding) -> str:
        """The warning of a check that only warns, prefixed by the key."""
        return f"{self.key(finding.check)}: {self.message(finding)}"


def secret_data_rendered(where: str) -> ConfigError:
    """The refusal of Secret ``where`` (namespace/name) with values on its way into a rendered directory, which
    would keep them in plain text."""
    problem = (
        f"Secret {where} holds data, which a rendered directory would keep in plain text; render stacks must create "
        "no Secret with data (put it in the cluster by other means, such as Sealed Secrets or the External Secrets "
        "Operator)"
    )
    return ConfigError([(f"{PROJECT}:{RENDER_KEY}", problem)], rule="deploy.render-no-secret-data")


TOKEN_CAPPED_ADVICE = {
    "shorter": "set multiKueue.tokenLifetimeDays to at most {days}",
    "raise_cap": "multiKueue.tokenLifetimeDays allows at least: set the API server's "
    "--service-account-max-token-expiration to 24h or more, or give the worker as a kubeconfig "
    "(multiKueue.workers[].source: kubeconfig) with a credential you renew",
}
"""What to do when a worker's API server issued a shorter token than asked: ask for at most the ``{days}`` it
grants, or, below one day, raise its cap. The token's provider says it in the provider process, where no config is
loaded, so the wording travels as one of its inputs (:class:`~components.waiters.worker_token.WorkerToken`)."""


def require_provisioning_requests(cluster: ExistingClusterConfig, version: str) -> str:
    """``version``, which Azure reports the existing AKS ``cluster`` runs, unless it is below
    :data:`AKS_PROVISIONING_REQUESTS_MIN`: refused naming the key and the fix."""
    parsed = KubernetesVersion.parse(version)
    if (parsed.major, parsed.minor) < AKS_PROVISIONING_REQUESTS_MIN:
        minimum = ".".join(map(str, AKS_PROVISIONING_REQUESTS_MIN))
        problem = (
            f"AKS cluster {cluster.resource_group_name}/{cluster.cluster_name} runs Kubernetes {version}; its "
            f"managed cluster autoscaler serves the queues' ProvisioningRequests from {minimum} on "
            "(https://github.com/Azure/AKS/pull/5867): upgrade it (az aks upgrade) or remove the "
            "queues' provisioningChecks"
        )
        raise ConfigError(
            [(f"{PROJECT}:{EXISTING_CLUSTER_NAME_KEY}", problem)], rule="deploy.aks-provisioning-requests"
        )
    return version


def require_extension_offered(location: str, version: str) -> None:
    """Refuse an existing AKS cluster Azure reports outside the managed Kueue extension's regions or below its
    Kubernetes minimum, in one line naming the key of the cluster."""
    try:
        kueue_extension.require_region(location, EXISTING_CLUSTER_NAME_KEY)
        kueue_extension.require_kubernetes(version, EXISTING_CLUSTER_NAME_KEY)
    except RuleViolation as refused:
        raise ConfigError(
            [(f"{PROJECT}:{EXISTING_CLUSTER_NAME_KEY}", f"the cluster's {refused.problem}")], rule=refused.rule
        ) from None
