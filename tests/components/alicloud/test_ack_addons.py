"""The managed addons of an ACK cluster under Pulumi mocks: ack-virtual-node always, kube-scheduler when configured,
the version each sends (a floor over what ACK installed), when ACK's installed versions are read, and the check that
releases the workloads."""

from __future__ import annotations

import pytest

from components.alicloud.ack import MANAGED_ADDON_NAMES
from components.config.base import ConfigError
from tests.support.ack import (
    ACS_ONLY,
    ADDON_TYPE,
    ADDONS_INVOKE,
    CLUSTER_TYPE,
    EXISTING,
    GPU_HPN_NEEDS,
    KEY,
    NODE_POOL_TYPE,
    build,
    cluster_config,
    failed_run,
    invokes,
    program_for,
)
from tools import mock_cloud, mock_runtime

# --- ack-virtual-node and kube-scheduler --------------------------------------------------------------------------


def test_virtual_node_is_installed_at_ack_s_version_without_a_pin(run_program):
    default_run = build(run_program, cluster_config())
    addon = default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert addon.inputs["name"] == "ack-virtual-node"
    assert "version" not in addon.inputs, "an unset version installs ACK's current one and never diffs"
    assert addon.inputs["cleanupCloudResources"] is True
    assert "config" not in addon.inputs
    cluster = default_run.one(CLUSTER_TYPE)
    assert set(addon.property_dependencies["clusterId"]) == {cluster.urn}
    assert set(addon.dependencies) == {cluster.urn}, "no node pool configured, nothing else to wait for"
    assert default_run.by_type(NODE_POOL_TYPE) == [], "no node pool unless configured"


def test_only_the_virtual_node_is_managed_by_default_and_the_workloads_wait_for_it(run_program):
    default_run = build(run_program, cluster_config())
    virtual_node = default_run.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert [a.inputs["name"] for a in default_run.by_type(ADDON_TYPE)] == ["ack-virtual-node"]
    assert default_run.outputs["demo-addons"] == [virtual_node.urn]
    assert virtual_node.urn in default_run.named("demo-workload").dependencies


def test_installed_addon_versions_are_not_read_when_nothing_uses_them(run_program):
    """No pin, no scheduler parameters, no kube-scheduler need: the costly addon listing is not made at all."""
    assert invokes(build(run_program, cluster_config()), ADDONS_INVOKE) == []


@pytest.mark.parametrize(
    ("settings", "needs"),
    [
        ({"virtualNode": {"version": "v2.15.0"}}, ACS_ONLY),  # a pin is a floor over what is installed
        ({"scheduler": {"config": {"enable": "true"}}}, ACS_ONLY),  # parameters go with the installed version
        ({}, GPU_HPN_NEEDS),  # the workloads need a kube-scheduler version
    ],
    ids=["pin", "scheduler-parameters", "scheduler-need"],
)
def test_installed_addon_versions_are_read_once_on_the_region_provider_when_used(run_program, settings, needs):
    recording = build(run_program, cluster_config(network=EXISTING, **settings), needs=needs)
    [call] = invokes(recording, ADDONS_INVOKE)
    assert call.args == {"clusterId": recording.outputs["demo-cluster-id"], "nameRegex": MANAGED_ADDON_NAMES}
    assert call.provider.rsplit("::", 1)[0] == recording.one("pulumi:providers:alicloud").urn


@pytest.mark.parametrize(
    ("pin", "installed", "sent"),
    [
        ("v2.15.0", "", "v2.15.0"),  # not installed yet: install the pin
        ("v2.18.0", "v2.17.3", "v2.18.0"),  # older install: raise it to the pin
        ("v2.15.0", "v2.17.3", None),  # newer install (ACK upgraded it): send nothing, no downgrade and no diff
        ("v2.17.3", "v2.17.3", None),  # the pin is installed: nothing to change
    ],
)
def test_a_virtual_node_pin_is_a_floor(run_program, monkeypatch, pin, installed, sent):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "ack-virtual-node", installed)
    addon = build(run_program, cluster_config(network=EXISTING, virtualNode={"version": pin})).one(ADDON_TYPE)
    assert addon.inputs.get("version") == sent


@pytest.mark.parametrize(
    ("pin", "sent"),
    [
        ("v1.35.0-apsara.6.12.0.aaaaaaaa", "v1.35.0-apsara.6.12.0.aaaaaaaa"),  # above ACK's default: upgrade
        ("v1.35.0-aliyun.6.9.4.aaaaaaaa", None),  # below it: leave the default alone
    ],
)
def test_a_scheduler_pin_is_a_floor_over_the_default_install(run_program, pin, sent):
    recording = build(run_program, cluster_config(network=EXISTING, scheduler={"version": pin}))
    scheduler = recording.one(ADDON_TYPE, "ack-demo-kube-scheduler")
    assert scheduler.inputs.get("version") == sent


def test_a_managed_scheduler_adopts_the_default_install_and_gates_the_workloads(run_program):
    parameters = {"podMaxBackoffSeconds": "10", "enable": "true"}
    recording = build(run_program, cluster_config(network=EXISTING, scheduler={"config": parameters}))
    scheduler = recording.one(ADDON_TYPE, "ack-demo-kube-scheduler")
    assert scheduler.inputs["name"] == "kube-scheduler"
    assert scheduler.inputs["version"] == mock_cloud.ACK_INSTALLED_ADDONS["kube-scheduler"], (
        "parameters go with the installed version: the provider would otherwise send the one of the last up"
    )
    assert scheduler.inputs["config"] == '{"enable":"true","podMaxBackoffSeconds":"10"}'
    assert set(scheduler.dependencies) == {recording.one(CLUSTER_TYPE).urn}
    assert recording.provider_of(scheduler).name == "ack-demo-alicloud"
    virtual_node = recording.one(ADDON_TYPE, "ack-demo-ack-virtual-node")
    assert recording.outputs["demo-addons"] == [virtual_node.urn, scheduler.urn]
    assert {virtual_node.urn, scheduler.urn} <= set(recording.named("demo-workload").dependencies)


def test_addons_meeting_the_needs_release_the_workloads(run_program):
    """ACK's default kube-scheduler (6.11.4 for 1.35) and virtual node (v2.17.3) meet even GPU-HPN's minimums."""
    recording = build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert recording.named("demo-workload").dependencies


def test_an_installed_scheduler_below_a_need_fails_up_naming_the_key(monkeypatch):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.9.3.aaaaaaaa")
    error, registered = failed_run(monkeypatch, program_for(cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS))
    assert error.keys == [f"{KEY}.scheduler"]
    message = str(error)
    assert "v1.35.0-apsara.6.9.3.aaaaaaaa" in message and "ack.workloads[5] (hpn, gpu-hpn)" in message
    assert "v1.33.0-aliyun.6.9.4.8b58e6b4" in message and f"{KEY}.scheduler.version" in message
    assert "demo-workload" not in {r.name for r in registered}, "no workload on a failed check"


def test_a_managed_scheduler_is_checked_as_the_resource_left_it(run_program, monkeypatch):
    """With a pin the scheduler resource's own version is checked: here the pin raised it above the need."""
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.9.3.aaaaaaaa")
    cfg = cluster_config(network=EXISTING, scheduler={"version": "v1.35.0-apsara.6.11.4.77470105"})
    recording = build(run_program, cfg, needs=GPU_HPN_NEEDS)
    assert recording.one(ADDON_TYPE, "ack-demo-kube-scheduler").inputs["version"] == "v1.35.0-apsara.6.11.4.77470105"


def test_an_installed_virtual_node_below_a_need_fails_up_naming_the_key(run_program, monkeypatch):
    monkeypatch.setitem(mock_cloud.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0")
    with pytest.raises(ConfigError) as caught:
        build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert caught.value.keys == [f"{KEY}.virtualNode.version"]
    assert "v2.14.0" in str(caught.value) and "v2.15.0" in str(caught.value)


def test_an_unreadable_installed_version_is_a_warning_not_a_failure(run_program, monkeypatch, caplog):
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "")
    build(run_program, cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert any("no installed kube-scheduler" in r.getMessage() for r in caplog.records)


def test_no_check_runs_in_a_preview_of_a_new_cluster(monkeypatch):
    """Installed versions exist only after `up` created the cluster: preview neither fails nor guesses."""
    monkeypatch.setitem(mock_cloud.ACK_INSTALLED_ADDONS, "kube-scheduler", "v1.35.0-apsara.6.0.0.aaaaaaaa")
    program = program_for(cluster_config(network=EXISTING), needs=GPU_HPN_NEEDS)
    assert invokes(mock_runtime.run(program, {}, preview=True), ADDONS_INVOKE) == []
