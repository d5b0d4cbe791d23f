"""The network of one ACK cluster (``ack.clusters[].network``): a new VPC with NAT egress, or existing vSwitches.

A new VPC gets, per zone, a node vSwitch and a Terway pod vSwitch, plus one Enhanced NAT gateway with an EIP and
SNAT for every vSwitch: ACS pods pulling public images need egress
(https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview). Existing vSwitches must already have
egress; nothing is added to them. ``components/alicloud/ack_network.py`` builds what this describes.
"""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from components.config.base import ConfigModel, MisplacedKey, RuleViolation, key_path, require_unique
from components.config.rules import rule

_TF_CLUSTER_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes"
_VSWITCH_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/vswitch"

PRIVATE_RANGES = tuple(IPv4Network(cidr) for cidr in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
"""RFC 1918: where ACK accepts VPC and Service CIDRs."""

NAT_BANDWIDTH_LIMITS = {"PayByTraffic": 200, "PayByBandwidth": 500}
"""Highest Mbit/s of a pay-as-you-go EIP, per internet charge type."""

VSwitchId = Annotated[str, StringConstraints(pattern=r"^vsw-[a-z0-9]+$")]
"""The id of an existing vSwitch, ``vsw-`` and lowercase letters or digits."""

_NEW_VPC_KEYS = ("vpc_cidr", "zones", "nat_bandwidth", "eip_internet_charge_type")
_EXISTING_KEYS = ("vswitch_ids", "pod_vswitch_ids")


def is_private(cidr: IPv4Network) -> bool:
    """Whether ``cidr`` lies inside one of the :data:`PRIVATE_RANGES`."""
    return any(cidr.subnet_of(private) for private in PRIVATE_RANGES)


class ZoneConfig(ConfigModel):
    """One zone of a new VPC: a node vSwitch and a Terway pod vSwitch (ACS pods take their IPs from it too)."""

    zone_id: str
    """A zone of the cluster's region, such as ``cn-hangzhou-k``, where this zone's two vSwitches are created
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/vswitch)."""
    node_cidr: IPv4Network
    """CIDR of the zone's node vSwitch (ECS nodes): inside ``vpcCidr``, /16 to /29, overlapping no other vSwitch."""
    pod_cidr: IPv4Network
    """CIDR of the zone's Terway pod vSwitch: every pod IP, ACS pods' included, comes from it, so size it for the
    pods rather than the nodes. Inside ``vpcCidr``, /16 to /29, overlapping no other vSwitch."""

    @field_validator("node_cidr", "pod_cidr")
    @classmethod
    @rule("ack-network.vswitch-mask", source=_VSWITCH_URL)
    def _vswitch_mask(cls, value: IPv4Network) -> IPv4Network:
        """A vSwitch CIDR with a mask from /16 to /29, because that is the range a vSwitch accepts."""
        if not 16 <= value.prefixlen <= 29:
            raise ValueError("a vSwitch CIDR needs a mask between /16 and /29")
        return value


class AckNetworkConfig(ConfigModel):
    """Either a new VPC (``vpcCidr``, ``zones``, NAT settings) or existing vSwitches, never both.

    A new VPC gets an Enhanced NAT gateway with an EIP and SNAT for every vSwitch: ACS pods pulling public images
    need it (https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview). Existing vSwitches must
    already have egress; nothing is added to them.
    """

    vpc_cidr: IPv4Network | None = None
    """CIDR of a new VPC, inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16; setting it selects the new-VPC mode
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/vpc)."""
    zones: list[ZoneConfig] = Field(default_factory=list)
    """The zones of the new VPC, each once. The first zone also hosts the NAT gateway, so it must offer Enhanced
    NAT; ``pulumi preview`` checks that with ``vpc.get_enhanced_nat_available_zones``."""
    nat_bandwidth: int = Field(10, ge=1, le=500)
    """Mbit/s of the NAT gateway's EIP: at most 200 with ``PayByTraffic``, 500 with ``PayByBandwidth``."""
    eip_internet_charge_type: Literal["PayByTraffic", "PayByBandwidth"] = "PayByTraffic"
    """How the NAT gateway's EIP is billed
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/eip_address). Paying for egress
    actually used suits image pulls, which are bursty."""
    vswitch_ids: list[VSwitchId] = Field(default_factory=list)
    """Existing node vSwitches (``vsw-…``) for the ECS nodes; setting them selects the existing-network mode, whose
    vSwitches must already have egress. Sent as the cluster's ``vswitch_ids``
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""
    pod_vswitch_ids: list[VSwitchId] = Field(default_factory=list)
    """Existing Terway pod vSwitches, none of them a node vSwitch; sent as the cluster's ``pod_vswitch_ids``."""

    @property
    def creates_vpc(self) -> bool:
        """True in the new-VPC mode: the program creates the VPC, its vSwitches and NAT egress."""
        return self.vpc_cidr is not None

    @model_validator(mode="after")
    @rule("ack-network.exactly-one-mode", source=_TF_CLUSTER_URL)
    def _exactly_one_mode(self) -> AckNetworkConfig:
        """Either a new VPC (``vpcCidr`` and ``zones``) or existing vSwitches, never both or neither, because the
        cluster is built in exactly one network."""
        fields = type(self).model_fields
        new = [str(fields[f].alias) for f in _NEW_VPC_KEYS if f in self.model_fields_set]
        existing = [f for f in _EXISTING_KEYS if f in self.model_fields_set]
        if new and existing:
            raise MisplacedKey(
                str(fields[existing[0]].alias),
                f"{new} describe a new VPC; use either those or vswitchIds/podVswitchIds",
            )
        if not new and not existing:
            raise RuleViolation("", {}, "give vpcCidr and zones (new VPC) or vswitchIds and podVswitchIds")
        return self._check_new_vpc() if new else self._check_existing()

    def _check_new_vpc(self) -> AckNetworkConfig:
        if self.vpc_cidr is None:
            raise RuleViolation("vpcCidr", None, "a new VPC needs a CIDR such as 10.0.0.0/8")
        if not is_private(self.vpc_cidr):
            raise RuleViolation(
                "vpcCidr", str(self.vpc_cidr), "it must lie in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16"
            )
        if not self.zones:
            raise RuleViolation("zones", [], "a new VPC needs at least one zone with nodeCidr and podCidr")
        require_unique([zone.zone_id for zone in self.zones], lambda i: key_path("zones", i, "zoneId"), "zone ids")
        self._check_vswitch_cidrs(self.vpc_cidr)
        limit = NAT_BANDWIDTH_LIMITS[self.eip_internet_charge_type]
        if self.nat_bandwidth > limit:
            raise RuleViolation(
                "natBandwidth",
                self.nat_bandwidth,
                f"a pay-as-you-go {self.eip_internet_charge_type} EIP allows 1..{limit}",
            )
        return self

    def _check_vswitch_cidrs(self, vpc_cidr: IPv4Network) -> None:
        """Every vSwitch CIDR lies inside the VPC and overlaps no other one."""
        taken: list[IPv4Network] = []
        for index, zone in enumerate(self.zones):
            for key, cidr in (("nodeCidr", zone.node_cidr), ("podCidr", zone.pod_cidr)):
                if not cidr.subnet_of(vpc_cidr):
                    raise RuleViolation(
                        key_path("zones", index, key), str(cidr), f"it must lie inside vpcCidr {vpc_cidr}"
                    )
                clash = next((other for other in taken if cidr.overlaps(other)), None)
                if clash is not None:
                    raise RuleViolation(key_path("zones", index, key), str(cidr), f"it overlaps vSwitch CIDR {clash}")
                taken.append(cidr)

    def _check_existing(self) -> AckNetworkConfig:
        for key, ids in (("vswitchIds", self.vswitch_ids), ("podVswitchIds", self.pod_vswitch_ids)):
            if not ids:
                raise RuleViolation(key, [], "existing-network mode needs node vSwitches and Terway pod vSwitches")
        for index, pod_vswitch in enumerate(self.pod_vswitch_ids):
            if pod_vswitch in self.vswitch_ids:
                raise RuleViolation(
                    key_path("podVswitchIds", index),
                    pod_vswitch,
                    "Terway pod vSwitches must differ from node vSwitches",
                )
        return self
