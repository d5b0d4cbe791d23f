"""One ACK managed Pro cluster ready for ACS compute: one entry of ``ack.clusters``.

ACS pods reach an ACK cluster through the ``ack-virtual-node`` addon, and GPU classes need a recent enough
``kube-scheduler`` (https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster).
Both are left at ACK's own versions unless pinned here; a pinned one is managed as a ``KubernetesAddon`` resource,
because the cluster's own ``addons`` list is applied at create time only
(https://github.com/aliyun/terraform-provider-alicloud/issues/5907). Every rule here runs before any resource is
registered and names the key it is about; what only ACK knows (offered versions, installed addon versions, Enhanced
NAT zones) is checked at deploy time by ``components/ack_checks.py``.
"""

from __future__ import annotations

import re
import zoneinfo
from ipaddress import IPv4Network
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from components.config.base import PROJECT, ConfigModel, DnsLabel, RuleViolation, key_path
from components.config.kube import Labels, Taint, TaintEffect
from components.versions import (
    ACK_MIN_KUBERNETES,
    SCHEDULER_MIN_ACS,
    VIRTUAL_NODE_MIN,
    KubernetesVersion,
    SchedulerVersion,
    addon_version,
)

ProClusterSpec = Literal["ack.pro.small", "ack.pro.xlarge", "ack.pro.2xlarge", "ack.pro.4xlarge"]
"""The ``cluster_spec`` values of ACK managed Pro; ``ack.standard`` is not Pro
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

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
"""Control-plane components whose logs ACK ships to SLS, as the provider's examples (auto mode included) list them
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

MANAGED_ADDONS = {"ack-virtual-node": "virtualNode", "kube-scheduler": "scheduler"}
"""Addons this project manages as ``KubernetesAddon`` resources, and the key that configures each."""

KubeconfigMode = Literal["exec-plugin", "temporary"]
"""How ``pulumi`` authenticates to the cluster; see :attr:`AckClusterConfig.kubeconfig_mode`."""

PRIVATE_RANGES = tuple(IPv4Network(cidr) for cidr in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
"""RFC 1918: where ACK accepts VPC and Service CIDRs."""

_ACK_VERSION = re.compile(r"^\d+\.\d+(\.\d+-aliyun\.\d+)?$")
_ADDON_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")
_REGION = r"^[a-z]{2}(-[a-z0-9]+)+$"
_URL = re.compile(r"https?://")

Region = Annotated[str, StringConstraints(pattern=_REGION)]
VSwitchId = Annotated[str, StringConstraints(pattern=r"^vsw-[a-z0-9]+$")]


def _is_private(cidr: IPv4Network) -> bool:
    return any(cidr.subnet_of(private) for private in PRIVATE_RANGES)


class VirtualNodeAddonConfig(ConfigModel):
    """The ``ack-virtual-node`` addon: the virtual node that turns pods into ACS instances. ACK does not install it
    by default, so it is always a ``KubernetesAddon`` resource; ``pulumi up`` fails if the installed version is below
    what the cluster's workloads need (v2.13.0, v2.15.0 with GPU-HPN)."""

    version: str | None = None
    """Unset installs ACK's current version and never sends a version again, so ACK's own upgrades cause no diff.
    A pin is a floor: it installs that version, raises an older install to it, and never asks ACK to lower a newer
    one (the provider calls UpgradeClusterAddons whenever the sent version differs from the installed one)."""
    cleanup_cloud_resources: bool = True
    """Uninstalling ack-virtual-node requires this flag and deletes the ACS/ECI instances the node created instead of
    leaving them billed. Only ``true`` reaches ACK: the provider drops a ``false``
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_addon)."""

    @field_validator("version")
    @classmethod
    def _exact_and_recent(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not _ADDON_VERSION.match(value):
            raise ValueError("write the exact addon version, e.g. v2.17.3, or leave it unset")
        if addon_version(value) < VIRTUAL_NODE_MIN:
            raise ValueError(f"ACS on Kubernetes 1.26+ needs ack-virtual-node v{VIRTUAL_NODE_MIN} or later")
        return value

    @field_validator("cleanup_cloud_resources")
    @classmethod
    def _only_true_reaches_ack(cls, value: bool) -> bool:
        if not value:
            raise ValueError(
                "the provider sends this flag only when true (it reads it with GetOk), so false would uninstall "
                "without the flag ACK requires for ack-virtual-node; keep true, which deletes the ACS/ECI instances"
            )
        return value


class SchedulerAddonConfig(ConfigModel):
    """Manage ACK's ``kube-scheduler`` (installed by default in ACK Pro) as a ``KubernetesAddon`` that adopts the
    default install. Absent, the program only checks the installed version against what the workloads need."""

    version: str | None = None
    """A floor such as ``v1.35.0-apsara.6.11.4.77470105``, for the cluster's Kubernetes minor: an older install is
    raised to it, a newer one is kept (the provider would otherwise ask ACK to downgrade). Unset leaves the version
    to ACK."""
    config: dict[str, Any] | None = None
    """Scheduler parameters, sent as canonical JSON. Use the value types the server returns (often strings such as
    ``"true"``); read the keys from ``cs.get_kubernetes_addon_metadata(...).config_schema``
    (https://github.com/aliyun/terraform-provider-alicloud/issues/5907)."""

    @field_validator("version")
    @classmethod
    def _acs_capable(cls, value: str | None) -> str | None:
        if value is not None and SchedulerVersion.parse(value).ack < SCHEDULER_MIN_ACS:
            raise ValueError(f"ACS needs kube-scheduler feature level {SCHEDULER_MIN_ACS} or later")
        return value

    @model_validator(mode="after")
    def _says_something(self) -> SchedulerAddonConfig:
        if self.version is None and self.config is None:
            raise RuleViolation("", "{}", "give version and/or config, or remove scheduler to leave it to ACK")
        return self

    @property
    def parsed(self) -> SchedulerVersion | None:
        return SchedulerVersion.parse(self.version) if self.version is not None else None


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
    need it (https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview). Existing vSwitches must
    already have egress; nothing is added to them.
    """

    vpc_cidr: IPv4Network | None = None
    zones: list[ZoneConfig] = Field(default_factory=list)
    """The first zone also hosts the NAT gateway, so it must offer Enhanced NAT; ``pulumi preview`` checks that
    with ``vpc.get_enhanced_nat_available_zones``."""
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
"""Terway (pods, ACS included, take VPC IPs from the pod vSwitches) and CSI storage, as the provider's Pro
examples install them (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""


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
    """ECS nodes for system components and workloads that do not go to ACS. ACK managed Pro runs CoreDNS as a
    Deployment on worker nodes (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-dns-resolution)
    and virtual nodes are tainted against it, so a cluster with only virtual nodes has no cluster DNS. The virtual-node
    addon and the workloads wait for the pool.

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
    """One ACK managed Pro cluster with the virtual node (and optionally a managed scheduler) for ACS compute."""

    name: DnsLabel
    """The ACK cluster name."""
    region: Region
    """Alibaba Cloud region, e.g. ``cn-hangzhou``; each cluster gets its own provider for it."""
    kubernetes_version: str
    """A minor such as ``1.35``, resolved at deploy time to the newest patch ACK offers for it (so ``pulumi up``
    upgrades the control plane in place when ACK publishes a newer patch), or an exact ``1.35.1-aliyun.1``, checked
    against what ACK offers. ACS needs 1.26 or later; ACK refuses downgrades. Supported minors and their end dates:
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/support-for-kubernetes-versions."""
    cluster_spec: ProClusterSpec = "ack.pro.small"
    """Pro is required: ACS compute through the virtual node is documented for ACK managed Pro clusters."""
    network: NetworkConfig
    service_cidr: IPv4Network = IPv4Network("192.168.0.0/16")
    """Always sent: the provider reads it back and it forces a new cluster, so leaving it to the server risks a
    replacement plan."""
    timezone: str = "Asia/Shanghai"
    """Always sent for the same reason as ``serviceCidr``; ACS's documented regions are mostly in mainland China."""
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
    """A public API server endpoint. ``false`` needs ``kubeconfigMode: exec-plugin``, whose kubeconfig then uses the
    private endpoint: ``pulumi`` must run inside the VPC (or a network connected to it)."""
    kubeconfig_mode: KubeconfigMode = "exec-plugin"
    """How the Kubernetes provider authenticates. ``exec-plugin``: a kubeconfig built from the endpoint and the
    cluster CA that runs ``ack-ram-tool credential-plugin get-credential`` for a fresh certificate whenever needed; it
    is identical on every run, so previews stay clean and a later ``destroy`` still authenticates. Needs
    ``ack-ram-tool`` on the PATH and Alibaba Cloud credentials where ``pulumi`` runs
    (https://github.com/AliyunContainerService/ack-ram-tool). ``temporary``: the temporary kubeconfig of
    ``cs.get_cluster_credential``, fetched again on every run; it changes the provider on every preview and expires
    ``credentialMinutes`` after the last ``up``."""
    addons: list[ClusterAddonConfig] = Field(default_factory=lambda: list(DEFAULT_ADDONS))
    virtual_node: VirtualNodeAddonConfig = VirtualNodeAddonConfig()
    scheduler: SchedulerAddonConfig | None = None
    """Manage kube-scheduler's version floor or parameters; absent leaves ACK's default install alone (its version
    is still checked against what the cluster's workloads need)."""
    node_pool: NodePoolConfig | None = None
    """ECS nodes for CoreDNS and other system pods; without one the cluster has no cluster DNS (a warning says so)."""
    tags: dict[str, str] = Field(default_factory=lambda: {"project": PROJECT})
    """On the cluster, its nodes and the network, so every resource this project created can be found."""
    credential_minutes: int = Field(1440, ge=15, le=4320)
    """``kubeconfigMode: temporary`` only: lifetime of the kubeconfig fetched on every run. ``pulumi destroy`` reuses
    the copy in state, so it must still be valid then: one day covers a work day's up/destroy cycle."""

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _quoted(cls, value: Any) -> Any:
        if isinstance(value, float):
            raise ValueError('quote the version, e.g. "1.30": YAML reads an unquoted 1.30 as the number 1.3')
        return value

    @field_validator("kubernetes_version")
    @classmethod
    def _ack_version(cls, value: str) -> str:
        if not _ACK_VERSION.match(value):
            raise ValueError("write a minor such as 1.35 or ACK's exact version such as 1.35.1-aliyun.1")
        if not KubernetesVersion.parse(value).at_least(*ACK_MIN_KUBERNETES):
            raise ValueError("ACS in ACK managed Pro needs Kubernetes 1.26 or later")
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
        pinned = self.scheduler.parsed if self.scheduler is not None else None
        if pinned is not None and pinned.minor_version != self.minor_version:
            raise RuleViolation(
                "scheduler.version",
                pinned.text,
                f"a kube-scheduler for Kubernetes {self.minor_version} (the cluster's minor) is required",
            )
        return self

    @model_validator(mode="after")
    def _credentials_match_the_endpoint(self) -> AckClusterConfig:
        if self.kubeconfig_mode == "exec-plugin" and "credential_minutes" in self.model_fields_set:
            raise RuleViolation(
                "credentialMinutes",
                self.credential_minutes,
                "only used with kubeconfigMode: temporary; the exec plugin fetches short-lived certificates itself",
            )
        if self.kubeconfig_mode == "temporary" and not self.slb_internet_enabled:
            raise RuleViolation(
                "slbInternetEnabled",
                False,
                "kubeconfigMode: temporary gets a kubeconfig for the public endpoint only (the provider asks ACK "
                "with PrivateIpAddress=false); use kubeconfigMode: exec-plugin for a private-endpoint kubeconfig",
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
