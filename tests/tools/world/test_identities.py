"""The identities and their documented grants: who runs what on each stack, and grants that name real roles."""

from __future__ import annotations

import json

import pytest

from tests.support import PROJECT_ROOT
from tests.support.stacks import STACKS
from tools import mock_cloud
from tools.world import roles
from tools.world.identities import DEPLOYER_OBJECT_ID, IDENTITIES, LOCAL, OPERATIONS, stack_identities

STACKS_JSON = json.loads((PROJECT_ROOT / "deploy/stacks.json").read_text())["stacks"]


@pytest.mark.parametrize("stack_file", STACKS, ids=lambda path: path.stem.removeprefix("Pulumi."))
def test_every_shipped_stack_has_an_identity_for_each_operation_it_goes_through(stack_file):
    stack = stack_file.stem.removeprefix("Pulumi.")
    deployer = STACKS_JSON.get(stack, {}).get("deployer")
    runs = stack_identities(stack, deployer)
    assert {"up", "destroy"} <= set(runs) and set(runs) <= set(OPERATIONS)
    assert all(who in IDENTITIES or who == LOCAL for who in runs.values())
    assert ("preview" in runs) == (deployer == "github")
    assert ("refresh" in runs) == (deployer in ("github", "operator")), "drift.yml, or the operator's up --refresh"


def test_every_grant_names_a_role_or_policy_of_the_catalogues_at_a_known_scope():
    for identity in IDENTITIES.values():
        assert all(role in roles.AZURE_ROLES for role, _ in identity.azure), identity.name
        assert {scope for _, scope in identity.azure} <= {"subscription", "shared-aks"}
        assert all(policy in roles.RAM_POLICIES for policy in identity.ram), identity.name
        assert all(role in roles.ACK_ROLES and scope == "shared-ack" for role, scope in identity.ack)
        assert set(identity.operations) <= set(OPERATIONS)


def test_the_preview_identity_can_read_and_nothing_more():
    """It runs pull-request code: no write anywhere, and no right inside any cluster."""
    preview = IDENTITIES["preview"]
    held = [roles.AZURE_ROLES[role] for role, _ in preview.azure]
    assert not roles.azure_allows(held, "Microsoft.ContainerService/managedClusters/write")
    assert not any(role.data_actions for role in held)
    assert not roles.ram_allows([roles.RAM_POLICIES[p] for p in preview.ram], "cs:CreateCluster")


def test_the_drift_check_holds_the_deployers_identity_and_the_deployer_is_whom_the_mocks_sign_in_as():
    drift, deployer = IDENTITIES["drift"], IDENTITIES["deployer"]
    assert (drift.object_id, drift.ram_uid, drift.azure, drift.ram) == (
        deployer.object_id,
        deployer.ram_uid,
        deployer.azure,
        deployer.ram,
    )
    assert deployer.object_id == DEPLOYER_OBJECT_ID == mock_cloud.DEPLOYER.object_id
