"""Rules of the addon models on their own: a virtual-node pin, its cleanup flag, a scheduler pin and parameters.
(Rules that need the cluster, such as a scheduler built for its minor, are in ``test_ack``.)"""

from __future__ import annotations

import pytest
from packaging.version import Version
from pydantic import ValidationError

from components.config.ack.addons import (
    ClusterAddonConfig,
    SchedulerAddonConfig,
    VirtualNodeAddonConfig,
    check_create_time_addons,
    default_addons,
    require_pins_meet,
)
from components.config.base import RuleViolation
from components.config.versions import ClusterNeeds, VirtualNodeNeed
from tests.support.ack import SCHEDULER_1_35
from tests.support.config import model_error_keys


def test_defaults_leave_versions_to_ack():
    virtual_node = VirtualNodeAddonConfig()
    assert (virtual_node.version, virtual_node.cleanup_cloud_resources) == (None, True)
    assert [addon.name for addon in default_addons()] == ["terway-eniip", "csi-plugin", "managed-csiprovisioner"]
    addon = ClusterAddonConfig(name="terway-eniip")
    assert (addon.version, addon.config, addon.disabled) == (None, None, False)


@pytest.mark.parametrize("bad", ["v2.12.9", "2.17.3", "v2.17", "latest"])
def test_a_virtual_node_pin_is_exact_and_at_least_the_acs_minimum(bad):
    assert VirtualNodeAddonConfig(version="v2.13.0").version == "v2.13.0"
    assert model_error_keys(VirtualNodeAddonConfig, {"version": bad}, "virtualNode") == ["virtualNode.version"]


def test_cleanup_false_is_refused_because_the_provider_never_sends_it():
    data = {"cleanupCloudResources": False}
    assert model_error_keys(VirtualNodeAddonConfig, data, "virtualNode") == ["virtualNode.cleanupCloudResources"]
    with pytest.raises(ValidationError, match="GetOk"):
        VirtualNodeAddonConfig.model_validate(data)


@pytest.mark.parametrize("bad", ["v1.35.0-apsara.6.6.0.8b58e6b4", "1.35-latest"])
def test_a_scheduler_pin_is_an_acs_capable_build(bad):
    assert SchedulerAddonConfig(version=SCHEDULER_1_35).parsed.minor_version == "1.35"
    assert model_error_keys(SchedulerAddonConfig, {"version": bad}, "scheduler") == ["scheduler.version"]


def test_the_scheduler_may_take_parameters_without_a_version_but_not_nothing():
    scheduler = SchedulerAddonConfig.model_validate({"config": {"podMaxBackoffSeconds": "10"}})
    assert (scheduler.version, scheduler.parsed) == (None, None)
    assert model_error_keys(SchedulerAddonConfig, {}, "scheduler") == ["scheduler"]
    with pytest.raises(ValidationError) as caught:
        SchedulerAddonConfig.model_validate({})
    assert "'{}'" not in str(caught.value), "the empty mapping is quoted as what it is, not as a placeholder"


def test_create_time_addons_name_the_key_under_the_cluster():
    check_create_time_addons(default_addons())
    with pytest.raises(RuleViolation) as caught:
        check_create_time_addons([*default_addons(), ClusterAddonConfig(name="flannel")])
    assert (caught.value.key, caught.value.value) == ("addons[3].name", "flannel")


def test_a_pin_below_what_the_workloads_need_names_its_full_key():
    needs = ClusterNeeds((), VirtualNodeNeed(Version("2.15.0"), "ack.workloads[0] (hpn, gpu-hpn)"))
    require_pins_meet("ack.clusters[0]", VirtualNodeAddonConfig(version="v2.15.0"), None, needs)
    with pytest.raises(RuleViolation) as caught:
        require_pins_meet("ack.clusters[0]", VirtualNodeAddonConfig(version="v2.14.0"), None, needs)
    assert caught.value.key == "ack.clusters[0].virtualNode.version"
    assert "ack.workloads[0] (hpn, gpu-hpn) needs ack-virtual-node v2.15.0 or later" in str(caught.value)
