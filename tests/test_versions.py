"""Version parsing and the seed's compatibility tables."""

from __future__ import annotations

import pytest
from packaging.version import Version

from components.versions import (
    SCHEDULER_MIN_GPU,
    SCHEDULER_MIN_GPU_HPN,
    KubernetesVersion,
    SchedulerVersion,
    addon_version,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.33", KubernetesVersion(1, 33)),
        ("1.33.1", KubernetesVersion(1, 33, 1)),
        ("v1.30.2", KubernetesVersion(1, 30, 2)),
        ("1.31.1-aliyun.1", KubernetesVersion(1, 31, 1)),
    ],
)
def test_kubernetes_versions_in_every_form_the_stacks_use(text, expected):
    assert KubernetesVersion.parse(text) == expected


@pytest.mark.parametrize("text", ["1", "latest", "1.33.x", "1.33.1-gke.1"])
def test_kubernetes_version_garbage_is_refused(text):
    with pytest.raises(ValueError, match="not a Kubernetes version"):
        KubernetesVersion.parse(text)


def test_minor_version_keys_the_seed_tables_and_comparison_ignores_the_patch():
    version = KubernetesVersion.parse("1.31.1-aliyun.1")
    assert version.minor_version == "1.31"
    assert version.at_least(1, 31) and version.at_least(1, 26) and not version.at_least(1, 32)


@pytest.mark.parametrize("separator", [".", "-"])
def test_scheduler_versions_with_either_separator_the_seed_writes(separator):
    version = SchedulerVersion.parse(f"v1.28.12-aliyun{separator}6.8.4.b27c0009")
    assert (version.kubernetes, version.ack, version.minor_version) == (Version("1.28.12"), Version("6.8.4"), "1.28")


@pytest.mark.parametrize("text", ["v1.31.0", "1.31.0-aliyun", "v1.31.0-gke.6.8.4"])
def test_scheduler_version_garbage_is_refused(text):
    with pytest.raises(ValueError, match="not an ACK kube-scheduler version"):
        SchedulerVersion.parse(text)


@pytest.mark.parametrize(
    ("text", "satisfies"),
    [
        ("v1.31.0-aliyun.6.8.4.8f585f26", True),  # the minimum itself
        ("v1.31.0-aliyun.6.9.3.051bb0e8", True),  # newer ACK feature level
        ("v1.31.2-aliyun.6.8.4.aaaaaaaa", True),  # newer Kubernetes patch
        ("v1.31.0-aliyun.6.8.3.aaaaaaaa", False),  # older ACK feature level
    ],
)
def test_scheduler_satisfies_compares_ack_level_and_kubernetes_patch(text, satisfies):
    assert SchedulerVersion.parse(text).satisfies(SCHEDULER_MIN_GPU["1.31"]) is satisfies


def test_seed_tables_are_keyed_by_the_minor_of_their_own_versions():
    for table in (SCHEDULER_MIN_GPU, SCHEDULER_MIN_GPU_HPN):
        assert all(version.minor_version == minor for minor, version in table.items())
    assert sorted(SCHEDULER_MIN_GPU) == ["1.26", "1.28", "1.30", "1.31"]
    assert sorted(SCHEDULER_MIN_GPU_HPN) == ["1.28", "1.30", "1.31", "1.32", "1.33"]
    assert SCHEDULER_MIN_GPU_HPN["1.33"].ack == Version("6.9.4")


def test_addon_versions():
    assert addon_version("v2.15.0") == Version("2.15.0")
    with pytest.raises(ValueError, match="not an addon version"):
        addon_version("two")
