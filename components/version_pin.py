"""A version the stack installs, kept in the stack's state so it moves only on purpose, one minor at a time: a created
cluster's Kubernetes version (:class:`ClusterVersion`) and an installed Kueue's chart version (:class:`KueueVersion`).

Why a dynamic resource: the program cannot see what is deployed before it registers it. For a cluster, re-resolving
against the vendor's catalogue on every run turns a new vendor patch into an unplanned control-plane upgrade: on ACK
``version`` is Optional and Computed, Read stores ACK's ``CurrentVersion`` and any change of it calls
``UpgradeCluster`` (``UpgradeAlicloudKubernetesCluster`` in
https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_managed_kubernetes.go).
For Kueue, a skipped minor skips the ``.0`` notes Kueue says to read for every minor crossed
(https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/CHANGELOG/CHANGELOG-0.19.md), and a minor downgrade meets CRDs
of the newer minor. The engine hands this resource's ``check`` the inputs of the last deployment, in preview too, so
:func:`decide` rules there:

- nothing deployed yet: the offer (``candidate``, or the ``refusal`` the program worded, naming the key); Kueue has no
  catalogue, its candidate is the requested version;
- ``requested`` unchanged: the deployed version, whatever the catalogue says now (so no diff);
- ``requested`` changed: the offer, at most one minor above the deployed one and never a minor below it (Kubernetes
  upgrades the control plane one minor at a time, https://kubernetes.io/releases/version-skew-policy/).

The pin's ``version`` changes only then, and what follows it (the cluster, the chart) shows the change in the
preview. Shipped by value (:mod:`components.dynamic_by_value`): it imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import re
from typing import Any

import pulumi
from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult

from components.dynamic_by_value import reduce_by_value

SHIPPED_MODULES = ("components.dynamic_by_value", "components.version_pin")

_MINOR = re.compile(r"^v?(\d+)\.(\d+)")


def _minor(version: str) -> tuple[int, int]:
    match = _MINOR.match(version)
    if not match:
        raise ValueError(f"{version!r} is not a version")
    return int(match[1]), int(match[2])


def decide(
    deployed: dict[str, Any], wanted: dict[str, Any], *, subject: str, no_downgrade: str
) -> tuple[str | None, str | None]:
    """``(version, None)`` to send, or ``(None, why not)``; ``deployed`` is the last deployment's inputs (empty when
    nothing is deployed yet), ``wanted`` this run's (``key``, ``requested``, ``candidate``, ``refusal``). ``subject``
    names what runs the version (``the cluster``), ``no_downgrade`` says why a minor down is refused."""
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
            return None, f"{key}: {requested!r} would downgrade {subject} from {held}; {no_downgrade}"
        if (to_major, to_minor) > (major, minor + 1):
            return None, (
                f"{key}: {requested!r} skips a minor: {subject} runs {held}; upgrade one minor at a time, "
                f"to {major}.{minor + 1} first"
            )
    return candidate, None


class VersionPinProvider(ResourceProvider):
    """Decides the version in ``check`` (see the module docstring); creating or updating only stores it."""

    def __init__(self, subject: str, no_downgrade: str) -> None:
        self.subject = subject
        self.no_downgrade = no_downgrade

    def __reduce__(self) -> Any:
        return reduce_by_value(self, SHIPPED_MODULES)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        version, refusal = decide(_olds or {}, news, subject=self.subject, no_downgrade=self.no_downgrade)
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


CLUSTER_PIN = VersionPinProvider("the cluster", "Kubernetes cannot downgrade")
KUEUE_PIN = VersionPinProvider(
    "Kueue",
    "Kueue documents no downgrade, and the older chart would put its CRDs back under objects the newer minor stored; "
    "roll forward instead (docs/kueue-upgrades.md, Rollback)",
)
"""The wording of each kind of pin (what runs the version, why a minor down is refused)."""


class _VersionPin(pulumi.dynamic.Resource):
    """The version one install runs; ``offer`` is the ``(candidate, refusal)`` for ``requested``, ``key`` the stack
    key it comes from (named in every refusal)."""

    version: pulumi.Output[str]

    def __init__(
        self,
        provider: VersionPinProvider,
        resource_name: str,
        *,
        key: str,
        requested: str,
        offer: pulumi.Input[tuple[str | None, str | None]],
        opts: pulumi.ResourceOptions | None,
    ) -> None:
        offered = pulumi.Output.from_input(offer)
        props = {
            "key": key,
            "requested": requested,
            "candidate": offered.apply(lambda answer: answer[0]),
            "refusal": offered.apply(lambda answer: answer[1]),
            "version": None,
        }
        super().__init__(provider, resource_name, props, opts)


class ClusterVersion(_VersionPin, module="clusters", name="ClusterVersion"):
    """The Kubernetes version one created cluster runs, offered by its vendor's catalogue."""

    def __init__(
        self,
        resource_name: str,
        *,
        key: str,
        requested: str,
        offer: pulumi.Input[tuple[str | None, str | None]],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(CLUSTER_PIN, resource_name, key=key, requested=requested, offer=offer, opts=opts)


class KueueVersion(_VersionPin, module="kueue", name="KueueVersion"):
    """The chart version one Kueue install runs: the requested one (the config model has checked it is supported)."""

    def __init__(self, resource_name: str, *, key: str, requested: str, opts: pulumi.ResourceOptions) -> None:
        super().__init__(KUEUE_PIN, resource_name, key=key, requested=requested, offer=(requested, None), opts=opts)


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
