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
from components.config.rules import rule

_CONCEPTS_NETWORK_URL = "https://learn.microsoft.com/azure/aks/concepts-network"
_NET_PROFILE_URL = (
    "https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#containerservicenetworkprofile"
)
_RFC5737_URL = "https://www.rfc-editor.org/rfc/rfc5737"


@rule("aks-network.cidr", source=_NET_PROFILE_URL)
def _cidr(text: str) -> str:
    """An IPv4 network in CIDR notation without host bits, because ARM takes no other."""
    try:
        return str(ipaddress.IPv4Network(text))
    except ValueError:
        raise ValueError("an IPv4 network in CIDR notation with no host bits set, e.g. 10.0.0.0/16") from None


@rule("aks-network.ip-address", source=_NET_PROFILE_URL)
def _ip_address(text: str) -> str:
    """An IPv4 address, because ARM takes no other here."""
    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise ValueError("an IPv4 address, e.g. 10.0.0.10") from None


Cidr = Annotated[str, AfterValidator(_cidr)]
"""An IPv4 network in CIDR notation, without host bits."""
IpAddress = Annotated[str, AfterValidator(_ip_address)]
"""An IPv4 address."""

DOCUMENTATION_RANGES = tuple(ipaddress.IPv4Network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"))
"""TEST-NET-1 to -3, reserved for documentation and never routed (https://www.rfc-editor.org/rfc/rfc5737). IPv6's
(2001:db8::/32, https://www.rfc-editor.org/rfc/rfc3849) needs no entry: :data:`Cidr` takes IPv4 only."""


@rule("aks-network.routable", source=_RFC5737_URL)
def _routable(text: str) -> str:
    """A range inside a documentation block admits no real runner, so ``pulumi`` could never reach the API server it
    just restricted. One that merely contains a block (``0.0.0.0/0``) still admits real addresses."""
    network = ipaddress.IPv4Network(text)
    for block in DOCUMENTATION_RANGES:
        if network.subnet_of(block):
            raise ValueError(
                f"{block} is a documentation range (RFC 5737) that no machine sends from: use the egress range of "
                "whatever runs pulumi (your network, your CI runners)"
            )
    return text


AuthorizedRange = Annotated[Cidr, AfterValidator(_routable)]
"""A :data:`Cidr` that some real machine can send from."""


NetworkPolicy = Literal["none", "calico", "azure", "cilium"]
"""The engines ARM's ``networkPolicy`` takes; ``none`` enforces no NetworkPolicy at all."""

NETWORK_POLICY_URL = "https://learn.microsoft.com/azure/aks/use-network-policies"
CILIUM_URL = "https://learn.microsoft.com/azure/aks/azure-cni-powered-by-cilium"
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
    @rule("aks-network.plugin-combinations", source=NETWORK_POLICY_URL)
    def _plugin_combinations(self) -> AksNetworkConfig:
        """The combinations ARM accepts: overlay and the Cilium dataplane on Azure CNI only (the dataplane is "Azure
        CNI Powered by Cilium", :data:`CILIUM_URL`), Cilium policy on the Cilium dataplane and only Cilium there,
        Azure's engine on Azure CNI only and Calico on kubenet (:data:`NETWORK_POLICY_URL`), no AKS-managed engine
        without an AKS-managed CNI."""
        if self.plugin_mode == "overlay" and self.plugin != "azure":
            raise RuleViolation("pluginMode", self.plugin_mode, "overlay requires plugin 'azure'")
        if self.dataplane == "cilium" and self.plugin != "azure":
            raise RuleViolation(
                "dataplane",
                self.dataplane,
                f"the Cilium dataplane is Azure CNI Powered by Cilium: it needs plugin 'azure', with or without "
                f"pluginMode overlay ({CILIUM_URL})",
            )
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
        if self.plugin == "kubenet" and self.policy == "azure":
            raise RuleViolation(
                "policy",
                self.policy,
                f"Azure Network Policy Manager needs plugin 'azure'; on kubenet use 'calico' or leave it unset "
                f"({NETWORK_POLICY_URL})",
            )
        return self

    @model_validator(mode="after")
    @rule("aks-network.address-ranges", source=_CONCEPTS_NETWORK_URL)
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

    ``environment.kind: production`` warns while ``authorizedIpRanges`` is empty, unless ``allowUnrestricted`` says
    the open endpoint is deliberate."""

    authorized_ip_ranges: list[AuthorizedRange] = Field(default_factory=list, max_length=MAX_AUTHORIZED_RANGES)
    """Only these IPv4 ranges reach the public API server (ARM ``authorizedIPRanges``; AKS adds the cluster's own
    egress). Include the egress of every machine and CI runner that runs ``pulumi``
    (https://learn.microsoft.com/azure/aks/api-server-authorized-ip-ranges); a documentation range (RFC 5737) is
    refused. Empty: any address."""
    private_cluster: bool = False
    """Refused while ``true``: a private API server has only a private endpoint in the cluster's VNet (ARM
    ``enablePrivateCluster``; https://learn.microsoft.com/azure/aks/private-clusters), and this program creates no
    VNet and takes no subnet, so that VNet is the one AKS creates during the same ``up``: no ``pulumi`` runner can be
    inside it or peered with it in time, and AKS cannot make the cluster public again. Restrict the public endpoint
    with ``authorizedIpRanges`` instead."""
    allow_unrestricted: bool = False
    """The production opt-out: a public API server open to any address is intended, and
    ``environment.kind: production`` stops warning about it."""

    @property
    def restricted(self) -> bool:
        """Whether the API server is reachable from fewer than all addresses."""
        return bool(self.authorized_ip_ranges)

    @model_validator(mode="after")
    @rule("aks-network.no-private-cluster-without-a-network-to-run-in", source=PRIVATE_CLUSTER_URL)
    def _no_private_cluster_without_a_network_to_run_in(self) -> ApiServerAccessConfig:
        """No private cluster, because the program creates no VNet a ``pulumi`` runner could be inside, so ``up`` could
        never reach the API server again."""
        if self.private_cluster:
            raise RuleViolation(
                "privateCluster",
                True,
                "this program creates no VNet and takes no subnet, so the private endpoint would be in the VNet AKS "
                "creates during this up, which no pulumi runner can be inside or peered with: up would fail on a "
                "cluster AKS cannot make public again; restrict it with authorizedIpRanges (the egress of whatever "
                f"runs pulumi) instead ({PRIVATE_CLUSTER_URL})",
            )
        return self

    @model_validator(mode="after")
    @rule("aks-network.unrestricted-only-when-nothing-restricts", source=API_SERVER_ACCESS_URL)
    def _unrestricted_only_when_nothing_restricts(self) -> ApiServerAccessConfig:
        """No ``allowUnrestricted`` beside ``authorizedIpRanges``, because the two contradict each other."""
        if self.allow_unrestricted and self.restricted:
            already = "authorizedIpRanges already restricts the API server: remove allowUnrestricted"
            raise RuleViolation("allowUnrestricted", True, already)
        return self
