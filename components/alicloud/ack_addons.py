"""The addons an ACK cluster manages for ACS: ``ack-virtual-node`` always, ``kube-scheduler`` when configured, and
the check that releases the workloads only once the installed versions meet their needs.

Both are ``cs.KubernetesAddon`` resources, because the cluster's own ``addons`` list is applied at creation only
(https://github.com/aliyun/terraform-provider-alicloud/issues/5907). ``installed`` is what ACK reports installed
(addon name to version, ``components/alicloud/ack.py`` reads it), and a configured version is a floor over it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
from pulumi_alicloud import cs

from components.alicloud import ack_checks
from components.alicloud.ack_json import canonical_json
from components.config.ack.ack import AckClusterConfig
from components.config.deploy.checks import AckReport
from components.config.versions import ClusterNeeds, SchedulerVersion, addon_version


def virtual_node(
    name: str,
    cluster: cs.ManagedKubernetes,
    args: AckClusterConfig,
    installed: pulumi.Output[dict[str, str]],
    opts: pulumi.ResourceOptions,
) -> cs.KubernetesAddon:
    """ACK does not install ack-virtual-node, so it is always a resource."""
    return _addon(
        name,
        cluster,
        "ack-virtual-node",
        args.virtual_node.version,
        addon_version,
        installed,
        cleanup_cloud_resources=args.virtual_node.cleanup_cloud_resources,
        opts=opts,
    )


def scheduler(
    name: str,
    cluster: cs.ManagedKubernetes,
    args: AckClusterConfig,
    installed: pulumi.Output[dict[str, str]],
    opts: pulumi.ResourceOptions,
) -> cs.KubernetesAddon | None:
    """A resource only when configured: it adopts ACK's default install (the provider's Create updates an
    existing addon instead of installing it)."""
    if args.scheduler is None:
        return None
    config = args.scheduler.config
    return _addon(
        name,
        cluster,
        "kube-scheduler",
        args.scheduler.version,
        lambda text: SchedulerVersion.parse(text).sort_key(),
        installed,
        config=canonical_json(config) if config is not None else None,
        opts=opts,
    )


def _addon(
    name: str,
    cluster: cs.ManagedKubernetes,
    addon: str,
    pin: str | None,
    order: Callable[[str], Any],
    installed: pulumi.Output[dict[str, str]],
    *,
    config: str | None = None,
    **settings: Any,
) -> cs.KubernetesAddon:
    """An addon whose configured version is a floor (:func:`ack_checks.version_to_send`): ACK is never asked to
    downgrade, and its own upgrades cause no diff. Without a pin or parameters no version is ever sent: the provider
    installs ACK's current one and reads the installed one back."""
    version = (
        installed.apply(
            lambda versions: ack_checks.version_to_send(
                pin, versions.get(addon, ""), order, configured=config is not None
            )
        )
        if pin is not None or config is not None
        else None
    )
    return cs.KubernetesAddon(
        f"{name}-{addon}", cluster_id=cluster.id, name=addon, version=version, config=config, **settings
    )


def checked_addons(
    virtual_node: cs.KubernetesAddon,
    scheduler: cs.KubernetesAddon | None,
    installed: pulumi.Output[dict[str, str]],
    needs: ClusterNeeds,
    report: AckReport,
) -> pulumi.Output[list[pulumi.Resource]]:
    """The addons, released to the workloads only after ACK's installed versions met ``needs``."""
    virtual_node_ok = virtual_node.version.apply(
        lambda version: ack_checks.installed_virtual_node(report, version, needs.virtual_node)
    )
    # A managed scheduler is checked as it is after the resource ran; otherwise as ACK installed it.
    scheduler_version = (
        scheduler.version
        if scheduler is not None
        else installed.apply(lambda versions: versions.get("kube-scheduler", ""))
    )
    scheduler_ok = scheduler_version.apply(
        lambda version: ack_checks.installed_scheduler(report, version, needs.scheduler)
    )
    addons: list[pulumi.Resource] = [virtual_node, *([scheduler] if scheduler else [])]
    return pulumi.Output.all(virtual_node_ok, scheduler_ok).apply(lambda _: addons)
