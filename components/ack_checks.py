"""Deploy-time checks of what only ACK knows: offered Kubernetes versions, Enhanced NAT zones, installed addons.

Each function runs inside an ``Output.apply`` on an invoke's (or a resource's) result and returns the value the
program goes on with, or raises :class:`ConfigError` naming the stack key to change. ``ConfigError`` is a
``pulumi.RunError``, which the Python language host prints as one message without a traceback
(https://github.com/pulumi/pulumi/blob/master/sdk/python/cmd/pulumi-language-python-exec). The exception reaches
the registration of whatever consumes the value, so that resource is never created. When a check's input is unknown
(a preview before the cluster exists) the check runs at ``pulumi up``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pulumi

from components.config.base import ConfigError, key_path
from components.versions import SchedulerNeed, SchedulerVersion, VirtualNodeNeed, resolve_ack_version


def kubernetes_version(key: str, requested: str, offered: Sequence[str]) -> str:
    """The exact version to send: ``requested`` resolved against what ``cs.get_kubernetes_version`` lists."""
    try:
        return resolve_ack_version(requested, offered)
    except ValueError as exc:
        raise ConfigError([(key, f"{requested!r} cannot be created: {exc}")]) from None


def enhanced_nat_zone(key: str, zone: str, offered: Sequence[str]) -> str:
    """``zone`` if ``vpc.get_enhanced_nat_available_zones`` lists it; the NAT gateway goes into that zone."""
    if zone not in offered:
        raise ConfigError(
            [(key, f"{zone!r} offers no Enhanced NAT gateway; put a zone first that does: {sorted(offered)}")]
        )
    return zone


def installed_scheduler(key: str, installed: str, needs: Sequence[SchedulerNeed]) -> str:
    """``installed`` (kube-scheduler's version) if it meets every need; a version it cannot read is only warned."""
    if not needs:
        return installed
    if not installed:
        pulumi.log.warn(f"{key}: ACK lists no installed kube-scheduler; its minimums are not checked")
        return installed
    try:
        parsed = SchedulerVersion.parse(installed)
    except ValueError:
        pulumi.log.warn(f"{key}: cannot read kube-scheduler version {installed!r}; its minimums are not checked")
        return installed
    for need in needs:
        if not need.met_by(parsed):
            raise ConfigError(
                [
                    (
                        key,
                        f"ACK runs kube-scheduler {installed}, but {need.reason} needs {need.text} or later: "
                        f"upgrade it in the ACK console (Add-ons) or set {key_path(key, 'version')} to a newer build",
                    )
                ]
            )
    return installed


def installed_virtual_node(key: str, installed: str, need: VirtualNodeNeed) -> str:
    """``installed`` (ack-virtual-node's version) if it meets the cluster's need; a version it cannot read is warned."""
    try:
        ok = need.met_by(installed)
    except ValueError:
        pulumi.log.warn(f"{key}: cannot read ack-virtual-node version {installed!r}; v{need.minimum} is not checked")
        return installed
    if not ok:
        raise ConfigError(
            [(key, f"ACK installed ack-virtual-node {installed}, but {need.reason} needs v{need.minimum} or later")]
        )
    return installed


def version_floor(pinned: str, installed: str, order: Callable[[str], Any]) -> str:
    """The version to send for a pinned addon: the pin, unless ACK already runs something newer.

    The provider calls UpgradeClusterAddons whenever the sent version differs from the installed one, so sending an
    older pin would ask ACK for a downgrade
    (https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_kubernetes_addon.go).
    Sending the installed version instead is a no-op, and a later ACK upgrade never shows as a diff.
    """
    try:
        return installed if order(installed) > order(pinned) else pinned
    except ValueError:
        return pinned
