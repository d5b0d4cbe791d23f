"""The addons of one ACK cluster: create-time addons, the ACK Virtual Node, and optionally a managed kube-scheduler.

ACS pods reach an ACK cluster through the ``ack-virtual-node`` addon, and GPU classes need a recent enough
``kube-scheduler`` (https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster).
Both are left at ACK's own versions unless pinned here; a pinned one is managed as a ``KubernetesAddon`` resource,
because the cluster's own ``addons`` list is applied at create time only
(https://github.com/aliyun/terraform-provider-alicloud/issues/5907).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import field_validator, model_validator

from components.config.base import ConfigModel, RuleViolation, key_path, require_unique
from components.config.rules import rule
from components.config.versions import (
    SCHEDULER_MIN_ACS,
    VIRTUAL_NODE_MIN,
    ClusterNeeds,
    SchedulerVersion,
    addon_version,
)

_ACS_IN_ACK_URL = "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster"
_KUBE_SCHED_URL = "https://www.alibabacloud.com/help/en/ack/product-overview/kube-scheduler"
_TF_ADDON_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_addon"
_TF_CLUSTER_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes"

MANAGED_ADDONS = {"ack-virtual-node": "virtualNode", "kube-scheduler": "scheduler"}
"""Addons this project manages as ``KubernetesAddon`` resources, and the key that configures each."""

_ADDON_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


class VirtualNodeAddonConfig(ConfigModel):
    """The ``ack-virtual-node`` addon: the virtual node that turns pods into ACS instances. ACK does not install it
    by default, so it is always a ``KubernetesAddon`` resource; ``pulumi up`` fails if the installed version is below
    what the cluster's workloads need (v2.13.0, v2.15.0 with GPU-HPN)."""

    version: str | None = None
    """The addon version, such as ``v2.17.3``. Unset installs ACK's current version and never sends a version
    again, so ACK's own upgrades cause no diff. A pin is a floor: it installs that version, raises an older install
    to it, and never asks ACK to lower a newer one (the provider calls UpgradeClusterAddons whenever the sent
    version differs from the installed one)."""
    cleanup_cloud_resources: bool = True
    """Uninstalling ack-virtual-node requires this flag and deletes the ACS/ECI instances the node created instead of
    leaving them billed. Only ``true`` reaches ACK: the provider drops a ``false``
    (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_kubernetes_addon)."""

    @field_validator("version")
    @classmethod
    @rule("ack-addons.exact-and-recent", source=_ACS_IN_ACK_URL)
    def _exact_and_recent(cls, value: str | None) -> str | None:
        """An exact ack-virtual-node version (``v2.17.3``) no older than ACS needs, because the addon installs the
        version it is given and ACS on Kubernetes 1.26+ needs a recent virtual node."""
        if value is None:
            return value
        if not _ADDON_VERSION.match(value):
            raise ValueError("write the exact addon version, e.g. v2.17.3, or leave it unset")
        if addon_version(value) < VIRTUAL_NODE_MIN:
            raise ValueError(f"ACS on Kubernetes 1.26+ needs ack-virtual-node v{VIRTUAL_NODE_MIN} or later")
        return value

    @field_validator("cleanup_cloud_resources")
    @classmethod
    @rule("ack-addons.only-true-reaches-ack", source=_TF_ADDON_URL)
    def _only_true_reaches_ack(cls, value: bool) -> bool:
        """``cleanupCloudResources: true`` only, because the provider drops a false flag and ACK then refuses to
        uninstall ack-virtual-node."""
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
    to ACK. Builds per minor: https://www.alibabacloud.com/help/en/ack/product-overview/kube-scheduler."""
    config: dict[str, Any] | None = None
    """Scheduler parameters, sent as canonical JSON. Use the value types the server returns (often strings such as
    ``"true"``); read the keys from ``cs.get_kubernetes_addon_metadata(...).config_schema``
    (https://github.com/aliyun/terraform-provider-alicloud/issues/5907)."""

    @field_validator("version")
    @classmethod
    @rule("ack-addons.acs-capable", source=_KUBE_SCHED_URL)
    def _acs_capable(cls, value: str | None) -> str | None:
        """A kube-scheduler pin of a feature level ACS can use, because an older scheduler does not place pods on ACS
        virtual nodes."""
        if value is not None and SchedulerVersion.parse(value).ack < SCHEDULER_MIN_ACS:
            raise ValueError(f"ACS needs kube-scheduler feature level {SCHEDULER_MIN_ACS} or later")
        return value

    @model_validator(mode="after")
    @rule("ack-addons.says-something", source=_TF_ADDON_URL)
    def _says_something(self) -> SchedulerAddonConfig:
        """A ``scheduler`` block with a version or a config, because an empty one would manage the addon while changing
        nothing."""
        if self.version is None and self.config is None:
            raise RuleViolation("", {}, "give version and/or config, or remove scheduler to leave it to ACK")
        return self

    @property
    def parsed(self) -> SchedulerVersion | None:
        """The pinned version, parsed; ``None`` without a pin."""
        return SchedulerVersion.parse(self.version) if self.version is not None else None


class ClusterAddonConfig(ConfigModel):
    """An addon installed with the cluster (the provider's ``addons`` block,
    https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes). Applied at
    creation only: later edits change nothing in ACK."""

    name: str
    """The addon's name as ACK lists it, such as ``terway-eniip``; each name once. ``ack-virtual-node`` and
    ``kube-scheduler`` are configured under ``virtualNode`` and ``scheduler`` instead, and ``flannel`` is refused."""
    version: str | None = None
    """The version to install; unset installs ACK's current one."""
    config: dict[str, Any] | None = None
    """The addon's parameters, sent as canonical JSON."""
    disabled: bool = False
    """True skips an addon ACK installs by default (e.g. ``nginx-ingress-controller``)."""


def default_addons() -> list[ClusterAddonConfig]:
    """Terway (pods, ACS included, take VPC IPs from the pod vSwitches) and CSI storage, as the provider's Pro
    examples install them (https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes).
    A function, not a constant: instances made at import would build the section's validator at every start-up."""
    return [ClusterAddonConfig(name=name) for name in ("terway-eniip", "csi-plugin", "managed-csiprovisioner")]


@rule("ack-addons.create-time-addons", source=_TF_CLUSTER_URL)
def check_create_time_addons(addons: list[ClusterAddonConfig]) -> None:
    """A cluster's ``addons``: each name once, none of the addons managed as resources, no Flannel, and Terway on.
    Raises :class:`RuleViolation` at the key under the cluster."""
    names = [addon.name for addon in addons]
    for index, name in enumerate(names):
        key = key_path("addons", index, "name")
        if name in MANAGED_ADDONS:
            raise RuleViolation(
                key,
                name,
                f"configure it under {MANAGED_ADDONS[name]}: cluster addons are create-only, so it is managed as a "
                "KubernetesAddon resource",
            )
        if name == "flannel":
            raise RuleViolation(key, name, "this project wires Terway pod vSwitches; Flannel conflicts with Terway")
    require_unique(names, lambda i: key_path("addons", i, "name"), "addon names")
    if not any(addon.name == "terway-eniip" and not addon.disabled for addon in addons):
        raise RuleViolation("addons", names, "terway-eniip is required: pod vSwitches need the Terway CNI")


@rule("ack-addons.pins-meet", source=_ACS_IN_ACK_URL)
def require_pins_meet(
    cluster_key: str,
    virtual_node: VirtualNodeAddonConfig,
    scheduler: SchedulerAddonConfig | None,
    needs: ClusterNeeds,
) -> None:
    """A pinned (floor) version must already meet every need: a pin below it could only install too old a version.
    Raises :class:`RuleViolation` at the pin's key under ``cluster_key``."""
    pinned_node = virtual_node.version
    if pinned_node is not None and not needs.virtual_node.met_by(pinned_node):
        raise RuleViolation(
            key_path(cluster_key, "virtualNode", "version"),
            pinned_node,
            f"{needs.virtual_node.reason} needs ack-virtual-node v{needs.virtual_node.minimum} or later",
        )
    pinned_scheduler = scheduler.parsed if scheduler is not None else None
    if pinned_scheduler is None:
        return
    for need in needs.scheduler:
        if not need.met_by(pinned_scheduler):
            raise RuleViolation(
                key_path(cluster_key, "scheduler", "version"),
                pinned_scheduler.text,
                f"{need.reason} needs kube-scheduler {need.text} or later",
            )
