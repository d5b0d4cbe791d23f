"""``ack.clusters[].rbac``: who gets which ACK RBAC role, each rule naming the exact key of the entry it is about."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from components.config.ack.ack import AckClusterConfig
from components.config.ack.rbac import RbacGrant
from tests.support.ack import cluster
from tests.support.config import model_error_keys

USER, ROLE = "2030000000000001", "300000000000000002"


def grant_errors(*grants: dict[str, Any]) -> list[str]:
    return model_error_keys(AckClusterConfig, cluster(rbac=list(grants)))


def test_a_user_or_a_role_gets_a_role_on_the_cluster_or_in_one_namespace():
    user = RbacGrant.model_validate({"ramUserId": USER, "role": "admin"})
    assert (user.uid, user.ram_role_id, user.namespace) == (USER, None, None)
    role = RbacGrant.model_validate({"ramRoleId": ROLE, "role": "dev", "namespace": "team-a"})
    assert (role.uid, role.ram_user_id, role.namespace) == (ROLE, None, "team-a")
    config = AckClusterConfig.model_validate(cluster(rbac=[{"ramUserId": USER, "role": "restricted"}]))
    assert [g.role for g in config.rbac] == ["restricted"]


@pytest.mark.parametrize(
    ("grant", "key"),
    [
        ({"role": "admin"}, "rbac[0].ramUserId"),  # whose role?
        ({"ramUserId": USER, "ramRoleId": ROLE, "role": "admin"}, "rbac[0].ramRoleId"),  # one identity per entry
        ({"ramUserId": "alice", "role": "admin"}, "rbac[0].ramUserId"),  # the id, not the name
        ({"ramRoleId": "acs:ram::123:role/ci", "role": "admin"}, "rbac[0].ramRoleId"),  # the id, not the ARN
        ({"ramUserId": USER, "role": "cluster-admin"}, "rbac[0].role"),  # only ACK's predefined roles
        ({"ramUserId": USER, "role": "admin", "namespace": "Team_A"}, "rbac[0].namespace"),
        ({"ramUserId": USER}, "rbac[0].role"),
    ],
)
def test_a_bad_grant_names_its_key(grant, key):
    assert grant_errors(grant) == [key]


def test_an_unquoted_id_is_refused_with_the_fix():
    assert grant_errors({"ramRoleId": 300000000000000002, "role": "admin"}) == ["rbac[0].ramRoleId"]
    with pytest.raises(ValidationError, match="quote the id"):
        AckClusterConfig.model_validate(cluster(rbac=[{"ramRoleId": 300000000000000002, "role": "admin"}]))


def test_an_identity_gets_one_role_per_scope():
    cluster_wide = {"ramUserId": USER, "role": "restricted"}
    in_team_a = {"ramUserId": USER, "role": "dev", "namespace": "team-a"}
    assert AckClusterConfig.model_validate(cluster(rbac=[cluster_wide, in_team_a])).rbac  # two scopes: fine
    assert grant_errors(cluster_wide, in_team_a, {"ramUserId": USER, "role": "admin"}) == ["rbac[2].ramUserId"]
    assert grant_errors(in_team_a, {"ramUserId": USER, "role": "ops", "namespace": "team-a"}) == ["rbac[1].ramUserId"]
    with pytest.raises(ValidationError, match="already has a role on namespace team-a"):
        AckClusterConfig.model_validate(cluster(rbac=[in_team_a, in_team_a]))
