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
- ``requested`` changed: the offer, at most one minor above the deployed one and never below it (Kubernetes
  upgrades the control plane one minor at a time, https://kubernetes.io/releases/version-skew-policy/); a cluster's
  pin compares patches and ACK's build too (``1.35.3-aliyun.1`` to ``1.35.1-aliyun.1`` is refused: ``UpgradeCluster``
  only moves forward), Kueue's only minors (a patch rollback within a minor keeps its CRDs).

A cluster may run a newer version than the pin holds: an upgrade in the ACK console or by ACK's auto-upgrade, which
the provider's Read stores (``version`` from ``CurrentVersion``). The program then passes what ACK reports as
``running``, and the pin holds that instead, so the cluster's input follows what runs and a refreshed preview shows
no downgrade. An ACK pin also says, as ``upgrade``, the version it moves to in this run, and nothing in the next:
the node pools' one-off upgrade request (``components/alicloud/ack.py``).

The pin's ``version`` changes only then, and what follows it (the cluster, the chart) shows the change in the
preview. Shipped by value (:mod:`components.waiters.dynamic_by_value`): it imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import re
from typing import Any

import pulumi
from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ResourceProvider, UpdateResult

from components.waiters.dynamic_by_value import reduce_by_value

SHIPPED_MODULES = ("components.waiters.dynamic_by_value", "components.waiters.version_pin")

_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:-aliyun\.(\d+))?")


def _parts(version: str) -> tuple[int, int, int, int]:
    """``(major, minor, patch, ACK build)`` of ``1.35``, ``0.18.6`` or ``1.35.1-aliyun.1``; a missing part is 0."""
    match = _VERSION.match(version)
    if not match:
        raise ValueError(f"{version!r} is not a version")
    return int(match[1]), int(match[2]), int(match[3] or 0), int(match[4] or 0)


def held_version(deployed: dict[str, Any], wanted: dict[str, Any]) -> str | None:
    """The version the install runs: the pin's, or the ``running`` one the vendor reports when that is newer."""
    held, running = deployed.get("version"), wanted.get("running")
    if held and running and _parts(str(running)) > _parts(str(held)):
        return str(running)
    return held


def decide(
    deployed: dict[str, Any], wanted: dict[str, Any], *, subject: str, no_downgrade: str, patches: bool = False
) -> tuple[str | None, str | None]:
    """``(version, None)`` to send, or ``(None, why not)``; ``deployed`` is the last deployment's inputs (empty when
    nothing is deployed yet), ``wanted`` this run's (``key``, ``requested``, ``candidate``, ``refusal``, and
    ``running`` where the vendor reports one). ``subject`` names what runs the version (``the cluster``),
    ``no_downgrade`` says why going down is refused, ``patches`` whether a patch down is (or only a minor)."""
    key, requested = wanted["key"], wanted["requested"]
    held = held_version(deployed, wanted)
    if held and deployed.get("requested") == requested:
        return held, None
    if wanted.get("refusal"):
        return None, str(wanted["refusal"])
    candidate = str(wanted["candidate"])
    if held:
        now, to = _parts(held), _parts(candidate)
        depth = 4 if patches else 2
        if to[:depth] < now[:depth]:
            return None, f"{key}: {requested!r} would downgrade {subject} from {held}; {no_downgrade}"
        if to[:2] > (now[0], now[1] + 1):
            return None, (
                f"{key}: {requested!r} skips a minor: {subject} runs {held}; upgrade one minor at a time, "
                f"to {now[0]}.{now[1] + 1} first"
            )
    return candidate, None


class VersionPinProvider(ResourceProvider):
    """Decides the version in ``check`` (see the module docstring); creating or updating only stores it."""

    def __init__(self, subject: str, no_downgrade: str, *, patches: bool = False) -> None:
        self.subject = subject
        self.no_downgrade = no_downgrade
        self.patches = patches

    def __reduce__(self) -> Any:
        return reduce_by_value(self, SHIPPED_MODULES)

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        olds = _olds or {}
        version, refusal = decide(
            olds, news, subject=self.subject, no_downgrade=self.no_downgrade, patches=self.patches
        )
        if refusal is not None:
            return CheckResult(news, [CheckFailure("requested", refusal)])
        checked = {**news, "version": version}
        if "upgrade" in news:
            held = held_version(olds, news)
            checked["upgrade"] = version if held and version != held else ""
        return CheckResult(checked, [])

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=str(props["key"]), outs=props)

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        """A new version, or the end of the run that moved to it (``upgrade`` goes back to nothing)."""
        moved = any((_olds.get(field) or "") != (_news.get(field) or "") for field in ("version", "upgrade"))
        return DiffResult(changes=moved, replaces=[])

    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(outs=_news)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        """Nothing to delete: the version lives in the state only."""


CLUSTER_PIN = VersionPinProvider("the cluster", "Kubernetes cannot downgrade", patches=True)
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
        reported: dict[str, Any] | None = None,
    ) -> None:
        offered = pulumi.Output.from_input(offer)
        props = {
            "key": key,
            "requested": requested,
            "candidate": offered.apply(lambda answer: answer[0]),
            "refusal": offered.apply(lambda answer: answer[1]),
            "version": None,
            **(reported or {}),
        }
        super().__init__(provider, resource_name, props, opts)


class ClusterVersion(_VersionPin, module="clusters", name="ClusterVersion"):
    """The Kubernetes version one created cluster runs, offered by its vendor's catalogue. With ``running`` (what
    the vendor reports the cluster runs, ``None`` before it exists) the pin follows a newer running version and
    says in :attr:`upgrade` what this run moves the cluster to."""

    upgrade: pulumi.Output[str]
    """The version this run upgrades the cluster to, or ``""``: set only in the run that moves the pin (an empty
    string, not ``None``, which Pulumi would leave out of the inputs)."""

    def __init__(
        self,
        resource_name: str,
        *,
        key: str,
        requested: str,
        offer: pulumi.Input[tuple[str | None, str | None]],
        running: pulumi.Input[str | None] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        reported = {"running": running, "upgrade": ""} if running is not None else None
        super().__init__(
            CLUSTER_PIN, resource_name, key=key, requested=requested, offer=offer, opts=opts, reported=reported
        )


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
