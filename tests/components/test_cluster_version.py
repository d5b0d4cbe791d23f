"""The version pin: catalogue at create, the deployed version after, one minor at a time on purpose."""

from __future__ import annotations

import pytest

from components.cluster_version import ClusterVersionProvider, pinned_version

KEY = "elastic-capacity:ack.clusters[0].kubernetesVersion"


def wanted(requested: str, candidate: str | None = None, refusal: str | None = None) -> dict:
    return {"key": KEY, "requested": requested, "candidate": candidate, "refusal": refusal, "version": None}


DEPLOYED = {**wanted("1.35", "1.35.2-aliyun.1"), "version": "1.35.2-aliyun.1"}


def test_a_new_cluster_takes_the_catalogue_answer_or_its_refusal():
    assert pinned_version({}, wanted("1.35", "1.35.4-aliyun.1")) == ("1.35.4-aliyun.1", None)
    assert pinned_version({}, wanted("1.34", refusal=f"{KEY}: '1.34' cannot be created")) == (
        None,
        f"{KEY}: '1.34' cannot be created",
    )


def test_an_unchanged_request_keeps_the_deployed_version_whatever_the_catalogue_says():
    assert pinned_version(DEPLOYED, wanted("1.35", "1.35.4-aliyun.1")) == ("1.35.2-aliyun.1", None)
    assert pinned_version(DEPLOYED, wanted("1.35", refusal="no 1.35 any more")) == ("1.35.2-aliyun.1", None)


def test_a_changed_request_moves_within_the_minor_or_one_minor_up():
    assert pinned_version(DEPLOYED, wanted("1.35.4-aliyun.1", "1.35.4-aliyun.1")) == ("1.35.4-aliyun.1", None)
    assert pinned_version(DEPLOYED, wanted("1.36", "1.36.1-aliyun.1")) == ("1.36.1-aliyun.1", None)
    assert pinned_version(DEPLOYED, wanted("1.36", refusal="not offered")) == (None, "not offered")


@pytest.mark.parametrize(
    ("requested", "candidate", "says"),
    [
        ("1.37", "1.37.0-aliyun.1", "skips a minor: the cluster runs 1.35.2-aliyun.1; upgrade one minor at a time"),
        ("1.34", "1.34.9-aliyun.1", "would downgrade the cluster from 1.35.2-aliyun.1"),
        ("2.0", "2.0.0-aliyun.1", "skips a minor"),
    ],
)
def test_a_skip_or_a_downgrade_is_refused_naming_the_key(requested, candidate, says):
    version, refusal = pinned_version(DEPLOYED, wanted(requested, candidate))
    assert version is None and refusal is not None
    assert refusal.startswith(f"{KEY}: {requested!r} {says}")


def test_check_fails_on_the_requested_property_and_otherwise_sets_the_version():
    provider = ClusterVersionProvider()
    checked = provider.check(DEPLOYED, wanted("1.35", "1.35.4-aliyun.1"))
    assert (checked.inputs["version"], checked.failures) == ("1.35.2-aliyun.1", [])
    refused = provider.check(DEPLOYED, wanted("1.37", "1.37.0-aliyun.1"))
    assert [failure.property for failure in refused.failures] == ["requested"]


def test_only_a_new_version_is_a_diff_and_it_is_an_update_not_a_replacement():
    provider = ClusterVersionProvider()
    moved_catalogue = {**DEPLOYED, "candidate": "1.35.4-aliyun.1"}
    assert provider.diff("id", DEPLOYED, moved_catalogue).changes is False
    upgrade = provider.diff("id", DEPLOYED, {**DEPLOYED, "version": "1.36.1-aliyun.1"})
    assert (upgrade.changes, upgrade.replaces) == (True, [])
    assert provider.update("id", DEPLOYED, moved_catalogue).outs == moved_catalogue
