"""``ack.clusters[].rbac``: the RAM users and roles, besides the cluster's creator, that get an RBAC role on it.

ACK makes only the RAM identity that created a cluster its cluster-admin; every other RAM user or role, such as a CI
runner or a second operator running ``pulumi``, gets ``Forbidden`` from the API server until ACK grants it a role
(https://www.alibabacloud.com/help/doc-detail/87656.htm). Each identity becomes one ``cs.KubernetesPermission`` per
cluster. Its provider grants and revokes only the roles it lists (``UpdateUserPermissions`` in its incremental
``patch`` and ``delete`` modes, ``resource_alicloud_cs_kubernetes_permissions.go`` in
https://github.com/aliyun/terraform-provider-alicloud), so grants of the same identity on other clusters, and the
ones made in the ACK console, stay as they are.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import field_validator, model_validator

from components.config.base import ConfigModel, DnsLabel, RuleViolation, key_path, matching
from components.config.rules import rule

_RBAC_API_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-updateuserpermissions"

AckRole = Literal["admin", "ops", "dev", "restricted"]
"""ACK's predefined RBAC roles (``role_name`` of UpdateUserPermissions,
https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-updateuserpermissions):
administrator, O&M engineer, developer and restricted user."""

RamId = Annotated[
    str, matching(r"[1-9][0-9]{5,18}", "write the RAM user's or role's id: digits, as `ack-ram-tool whoami` shows it")
]
"""A RAM user's or role's numeric id (``UserId`` or ``RoleId``), which ACK's permission API takes as ``uid``."""


class RbacGrant(ConfigModel):
    """One ACK RBAC role for one RAM user or role: on the whole cluster, or on one namespace."""

    ram_user_id: RamId | None = None
    """The RAM user to grant the role to (its ``UserId``). Exactly one of ``ramUserId`` and ``ramRoleId``."""
    ram_role_id: RamId | None = None
    """The RAM role to grant the role to (its ``RoleId``): whoever assumes it, such as a CI runner with an OIDC
    role, gets the role in the cluster."""
    role: AckRole
    """One of ACK's predefined roles: administrator, O&M engineer, developer or restricted user. Whoever runs
    ``pulumi`` needs ``admin`` without ``namespace``: it creates namespaces, CRDs and cluster roles."""
    namespace: DnsLabel | None = None
    """The namespace the role is limited to; unset, it holds in the whole cluster."""

    @field_validator("ram_user_id", "ram_role_id", mode="before")
    @classmethod
    @rule("ack-rbac.quoted", source=_RBAC_API_URL)
    def _quoted(cls, value: Any) -> Any:
        """A RAM user or role id written as a string, because the ids are longer than the integers YAML and JSON keep
        exactly."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise ValueError('quote the id, e.g. "203xxxxxxxxxxxxx": RAM ids are longer than the integers JSON keeps')
        return value

    @model_validator(mode="after")
    @rule("ack-rbac.one-identity", source=_RBAC_API_URL)
    def _one_identity(self) -> RbacGrant:
        """A grant with exactly one of ``ramUserId`` and ``ramRoleId``, because ACK grants a role to one RAM
        identity."""
        if self.ram_user_id is None and self.ram_role_id is None:
            raise RuleViolation("ramUserId", None, "set ramUserId or ramRoleId: the identity the role is for")
        if self.ram_user_id is not None and self.ram_role_id is not None:
            raise RuleViolation("ramRoleId", self.ram_role_id, "set either ramUserId or ramRoleId, not both")
        return self

    @property
    def uid(self) -> str:
        """The id ACK's permission API takes, whichever kind of identity it is."""
        return self.ram_user_id or self.ram_role_id or ""

    @property
    def identity_key(self) -> str:
        """The key the stack file names this grant's identity with."""
        return "ramUserId" if self.ram_user_id else "ramRoleId"


@rule("ack-rbac.grants", source=_RBAC_API_URL)
def check_grants(grants: list[RbacGrant]) -> None:
    """Each identity once per scope (the whole cluster, or one namespace): it gets the one role it needs there."""
    seen: set[tuple[str, str | None]] = set()
    for index, grant in enumerate(grants):
        scope = (grant.uid, grant.namespace)
        if scope in seen:
            where = f"namespace {grant.namespace}" if grant.namespace else "the whole cluster"
            allowed = f"this identity already has a role on {where}: give it one role per scope"
            raise RuleViolation(key_path("rbac", index, grant.identity_key), grant.uid, allowed)
        seen.add(scope)
