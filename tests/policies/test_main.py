"""``policies/__main__.py`` started exactly as ``pulumi preview --policy-pack policies`` starts it (``python3 -u -m
pulumi.policy <engine> .`` in the pack's folder, the stack's config in ``PULUMI_CONFIG``), then asked over its gRPC
analyzer interface what the engine asks: its policies, and verdicts on the shipped multicloud stack's resources as the
engine marshals them. The verdicts are the ones the tests' adapter (``tests/policies/conftest.py``) gets by calling
the policies directly, so the other tests' direct calls stand for the real path."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import grpc
import pytest
from elastic_capacity_policies.pack import PACK_NAME, POLICIES
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc
from pulumi_policy import ResourceValidationPolicy
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UnknownValueError

from tests.support import PROJECT_ROOT

STACK = "multicloud"
BY_NAME = {policy.name: policy for policy in POLICIES}


@pytest.fixture(scope="module")
def pack(engine):
    """The pack's analyzer server, started as the CLI starts a Python pack, with the multicloud stack's config."""
    env = {**os.environ, "PULUMI_CONFIG": json.dumps(engine.config(STACK))}
    command = [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:1", "."]
    process = subprocess.Popen(command, cwd=PROJECT_ROOT / "policies", env=env, stdout=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], 60)
        assert ready and process.stdout is not None, "the pack printed no port within 60 seconds"
        channel = grpc.insecure_channel(f"127.0.0.1:{int(process.stdout.readline())}")
        grpc.channel_ready_future(channel).result(timeout=30)
        yield analyzer_pb2_grpc.AnalyzerStub(channel)
        channel.close()
    finally:
        process.kill()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


@pytest.fixture
def stack_config(engine, monkeypatch):
    """The same config for the direct calls as the server has."""
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps(engine.config(STACK)))


def struct(props):
    return json_format.ParseDict(props, struct_pb2.Struct())


def analyze(pack, registration, props):
    request = analyzer_pb2.AnalyzeRequest(
        type=registration.type,
        properties=struct(props),
        urn=registration.urn,
        name=registration.name,
        options=analyzer_pb2.AnalyzerResourceOptions(protect=registration.protect, parent=registration.parent or ""),
    )
    diagnostics = pack.Analyze(request).diagnostics
    return [(d.policyName, d.message) for d in diagnostics if d.enforcementLevel == analyzer_pb2.MANDATORY] + [
        (d.policyName, f"advisory: {d.message}") for d in diagnostics if d.enforcementLevel != analyzer_pb2.MANDATORY
    ]


def direct(engine, registration, props):
    """What the adapter's direct calls report, formatted as the SDK formats a diagnostic."""
    args = engine.resource_args(registration, deserialize_properties(props))
    return [
        (policy.name, f"{policy.description}\n{message}")
        for policy in POLICIES
        if isinstance(policy, ResourceValidationPolicy)
        for message in engine.messages(policy, args)
    ]


def test_the_pack_boots_as_pulumi_starts_it_and_serves_every_policy_as_mandatory(pack):
    info = pack.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == PACK_NAME
    assert [p.name for p in info.policies] == [p.name for p in POLICIES]
    assert {p.enforcementLevel for p in info.policies} == {analyzer_pb2.MANDATORY}
    assert all(p.description == BY_NAME[p.name].description for p in info.policies)


def test_every_resource_of_the_shipped_stack_passes_on_both_paths(engine, pack, stack_config):
    for registration in engine.stack(STACK).registrations:
        if registration.custom:
            props = engine.wire(registration)
            assert analyze(pack, registration, props) == direct(engine, registration, props) == [], registration.urn


def edits(engine):
    """One resource of the multicloud stack per resource policy with its guarantee broken, wire-encoded."""
    recording = engine.stack(STACK)
    cluster = recording.one("azure-native:containerservice:ManagedCluster")
    pool = recording.one("azure-native:containerservice:AgentPool")
    ack = recording.by_type("alicloud:cs/managedKubernetes:ManagedKubernetes")[0]
    deployment = recording.by_type("kubernetes:apps/v1:Deployment")[0]
    cases = [
        (cluster, lambda p: p.update(disableLocalAccounts=False, oidcIssuerProfile={"enabled": False})),
        (pool, lambda p: p.update(minCount=11.0)),
        (ack, lambda p: p.update(deletionProtection=False)),
        (deployment, lambda p: p["spec"]["selector"]["matchLabels"].update({"alibabacloud.com/compute-class": "x"})),
    ]
    for registration, change in cases:
        props = engine.wire(registration)
        change(props)
        yield registration, props


def test_each_broken_guarantee_gets_the_same_verdict_on_both_paths(engine, pack, stack_config):
    seen = set()
    for registration, props in edits(engine):
        verdicts = analyze(pack, registration, props)
        assert verdicts and verdicts == direct(engine, registration, props), registration.urn
        seen |= {name for name, _ in verdicts}
    assert seen == {
        "aks-entra-id-azure-rbac",
        "aks-workload-identity",
        "autoscaling-pool-bounds",
        "ack-production-deletion-protection",
        "acs-compute-class-not-in-selector",
    }


def test_the_stack_policy_gets_the_same_verdict_on_both_paths(engine, pack):
    recording = engine.stack(STACK)
    queue = recording.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    broken = engine.wire(queue)
    del broken["spec"]["admissionChecksStrategy"]
    resources = [
        analyzer_pb2.AnalyzerResource(
            type=r.type,
            properties=struct(broken if r is queue else engine.wire(r)),
            urn=r.urn,
            name=r.name,
            parent=r.parent or "",
            dependencies=list(r.dependencies),
        )
        for r in recording.registrations
    ]
    diagnostics = pack.AnalyzeStack(analyzer_pb2.AnalyzeStackRequest(resources=resources)).diagnostics
    policy = BY_NAME["kueue-provisioning-check-on-autoscaled-pools"]
    expected = engine.violations(policy, engine.stack_args(recording, {queue.urn: deserialize_properties(broken)}))
    assert [(d.policyName, d.message, d.urn) for d in diagnostics] == [
        (policy.name, f"{policy.description}\n{message}", urn) for message, urn in expected
    ]
    assert len(expected) == 1 and expected[0][1] == queue.urn


def test_a_value_only_up_knows_makes_the_policy_advisory_in_preview_on_both_paths(engine, pack, stack_config):
    cluster = engine.stack(STACK).one("azure-native:containerservice:ManagedCluster")
    props = engine.wire(cluster) | {"disableLocalAccounts": rpc.UNKNOWN}
    [(name, message)] = analyze(pack, cluster, props)
    assert name == "aks-entra-id-azure-rbac"
    assert message.startswith("advisory: can't run policy 'aks-entra-id-azure-rbac' from policy pack 'elastic-capacity")
    with pytest.raises(UnknownValueError):
        engine.messages(BY_NAME[name], engine.resource_args(cluster, deserialize_properties(props)))
