"""The identities that run this program, and exactly the grants docs/operations.md gives each: one table that the
rehearsal (:mod:`tools.rehearse`) authorizes against, :mod:`tools.permissions` checks the plan's needs against, and
docs/operations.md's identity table is generated from.

Each identity is a GitHub environment's (or the operator's) credentials. Its grants are what an administrator sets up
once, before the first run, with the built-in roles and system policies of :mod:`tools.world.roles`; the grants the
stacks make themselves (the cluster-admin role assignments, ``ack.clusters[].rbac``) come from the plan, not from
here. A ``scope`` names where a grant is made:

- ``subscription``: the Azure subscription the stacks deploy into (for the sandbox identity, its own);
- ``shared-aks``: the AKS cluster the shared pull-request template uses (aks-kueue-dev's);
- ``shared-ack``: the ACK cluster the shared template puts its ACS workloads on (ack-acs-dev's);
- ``account``: the Alibaba Cloud account (RAM policies are account-wide).
"""

from __future__ import annotations

import dataclasses

OPERATIONS = ("up", "preview", "refresh", "destroy")
"""What an identity may run: ``pulumi up``, ``preview``, ``preview --refresh`` (the drift check), ``destroy``."""

DEPLOYER_RAM = (
    "AliyunVPCFullAccess",
    "AliyunEIPFullAccess",
    "AliyunNATGatewayFullAccess",
    "AliyunCSFullAccess",
)
"""The system policies the README names for an identity that creates the Alibaba half."""
DEPLOYER_OBJECT_ID = "00000000-0000-0000-0000-0000000000bb"
"""The deployer's simulated object id: the one the mocks sign in as by default (:data:`tools.mock_cloud.DEPLOYER`),
so a rehearsal's plan is the plan every test records."""
DEPLOYER_AZURE = (("Contributor", "subscription"), ("User Access Administrator", "subscription"))
"""What the README names for an identity that creates the Azure half: resources, and role assignments on them."""


@dataclasses.dataclass(frozen=True)
class Identity:
    """One identity that runs Pulumi, with the grants an administrator gives it before its first run."""

    name: str
    environment: str
    """The GitHub environment holding its credentials (``operator``: the Pulumi Kubernetes Operator's Secrets)."""
    purpose: str
    operations: tuple[str, ...]
    """What it runs (:data:`OPERATIONS`)."""
    azure: tuple[tuple[str, str], ...] = ()
    """(built-in role, scope) pairs."""
    ram: tuple[str, ...] = ()
    """RAM system policies attached to it."""
    ack: tuple[tuple[str, str], ...] = ()
    """(ACK predefined role, scope) pairs granted outside the stacks (the console's Authorizations page)."""
    object_id: str = ""
    """Its simulated Entra object id (a service principal's)."""
    ram_uid: str = ""
    """Its simulated RAM user id."""
    kind: str = "ServicePrincipal"
    """What Entra ID calls it: every identity a workflow signs in with is an application's service principal."""


IDENTITIES: dict[str, Identity] = {
    identity.name: identity
    for identity in (
        Identity(
            "deployer",
            "production",
            "deploys the long-lived stacks (deploy.yml; the operator, whose every up refreshes)",
            ("up", "refresh", "destroy"),
            azure=DEPLOYER_AZURE,
            ram=DEPLOYER_RAM,
            object_id=DEPLOYER_OBJECT_ID,
            ram_uid="2000000000000001",
        ),
        Identity(
            "preview",
            "preview",
            "previews pull requests (preview.yml): runs pull-request code, so it may read and nothing more",
            ("preview",),
            azure=(("Reader", "subscription"), ("Azure Kubernetes Service Cluster User Role", "subscription")),
            ram=("ReadOnlyAccess",),
            object_id="10000000-0000-0000-0000-00000000d002",
            ram_uid="2000000000000002",
        ),
        Identity(
            "drift",
            "drift",
            "the nightly drift check (drift.yml, on main only): the deployer's identity, without its approvals",
            ("refresh",),
            azure=DEPLOYER_AZURE,
            ram=DEPLOYER_RAM,
            object_id=DEPLOYER_OBJECT_ID,
            ram_uid="2000000000000001",
        ),
        Identity(
            "ephemeral",
            "ephemeral",
            "pull-request environments of their own (ephemeral.yml, stacks/Pulumi.ephemeral.yaml), in a sandbox",
            ("up", "destroy"),
            azure=DEPLOYER_AZURE,
            ram=DEPLOYER_RAM,
            object_id="10000000-0000-0000-0000-00000000d003",
            ram_uid="2000000000000003",
        ),
        Identity(
            "shared-ephemeral",
            "ephemeral",
            "pull-request queues on the shared clusters (stacks/Pulumi.ephemeral-shared.yaml): the ephemeral identity, "
            "with cluster admin on the two shared clusters, so pull-request code can write there",
            ("up", "destroy"),
            azure=(
                *DEPLOYER_AZURE,
                ("Azure Kubernetes Service Cluster User Role", "shared-aks"),
                ("Azure Kubernetes Service RBAC Cluster Admin", "shared-aks"),
            ),
            ram=DEPLOYER_RAM,
            ack=(("admin", "shared-ack"),),
            object_id="10000000-0000-0000-0000-00000000d003",
            ram_uid="2000000000000003",
        ),
    )
}
"""Every identity the docs set up, by name."""

LOCAL = "local"
"""Whoever runs the ``local`` stack: the kubeconfig's own user, admin of its kind cluster, and no cloud identity."""


def stack_identities(stack: str, deployer: str | None) -> dict[str, str]:
    """Operation -> the identity that runs it on ``stack``, whose ``deploy/stacks.json`` deployer is ``deployer``
    (``None`` for a stack it does not list: a pull-request template or the local stack)."""
    if stack == "local":
        return {"up": LOCAL, "destroy": LOCAL}
    if stack == "ephemeral":
        return {"up": "ephemeral", "destroy": "ephemeral"}
    if stack == "ephemeral-shared":
        return {"up": "shared-ephemeral", "destroy": "shared-ephemeral"}
    if deployer == "github":
        return {"up": "deployer", "destroy": "deployer", "preview": "preview", "refresh": "drift"}
    return {"up": "deployer", "destroy": "deployer", "refresh": "deployer"}  # the operator: up --refresh
