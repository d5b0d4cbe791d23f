"""A created cluster's Kubernetes version, kept in the stack's state: checked against the vendor's catalogue when the
cluster is created, held still after, and moved only when the stack file asks for another version.

Why a dynamic resource: the program cannot see the deployed cluster's version before it registers the cluster, so
re-resolving on every run turns a new vendor patch into an unplanned control-plane upgrade. On ACK ``version`` is
Optional and Computed, Read stores ACK's ``CurrentVersion`` and any change of it calls ``UpgradeCluster``
(``UpgradeAlicloudKubernetesCluster`` in
https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_managed_kubernetes.go).
The engine hands this resource's ``check`` the inputs of the last deployment, in preview too, so the decision is
made there:

- no deployment yet: the catalogue's answer (``candidate``, or the ``refusal`` the program worded, naming the key);
- ``requested`` unchanged: the deployed version, whatever the catalogue says now (so no diff);
- ``requested`` changed: the catalogue's answer, at most one minor above the deployed one and never below it
  (Kubernetes upgrades the control plane one minor at a time, https://kubernetes.io/releases/version-skew-policy/).

The pin's ``version`` changes only then, and the cluster's diff in the preview shows the upgrade. Shipped by value
(:mod:`components.dynamic_by_value`): it imports nothing from the project but :data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import re
from typing import Any

import pulumi
from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult

from components.dynamic_by_value import reduce_by_value

SHIPPED_MODULES = ("components.dynamic_by_value", "components.cluster_version")

_MINOR = re.compile(r"^v?(\d+)\.(\d+)")


def _minor(version: str) -> tuple[int, int]:
    match = _MINOR.match(version)
    if not match:
        raise ValueError(f"{version!r} is not a Kubernetes version")
    return int(match[1]), int(match[2])


def decide(deployed: dict[str, Any], wanted: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(version, None)`` to send, or ``(None, why not)``; ``deployed`` is the last deployment's inputs (empty for a
    cluster still to create), ``wanted`` this run's (``key``, ``requested``, ``candidate``, ``refusal``)."""
    key, requested = wanted["key"], wanted["requested"]
    held = deployed.get("version")
    if held and deployed.get("requested") == requested:
        return held, None
    if wanted.get("refusal"):
        return None, str(wanted["refusal"])
    candidate = str(wanted["candidate"])
    if held:
        (major, minor), (to_major, to_minor) = _minor(held), _minor(candidate)
        if (to_major, to_minor) < (major, minor):
            return None, f"{key}: {requested!r} would downgrade the cluster from {held}; Kubernetes cannot downgrade"
        if (to_major, to_minor) > (major, minor + 1):
            return None, (
                f"{key}: {requested!r} skips a minor: the cluster runs {held}; upgrade one minor at a time, "
                f"to {major}.{minor + 1} first"
            )
    return candidate, None


class ClusterVersionProvider(ResourceProvider):
    """Decides the version in ``check`` (see the module docstring); creating or updating only stores it."""

    def __reduce__(self) -> Any:
        return reduce_by_value(self, SHIPPED_MODULES)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        version, refusal = decide(_olds or {}, news)
        if refusal is not None:
            return CheckResult(news, [CheckFailure("requested", refusal)])
        return CheckResult({**news, "version": version}, [])

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=str(props["key"]), outs=props)

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        return DiffResult(changes=_olds.get("version") != _news.get("version"), replaces=[])

    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(outs=_news)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        """Nothing to delete: the version lives in the state only."""


class ClusterVersion(pulumi.dynamic.Resource, module="clusters", name="ClusterVersion"):
    """The version one created cluster runs; ``offer`` is the catalogue's ``(candidate, refusal)`` for
    ``requested``, ``key`` the stack key it comes from (named in every refusal)."""

    version: pulumi.Output[str]

    def __init__(
        self,
        resource_name: str,
        *,
        key: str,
        requested: str,
        offer: pulumi.Input[tuple[str | None, str | None]],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        offered = pulumi.Output.from_input(offer)
        props = {
            "key": key,
            "requested": requested,
            "candidate": offered.apply(lambda answer: answer[0]),
            "refusal": offered.apply(lambda answer: answer[1]),
            "version": None,
        }
        super().__init__(ClusterVersionProvider(), resource_name, props, opts)


def pinned_version(
    resource_name: str,
    key: str,
    requested: str,
    offer: pulumi.Input[tuple[str | None, str | None]],
    parent: pulumi.Resource,
) -> pulumi.Output[str]:
    """The version a created cluster is to run, from a :class:`ClusterVersion` under ``parent``."""
    pin = ClusterVersion(
        resource_name, key=key, requested=requested, offer=offer, opts=pulumi.ResourceOptions(parent=parent)
    )
    return pin.version
