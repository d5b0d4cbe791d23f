"""The ``aks.network`` section, the AKS cluster network as the ARM ``networkProfile`` takes it, and the
``aks.apiServerAccess`` section, who may reach the API server (ARM ``apiServerAccessProfile``).

https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#containerservicenetworkprofile; the AKS
networking concepts behind each choice: https://learn.microsoft.com/azure/aks/concepts-network.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, model_validator

from components.config.base import ConfigModel, RuleViolation


def _cidr(text: str) -> str:
    try:
        return str(ipaddress.IPv4Network(text))
    except ValueError:
        raise ValueError("an IPv4 network in CIDR notation with no host bits set, e.g. 10.0.0.0/16") from None


def _ip_address(text: str) -> str:
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise ValueError("an IPv4 address, e.g. 10.0.0.10") from None


Cidr = Annotated[str, AfterValidator(_cidr)]
"""An IPv4 network in CIDR notation, without host bits."""
IpAddress = Annotated[str, AfterValidator(_ip_address)]
"""An IPv4 address."""

NetworkPolicy = Literal["none", "calico", "azure", "cilium"]
"""The engines ARM's ``networkPolicy`` takes; ``none`` enforces no NetworkPolicy at all."""

NETWORK_POLICY_URL = "https://learn.microsoft.com/azure/aks/use-network-policies"
API_SERVER_ACCESS_URL = "https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges"
PRIVATE_CLUSTER_URL = "https://learn.microsoft.com/azure/aks/private-clusters"
MAX_AUTHORIZED_RANGES = 200
"""AKS's limit on ``authorizedIPRanges`` (:data:`API_SERVER_ACCESS_URL`)."""


class AksNetworkConfig(ConfigModel):
    """The cluster network (ARM ``networkProfile``,
    https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#containerservicenetworkprofile);
    Azure CNI overlay by default, so pods never consume VNet addresses as pools scale out."""

    plugin: Literal["azure", "kubenet", "none"] = "azure"
    """The network plugin (ARM ``networkPlugin``)."""
    plugin_mode: Literal["overlay"] | None = "overlay"
    """``overlay`` gives pods addresses outside the VNet (ARM ``networkPluginMode``); needs plugin ``azure``."""
    dataplane: Literal["azure", "cilium"] | None = None
    """The network dataplane (ARM ``networkDataplane``); unset keeps AKS's default, ``azure``."""
    policy: NetworkPolicy | None = None
    """The network policy engine (ARM ``networkPolicy``). Unset: one is always installed, so a NetworkPolicy is
    enforced rather than silently ignored: ``cilium`` on the Cilium dataplane (the only engine it takes), ``calico``
    otherwise (Azure CNI overlay and kubenet both run it; Azure's own engine, ``azure``, is being retired on Linux in
    favour of Cilium: https://learn.microsoft.com/azure/aks/use-network-policies), nothing with plugin ``none`` (your
    own CNI brings its own). Opt out with ``none`` (not on the Cilium dataplane, which always enforces policy). Changing
    the engine of a running cluster is limited: see the page above."""
    pod_cidr: Cidr | None = None
    """The pod address range (ARM ``podCidr``), for overlay or kubenet; unset keeps AKS's default."""
    service_cidr: Cidr | None = None
    """The Kubernetes service address range (ARM ``serviceCidr``); set together with ``dnsServiceIp``."""
    dns_service_ip: IpAddress | None = None
    """The cluster DNS service address inside ``serviceCidr`` (ARM ``dnsServiceIP``)."""
    outbound_type: (
        Literal["loadBalancer", "userDefinedRouting", "managedNATGateway", "userAssignedNATGateway", "none"] | None
    ) = None
    """How nodes reach the internet (ARM ``outboundType``); unset keeps AKS's default, ``loadBalancer``."""

    @property
    def effective_policy(self) -> NetworkPolicy | None:
        """The engine sent as ``networkPolicy``: the configured one, or the one :attr:`policy` says fits the
        dataplane; ``None`` (not sent) only with plugin ``none``."""
        if self.policy is not None:
            return self.policy
        if self.plugin == "none":
            return None
        return "cilium" if self.dataplane == "cilium" else "calico"

    @model_validator(mode="after")
    def _plugin_combinations(self) -> AksNetworkConfig:
        """The combinations ARM accepts: overlay on Azure CNI, Cilium policy on the Cilium dataplane and only Cilium
        there, no AKS-managed engine without an AKS-managed CNI."""
        if self.plugin_mode == "overlay" and self.plugin != "azure":
            raise RuleViolation("pluginMode", self.plugin_mode, "overlay requires plugin 'azure'")
        if self.policy == "cilium" and self.dataplane != "cilium":
            raise RuleViolation("policy", self.policy, "network policy 'cilium' requires dataplane 'cilium'")
        if self.dataplane == "cilium" and self.policy not in (None, "cilium"):
            raise RuleViolation(
                "policy",
                self.policy,
                f"the Cilium dataplane enforces NetworkPolicy with Cilium: use 'cilium' or leave it unset "
                f"({NETWORK_POLICY_URL})",
            )
        if self.plugin == "none" and self.policy not in (None, "none"):
            raise RuleViolation(
                "policy",
                self.policy,
                "plugin 'none' brings its own CNI, whose policy engine AKS does not manage: leave it unset or 'none'",
            )
        return self

    @model_validator(mode="after")
    def _address_ranges(self) -> AksNetworkConfig:
        """A pod range only where pods get one, and a DNS address inside a service range that pods do not use."""
        if self.pod_cidr is not None and self.plugin_mode != "overlay" and self.plugin != "kubenet":
            raise RuleViolation("podCidr", self.pod_cidr, "a pod CIDR applies only to overlay or kubenet")
        if (self.dns_service_ip is None) != (self.service_cidr is None):
            raise RuleViolation("dnsServiceIp", self.dns_service_ip, "set serviceCidr and dnsServiceIp together")
        if self.service_cidr is None or self.dns_service_ip is None:
            return self
        services = ipaddress.ip_network(self.service_cidr)
        if ipaddress.ip_address(self.dns_service_ip) not in services:
            raise RuleViolation("dnsServiceIp", self.dns_service_ip, f"it must lie inside serviceCidr {services}")
        if self.pod_cidr is not None and ipaddress.ip_network(self.pod_cidr).overlaps(services):
            raise RuleViolation("serviceCidr", self.service_cidr, f"it must not overlap podCidr {self.pod_cidr}")
        return self


class ApiServerAccessConfig(ConfigModel):
    """Who may reach the API server (ARM ``apiServerAccessProfile``). Unrestricted by default, like ``az aks
    create``: Entra ID (``entraId``) still authenticates every request. Pulumi itself talks to the API server (the
    Kueue install, the queues, the waiters), so whatever runs ``pulumi`` must stay inside what this allows.

    ``environment.kind: production`` warns while neither ``authorizedIpRanges`` nor ``privateCluster`` is set, unless
    ``allowUnrestricted`` says the open endpoint is deliberate."""

    authorized_ip_ranges: list[Cidr] = Field(default_factory=list, max_length=MAX_AUTHORIZED_RANGES)
    """Only these IPv4 ranges reach the public API server (ARM ``authorizedIPRanges``; AKS adds the cluster's own
    egress). Include the egress of every machine and CI runner that runs ``pulumi``
    (https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges). Empty: any address."""
    private_cluster: bool = False
    """The API server gets a private endpoint in the cluster's VNet and no public one (ARM ``enablePrivateCluster``;
    https://learn.microsoft.com/azure/aks/private-clusters). Fixed when the cluster is created: AKS refuses to
    change it later. ``pulumi`` must then run inside that VNet or a network peered with it."""
    allow_unrestricted: bool = False
    """The production opt-out: a public API server open to any address is intended, and
    ``environment.kind: production`` stops warning about it."""

    @property
    def restricted(self) -> bool:
        """Whether the API server is reachable from fewer than all addresses."""
        return bool(self.authorized_ip_ranges) or self.private_cluster

    @model_validator(mode="after")
    def _one_way_to_restrict(self) -> ApiServerAccessConfig:
        if self.private_cluster and self.authorized_ip_ranges:
            raise RuleViolation(
                "authorizedIpRanges",
                self.authorized_ip_ranges,
                f"a private cluster has no public endpoint to restrict: use one of the two ({PRIVATE_CLUSTER_URL})",
            )
        if self.allow_unrestricted and self.restricted:
            key = "privateCluster" if self.private_cluster else "authorizedIpRanges"
            raise RuleViolation(
                "allowUnrestricted", True, f"{key} already restricts the API server: remove allowUnrestricted"
            )
        return self
