"""The ``elastic-capacity:ack`` section: ACK managed Pro clusters ready for ACS compute, and their ACS workloads.

One entry of ``ack.clusters`` is an :class:`AckClusterConfig`; its network, addons, node pool, logs and RBAC grants
have their own modules (``ack_network``, ``ack_addons``, ``ack_node_pool``, ``ack_logs``, ``ack_rbac``), the
workloads theirs (``acs``).
The section root, :class:`AckConfig`, holds the rules that span clusters and workloads, and collects what each
cluster's workloads need of its addons (:meth:`AckConfig.needs`) for the deploy-time check of the installed
versions (``components/alicloud/ack_checks.py``), which also checks what only ACK knows (offered versions, Enhanced NAT
zones). Every rule here runs before any resource is registered and names the key it is about.
"""

from __future__ import annotations

import re
import zoneinfo
from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from components.config.ack.acs import GPU_MODEL_SERIES, GPU_SCHEDULER_TABLES, AcsWorkloadConfig
from components.config.ack.addons import (
    ClusterAddonConfig,
    SchedulerAddonConfig,
    VirtualNodeAddonConfig,
    check_create_time_addons,
    default_addons,
    require_pins_meet,
)
from components.config.ack.existing import AckExistingClusterConfig
from components.config.ack.logs import AuditLogConfig, ControlPlaneLogsConfig
from components.config.ack.network import AckNetworkConfig, is_private
from components.config.ack.node_pool import AckNodePoolConfig
from components.config.ack.rbac import RbacGrant, check_grants
from components.config.base import PROJECT, ConfigModel, DnsLabel, RuleViolation, key_path, require_unique
from components.config.kube import KubernetesVersionText
from components.config.rules import rule
from components.config.versions import (
    ACK_MIN_KUBERNETES,
    VIRTUAL_NODE_MIN,
    ClusterNeeds,
    KubernetesVersion,
    SchedulerNeed,
    VirtualNodeNeed,
    table_minimum,
)

_ACK_DELETE_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/use-terraform-to-delete-an-ack-cluster"
_ACK_NETWORK_URL = "https://www.alibabacloud.com/help/doc-detail/86500.html"
_ACK_VERSIONS_URL = (
    "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/support-for-kubernetes-versions"
)
_ACS_IN_ACK_URL = "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster"
_IANA_TZ_URL = "https://www.iana.org/time-zones"
_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_KUBE_SCHED_URL = "https://www.alibabacloud.com/help/en/ack/product-overview/kube-scheduler"
_RBAC_API_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-updateuserpermissions"
_TAGS_URL = "https://www.alibabacloud.com/help/en/resource-management/latest/tag-overview"
_TF_ADDONS_ISSUE_URL = "https://github.com/aliyun/terraform-provider-alicloud/issues/5907"
_TF_CLUSTER_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes"
_TF_POOL_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_node_pool"

SECTION = f"{PROJECT}:ack"
"""The stack key of this section; deploy-time errors and warnings name keys under it."""

ProClusterSpec = Literal["ack.pro.small", "ack.pro.xlarge", "ack.pro.2xlarge", "ack.pro.4xlarge"]
"""The ``cluster_spec`` values of ACK managed Pro; ``ack.standard`` is not Pro
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

KubeconfigMode = Literal["exec-plugin", "temporary"]
"""How ``pulumi`` authenticates to the cluster; see :attr:`AckClusterConfig.kubeconfig_mode`."""

DeletedWithCluster = Literal["SLB", "ALB", "SLS_Data", "SLS_ControlPlane"]
"""The ``resource_type`` values of ACK's ``delete_options`` this program sends."""
_ACK_VERSION = re.compile(r"^\d+\.\d+(\.\d+-aliyun\.\d+)?$")
_URL = re.compile(r"https?://")

Region = Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[a-z0-9]+)+$")]
"""An Alibaba Cloud region id such as ``cn-hangzhou``."""


class AckClusterConfig(ConfigModel):
    """One ACK managed Pro cluster with the virtual node (and optionally a managed scheduler) for ACS compute."""

    name: DnsLabel
    """What the stack calls the cluster: workloads, burst workers and the ``ackClusters`` output refer to it by this
    name, and it is the cluster's name in ACK unless ``clusterName`` says otherwise."""
    cluster_name: DnsLabel | None = None
    """The cluster's name in ACK; its network's names are ``ack-<clusterName>``. Unset: ``name``. With
    ``environment.nameSuffix`` the suffix is appended to it (and so to the network's names)."""
    region: Region
    """Alibaba Cloud region, e.g. ``cn-hangzhou``; each cluster gets its own provider for it."""
    kubernetes_version: KubernetesVersionText
    """A minor such as ``1.35``, resolved when the cluster is created to the newest patch ACK offers for it, or an
    exact ``1.35.1-aliyun.1``, checked against what ACK offers; kept after that, whatever ACK offers, until this key
    changes (one minor at a time, never down, ``components/waiters/version_pin.py``) or ACK runs a newer version (an
    upgrade outside Pulumi, which a warning then asks this key to say). ACS needs 1.26 or later. Supported minors and
    their end dates: https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/support-for-kubernetes-versions."""
    cluster_spec: ProClusterSpec = "ack.pro.small"
    """The size of the managed control plane (``cluster_spec``); Pro is required: ACS compute through the virtual
    node is documented for ACK managed Pro clusters."""
    network: AckNetworkConfig
    """The VPC and vSwitches of the cluster's nodes and pods: a new VPC with NAT egress, or existing vSwitches."""
    service_cidr: IPv4Network = IPv4Network("192.168.0.0/16")
    """CIDR of the cluster's Services, private and outside the VPC. Always sent: the provider reads it back and it
    forces a new cluster, so leaving it to the server risks a replacement plan."""
    timezone: str = "Asia/Shanghai"
    """The cluster's IANA time zone. Always sent for the same reason as ``serviceCidr``; ACS's documented regions
    are mostly in mainland China."""
    proxy_mode: Literal["ipvs", "iptables"] = "ipvs"
    """kube-proxy's mode; ``ipvs`` is ACK's default, and changing it replaces the cluster."""
    deletion_protection: bool = False
    """While true ACK refuses to delete the cluster, and the cluster carries Pulumi's ``protect``, so ``pulumi
    destroy`` fails in its preview, before it deletes anything (``--skip-preview`` skips that preview: the engine
    then deletes what depends on the cluster before it refuses the cluster itself,
    https://www.pulumi.com/docs/iac/concepts/options/protect/). Unset: true with ``environment.kind: production``
    (which refuses false), false otherwise (ephemeral stacks refuse true). To destroy a protected cluster, set false
    and run ``pulumi up`` first."""
    enable_rrsa: bool = True
    """RAM Roles for Service Accounts (``enable_rrsa``): pods assume RAM roles with OIDC-federated service-account
    tokens instead of the nodes' role or stored AccessKeys (https://www.alibabacloud.com/help/doc-detail/356611.html).
    ``false`` opts out, but only while it was never on: ACK cannot turn RRSA off, and the provider fails that update."""
    enterprise_security_group: bool = True
    """ACK puts the nodes in a new enterprise (advanced) security group (``is_enterprise_security_group``), in which
    instances get no implicit access to each other (https://www.alibabacloud.com/help/doc-detail/120621.htm). Applied
    at creation only. ``false`` opts out (a basic group)."""
    security_group_id: Annotated[str, StringConstraints(pattern=r"^sg-[a-z0-9]+$")] | None = None
    """An existing security group for the nodes (``security_group_id``) instead of one ACK creates."""
    secrets_encryption_key_id: Annotated[str, StringConstraints(min_length=1, max_length=128)] | None = None
    """A KMS key (``Aliyun_AES_256``, for ENCRYPT/DECRYPT) that encrypts Kubernetes Secrets in etcd
    (``encryption_provider_key``, https://www.alibabacloud.com/help/doc-detail/187472.htm). Unset: no KMS
    encryption. Never disable or delete the key while the cluster uses it: its API server stops serving Secrets."""
    control_plane_logs: ControlPlaneLogsConfig | None = None
    """Ship control-plane logs to SLS; absent sends no log setting. Unset with ``environment.kind: production``:
    ``apiserver``, ``kcm``, ``scheduler`` and ``ccm``; an explicit ``null`` opts out."""
    audit_log: AuditLogConfig | None = None
    """Ship the API server's audit log to SLS; absent sends no audit-log setting, leaving ACK's default. Unset with
    ``environment.kind: production``: enabled; ``{enabled: false}`` or ``null`` opts out."""
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
    addons: list[ClusterAddonConfig] = Field(default_factory=default_addons)
    """Addons installed with the cluster, each name once; Terway (required) and CSI storage by default. Applied at
    creation only: later edits change nothing in ACK."""
    virtual_node: VirtualNodeAddonConfig = Field(default_factory=VirtualNodeAddonConfig)
    """The ``ack-virtual-node`` addon that brings ACS compute into the cluster; always installed."""
    scheduler: SchedulerAddonConfig | None = None
    """Manage kube-scheduler's version floor or parameters; absent leaves ACK's default install alone (its version
    is still checked against what the cluster's workloads need)."""
    rbac: list[RbacGrant] = Field(default_factory=list)
    """RAM users and roles besides the cluster's creator (ACK's only cluster-admin) that get an ACK RBAC role on it,
    such as the CI identity that runs ``pulumi`` (``role: admin``); without one it gets ``Forbidden`` on every
    Kubernetes call. Added by an ``up`` of an identity that may grant roles, such as the creator."""
    node_pool: AckNodePoolConfig | None = None
    """The system pool: ECS nodes for CoreDNS, the virtual node's controller and, on a MultiKueue worker, Kueue's
    controller; fixed at ``maxSize`` nodes. Without one the cluster has no cluster DNS (a warning says so)."""
    user_pools: list[AckNodePoolConfig] = Field(default_factory=list)
    """More ECS pools, beside ``nodePool``, for workloads that do not go to ACS. Unlike the system pool they may
    autoscale (``minSize`` below ``maxSize``): the stack then switches on ACK's node scaling for the cluster
    (``cs.AutoscalingConfig``), which needs the account's one-time authorization of the
    ``AliyunCSManagedAutoScalerRole`` (docs/ack-acs.md, Prerequisites)."""
    tags: dict[str, str] = Field(default_factory=lambda: {"project": PROJECT})
    """On the cluster, its nodes and the network, so every resource this project created can be found."""
    delete_unreachable: bool = False
    """Let ``pulumi destroy`` and ``refresh`` drop the cluster's Kubernetes objects from the state when the cluster is
    unreachable (https://github.com/pulumi/pulumi-kubernetes/pull/2489). Unset: true with ``environment.kind:
    ephemeral`` (which refuses false), false otherwise; ``production`` refuses true. False is not sent to the
    provider, so ``PULUMI_K8S_DELETE_UNREACHABLE=true`` still works once the cluster is gone."""
    delete_with_cluster: list[DeletedWithCluster] | None = None
    """What ACK deletes together with the cluster (``delete_options``): the load balancers it created for Services
    (``SLB``) and for the ALB Ingress controller (``ALB``), the Simple Log Service projects it created for the
    logging feature (``SLS_Data``) and the control-plane logs (``SLS_ControlPlane``); ACK keeps ALB and SLS by
    default (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/use-terraform-to-delete-an-ack-cluster).
    Unset: with ``environment.kind: ephemeral`` all four, except a log project the stack file names (it may be
    shared); otherwise none, keeping ACK's defaults."""
    credential_minutes: int = Field(1440, ge=15, le=4320)
    """``kubeconfigMode: temporary`` only: lifetime of the kubeconfig fetched on every run. ``pulumi destroy`` reuses
    the copy in state, so it must still be valid then: one day covers a work day's up/destroy cycle. With
    ``environment.kind: ephemeral`` it defaults to 60: destroy such a stack with ``pulumi destroy --run-program``."""

    @field_validator("kubernetes_version")
    @classmethod
    @rule("ack.ack-version", source=_ACK_VERSIONS_URL)
    def _ack_version(cls, value: str) -> str:
        """A Kubernetes minor (``1.35``) or ACK's exact version (``1.35.1-aliyun.1``) of 1.26 or later, because ACK
        takes only those forms and ACS in ACK managed Pro needs 1.26."""
        if not _ACK_VERSION.match(value):
            raise ValueError("write a minor such as 1.35 or ACK's exact version such as 1.35.1-aliyun.1")
        if not KubernetesVersion.parse(value).at_least(*ACK_MIN_KUBERNETES):
            raise ValueError("ACS in ACK managed Pro needs Kubernetes 1.26 or later")
        return value

    @field_validator("timezone")
    @classmethod
    @rule("ack.known-timezone", source=_IANA_TZ_URL)
    def _known_timezone(cls, value: str) -> str:
        """An IANA time zone name such as ``Asia/Shanghai``, because the cluster's ``timezone`` takes only those."""
        if value not in zoneinfo.available_timezones():
            raise ValueError("use an IANA time zone such as Asia/Shanghai")
        return value

    @field_validator("service_cidr")
    @classmethod
    @rule("ack.service-range", source=_ACK_NETWORK_URL)
    def _service_range(cls, value: IPv4Network) -> IPv4Network:
        """A Service CIDR of /16 to /24 inside a private range, because ACK takes no other."""
        if not is_private(value) or not 16 <= value.prefixlen <= 24:
            raise ValueError("use a /16../24 inside 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16")
        return value

    @field_validator("tags")
    @classmethod
    @rule("ack.tag-keys", source=_TAGS_URL)
    def _tag_keys(cls, value: dict[str, str]) -> dict[str, str]:
        """At most 20 tags, keys of 1-128 and values of up to 128 characters, no URL and no key starting with ``aliyun``
        or ``acs:``, because Alibaba Cloud reserves those and refuses the rest."""
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
        """The cluster's Kubernetes minor, such as ``1.35``: the key of the per-minor version tables."""
        return KubernetesVersion.parse(self.kubernetes_version).minor_version

    @model_validator(mode="after")
    @rule("ack.zones-in-region", source=_ACK_NETWORK_URL)
    def _zones_in_region(self) -> AckClusterConfig:
        """Zones of the cluster's region, because a vSwitch can only be created in a zone of the VPC's region."""
        for index, zone in enumerate(self.network.zones):
            if not zone.zone_id.startswith(f"{self.region}-"):
                key = key_path("network", "zones", index, "zoneId")
                raise RuleViolation(
                    key, zone.zone_id, f"it must be a zone of region {self.region}, e.g. {self.region}-k"
                )
        return self

    @model_validator(mode="after")
    @rule("ack.service-cidr-outside-vpc", source=_ACK_NETWORK_URL)
    def _service_cidr_outside_vpc(self) -> AckClusterConfig:
        """A Service CIDR that does not overlap the new VPC's CIDR, because Service and node addresses would then
        collide."""
        vpc = self.network.vpc_cidr
        if vpc is not None and self.service_cidr.overlaps(vpc):
            raise RuleViolation("serviceCidr", str(self.service_cidr), f"it must not overlap network.vpcCidr {vpc}")
        return self

    @model_validator(mode="after")
    @rule("ack.scheduler-matches-cluster", source=_KUBE_SCHED_URL)
    def _scheduler_matches_cluster(self) -> AckClusterConfig:
        """A kube-scheduler pin built for the cluster's Kubernetes minor, because ACK ships one scheduler build per
        minor."""
        pinned = self.scheduler.parsed if self.scheduler is not None else None
        if pinned is not None and pinned.minor_version != self.minor_version:
            raise RuleViolation(
                "scheduler.version",
                pinned.text,
                f"a kube-scheduler for Kubernetes {self.minor_version} (the cluster's minor) is required",
            )
        return self

    @model_validator(mode="after")
    @rule("ack.credentials-match-the-endpoint", source=_TF_CLUSTER_URL)
    def _credentials_match_the_endpoint(self) -> AckClusterConfig:
        """``credentialMinutes`` only with the temporary kubeconfig, and that mode only with a public endpoint, because
        the provider fetches a temporary kubeconfig for the public endpoint alone."""
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

    @property
    def pools(self) -> list[tuple[str, AckNodePoolConfig]]:
        """Every ECS pool with its key: the system pool first, then the user pools."""
        system = [("nodePool", self.node_pool)] if self.node_pool is not None else []
        return system + [(key_path("userPools", i), pool) for i, pool in enumerate(self.user_pools)]

    @model_validator(mode="after")
    @rule("ack.fixed-system-pool")
    def _fixed_system_pool(self) -> AckClusterConfig:
        """A cluster's ECS pools include a fixed system pool: ``nodePool`` never autoscales and ``userPools`` come
        only beside it. ACK labels autoscaled nodes ``k8s.aliyun.com=true`` "to prevent system pods such as coredns,
        metrics-servers from being scheduled to elastic nodes"
        (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_node_pool), so
        a cluster with elastic nodes only has no cluster DNS."""
        pool = self.node_pool
        if pool is not None and pool.autoscaling:
            raise RuleViolation(
                "nodePool.minSize",
                pool.min_size,
                f"the system pool is fixed: leave minSize unset or {pool.max_size} (maxSize); ACK keeps CoreDNS off "
                "autoscaled nodes (label k8s.aliyun.com=true), so put elastic nodes in userPools",
            )
        if self.user_pools and pool is None:
            names = [user.name for user in self.user_pools]
            raise RuleViolation("userPools", names, "only beside a nodePool, the system pool CoreDNS runs on")
        return self

    @model_validator(mode="after")
    @rule("ack.pool-names-unique", source=_TF_POOL_URL)
    def _pool_names_unique(self) -> AckClusterConfig:
        """The system and user pools' names differ: each is the pool's name in ACK and part of its Pulumi name."""
        require_unique([pool.name for _, pool in self.pools], lambda i: key_path(self.pools[i][0], "name"), "pools")
        return self

    @model_validator(mode="after")
    @rule("ack.create-time-addons", source=_TF_ADDONS_ISSUE_URL)
    def _create_time_addons(self) -> AckClusterConfig:
        """The cluster's create-time ``addons`` keep :func:`check_create_time_addons`, because ACK applies that list
        only when it creates the cluster."""
        check_create_time_addons(self.addons)
        return self

    @model_validator(mode="after")
    @rule("ack.rbac-grants", source=_RBAC_API_URL)
    def _rbac_grants(self) -> AckClusterConfig:
        """The cluster's ``rbac`` grants keep :func:`check_grants`, because ACK takes one role per identity and
        scope."""
        check_grants(self.rbac)
        return self

    @property
    def cloud_name(self) -> str:
        """The cluster's name in ACK."""
        return self.cluster_name or self.name

    @property
    def network_name(self) -> str:
        """The stem of the names of the cluster's VPC, vSwitches, NAT gateway and EIP."""
        return f"ack-{self.cloud_name}"

    @property
    def named_log_projects(self) -> set[str]:
        """The ``delete_with_cluster`` types whose log project the stack file names: such a project may be shared."""
        named = set()
        if self.audit_log is not None and self.audit_log.sls_project_name is not None:
            named.add("SLS_Data")
        if self.control_plane_logs is not None and self.control_plane_logs.project is not None:
            named.add("SLS_ControlPlane")
        return named

    @model_validator(mode="after")
    @rule("ack.named-log-projects-kept", source=_ACK_DELETE_URL)
    def _named_log_projects_kept(self) -> AckClusterConfig:
        """A log project the stack file names may be shared: it is never among what ACK deletes with the cluster."""
        for index, deleted in enumerate(self.delete_with_cluster or []):
            if deleted in self.named_log_projects:
                raise RuleViolation(
                    key_path("deleteWithCluster", index),
                    deleted,
                    "the stack file names that log project (auditLog.slsProjectName or controlPlaneLogs.project), "
                    "which may be shared: it is never deleted with the cluster",
                )
        return self

    @model_validator(mode="after")
    @rule("ack.one-security-group", source=_TF_CLUSTER_URL)
    def _one_security_group(self) -> AckClusterConfig:
        """No ``enterpriseSecurityGroup`` beside an existing ``securityGroupId``, because the provider refuses both."""
        if self.security_group_id is not None and "enterprise_security_group" in self.model_fields_set:
            raise RuleViolation(
                "enterpriseSecurityGroup",
                self.enterprise_security_group,
                f"securityGroupId {self.security_group_id} is the nodes' group: ACK creates none, so leave "
                "enterpriseSecurityGroup unset (the provider refuses both)",
            )
        return self


class AckConfig(ConfigModel):
    """ACK Pro clusters and the ACS workloads they run (stack key ``elastic-capacity:ack``)."""

    clusters: list[AckClusterConfig] = Field(default_factory=list)
    """The ACK managed Pro clusters this stack creates, each with its own ``name``."""
    existing_clusters: list[AckExistingClusterConfig] = Field(default_factory=list)
    """ACK managed Pro clusters this stack does not create: it only puts its workloads' namespaces and objects
    onto them, and ``destroy`` removes only those (with ``environment.kind: ephemeral`` each namespace gets the
    stack's name suffix, and ``default`` is refused)."""
    workloads: list[AcsWorkloadConfig] = Field(default_factory=list)
    """The ACS Deployments, each on one of ``clusters`` or ``existingClusters``, named by its ``name``."""

    def cluster_key(self, index: int) -> str:
        """The full stack key of ``clusters[index]``, which deploy-time errors extend."""
        return key_path(SECTION, "clusters", index)

    def existing_cluster_key(self, index: int) -> str:
        """The full stack key of ``existingClusters[index]``, which deploy-time errors extend."""
        return key_path(SECTION, "existingClusters", index)

    @property
    def existing_cluster_names(self) -> set[str]:
        """The names of ``existingClusters``: workloads on them are the only thing the stack creates there."""
        return {cluster.name for cluster in self.existing_clusters}

    @model_validator(mode="after")
    @rule("ack.some-cluster", source=_ACS_IN_ACK_URL)
    def _some_cluster(self) -> AckConfig:
        """An ``ack`` section with at least one new or existing cluster, because ACS workloads need a cluster to run
        in."""
        if not self.clusters and not self.existing_clusters:
            raise RuleViolation("clusters", [], "at least one entry in clusters or existingClusters")
        return self

    @model_validator(mode="after")
    @rule("ack.cluster-names-resolve", source=_K8S_NAMES_URL)
    def _cluster_names_resolve(self) -> AckConfig:
        """Cluster names are unique across both lists, and every workload names one of them."""
        names = [cluster.name for cluster in self.clusters]
        require_unique(names, lambda i: key_path("clusters", i, "name"), "cluster names")
        for index, existing in enumerate(self.existing_clusters):
            if existing.name in names:
                key = key_path("existingClusters", index, "name")
                raise RuleViolation(key, existing.name, f"a name not used by another cluster: {names}")
            names.append(existing.name)
        for index, workload in enumerate(self.workloads):
            if workload.cluster not in names:
                raise RuleViolation(key_path("workloads", index, "cluster"), workload.cluster, f"one of {names}")
        return self

    @model_validator(mode="after")
    @rule("ack.workload-names-unique", source=_K8S_NAMES_URL)
    def _workload_names_unique(self) -> AckConfig:
        """Names, app labels and policy names are unique per namespace of a cluster, where their objects live."""
        scopes: dict[tuple[str, str], list[int]] = {}
        for index, workload in enumerate(self.workloads):
            scopes.setdefault((workload.cluster, workload.namespace), []).append(index)
        for (cluster, namespace), indexes in scopes.items():
            where = f"in namespace {namespace} of cluster {cluster}"
            by_policy = [i for i in indexes if self.workloads[i].scheduling == "resource-policy"]
            for key, at, what in (
                ("name", indexes, "workload names"),
                ("appLabel", indexes, "app labels"),
                ("resourcePolicy.name", by_policy, "ResourcePolicy names"),
            ):
                _unique_among(self.workloads, at, key, f"{what} {where}")
        return self

    @model_validator(mode="after")
    @rule("ack.clusters-support-their-workloads", source=_KUBE_SCHED_URL)
    def _clusters_support_their_workloads(self) -> AckConfig:
        """Every cluster runs a Kubernetes minor its GPU workloads' scheduler tables cover and pins addons that meet its
        workloads' needs, because older builds cannot schedule those ACS pods."""
        every: list[tuple[str, AckClusterConfig | AckExistingClusterConfig]] = [
            (key_path("clusters", i), c) for i, c in enumerate(self.clusters)
        ]
        every += [(key_path("existingClusters", i), c) for i, c in enumerate(self.existing_clusters)]
        for cluster_key, cluster in every:
            for index, workload in enumerate(self.workloads):
                if workload.cluster == cluster.name and workload.is_gpu:
                    _require_table_minor(cluster_key, cluster, index, workload)
            if isinstance(cluster, AckClusterConfig):
                require_pins_meet(cluster_key, cluster.virtual_node, cluster.scheduler, self.needs(cluster))
        return self

    def needs(self, cluster: AckClusterConfig | AckExistingClusterConfig) -> ClusterNeeds:
        """What the workloads on ``cluster`` need of its ack-virtual-node and kube-scheduler.

        The config rules hold pinned versions to these; ``components/alicloud/ack_checks.py`` holds ACK's installed
        versions to them at deploy time. A GPU minor below its table has no need here: the rules refuse it.
        """
        virtual_node = VirtualNodeNeed(VIRTUAL_NODE_MIN, "ACS on Kubernetes 1.26 or later")
        scheduler: list[SchedulerNeed] = []
        for index, workload in enumerate(self.workloads):
            if workload.cluster != cluster.name:
                continue
            who = f"ack.workloads[{index}] ({workload.name}, {workload.compute_class})"
            if workload.virtual_node_minimum > virtual_node.minimum:
                virtual_node = VirtualNodeNeed(workload.virtual_node_minimum, who)
            scheduler += workload.scheduler_needs(cluster.minor_version, who)
        return ClusterNeeds(tuple(scheduler), virtual_node)

    def warnings(self) -> list[tuple[str, str]]:
        """``(key, message)`` for settings that may be right but usually are not; the fleet logs them as warnings."""
        found = []
        for index, workload in enumerate(self.workloads):
            model = workload.gpu_model_series
            if model is not None and model not in GPU_MODEL_SERIES:
                found.append(
                    (
                        key_path(SECTION, "workloads", index, "gpuModelSeries"),
                        f"{model!r} is not a GPU model series ACS documents ({', '.join(GPU_MODEL_SERIES)}); pods "
                        "asking for a model ACS does not offer stay Pending. Confirm the value with Alibaba Cloud.",
                    )
                )
            found += [(key_path(SECTION, "workloads", index, key), message) for key, message in workload.warnings()]
        for index, cluster in enumerate(self.clusters):
            pool = cluster.node_pool
            if pool is None:
                found.append(
                    (
                        key_path(SECTION, "clusters", index, "nodePool"),
                        "no ECS node pool: ACK runs CoreDNS on worker nodes and virtual nodes do not take it, so "
                        "pods get no cluster DNS. Add a small pool (2 nodes) unless something else provides one.",
                    )
                )
            elif pool.spot_strategy != "NoSpot":
                found.append((key_path(SECTION, "clusters", index, "nodePool", "spotStrategy"), _SPOT_SYSTEM_POOL))
        return found


_SPOT_SYSTEM_POOL = (
    "the system pool is preemptible: when ECS reclaims its instances (about five minutes' notice, "
    "https://www.alibabacloud.com/help/en/ecs/user-guide/spot-instances), CoreDNS, the ack-virtual-node controller "
    "and, on a MultiKueue worker, Kueue's controller and webhook go at once, with every pod's DNS and ACS "
    "scheduling, until ACK has replaced the nodes. Keep the system pool on NoSpot and put Spot capacity in userPools."
)
"""Why a Spot system pool is only warned about: a dev or ephemeral cluster may trade that outage for the price,
and nothing breaks for good (the pool's scaling group refills to its size, as far as stock allows)."""


@rule("ack.unique-among", source=_K8S_NAMES_URL)
def _unique_among(workloads: list[AcsWorkloadConfig], at: list[int], key: str, what: str) -> None:
    """The workloads at indexes ``at`` differ in ``key`` (name, app label or ResourcePolicy name), because two
    objects of one kind and name in a namespace are one object."""
    names = [{"name": w.name, "appLabel": w.app, "resourcePolicy.name": w.policy_name}[key] for w in workloads]
    require_unique([names[i] for i in at], lambda j: key_path("workloads", at[j], key), what)


@rule("ack.table-minor", source=_KUBE_SCHED_URL)
def _require_table_minor(
    cluster_key: str, cluster: AckClusterConfig | AckExistingClusterConfig, index: int, workload: AcsWorkloadConfig
) -> None:
    """A GPU class needs a cluster minor its kube-scheduler table covers; newer minors use the newest row."""
    table = GPU_SCHEDULER_TABLES[workload.compute_class]
    if table_minimum(table, cluster.minor_version) is None:
        oldest = min(table, key=lambda minor: tuple(int(part) for part in minor.split(".")))
        raise RuleViolation(
            key_path(cluster_key, "kubernetesVersion"),
            cluster.kubernetes_version,
            f"ack.workloads[{index}] ({workload.name}, {workload.compute_class}) needs Kubernetes {oldest} or later: "
            f"ACK lists no kube-scheduler for {workload.compute_class} before it",
        )
