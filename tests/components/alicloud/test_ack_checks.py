"""The deploy-time checks as pure functions: what they return, and the one-line errors naming the stack key."""

from __future__ import annotations

import logging

import pytest
from packaging.version import Version

from components.alicloud import ack_checks
from components.config.base import ConfigError
from components.config.deploy.checks import AckReport
from components.config.versions import (
    SCHEDULER_MIN_GPU,
    SchedulerNeed,
    SchedulerVersion,
    VirtualNodeNeed,
    addon_version,
)
from tools import mock_runtime

KEY = "elastic-capacity:ack.clusters[2]"
REPORT = AckReport(KEY)
OFFERED = ["1.35.0-aliyun.1", "1.35.2-aliyun.1", "1.36.1-aliyun.1"]


def error_of(call, *args) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        call(*args)
    assert "\n" not in str(caught.value)
    return caught.value


def test_kubernetes_version_offer_resolves_or_words_the_refusal_naming_the_key():
    key = f"{KEY}.kubernetesVersion"
    assert ack_checks.kubernetes_version_offer(REPORT, "1.35", OFFERED) == ("1.35.2-aliyun.1", None)
    candidate, refusal = ack_checks.kubernetes_version_offer(REPORT, "1.33", OFFERED)
    assert candidate is None and refusal is not None and "\n" not in refusal
    assert refusal.startswith(f"{key}: '1.33' cannot be created") and "['1.35', '1.36']" in refusal


def test_enhanced_nat_zone():
    key = f"{KEY}.network.zones[0].zoneId"
    assert ack_checks.enhanced_nat_zone(REPORT, "cn-beijing-h", ["cn-beijing-h", "cn-beijing-g"]) == "cn-beijing-h"
    error = error_of(ack_checks.enhanced_nat_zone, REPORT, "cn-beijing-a", ["cn-beijing-h", "cn-beijing-g"])
    assert error.keys == [key]
    assert "'cn-beijing-a'" in str(error) and "['cn-beijing-g', 'cn-beijing-h']" in str(error)


GPU_NEED = SchedulerNeed("ack.workloads[2] (demo, gpu)", Version("6.8.4"), SCHEDULER_MIN_GPU["1.31"])


def test_installed_scheduler_meeting_the_needs_passes():
    installed = "v1.35.0-apsara.6.11.4.77470105"
    assert ack_checks.installed_scheduler(REPORT, installed, [GPU_NEED]) == installed


def test_installed_scheduler_below_a_need_names_the_key_the_need_and_the_fix():
    error = error_of(ack_checks.installed_scheduler, REPORT, "v1.35.0-apsara.6.8.3.aaaa", [GPU_NEED])
    assert error.keys == [f"{KEY}.scheduler"]
    message = str(error)
    assert "v1.35.0-apsara.6.8.3.aaaa" in message and "ack.workloads[2] (demo, gpu)" in message
    assert "v1.31.0-aliyun.6.8.4.8f585f26" in message and f"{KEY}.scheduler.version" in message


@pytest.mark.parametrize(("installed", "says"), [("", "no installed kube-scheduler"), ("v9-custom", "cannot read")])
def test_an_unknown_installed_scheduler_is_only_a_warning(caplog, installed, says):
    """Run as in a program (the mock engine logs ``pulumi.log`` through ``logging``)."""
    results = []
    with caplog.at_level(logging.WARNING):
        mock_runtime.run(lambda: results.append(ack_checks.installed_scheduler(REPORT, installed, [GPU_NEED])), {})
    assert results == [installed]
    assert any(says in record.getMessage() for record in caplog.records)


def test_no_need_no_check():
    assert ack_checks.installed_scheduler(REPORT, "garbage", []) == "garbage"


def test_installed_virtual_node():
    need = VirtualNodeNeed(Version("2.15.0"), "ack.workloads[5] (hpn, gpu-hpn)")
    key = f"{KEY}.virtualNode.version"
    assert ack_checks.installed_virtual_node(REPORT, "v2.15.0", need) == "v2.15.0"
    error = error_of(ack_checks.installed_virtual_node, REPORT, "v2.14.0", need)
    assert error.keys == [key]
    assert "v2.14.0" in str(error) and "v2.15.0" in str(error) and "gpu-hpn" in str(error)


def scheduler_order(text: str):
    return SchedulerVersion.parse(text).sort_key()


@pytest.mark.parametrize(
    ("pinned", "installed", "order", "sent"),
    [
        ("v2.15.0", "", addon_version, "v2.15.0"),  # nothing installed: the pin
        ("v2.15.0", "v2.14.0", addon_version, "v2.15.0"),  # older install: raise it
        ("v2.15.0", "v2.17.3", addon_version, None),  # newer install: send nothing (no downgrade, no diff)
        ("v2.15.0", "v2.15.0", addon_version, None),  # the pin is installed
        ("v1.35.0-aliyun.6.9.4.aaaa", "v1.35.0-apsara.6.11.4.bbbb", scheduler_order, None),
        ("v1.35.0-apsara.6.12.0.aaaa", "v1.35.0-apsara.6.11.4.bbbb", scheduler_order, "v1.35.0-apsara.6.12.0.aaaa"),
        (None, "v1.35.0-apsara.6.11.4.bbbb", scheduler_order, None),  # no pin: nothing
    ],
)
def test_a_pin_is_a_floor_and_nothing_is_sent_above_it(pinned, installed, order, sent):
    assert ack_checks.version_to_send(pinned, installed, order, configured=False) == sent


@pytest.mark.parametrize(
    ("pinned", "installed", "sent"),
    [
        (None, "v1.35.0-apsara.6.11.4.bbbb", "v1.35.0-apsara.6.11.4.bbbb"),
        ("v1.35.0-aliyun.6.9.4.aaaa", "v1.35.0-apsara.6.11.4.bbbb", "v1.35.0-apsara.6.11.4.bbbb"),
        ("v1.35.0-apsara.6.12.0.aaaa", "v1.35.0-apsara.6.11.4.bbbb", "v1.35.0-apsara.6.12.0.aaaa"),
        (None, "", None),  # ACK lists none: nothing to hold on to
    ],
)
def test_parameters_go_with_the_installed_version_unless_the_pin_raises_it(pinned, installed, sent):
    """Without a version the provider would send the one it read at the last up: a downgrade after ACK upgraded."""
    assert ack_checks.version_to_send(pinned, installed, scheduler_order, configured=True) == sent
