"""ACK deletion protection on production stacks: each stack's config reaches the policy as the CLI passes it
(``PULUMI_CONFIG``); the production stack's clusters pass, and fail with protection off; other stacks' unprotected
clusters pass until a stack tag says production."""

from __future__ import annotations

import json

import pytest
from elastic_capacity_policies.ack import ACK_CLUSTER, DELETION_PROTECTION

CONFIG_REASON = "its config sets elastic-capacity:environment.kind: production"


@pytest.fixture
def as_stack(engine, monkeypatch):
    """Run the policy as the CLI would for a stack: with that stack's config in ``PULUMI_CONFIG``."""
    monkeypatch.delenv("PULUMI_CONFIG", raising=False)

    def use(stack: str) -> list:
        monkeypatch.setenv("PULUMI_CONFIG", json.dumps(engine.config(stack)))
        return engine.stack(stack).by_type(ACK_CLUSTER)

    return use


def test_the_production_stacks_clusters_are_protected_and_pass(engine, as_stack):
    clusters = as_stack("multicloud")
    assert sorted(c.inputs["name"] for c in clusters) == ["acs-prod-beijing", "acs-prod-hangzhou"]
    for cluster in clusters:
        assert engine.messages(DELETION_PROTECTION, engine.resource_args(cluster)) == []


@pytest.mark.parametrize("value", [False, None])
def test_a_production_cluster_without_deletion_protection_fails(engine, as_stack, value):
    cluster = next(c for c in as_stack("multicloud") if c.inputs["name"] == "acs-prod-hangzhou")
    props = engine.props(cluster)
    if value is None:
        del props["deletionProtection"]
    else:
        props["deletionProtection"] = value
    assert engine.messages(DELETION_PROTECTION, engine.resource_args(cluster, props)) == [
        f"ACK cluster 'acs-prod-hangzhou' has deletionProtection {value!r}, and the stack is a production stack "
        f"({CONFIG_REASON}): set ack.clusters[].deletionProtection to true."
    ]


@pytest.mark.parametrize("stack", ["ack-acs-dev", "ephemeral"])
def test_unprotected_clusters_of_other_stacks_pass(engine, as_stack, stack):
    clusters = as_stack(stack)
    assert clusters and all(c.inputs["deletionProtection"] is False for c in clusters)
    for cluster in clusters:
        assert engine.messages(DELETION_PROTECTION, engine.resource_args(cluster)) == []


def test_a_stack_tagged_production_holds_its_clusters_to_it(engine, as_stack):
    cluster = next(c for c in as_stack("ack-acs-dev") if c.inputs["name"] == "acs-hangzhou")
    tagged = engine.resource_args(cluster, stack_tags={"environment": "production"})
    assert engine.messages(DELETION_PROTECTION, tagged) == [
        "ACK cluster 'acs-hangzhou' has deletionProtection False, and the stack is a production stack (its stack tag "
        "environment is production): set ack.clusters[].deletionProtection to true."
    ]


def test_without_config_or_tags_no_stack_is_production(engine, monkeypatch):
    monkeypatch.delenv("PULUMI_CONFIG", raising=False)
    cluster = engine.stack("ack-acs-dev").by_type(ACK_CLUSTER)[0]
    assert engine.messages(DELETION_PROTECTION, engine.resource_args(cluster)) == []
