"""One ACK managed Pro cluster ready for ACS compute: one entry of ``ack.clusters``.

ACS pods reach an ACK cluster through the ``ack-virtual-node`` addon, and GPU classes need a pinned
``kube-scheduler`` (seed 004). Both are managed after creation as ``KubernetesAddon`` resources, because the
cluster's own ``addons`` list is applied at create time only (reference ack-acs.md section 0.3). Every rule here runs
before any resource is registered and names the key it is about.
"""

from __future__ import annotations

import re
import zoneinfo
from ipaddress import IPv4Network
from typing import Annotated, Any, Literal

from packaging.version import Version
from pydantic import Field, StringConstraints, field_validator, model_validator

from components.config.base import PROJECT, ConfigModel, DnsLabel, RuleViolation, key_path
from components.config.kube import Labels, Taint, TaintEffect
from components.versions import (
    ACK_MIN_KUBERNETES,
    VIRTUAL_NODE_MIN,
    KubernetesVersion,
    SchedulerVersion,
    addon_version,
)

ProClusterSpec = Literal["ack.pro.small", "ack.pro.xlarge", "ack.pro.2xlarge", "ack.pro.4xlarge"]
"""The ``cluster_spec`` values of ACK managed Pro (reference section 1.3); ``ack.standard`` is not Pro."""

CONTROL_PLANE_LOG_COMPONENTS = (
    "apiserver",
    "kcm",
    "scheduler",
    "ccm",
    "controlplane-events",
    "alb",
    "ack-goatscaler",
    "coredns",
    "gatekeeper",
)
"""Control-plane components whose logs ACK ships to SLS (reference section 1.3, incl. the auto-mode example)."""

MANAGED_ADDONS = {"ack-virtual-node": "virtualNode", "kube-scheduler": "scheduler"}
"""Addons this project manages as ``KubernetesAddon`` resources, and the key that configures each."""

SCHEDULER_MIN_ACS = Version("6.7.0")
"""ACS via the virtual node needs kube-scheduler ``1.26.3-aliyun-6.7.0`` or later (reference section 0.4)."""

PRIVATE_RANGES = tuple(IPv4Network(cidr) for cidr in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
"""RFC 1918: where ACK accepts VPC and Service CIDRs."""

_ACK_VERSION = re.compile(r"^\d+\.\d+\.\d+-aliyun\.\d+$")
_ADDON_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")
_REGION = r"^[a-z]{2}(-[a-z0-9]+)+$"
_URL = re.compile(r"https?://")

Region = Annotated[str, StringConstraints(pattern=_REGION)]
VSwitchId = Annotated[str, StringConstraints(pattern=r"^vsw-[a-z0-9]+$")]


def _is_private(cidr: IPv4Network) -> bool:
    return any(cidr.subnet_of(private) for private in PRIVATE_RANGES)


class VirtualNodeAddonConfig(ConfigModel):
    """The ``ack-virtual-node`` addon: the virtual node that turns pods into ACS instances."""

    version: str = "v2.17.3"
    """Pinned so upgrades are reviewed; v2.17.3 is current (reference section 2) and above every seed minimum
    (v2.13.0 for ACS, v2.15.0 for GPU-HPN)."""
    cleanup_cloud_resources: bool = True
    """Always sent: uninstalling ack-virtual-node requires it (reference section 1.7); true deletes the ACS/ECI
    instances the node created instead of leaving them billed."""

    @field_validator("version")
    @classmethod
    def _pinned_and_recent(cls, value: str) -> str:
        if not _ADDON_VERSION.match(value):
            raise ValueError("write the exact addon version, e.g. v2.17.3")
        if addon_version(value) < VIRTUAL_NODE_MIN:
            raise ValueError(f"ACS on Kubernetes 1.26+ needs ack-virtual-node v{VIRTUAL_NODE_MIN} or later (seed 004)")
        return value


class SchedulerAddonConfig(ConfigModel):
    """Pin ACK's ``kube-scheduler``: the addon adopts the default install and upgrades it to ``version``."""

    version: str
    """An ACK scheduler version such as ``v1.33.0-aliyun.6.9.4.8b58e6b4``; its Kubernetes minor must be the
    cluster's."""
    config: dict[str, Any] | None = None
    """Scheduler parameters, sent as canonical JSON. Use the value types the server returns (often strings such as
    ``"true"``); read the keys from ``get_kubernetes_addon_metadata(...).config_schema`` (reference section 2)."""

    @field_validator("version")
    @classmethod
    def _acs_capable(cls, value: str) -> str:
        parsed = SchedulerVersion.parse(value)
        if parsed.ack < SCHEDULER_MIN_ACS:
            raise ValueError(f"ACS needs kube-scheduler feature level {SCHEDULER_MIN_ACS} or later (reference 0.4)")
        return value

    @property
    def parsed(self) -> SchedulerVersion:
        return SchedulerVersion.parse(self.version)


class ZoneConfig(ConfigModel):
    """One zone of a new VPC: a node vSwitch and a Terway pod vSwitch (ACS pods take their IPs from it too)."""

    zone_id: str
    node_cidr: IPv4Network
    pod_cidr: IPv4Network

    @field_validator("node_cidr", "pod_cidr")
    @classmethod
    def _vswitch_mask(cls, value: IPv4Network) -> IPv4Network:
        if not 16 <= value.prefixlen <= 29:
            raise ValueError("a vSwitch CIDR needs a mask between /16 and /29")
        return value


class NetworkConfig(ConfigModel):
    """Either a new VPC (``vpcCidr``, ``zones``, NAT settings) or existing vSwitches, never both.

    A new VPC gets an Enhanced NAT gateway with an EIP and SNAT for every vSwitch: ACS pods pulling public images
    need it (reference section 1.10). Existing vSwitches must already have egress; nothing is added to them.
    """

    vpc_cidr: IPv4Network | None = None
    zones: list[ZoneConfig] = Field(default_factory=list)
    """The first zone also hosts the NAT gateway, so it must offer Enhanced NAT."""
    nat_bandwidth: int = Field(10, ge=1, le=500)
    """Mbit/s of the NAT gateway's EIP."""
    eip_internet_charge_type: Literal["PayByTraffic", "PayByBandwidth"] = "PayByTraffic"
    """Pay for egress actually used: image pulls are bursty."""
    vswitch_ids: list[VSwitchId] = Field(default_factory=list)
    pod_vswitch_ids: list[VSwitchId] = Field(default_factory=list)

    @property
    def creates_vpc(self) -> bool:
        return self.vpc_cidr is not None

    @model_validator(mode="after")
    def _exactly_one_mode(self) -> NetworkConfig:
        fields = type(self).model_fields
        new = [
            fields[f].alias
            for f in ("vpc_cidr", "zones", "nat_bandwidth", "eip_internet_charge_type")
            if f in self.model_fields_set
        ]
        existing = [fields[f].alias for f in ("vswitch_ids", "pod_vswitch_ids") if f in self.model_fields_set]
        if new and existing:
            raise RuleViolation(
                str(existing[0]), "set", f"{new} describe a new VPC; use either those or vswitchIds/podVswitchIds"
            )
        if not new and not existing:
            raise RuleViolation("", "{}", "give vpcCidr and zones (new VPC) or vswitchIds and podVswitchIds")
        return self._check_new_vpc() if new else self._check_existing()

    def _check_new_vpc(self) -> NetworkConfig:
        if self.vpc_cidr is None:
            raise RuleViolation("vpcCidr", None, "a new VPC needs a CIDR such as 10.0.0.0/8")
        if not _is_private(self.vpc_cidr):
            raise RuleViolation(
                "vpcCidr", str(self.vpc_cidr), "it must lie in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16"
            )
        if not self.zones:
            raise RuleViolation("zones", [], "a new VPC needs at least one zone with nodeCidr and podCidr")
        seen_zones: set[str] = set()
        taken: list[IPv4Network] = []
        for index, zone in enumerate(self.zones):
            if zone.zone_id in seen_zones:
                raise RuleViolation(key_path("zones", index, "zoneId"), zone.zone_id, "each zone appears once")
            seen_zones.add(zone.zone_id)
            for key, cidr in (("nodeCidr", zone.node_cidr), ("podCidr", zone.pod_cidr)):
                if not cidr.subnet_of(self.vpc_cidr):
                    raise RuleViolation(
                        key_path("zones", index, key), str(cidr), f"it must lie inside vpcCidr {self.vpc_cidr}"
                    )
                clash = next((other for other in taken if cidr.overlaps(other)), None)
                if clash is not None:
                    raise RuleViolation(key_path("zones", index, key), str(cidr), f"it overlaps vSwitch CIDR {clash}")
                taken.append(cidr)
        limit = 200 if self.eip_internet_charge_type == "PayByTraffic" else 500
        if self.nat_bandwidth > limit:
            raise RuleViolation(
                "natBandwidth",
                self.nat_bandwidth,
                f"a pay-as-you-go {self.eip_internet_charge_type} EIP allows 1..{limit}",
            )
        return self

    def _check_existing(self) -> NetworkConfig:
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


class ClusterAddonConfig(ConfigModel):
    """An addon installed with the cluster. Applied at creation only: later edits change nothing in ACK."""

    name: str
    version: str | None = None
    config: dict[str, Any] | None = None
    """Sent as canonical JSON."""
    disabled: bool = False
    """True skips an addon ACK installs by default (e.g. ``nginx-ingress-controller``)."""


DEFAULT_ADDONS = (
    ClusterAddonConfig(name="terway-eniip"),
    ClusterAddonConfig(name="csi-plugin"),
    ClusterAddonConfig(name="managed-csiprovisioner"),
)
"""Terway (pods, ACS included, take VPC IPs from the pod vSwitches) and CSI storage (reference sections 1.11, 2)."""


class ControlPlaneLogsConfig(ConfigModel):
    components: list[str] = Field(min_length=1)
    ttl: int = Field(30, ge=1, le=3650)
    """Days; ACK's default is 30."""
    project: str | None = None
    """SLS project; ACK creates ``k8s-log-{ClusterID}`` when omitted."""

    @field_validator("components")
    @classmethod
    def _documented(cls, value: list[str]) -> list[str]:
        for component in value:
            if component not in CONTROL_PLANE_LOG_COMPONENTS:
                raise ValueError(f"{component!r} is not one of {list(CONTROL_PLANE_LOG_COMPONENTS)}")
        if len(set(value)) != len(value):
            raise ValueError("each component appears once")
        return value


class AuditLogConfig(ConfigModel):
    enabled: bool = True
    sls_project_name: str | None = None


class TaintConfig(Taint):
    """A node-pool taint: the core taint, whose ``effect`` may be left out here."""

    effect: TaintEffect = "NoSchedule"
    """Always sent to ACK, so an unset effect never depends on a server-side default."""


class NodePoolConfig(ConfigModel):
    """ECS nodes for system components and workloads that do not go to ACS. Optional: ACK recommends creating the
    cluster without workers and adding a node pool (reference section 1.3).

    ``minSize < maxSize`` enables autoscaling; equal sizes give a fixed pool of ``desiredSize`` nodes.
    """

    name: DnsLabel
    instance_types: list[str] = Field(min_length=1, max_length=10)
    """Tried in order when stock runs out."""
    min_size: int = Field(0, ge=0, le=1000)
    max_size: int = Field(ge=0, le=1000)
    desired_size: int | None = None
    """Initial node count; defaults to ``minSize``. With autoscaling the autoscaler owns it afterwards."""
    system_disk_category: Literal["cloud_essd", "cloud_auto", "cloud_ssd", "cloud_efficiency"] = "cloud_essd"
    system_disk_size: int = Field(120, ge=20, le=2048)
    """GiB; room for the container images of the node's pods."""
    labels: Labels = Field(default_factory=dict)
    taints: list[TaintConfig] = Field(default_factory=list)

    @property
    def autoscaling(self) -> bool:
        return self.min_size < self.max_size

    @property
    def initial_size(self) -> int:
        return self.min_size if self.desired_size is None else self.desired_size

    @model_validator(mode="after")
    def _sizes_ordered(self) -> NodePoolConfig:
        if self.min_size > self.max_size:
            raise RuleViolation("minSize", self.min_size, f"it must not exceed maxSize {self.max_size}")
        if not self.min_size <= self.initial_size <= self.max_size:
            raise RuleViolation(
                "desiredSize", self.desired_size, f"it must lie in minSize..maxSize ({self.min_size}..{self.max_size})"
            )
        if len(set(self.instance_types)) != len(self.instance_types):
            raise RuleViolation("instanceTypes", self.instance_types, "each instance type appears once")
        return self


class AckClusterConfig(ConfigModel):
    """One ACK managed Pro cluster with the virtual node (and optionally a pinned scheduler) for ACS compute."""

    name: DnsLabel
    """The ACK cluster name."""
    region: Region
    """Alibaba Cloud region, e.g. ``cn-hangzhou``; each cluster gets its own provider for it."""
    kubernetes_version: str
    """ACK's exact form, e.g. ``1.33.1-aliyun.1``; ACS needs 1.26 or later (seed 004). Raising it upgrades the
    cluster; ACK refuses downgrades."""
    cluster_spec: ProClusterSpec = "ack.pro.small"
    """Pro is required: the seed's ACS integration is for ACK managed Pro clusters."""
    network: NetworkConfig
    service_cidr: IPv4Network = IPv4Network("192.168.0.0/16")
    """Always sent: omitting it lets the server value force a cluster replacement (reference section 5.4)."""
    timezone: str = "Asia/Shanghai"
    """Always sent for the same reason as ``serviceCidr``; the seed's region is mainland China."""
    proxy_mode: Literal["ipvs", "iptables"] = "ipvs"
    """ACK's default; changing it replaces the cluster."""
    deletion_protection: bool = True
    """Production clusters must not vanish with a stray destroy; dev stacks set false (and must apply that before
    destroying)."""
    enable_rrsa: bool = False
    """Pod identity via OIDC. Opt-in because ACK cannot turn it off again."""
    control_plane_logs: ControlPlaneLogsConfig | None = None
    audit_log: AuditLogConfig | None = None
    slb_internet_enabled: bool = True
    """The kubeconfig from getClusterCredential uses the public endpoint (reference section 1.6)."""
    addons: list[ClusterAddonConfig] = Field(default_factory=lambda: list(DEFAULT_ADDONS))
    virtual_node: VirtualNodeAddonConfig = VirtualNodeAddonConfig()
    scheduler: SchedulerAddonConfig | None = None
    """Pin kube-scheduler (needed for ACS GPU/GPU-HPN minimums); absent leaves ACK's default install alone."""
    node_pool: NodePoolConfig | None = None
    tags: dict[str, str] = Field(default_factory=lambda: {"project": PROJECT})
    """On the cluster, its nodes and the network, so every resource this project created can be found."""
    credential_minutes: int = Field(1440, ge=15, le=4320)
    """Lifetime of the temporary kubeconfig fetched on every run. ``pulumi destroy`` reuses the copy in state, so it
    must still be valid then: one day covers a work day's up/destroy cycle."""

    @field_validator("kubernetes_version")
    @classmethod
    def _ack_version(cls, value: str) -> str:
        if not _ACK_VERSION.match(value):
            raise ValueError("write ACK's exact version, e.g. 1.33.1-aliyun.1")
        if not KubernetesVersion.parse(value).at_least(*ACK_MIN_KUBERNETES):
            raise ValueError("ACS in ACK managed Pro needs Kubernetes 1.26 or later (seed 004)")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, value: str) -> str:
        if value not in zoneinfo.available_timezones():
            raise ValueError("use an IANA time zone such as Asia/Shanghai")
        return value

    @field_validator("service_cidr")
    @classmethod
    def _service_range(cls, value: IPv4Network) -> IPv4Network:
        if not _is_private(value) or not 16 <= value.prefixlen <= 24:
            raise ValueError("use a /16../24 inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16")
        return value

    @field_validator("tags")
    @classmethod
    def _tag_keys(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > 20:
            raise ValueError("Alibaba Cloud allows at most 20 tags per resource")
        for key, tag in value.items():
            if key.startswith(("aliyun", "acs:")):
                raise ValueError(f"tag key {key!r} may not start with 'aliyun' or 'acs:' (reserved by Alibaba Cloud)")
            if not 1 <= len(key) <= 128 or len(tag) > 128 or any(_URL.search(text) for text in (key, tag)):
                raise ValueError(
                    f"tag {key!r}: keys 1-128 and values up to 128 characters, without http:// or https://"
                )
        return value

    @property
    def minor_version(self) -> str:
        return KubernetesVersion.parse(self.kubernetes_version).minor_version

    @model_validator(mode="after")
    def _zones_in_region(self) -> AckClusterConfig:
        for index, zone in enumerate(self.network.zones):
            if not zone.zone_id.startswith(f"{self.region}-"):
                key = key_path("network", "zones", index, "zoneId")
                raise RuleViolation(
                    key, zone.zone_id, f"it must be a zone of region {self.region}, e.g. {self.region}-k"
                )
        return self

    @model_validator(mode="after")
    def _service_cidr_outside_vpc(self) -> AckClusterConfig:
        vpc = self.network.vpc_cidr
        if vpc is not None and self.service_cidr.overlaps(vpc):
            raise RuleViolation("serviceCidr", str(self.service_cidr), f"it must not overlap network.vpcCidr {vpc}")
        return self

    @model_validator(mode="after")
    def _scheduler_matches_cluster(self) -> AckClusterConfig:
        if self.scheduler is not None and self.scheduler.parsed.minor_version != self.minor_version:
            raise RuleViolation(
                "scheduler.version",
                self.scheduler.version,
                f"a kube-scheduler for Kubernetes {self.minor_version} (the cluster's minor) is required",
            )
        return self

    @model_validator(mode="after")
    def _create_time_addons(self) -> AckClusterConfig:
        names = [addon.name for addon in self.addons]
        for index, name in enumerate(names):
            key = key_path("addons", index, "name")
            if name in MANAGED_ADDONS:
                raise RuleViolation(
                    key,
                    name,
                    f"configure it under {MANAGED_ADDONS[name]}: cluster addons are create-only, so it is managed as "
                    "a KubernetesAddon resource",
                )
            if name == "flannel":
                raise RuleViolation(key, name, "this project wires Terway pod vSwitches; Flannel conflicts with Terway")
            if name in names[:index]:
                raise RuleViolation(key, name, "each addon appears once")
        if not any(addon.name == "terway-eniip" and not addon.disabled for addon in self.addons):
            raise RuleViolation("addons", names, "terway-eniip is required: pod vSwitches need the Terway CNI")
        return self
