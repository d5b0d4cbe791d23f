"""AKS sign-in and identity: every shipped cluster passes; the same cluster with one setting turned off fails, naming
that setting."""

from __future__ import annotations

import pytest
from elastic_capacity_policies.aks import ENTRA_ID, MANAGED_CLUSTER, WORKLOAD_IDENTITY

AKS_STACKS = ["aks-kueue-dev", "aks-kueue-china", "aks-gpu-spot", "burst", "multicloud", "ephemeral"]


def cluster(engine, stack="aks-kueue-dev"):
    return engine.stack(stack).one(MANAGED_CLUSTER)


def test_the_stacks_with_an_aks_cluster_are_the_ones_expected(engine):
    assert sorted(name for name, r in engine.recordings.items() if r.by_type(MANAGED_CLUSTER)) == sorted(AKS_STACKS)


@pytest.mark.parametrize("stack", AKS_STACKS)
@pytest.mark.parametrize("policy", [ENTRA_ID, WORKLOAD_IDENTITY], ids=lambda p: p.name)
def test_every_shipped_aks_cluster_passes(engine, stack, policy):
    assert engine.messages(policy, engine.resource_args(cluster(engine, stack))) == []


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (("disableLocalAccounts",), "disableLocalAccounts is False"),
        (("aadProfile", "enableAzureRBAC"), "aadProfile.enableAzureRBAC is False"),
        (("aadProfile", "managed"), "aadProfile.managed is False"),
    ],
)
def test_an_entra_id_cluster_with_local_accounts_or_without_azure_rbac_fails(engine, path, shown):
    props = engine.props(cluster(engine))
    target = props
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = False
    assert engine.messages(ENTRA_ID, engine.resource_args(cluster(engine), props)) == [
        f"AKS cluster 'aks-cluster' has Entra ID on (aadProfile is set) but {shown}: set it to true."
    ]


def test_left_out_counts_as_off_for_entra_id(engine):
    props = engine.props(cluster(engine))
    del props["disableLocalAccounts"]
    assert engine.messages(ENTRA_ID, engine.resource_args(cluster(engine), props)) == [
        "AKS cluster 'aks-cluster' has Entra ID on (aadProfile is set) but disableLocalAccounts is None: set it to "
        "true."
    ]


def test_a_cluster_without_entra_id_is_not_held_to_its_settings(engine):
    props = engine.props(cluster(engine))
    del props["aadProfile"], props["disableLocalAccounts"]
    assert engine.messages(ENTRA_ID, engine.resource_args(cluster(engine), props)) == []


@pytest.mark.parametrize(
    ("section", "path", "key"),
    [
        ("oidcIssuerProfile", ("enabled",), "oidcIssuerProfile.enabled"),
        ("securityProfile", ("workloadIdentity", "enabled"), "securityProfile.workloadIdentity.enabled"),
    ],
)
def test_a_cluster_without_its_oidc_issuer_or_workload_identity_fails(engine, section, path, key):
    props = engine.props(cluster(engine))
    target = props[section]
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = False
    assert engine.messages(WORKLOAD_IDENTITY, engine.resource_args(cluster(engine), props)) == [
        f"AKS cluster 'aks-cluster' has {key} False: set it to true."
    ]
    del props[section]
    assert engine.messages(WORKLOAD_IDENTITY, engine.resource_args(cluster(engine), props)) == [
        f"AKS cluster 'aks-cluster' has {key} None: set it to true."
    ]


def test_other_resources_are_left_alone(engine):
    for registration in engine.stack("aks-kueue-dev").registrations:
        if registration.type != MANAGED_CLUSTER:
            args = engine.resource_args(registration)
            assert engine.messages(ENTRA_ID, args) == engine.messages(WORKLOAD_IDENTITY, args) == []
