"""The ``aks.network`` section: the AKS cluster network, as the ARM ``networkProfile`` takes it.

https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#containerservicenetworkprofile; the AKS
networking concepts behind each choice: https://learn.microsoft.com/azure/aks/concepts-network.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import AfterValidator, model_validator

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
    policy: Literal["none", "calico", "azure", "cilium"] | None = None
    """The network policy engine (ARM ``networkPolicy``); ``cilium`` needs dataplane ``cilium``."""
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

    @model_validator(mode="after")
    def _plugin_combinations(self) -> AksNetworkConfig:
        """The combinations ARM accepts: overlay on Azure CNI, Cilium policy on the Cilium dataplane."""
        if self.plugin_mode == "overlay" and self.plugin != "azure":
            raise RuleViolation("pluginMode", self.plugin_mode, "overlay requires plugin 'azure'")
        if self.policy == "cilium" and self.dataplane != "cilium":
            raise RuleViolation("policy", self.policy, "network policy 'cilium' requires dataplane 'cilium'")
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
