"""``ack.existingClusters``: the entry's own rules, how it joins the section, and what an ephemeral stack does to
the namespaces of the workloads on it."""

from __future__ import annotations

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from tests.support import ack as ack_data
from tests.support.config import as_config, stack_error_keys

EPHEMERAL = {"kind": "ephemeral", "nameSuffix": "-pr1"}


def sections(workloads, existing=None, clusters=None, environment=None):
    ack = {"existingClusters": existing or [ack_data.existing_cluster()], "workloads": workloads}
    if clusters is not None:
        ack["clusters"] = clusters
    return {"ack": ack, **({"environment": environment} if environment else {})}


def shared_workload(**changes):
    return ack_data.workload(**{"cluster": "shared", "namespace": "team", **changes})


def test_a_stack_may_deploy_only_onto_an_existing_cluster():
    config = load_stack_config(as_config(sections([shared_workload()])))
    assert config.ack is not None and config.ack.clusters == []
    [existing] = config.ack.existing_clusters
    assert (existing.cluster_id, existing.minor_version) == (ack_data.EXISTING_ID, "1.35")
    assert config.ack.existing_cluster_key(0) == "elastic-capacity:ack.existingClusters[0]"


@pytest.mark.parametrize(
    ("field", "value"),
    [("clusterId", "cls-123"), ("clusterId", "C0123456789"), ("kubernetesVersion", "1.35.2-aliyun.1"),
     ("kubernetesVersion", 1.35), ("kubernetesVersion", "1.25"), ("region", "Hangzhou")],
)  # fmt: skip
def test_a_bad_entry_names_its_full_key(field, value):
    keys = stack_error_keys(sections([], existing=[ack_data.existing_cluster(**{field: value})]))
    assert keys == [f"elastic-capacity:ack.existingClusters[0].{field}"]


def test_a_stack_that_does_not_own_the_cluster_may_not_grant_roles_on_it():
    """Its destroy would revoke the same roles for the owner and for every other stack sharing the cluster."""
    grant = {"ramUserId": "2030000000000001", "role": "admin"}
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections([], existing=[ack_data.existing_cluster(rbac=[grant])])))
    assert caught.value.keys == ["elastic-capacity:ack.existingClusters[0].rbac"]
    assert "the stack that creates it, or the ACK console" in str(caught.value)


def test_without_any_cluster_the_section_is_refused():
    assert stack_error_keys({"ack": {"workloads": []}}) == ["elastic-capacity:ack.clusters"]


def test_cluster_names_are_unique_across_new_and_existing_clusters():
    clash = sections([], existing=[ack_data.existing_cluster("demo")], clusters=[ack_data.cluster()])
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(clash))
    assert caught.value.keys == ["elastic-capacity:ack.existingClusters[0].name"]
    assert "'demo'" in str(caught.value) and "another cluster" in str(caught.value)


def test_a_workload_names_a_new_or_an_existing_cluster():
    both = sections([ack_data.workload(), shared_workload()], clusters=[ack_data.cluster(nodePool=ack_data.POOL)])
    assert load_stack_config(as_config(both)).ack is not None
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections([shared_workload(cluster="elsewhere")])))
    assert caught.value.keys == ["elastic-capacity:ack.workloads[0].cluster"]
    assert "'shared'" in str(caught.value)


def test_a_gpu_workload_on_an_existing_cluster_needs_a_minor_its_table_covers():
    gpu = shared_workload(**ack_data.GPU_HPN)
    old = [ack_data.existing_cluster(kubernetesVersion="1.26")]
    assert stack_error_keys(sections([gpu], existing=old)) == [
        "elastic-capacity:ack.existingClusters[0].kubernetesVersion"
    ]


def test_an_ephemeral_stack_suffixes_the_namespaces_on_existing_clusters_only():
    mixed = sections(
        [ack_data.workload(namespace="team"), shared_workload()],
        clusters=[ack_data.cluster(nodePool=ack_data.POOL)],
        environment=EPHEMERAL,
    )
    config = load_stack_config(as_config(mixed))
    assert config.ack is not None
    assert [w.namespace for w in config.ack.workloads] == ["team", "team-pr1"], "a stack's own cluster is its own"
    dev = load_stack_config(as_config(sections([shared_workload()])))
    assert dev.ack is not None and dev.ack.workloads[0].namespace == "team"


def test_an_ephemeral_stack_refuses_default_on_an_existing_cluster():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections([shared_workload(namespace=None)], environment=EPHEMERAL)))
    assert caught.value.keys == ["elastic-capacity:ack.workloads[0].namespace"]
    assert "'default'" in str(caught.value) and "a namespace of its own" in str(caught.value)


def test_a_namespace_too_long_for_the_suffix_names_its_key():
    long = shared_workload(namespace="n" * 60)
    assert stack_error_keys(sections([long], environment=EPHEMERAL)) == ["elastic-capacity:ack.workloads[0].namespace"]
