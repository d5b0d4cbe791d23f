"""Deploy-time checks of what only ACK knows: offered Kubernetes versions, Enhanced NAT zones, installed addons.

Each function runs inside an ``Output.apply`` on an invoke's (or a resource's) result and returns the value the
program goes on with, or raises the :class:`ConfigError` the cluster entry's
:class:`~components.config.deploy.checks.AckReport` words from an :class:`~components.config.deploy.checks.AckFinding`
(what ACK reported, no key), naming the stack key to change; warnings are worded the same way. ``ConfigError`` is a
``pulumi.RunError``, which the Python language host prints as one message without a traceback
(https://github.com/pulumi/pulumi/blob/master/sdk/python/cmd/pulumi-language-python-exec). The exception reaches
the registration of whatever consumes the value, so that resource is never created. When a check's input is unknown
(a preview before the cluster exists) the check runs at ``pulumi up``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pulumi

from components.config.deploy.checks import AckCheck, AckFinding, AckReport
from components.config.versions import (
    ClusterNeeds,
    KubernetesVersion,
    SchedulerNeed,
    SchedulerVersion,
    VirtualNodeNeed,
    resolve_ack_version,
)


def kubernetes_version_offer(
    report: AckReport, requested: str, offered: Sequence[str]
) -> tuple[str | None, str | None]:
    """What ``cs.get_kubernetes_version`` offers a new cluster for ``requested``: ``(exact version, None)``, or
    ``(None, why not)`` naming the key. Only a cluster still to create, or one asked to move, is refused
    (:mod:`components.waiters.version_pin`), so a deployed cluster whose minor ACK no longer creates still previews."""
    try:
        return resolve_ack_version(requested, offered), None
    except ValueError as exc:
        return None, str(
            report.refusal(AckFinding(AckCheck.VERSION_OFFERED, f"{requested!r} cannot be created: {exc}"))
        )


def enhanced_nat_zone(report: AckReport, zone: str, offered: Sequence[str]) -> str:
    """``zone`` if ``vpc.get_enhanced_nat_available_zones`` lists it; the NAT gateway goes into that zone."""
    if zone not in offered:
        found = f"{zone!r} offers no Enhanced NAT gateway; put a zone first that does: {sorted(offered)}"
        raise report.refusal(AckFinding(AckCheck.ENHANCED_NAT_ZONE, found))
    return zone


def _unchecked(report: AckReport, check: AckCheck, why: str) -> None:
    """Warn that ``check`` could not be made (ACK reported nothing, or nothing readable): a deploy goes on."""
    pulumi.log.warn(report.warning(AckFinding(check, why)))


def installed_scheduler(report: AckReport, installed: str, needs: Sequence[SchedulerNeed]) -> str:
    """``installed`` (kube-scheduler's version) if it meets every need; a version it cannot read is only warned."""
    if not needs:
        return installed
    if not installed:
        unlisted = "ACK lists no installed kube-scheduler; its minimums are not checked"
        _unchecked(report, AckCheck.SCHEDULER_UNREAD, unlisted)
        return installed
    try:
        parsed = SchedulerVersion.parse(installed)
    except ValueError:
        unread = f"cannot read kube-scheduler version {installed!r}; its minimums are not checked"
        _unchecked(report, AckCheck.SCHEDULER_UNREAD, unread)
        return installed
    for need in needs:
        if not need.met_by(parsed):
            found = f"ACK runs kube-scheduler {installed}, but {need.reason} needs {need.text} or later"
            raise report.refusal(AckFinding(AckCheck.SCHEDULER, found))
    return installed


def installed_virtual_node(report: AckReport, installed: str, need: VirtualNodeNeed) -> str:
    """``installed`` (ack-virtual-node's version) if it meets the cluster's need; a version it cannot read is warned."""
    try:
        ok = need.met_by(installed)
    except ValueError:
        unread = f"cannot read ack-virtual-node version {installed!r}; v{need.minimum} is not checked"
        _unchecked(report, AckCheck.VIRTUAL_NODE_UNREAD, unread)
        return installed
    if not ok:
        found = f"ACK installed ack-virtual-node {installed}, but {need.reason} needs v{need.minimum} or later"
        raise report.refusal(AckFinding(AckCheck.VIRTUAL_NODE, found))
    return installed


def version_to_send(pinned: str | None, installed: str, order: Callable[[str], Any], *, configured: bool) -> str | None:
    """The ``version`` a managed addon sends: the pin while ACK runs something older (or nothing), which upgrades it;
    otherwise none, or with ``configured`` parameters the installed version.

    ``version`` is Optional and Computed, and the provider asks ACK for an upgrade whenever the version it holds
    differs from the installed one (``needUpgrade`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_kubernetes_addon.go).
    Sending an older pin would ask for a downgrade, and sending the installed version makes each of ACK's own
    upgrades a one-off diff; an unsent version never diffs. A parameter change is the exception: without a version
    the provider would hold the one it read at the last ``up``, and ask ACK to go back to it after an upgrade.
    """
    try:
        upgrade = pinned is not None and order(pinned) > order(installed)
    except ValueError:  # nothing (or nothing readable) installed
        upgrade = pinned is not None
    if upgrade:
        return pinned
    return (installed or None) if configured else None


def running_cluster(name: str, clusters: Sequence[Any]) -> Any | None:
    """The cluster named ``name`` among what ``cs.get_clusters`` lists in the region, or ``None``: none yet, or
    several of that name, of which the program cannot tell its own (ACK filters ``name`` loosely, so the name is
    compared exactly here)."""
    named = [cluster for cluster in clusters if cluster.cluster_name == name]
    return named[0] if len(named) == 1 else None


def held_matches_key(report: AckReport, requested: str, held: str) -> str:
    """``held`` (the version the cluster's pin holds); a warning names the key when that is no longer what the key
    says, after an upgrade outside Pulumi (the ACK console, ACK's auto-upgrade) that the pin took over."""
    try:
        wanted, runs = KubernetesVersion.parse(requested), KubernetesVersion.parse(held)
    except ValueError:
        return held
    if wanted.minor_version != runs.minor_version or not (wanted.is_minor_only or requested == held):
        say = f"{runs.minor_version!r} (or {held!r})" if wanted.is_minor_only else repr(held)
        found = (
            f"{requested!r}, but the cluster runs {held}, upgraded outside Pulumi; the stack keeps that "
            f"version (ACK cannot go back): set the key to {say} so the stack file says what runs"
        )
        _unchecked(report, AckCheck.VERSION_HELD, found)
    return held


def zones_added(report: AckReport, check: AckCheck, configured: int, running: Any | None) -> None:
    """Warn (``check``: of zones or of vSwitches) when the stack gives a running cluster more node vSwitches than it
    has: a zone added later. ACK hands Terway its pod vSwitches only when it creates the cluster (``pod_vswitch_ids``
    is never updated, ``resourceAlicloudCSManagedKubernetesUpdate`` in
    https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_managed_kubernetes.go),
    and Terway gives pods in a zone it has no pod vSwitch for IPs of the node's own vSwitch
    (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/increase-pod-vswitches-in-a-terway-cluster)."""
    has = len(running.vswitch_ids or []) if running is not None else 0
    if running is not None and configured > has:
        found = (
            f"{configured} zones, but cluster {running.cluster_id} runs in {has}: ACK gives Terway pod "
            "vSwitches only at creation, so pods on the new zone's nodes take IPs from its node vSwitch until you "
            "add its pod vSwitch to Terway (kube-system/eni-config; docs/ack-acs.md, Adding a zone)"
        )
        pulumi.log.warn(report.warning(AckFinding(check, found)))


def existing_cluster(report: AckReport, cluster_id: str, minor: str, clusters: Sequence[Any]) -> str:
    """The Kubernetes version ACK reports for an existing cluster (one ``cs.get_clusters`` result), if the cluster
    exists, is managed Pro and runs the configured minor."""
    found = next((c for c in clusters if c.cluster_id == cluster_id), None)
    if found is None:
        missing = f"{cluster_id!r}: ACK lists no such cluster in the region"
        raise report.refusal(AckFinding(AckCheck.EXISTING_CLUSTER, missing))
    if not str(found.cluster_spec or "").startswith("ack.pro."):
        spec = f"{cluster_id!r} is {found.cluster_spec!r}: ACS needs an ACK managed Pro"
        raise report.refusal(AckFinding(AckCheck.EXISTING_CLUSTER, spec))
    version = str(found.current_version or "")
    try:
        reported = KubernetesVersion.parse(version).minor_version
    except ValueError:
        unread = f"cannot read the cluster's Kubernetes version {version!r}; {minor} is not checked"
        _unchecked(report, AckCheck.EXISTING_VERSION_UNREAD, unread)
        return version
    if reported != minor:
        runs = f"{minor!r}, but ACK reports {version} for cluster {cluster_id}"
        raise report.refusal(AckFinding(AckCheck.EXISTING_MINOR, runs))
    return version


def existing_addons(report: AckReport, installed: Mapping[str, str], needs: ClusterNeeds) -> Mapping[str, str]:
    """``installed`` (addon name to version, ``cs.get_kubernetes_addons``) if an existing cluster's addons meet
    ``needs``: the stack installs nothing there, so a missing or too old ack-virtual-node is an error."""
    node = installed.get("ack-virtual-node", "")
    console = "install or upgrade it in the ACK console (Add-ons) of that cluster"
    if not node:
        missing = f"ack-virtual-node is not installed in that cluster: {console}"
        raise report.refusal(AckFinding(AckCheck.EXISTING_ADDONS, missing))
    try:
        node_ok = needs.virtual_node.met_by(node)
    except ValueError:
        unread = f"cannot read ack-virtual-node version {node!r}; its minimum is not checked"
        _unchecked(report, AckCheck.EXISTING_ADDONS_UNREAD, unread)
        node_ok = True
    if not node_ok:
        need = needs.virtual_node
        old = f"ACK runs ack-virtual-node {node}, but {need.reason} needs v{need.minimum} or later: {console}"
        raise report.refusal(AckFinding(AckCheck.EXISTING_ADDONS, old))
    scheduler = installed.get("kube-scheduler", "")
    for scheduler_need in needs.scheduler:
        try:
            ok = scheduler_need.met_by(SchedulerVersion.parse(scheduler))
        except ValueError:
            unread = f"cannot read kube-scheduler version {scheduler!r}; its minimums are not checked"
            _unchecked(report, AckCheck.EXISTING_ADDONS_UNREAD, unread)
            break
        if not ok:
            needed = f"{scheduler_need.reason} needs {scheduler_need.text} or later"
            raise report.refusal(
                AckFinding(AckCheck.EXISTING_ADDONS, f"ACK runs kube-scheduler {scheduler}, but {needed}: {console}")
            )
    return installed
