"""The version pins: the offer at create, the deployed version after, one minor at a time on purpose; a cluster's
Kubernetes version here, Kueue's chart version in tests/test_kueue_upgrades.py."""

from __future__ import annotations

from typing import Any

import pytest

from components.azure.aks import AksCluster
from components.config.aks.aks import AksConfig
from components.waiters.version_pin import CLUSTER_PIN, KUEUE_PIN, decide
from tools import mock_cloud, mock_engine, mock_runtime
from tools.recording import Recording

KEY = "elastic-capacity:ack.clusters[0].kubernetesVersion"
CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
GPU_POOL = {"name": "gpupool", "vmSize": "Standard_NC24ads_A100_v4", "minCount": 0, "maxCount": 2}


def wanted(requested: str, candidate: str | None = None, refusal: str | None = None) -> dict:
    return {"key": KEY, "requested": requested, "candidate": candidate, "refusal": refusal, "version": None}


DEPLOYED = {**wanted("1.35", "1.35.2-aliyun.1"), "version": "1.35.2-aliyun.1"}


def decide_cluster(deployed: dict, wanted: dict) -> tuple[str | None, str | None]:
    pin = CLUSTER_PIN
    return decide(deployed, wanted, subject=pin.subject, no_downgrade=pin.no_downgrade, patches=pin.patches)


def test_a_new_cluster_takes_the_catalogue_answer_or_its_refusal():
    assert decide_cluster({}, wanted("1.35", "1.35.4-aliyun.1")) == ("1.35.4-aliyun.1", None)
    assert decide_cluster({}, wanted("1.34", refusal=f"{KEY}: '1.34' cannot be created")) == (
        None,
        f"{KEY}: '1.34' cannot be created",
    )


def test_an_unchanged_request_keeps_the_deployed_version_whatever_the_catalogue_says():
    assert decide_cluster(DEPLOYED, wanted("1.35", "1.35.4-aliyun.1")) == ("1.35.2-aliyun.1", None)
    assert decide_cluster(DEPLOYED, wanted("1.35", refusal="no 1.35 any more")) == ("1.35.2-aliyun.1", None)


def test_a_changed_request_moves_within_the_minor_or_one_minor_up():
    assert decide_cluster(DEPLOYED, wanted("1.35.4-aliyun.1", "1.35.4-aliyun.1")) == ("1.35.4-aliyun.1", None)
    assert decide_cluster(DEPLOYED, wanted("1.36", "1.36.1-aliyun.1")) == ("1.36.1-aliyun.1", None)
    assert decide_cluster(DEPLOYED, wanted("1.36", refusal="not offered")) == (None, "not offered")


@pytest.mark.parametrize(
    ("requested", "candidate", "says"),
    [
        ("1.37", "1.37.0-aliyun.1", "skips a minor: the cluster runs 1.35.2-aliyun.1; upgrade one minor at a time"),
        ("1.34", "1.34.9-aliyun.1", "would downgrade the cluster from 1.35.2-aliyun.1"),
        ("2.0", "2.0.0-aliyun.1", "skips a minor"),
    ],
)
def test_a_skip_or_a_downgrade_is_refused_naming_the_key(requested, candidate, says):
    version, refusal = decide_cluster(DEPLOYED, wanted(requested, candidate))
    assert version is None and refusal is not None
    assert refusal.startswith(f"{KEY}: {requested!r} {says}")


PATCHED = {**wanted("1.35.3-aliyun.1", "1.35.3-aliyun.1"), "version": "1.35.3-aliyun.1"}


@pytest.mark.parametrize("to", ["1.35.1-aliyun.1", "1.35.3-aliyun.0"])
def test_a_patch_or_a_build_going_down_is_refused_naming_the_key(to):
    """ACK's UpgradeCluster only moves forward: a lower patch (or ACK build) of the same minor fails at `up`."""
    version, refusal = decide_cluster(PATCHED, wanted(to, to))
    assert (version, refusal) == (
        None,
        f"{KEY}: {to!r} would downgrade the cluster from 1.35.3-aliyun.1; Kubernetes cannot downgrade",
    )


def test_a_newer_version_the_cluster_runs_is_held_and_an_older_one_is_not():
    """An upgrade in the ACK console (or by ACK) is taken as the deployed version, so a refreshed cluster is never
    asked to go back; a running version below the pin (an upgrade still to finish) leaves the pin alone."""
    assert decide_cluster(DEPLOYED, {**wanted("1.35"), "running": "1.36.1-aliyun.1"}) == ("1.36.1-aliyun.1", None)
    assert decide_cluster(DEPLOYED, {**wanted("1.35"), "running": "1.35.0-aliyun.1"}) == ("1.35.2-aliyun.1", None)
    refused = decide_cluster(DEPLOYED, {**wanted("1.35.2-aliyun.1", "1.35.2-aliyun.1"), "running": "1.35.4-aliyun.1"})
    assert refused == (
        None,
        f"{KEY}: '1.35.2-aliyun.1' would downgrade the cluster from 1.35.4-aliyun.1; Kubernetes cannot downgrade",
    )
    assert decide_cluster({}, {**wanted("1.35", "1.35.2-aliyun.1"), "running": "1.36.1-aliyun.1"})[0] == (
        "1.35.2-aliyun.1"
    ), "nothing deployed yet: a cluster that only shares the name is not this stack's"


def test_an_ack_pin_says_what_it_moves_to_in_the_run_that_moves_it_and_nothing_in_the_next():
    ack = {**DEPLOYED, "running": "1.35.2-aliyun.1", "upgrade": ""}
    moving = CLUSTER_PIN.check(ack, {**wanted("1.36", "1.36.1-aliyun.1"), "running": "1.35.2-aliyun.1", "upgrade": ""})
    assert (moving.inputs["version"], moving.inputs["upgrade"]) == ("1.36.1-aliyun.1", "1.36.1-aliyun.1")
    assert CLUSTER_PIN.diff("id", ack, moving.inputs).changes
    after = CLUSTER_PIN.check(moving.inputs, {**moving.inputs, "candidate": "1.36.3-aliyun.1", "upgrade": ""})
    assert (after.inputs["version"], after.inputs["upgrade"]) == ("1.36.1-aliyun.1", "")
    assert CLUSTER_PIN.diff("id", moving.inputs, after.inputs).changes, "the end of the move is stored once"
    assert not CLUSTER_PIN.diff("id", after.inputs, CLUSTER_PIN.check(after.inputs, after.inputs).inputs).changes
    adopted = CLUSTER_PIN.check(ack, {**wanted("1.35", "1.35.2-aliyun.1"), "running": "1.36.1-aliyun.1", "upgrade": ""})
    assert adopted.inputs["upgrade"] == "", "a version ACK already runs is nothing for the program to move"
    new = CLUSTER_PIN.check({}, {**wanted("1.35", "1.35.2-aliyun.1"), "upgrade": ""})
    assert new.inputs["upgrade"] == "", "a new cluster is created at its version"


def test_check_fails_on_the_requested_property_and_otherwise_sets_the_version():
    provider = CLUSTER_PIN
    checked = provider.check(DEPLOYED, wanted("1.35", "1.35.4-aliyun.1"))
    assert (checked.inputs["version"], checked.failures) == ("1.35.2-aliyun.1", [])
    refused = provider.check(DEPLOYED, wanted("1.37", "1.37.0-aliyun.1"))
    assert [failure.property for failure in refused.failures] == ["requested"]


def test_only_a_new_version_is_a_diff_and_it_is_an_update_not_a_replacement():
    provider = CLUSTER_PIN
    moved_catalogue = {**DEPLOYED, "candidate": "1.35.4-aliyun.1"}
    assert provider.diff("id", DEPLOYED, moved_catalogue).changes is False
    upgrade = provider.diff("id", DEPLOYED, {**DEPLOYED, "version": "1.36.1-aliyun.1"})
    assert (upgrade.changes, upgrade.replaces) == (True, [])
    assert provider.update("id", DEPLOYED, moved_catalogue).outs == moved_catalogue


# --- the same rule, in Kueue's words (the stack runs are in tests/test_kueue_upgrades.py) ---------------------------

KUEUE_KEY = "elastic-capacity:kueue.chartVersion"
KUEUE_DEPLOYED = {"key": KUEUE_KEY, "requested": "0.18.6", "candidate": "0.18.6", "refusal": None, "version": "0.18.6"}


def kueue_wants(version: str) -> dict:
    return {**KUEUE_DEPLOYED, "requested": version, "candidate": version, "version": None}


@pytest.mark.parametrize(
    ("version", "says"),
    [
        ("0.20.1", "skips a minor: Kueue runs 0.18.6; upgrade one minor at a time, to 0.19 first"),
        ("0.17.8", "would downgrade Kueue from 0.18.6; Kueue documents no downgrade"),
    ],
)
def test_kueue_moves_one_minor_at_a_time_and_never_down_a_minor(version, says):
    [failure] = KUEUE_PIN.check(KUEUE_DEPLOYED, kueue_wants(version)).failures
    assert (failure.property, failure.reason.startswith(f"{KUEUE_KEY}: {version!r} {says}")) == ("requested", True)


@pytest.mark.parametrize(
    ("deployed", "version"),
    [
        ({}, "0.17.1"),
        ({}, "0.19.2"),
        (KUEUE_DEPLOYED, "0.18.7"),
        (KUEUE_DEPLOYED, "0.18.5"),
        (KUEUE_DEPLOYED, "0.19.2"),
    ],
)
def test_a_new_kueue_takes_any_version_and_a_deployed_one_a_patch_or_the_next_minor(deployed, version):
    """A patch back within Kueue's minor is a rollback its CRDs allow; only the cluster pin refuses patches."""
    checked = KUEUE_PIN.check(deployed, kueue_wants(version))
    assert (checked.inputs["version"], checked.failures) == (version, [])


# --- on AKS: the catalogue at create, held after (ACK's runs are in test_ack.py) ------------------------------

VERSION_PIN = "pulumi-python:dynamic/clusters:ClusterVersion"


def _previews(monkeypatch, *sections: dict[str, Any], catalogues: tuple[dict, ...]) -> list[Recording]:
    """Preview ``sections`` one after another against one state, AKS's catalogue moving to ``catalogues[i]``."""
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    runs = []
    for section, catalogue in zip(sections, catalogues, strict=True):
        monkeypatch.setattr(mock_cloud, "AKS_OFFERED_VERSIONS", catalogue)
        config = AksConfig.model_validate(section)
        runs.append(mock_runtime.run(lambda config=config: AksCluster("demo", config), {}, preview=True))
    return runs


OFFICIAL = ("KubernetesOfficial", "AKSLongTermSupport")
TODAY = {"1.35": OFFICIAL, "1.36": OFFICIAL, "1.37": OFFICIAL}
LATER = {"1.36": OFFICIAL, "1.37": OFFICIAL, "1.38": OFFICIAL}


def test_the_cluster_and_its_pools_run_the_decide(monkeypatch) -> None:
    [recording] = _previews(monkeypatch, {"userPools": [GPU_POOL]}, catalogues=(TODAY,))
    pin = recording.one(VERSION_PIN)
    cluster = recording.one(CLUSTER)
    assert cluster.inputs["kubernetesVersion"] == "1.35"
    assert cluster.property_dependencies["kubernetesVersion"] == (pin.urn,)
    assert {pool.inputs["orchestratorVersion"] for pool in recording.by_type(AGENT_POOL)} == {"1.35"}


def test_an_unchanged_stack_registers_the_same_cluster_when_aks_stops_creating_its_minor(monkeypatch) -> None:
    section = {"kubernetesVersion": "1.35", "userPools": [GPU_POOL]}
    first, second = _previews(monkeypatch, section, section, catalogues=(TODAY, LATER))
    for kind in (CLUSTER, AGENT_POOL):
        assert second.one(kind).inputs == first.one(kind).inputs


def test_a_new_cluster_is_checked_against_the_catalogue_at_preview(monkeypatch) -> None:
    with pytest.raises(mock_engine.CheckFailed, match=r"^elastic-capacity:aks.kubernetesVersion: '1.35' cannot be"):
        _previews(monkeypatch, {"kubernetesVersion": "1.35"}, catalogues=(LATER,))


def test_an_upgrade_is_one_minor_at_a_time_naming_the_key(monkeypatch) -> None:
    catalogues = (TODAY, TODAY)
    runs = _previews(monkeypatch, {"kubernetesVersion": "1.35"}, {"kubernetesVersion": "1.36"}, catalogues=catalogues)
    assert [run.one(CLUSTER).inputs["kubernetesVersion"] for run in runs] == ["1.35", "1.36"]
    with pytest.raises(mock_engine.CheckFailed, match=r"'1.37' skips a minor: the cluster runs 1.35; .* to 1.36"):
        _previews(monkeypatch, {"kubernetesVersion": "1.35"}, {"kubernetesVersion": "1.37"}, catalogues=catalogues)
