"""Kueue objects: every shipped one is v1beta2, and the same object at another version fails. Every shipped stack's
ClusterQueues put a ProvisioningRequest check in front of their autoscaled pools; the same stack with that check
taken away, narrowed to another flavor or pointed at another controller fails, naming the queue."""

from __future__ import annotations

import dataclasses

import pytest
from elastic_capacity_policies.kueue import KUEUE_V1BETA2, PROVISIONING_CHECKS, autoscaled_pools, kueue_kind
from elastic_capacity_policies.pools import AGENT_POOL
from pulumi_policy import PolicyProviderResource

CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
ADMISSION_CHECK = "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck"
RESOURCE_FLAVOR = "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor"


def kueue_objects(engine):
    return [(name, r) for name, rec in engine.recordings.items() for r in rec.registrations if kueue_kind(r.type)]


def test_every_shipped_kueue_object_is_v1beta2_and_passes(engine):
    objects = kueue_objects(engine)
    assert {name for name, _ in objects} == {n for n in engine.recordings if n != "ack-acs-dev"}
    for name, registration in objects:
        assert kueue_kind(registration.type)[0] == "v1beta2"
        assert engine.messages(KUEUE_V1BETA2, engine.resource_args(registration)) == [], name


def test_a_kueue_object_at_another_version_fails(engine):
    recording = engine.stack("aks-kueue-dev")
    queue = recording.one(CLUSTER_QUEUE)
    old = dataclasses.replace(queue, type="kubernetes:kueue.x-k8s.io/v1beta1:ClusterQueue")
    props = engine.props(queue) | {"apiVersion": "kueue.x-k8s.io/v1beta1"}
    assert engine.messages(KUEUE_V1BETA2, engine.resource_args(old, props, recording=recording)) == [
        "ClusterQueue 'queues-clusterqueue-cas-cluster-queue' is kueue.x-k8s.io/v1beta1: write it as "
        "kueue.x-k8s.io/v1beta2."
    ]


def test_an_apiversion_that_disagrees_with_the_type_fails_and_other_groups_are_not_kueue(engine):
    queue = engine.stack("aks-kueue-dev").one(CLUSTER_QUEUE)
    props = engine.props(queue) | {"apiVersion": "kueue.x-k8s.io/v1alpha1"}
    assert engine.messages(KUEUE_V1BETA2, engine.resource_args(queue, props)) == [
        "ClusterQueue 'queues-clusterqueue-cas-cluster-queue' is kueue.x-k8s.io/v1alpha1: write it as "
        "kueue.x-k8s.io/v1beta2."
    ]
    assert kueue_kind("kubernetes:config.kueue.x-k8s.io/v1beta1:Configuration") is None
    assert kueue_kind("kubernetes:helm.sh/v4:Chart") is None


EXPECTED_POOLS = {
    "aks-kueue-dev": {"scalepool"},
    "aks-kueue-china": {"scalepool"},
    "multicloud": {"scalepool"},
    "ephemeral": {"scalepool"},
    "ephemeral-shared": set(),
    "ack-acs-dev": set(),
}


@pytest.mark.parametrize(("stack", "pools"), EXPECTED_POOLS.items())
def test_every_shipped_stack_passes_and_its_autoscaled_pools_are_found(engine, stack, pools):
    args = engine.stack_args(engine.stack(stack))
    assert autoscaled_pools(args.resources) == pools
    assert engine.violations(PROVISIONING_CHECKS, args) == []


def test_an_agent_pool_is_found_by_its_arm_name_when_the_engine_holds_outputs(engine):
    recording = engine.stack("aks-kueue-dev")
    pool = recording.one(AGENT_POOL)
    outputs = engine.props(pool)
    outputs["name"] = outputs.pop("agentPoolName")
    assert autoscaled_pools(engine.stack_args(recording, {pool.urn: outputs}).resources) == {"scalepool"}


def edited(engine, stack, type_, change):
    """The stack's resources with ``change`` applied to the properties of its one resource of ``type_``."""
    recording = engine.stack(stack)
    target = recording.one(type_)
    props = engine.props(target)
    change(props)
    return engine.stack_args(recording, {target.urn: props}), recording.one(CLUSTER_QUEUE).urn


def missing_check(queue="cas-cluster-queue", checks="none"):
    return (
        f"ClusterQueue {queue!r} hands out flavor 'scalepool', which selects the autoscaled AKS pool 'scalepool', but "
        "no admissionChecksStrategy.admissionChecks entry for it names an AdmissionCheck of controller "
        f"kueue.x-k8s.io/provisioning-request (provisioning checks here: {checks}): add one whose onFlavors is empty "
        "or includes 'scalepool'."
    )


@pytest.mark.parametrize("stack", ["aks-kueue-dev", "multicloud"])
def test_a_clusterqueue_without_the_check_fails(engine, stack):
    args, queue = edited(engine, stack, CLUSTER_QUEUE, lambda props: props["spec"].pop("admissionChecksStrategy"))
    assert engine.violations(PROVISIONING_CHECKS, args) == [(missing_check(checks="['cas-provisioning']"), queue)]


def test_a_check_narrowed_to_another_flavor_fails_and_one_for_every_flavor_passes(engine):
    def narrowed(props):
        props["spec"]["admissionChecksStrategy"]["admissionChecks"][0]["onFlavors"] = ["other"]

    args, queue = edited(engine, "aks-kueue-dev", CLUSTER_QUEUE, narrowed)
    assert engine.violations(PROVISIONING_CHECKS, args) == [(missing_check(checks="['cas-provisioning']"), queue)]
    args, _ = edited(
        engine,
        "aks-kueue-dev",
        CLUSTER_QUEUE,
        lambda props: props["spec"]["admissionChecksStrategy"]["admissionChecks"][0].pop("onFlavors"),
    )
    assert engine.violations(PROVISIONING_CHECKS, args) == []


def test_a_check_of_another_controller_does_not_count(engine):
    def other(props):
        props["spec"]["controllerName"] = "example.com/other"

    args, queue = edited(engine, "aks-kueue-dev", ADMISSION_CHECK, other)
    assert engine.violations(PROVISIONING_CHECKS, args) == [(missing_check(), queue)]


def test_a_check_on_another_cluster_does_not_count(engine):
    args = engine.stack_args(engine.stack("aks-kueue-dev"))
    check = next(r for r in args.resources if r.resource_type == ADMISSION_CHECK)
    check.provider = PolicyProviderResource("pulumi:providers:kubernetes", {}, "urn:other-cluster", "other")
    queue = next(r for r in args.resources if r.resource_type == CLUSTER_QUEUE)
    queue.props = dict(queue.props) | {"spec": {**queue.props["spec"], "admissionChecksStrategy": {}}}
    assert [urn for _, urn in engine.violations(PROVISIONING_CHECKS, args)] == [queue.urn]


def test_flavors_of_fixed_pools_need_no_check_and_the_azure_label_selects_a_pool_too(engine):
    recording = engine.stack("aks-kueue-dev")
    pool, queue, flavor = (recording.one(t) for t in (AGENT_POOL, CLUSTER_QUEUE, RESOURCE_FLAVOR))
    unchecked = engine.props(queue)
    del unchecked["spec"]["admissionChecksStrategy"]
    fixed = engine.props(pool) | {"enableAutoScaling": False}
    args = engine.stack_args(recording, {queue.urn: unchecked, pool.urn: fixed})
    assert engine.violations(PROVISIONING_CHECKS, args) == []
    relabelled = engine.props(flavor)
    relabelled["spec"]["nodeLabels"] = {"kubernetes.azure.com/agentpool": "scalepool"}
    args = engine.stack_args(recording, {queue.urn: unchecked, flavor.urn: relabelled})
    assert engine.violations(PROVISIONING_CHECKS, args) == [(missing_check(checks="['cas-provisioning']"), queue.urn)]
