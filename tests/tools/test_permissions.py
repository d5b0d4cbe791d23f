"""What each identity must be allowed, computed from the plans: listed per stack, covered by the docs' grants, and
docs/operations.md's identity table generated from it."""

from __future__ import annotations

import dataclasses

import pytest

from tests.support.rehearsals import rehearsed
from tests.support.stacks import AKS_STACK, STACKS
from tools import permissions
from tools.world import identities
from tools.world.identities import IDENTITIES


def shipped_needs() -> list[permissions.Need]:
    return [need for path in STACKS for need in permissions.needs_of(rehearsed(path)[1])]


def test_the_preview_identity_needs_the_clusters_credentials_and_kubernetes_discovery(capsys):
    """What a pull request's preview of aks-kueue-dev asks, as python -m tools.permissions lists it."""
    assert permissions.main([str(AKS_STACK), "--identity", "preview"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("preview (preview):\n  ARM:\n")
    assert (
        "Microsoft.ContainerService/managedClusters/listClusterUserCredential/action on /subscriptions/"
        "00000000-0000-0000-0000-000000000000/resourceGroups/kueue-cas-demo/providers/Microsoft.ContainerService/"
        "managedClusters/kueue-cas  <- Azure Kubernetes Service Cluster User Role"
    ) in listed
    for path in ("/version", "/api", "/apis", "/openapi/v3"):
        assert f"get {path} on kueue-cas  <- any signed-in identity (discovery)" in listed
    assert "MISSING" not in listed and "deployer" not in listed


def test_every_need_of_every_shipped_stack_is_granted_by_the_docs_or_by_the_stack():
    missing = [
        need
        for need in shipped_needs()
        if need.identity in IDENTITIES and permissions.granted_by(IDENTITIES[need.identity], need) == "MISSING"
    ]
    assert missing == []


def test_a_grant_the_docs_leave_out_is_named_missing():
    preview = dataclasses.replace(IDENTITIES["preview"], azure=(("Reader", "subscription"),))
    credential = next(n for n in shipped_needs() if n.identity == "preview" and n.action.endswith("Credential/action"))
    assert permissions.granted_by(preview, credential) == "MISSING"


def test_docs_operations_identity_table_is_generated_from_the_plans():
    text = permissions.OPERATIONS_DOC.read_text()
    assert permissions.with_table(text, permissions.identity_table(shipped_needs())) == text, (
        "docs/operations.md's identity table is stale: python -m tools.permissions --write-docs"
    )


def test_every_identity_the_docs_set_up_runs_some_shipped_stack():
    who = {need.identity for need in shipped_needs()}
    assert set(IDENTITIES) <= who
    assert set(identities.OPERATIONS) == {need.operation for need in shipped_needs()}


@pytest.mark.parametrize("identity", sorted(IDENTITIES))
def test_the_table_row_names_each_identitys_environment_and_grants(identity):
    row = next(line for line in permissions.identity_table(shipped_needs()).splitlines() if f"| `{identity}` |" in line)
    holder = IDENTITIES[identity]
    assert f"| `{holder.environment}` |" in row and all(role in row for role, _ in holder.azure)
