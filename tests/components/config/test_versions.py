"""Version parsing, the documented minimum tables, and the rules that compare against them."""

from __future__ import annotations

import pytest
from packaging.version import Version

from components.config.versions import (
    SCHEDULER_MIN_GPU,
    SCHEDULER_MIN_GPU_HPN,
    KubernetesVersion,
    SchedulerNeed,
    SchedulerVersion,
    VirtualNodeNeed,
    addon_version,
    resolve_ack_version,
    table_minimum,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.33", KubernetesVersion(1, 33)),
        ("1.33.1", KubernetesVersion(1, 33, 1)),
        ("v1.30.2", KubernetesVersion(1, 30, 2)),
        ("1.31.1-aliyun.1", KubernetesVersion(1, 31, 1, 1)),
    ],
)
def test_kubernetes_versions_in_every_form_the_stacks_use(text, expected):
    assert KubernetesVersion.parse(text) == expected


@pytest.mark.parametrize("text", ["1", "latest", "1.33.x", "1.33.1-gke.1"])
def test_kubernetes_version_garbage_is_refused(text):
    with pytest.raises(ValueError, match="not a Kubernetes version"):
        KubernetesVersion.parse(text)


def test_minor_version_keys_the_tables_and_comparison_ignores_the_patch():
    version = KubernetesVersion.parse("1.31.1-aliyun.1")
    assert version.minor_version == "1.31"
    assert version.at_least(1, 31) and version.at_least(1, 26) and not version.at_least(1, 32)


@pytest.mark.parametrize("build", ["aliyun.", "aliyun-", "apsara."])
def test_scheduler_versions_in_every_form_ack_writes(build):
    """ACK's release notes use ``aliyun.``, older tables ``aliyun-``, builds since 1.33 ``apsara.``."""
    version = SchedulerVersion.parse(f"v1.28.12-{build}6.8.4.b27c0009")
    assert (version.kubernetes, version.ack, version.minor_version) == (Version("1.28.12"), Version("6.8.4"), "1.28")


@pytest.mark.parametrize("text", ["v1.31.0", "1.31.0-aliyun", "v1.31.0-gke.6.8.4"])
def test_scheduler_version_garbage_is_refused(text):
    with pytest.raises(ValueError, match="not an ACK kube-scheduler version"):
        SchedulerVersion.parse(text)


def test_tables_are_keyed_by_the_minor_of_their_own_versions():
    for table in (SCHEDULER_MIN_GPU, SCHEDULER_MIN_GPU_HPN):
        assert all(version.minor_version == minor for minor, version in table.items())
    assert sorted(SCHEDULER_MIN_GPU) == ["1.26", "1.28", "1.30", "1.31"]
    assert sorted(SCHEDULER_MIN_GPU_HPN) == ["1.28", "1.30", "1.31", "1.32", "1.33"]
    assert SCHEDULER_MIN_GPU_HPN["1.33"].ack == Version("6.9.4")


def test_addon_versions():
    assert addon_version("v2.15.0") == Version("2.15.0")
    with pytest.raises(ValueError, match="not an addon version"):
        addon_version("two")


OFFERED = ["1.34.3-aliyun.1", "1.35.0-aliyun.1", "1.35.2-aliyun.1", "1.35.10-aliyun.1", "1.36.1-aliyun.1"]


@pytest.mark.parametrize(
    ("requested", "resolved"),
    [("1.35", "1.35.10-aliyun.1"), ("1.36", "1.36.1-aliyun.1"), ("1.35.2-aliyun.1", "1.35.2-aliyun.1")],
)
def test_a_minor_resolves_to_the_newest_offered_patch_and_a_pin_to_itself(requested, resolved):
    assert resolve_ack_version(requested, OFFERED) == resolved


def test_a_patch_of_the_same_minor_with_a_newer_ack_build_wins():
    assert resolve_ack_version("1.35", ["1.35.2-aliyun.1", "1.35.2-aliyun.2"]) == "1.35.2-aliyun.2"


@pytest.mark.parametrize(
    ("requested", "says"),
    [
        ("1.31", "offers minors ['1.34', '1.35', '1.36']"),
        ("1.35.1-aliyun.1", "offers ['1.35.10-aliyun.1', '1.35.2-aliyun.1', '1.35.0-aliyun.1']"),
        ("1.31.1-aliyun.1", "offers ['1.34', '1.35', '1.36']"),
    ],
)
def test_what_ack_no_longer_offers_is_refused_naming_what_it_offers(requested, says):
    with pytest.raises(ValueError, match="offers") as caught:
        resolve_ack_version(requested, OFFERED)
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("table", "minor", "row"),
    [
        (SCHEDULER_MIN_GPU, "1.26", "1.26"),
        (SCHEDULER_MIN_GPU, "1.29", "1.28"),  # between rows: the newest older row
        (SCHEDULER_MIN_GPU, "1.35", "1.31"),  # newer than the table: its newest row
        (SCHEDULER_MIN_GPU_HPN, "1.36", "1.33"),
    ],
)
def test_the_tables_are_minimums_that_apply_to_newer_minors(table, minor, row):
    assert table_minimum(table, minor) == table[row]


@pytest.mark.parametrize(("table", "minor"), [(SCHEDULER_MIN_GPU, "1.24"), (SCHEDULER_MIN_GPU_HPN, "1.26")])
def test_a_minor_older_than_a_table_has_no_minimum(table, minor):
    assert table_minimum(table, minor) is None


@pytest.mark.parametrize(
    ("installed", "met"),
    [
        ("v1.35.0-apsara.6.11.4.77470105", True),  # newer minor and feature level
        ("v1.33.0-aliyun.6.9.4.8b58e6b4", True),  # the row itself
        ("v1.35.0-apsara.6.9.3.aaaaaaaa", False),  # newer minor, older feature level
        ("v1.32.0-aliyun.6.9.4.aaaaaaaa", False),  # built for an older Kubernetes
    ],
)
def test_a_need_from_a_table_row_compares_the_build_and_the_feature_level(installed, met):
    need = SchedulerNeed("gpu-hpn workload", SCHEDULER_MIN_GPU_HPN["1.33"].ack, SCHEDULER_MIN_GPU_HPN["1.33"])
    assert need.met_by(SchedulerVersion.parse(installed)) is met
    assert need.text == "v1.33.0-aliyun.6.9.4.8b58e6b4"


def test_a_feature_level_need_ignores_the_build():
    need = SchedulerNeed("policy", Version("6.8.3"))
    assert need.met_by(SchedulerVersion.parse("v1.26.3-aliyun-6.8.3.aaaaaaaa"))
    assert not need.met_by(SchedulerVersion.parse("v1.35.0-apsara.6.8.2.aaaaaaaa"))
    assert need.text == "feature level 6.8.3"


def test_virtual_node_need():
    need = VirtualNodeNeed(Version("2.15.0"), "gpu-hpn")
    assert need.met_by("v2.15.0") and need.met_by("v2.17.3") and not need.met_by("v2.14.9")
