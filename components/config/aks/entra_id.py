"""Signing in to an AKS cluster with Entra ID: the ``aks.entraId`` section and the kubelogin settings it shares with
``existingCluster.kubelogin``.

AKS-managed Entra ID with Azure RBAC: https://learn.microsoft.com/azure/aks/manage-azure-rbac; the ARM
``aadProfile``: https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#managedclusteraadprofile.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import Field, field_validator, model_validator

from components.config.base import ConfigModel, RuleViolation, key_path, require_unique
from components.config.rules import rule

_AZURE_RBAC_URL = "https://learn.microsoft.com/azure/aks/manage-azure-rbac"
_KUBELOGIN_MODES_URL = "https://azure.github.io/kubelogin/concepts/login-modes.html"

NIL_UUID = UUID(int=0)
"""The all-zero id: a placeholder, never an Entra object."""


class KubeloginConfig(ConfigModel):
    """How the Kubernetes provider and the smoke waiter sign in to an Entra ID cluster, with no prompt.

    ``kubelogin`` must be on the PATH of whoever runs Pulumi (https://azure.github.io/kubelogin/install.html).
    ``azurecli`` uses the ``az login`` session; ``workloadidentity`` reads ``AZURE_CLIENT_ID``, ``AZURE_TENANT_ID`` and
    ``AZURE_FEDERATED_TOKEN_FILE`` (GitHub Actions OIDC, pods); ``spn`` signs in as the service principal
    ``clientId`` with the secret in ``AAD_SERVICE_PRINCIPAL_CLIENT_SECRET``. No credential enters the kubeconfig.
    """

    login: Literal["azurecli", "workloadidentity", "spn"] = "azurecli"
    """The kubelogin login mode (https://azure.github.io/kubelogin/concepts/login-modes.html)."""
    client_id: UUID | None = None
    """The service principal's application (client) id; ``spn`` only."""

    @model_validator(mode="after")
    @rule("entra-id.client-id-for-spn", source=_KUBELOGIN_MODES_URL)
    def _client_id_for_spn(self) -> KubeloginConfig:
        """A ``clientId`` exactly with kubelogin's ``spn`` login, because only that mode signs in as an application."""
        if (self.login == "spn") != (self.client_id is not None):
            raise RuleViolation("clientId", self.client_id, "set clientId exactly when login is 'spn'")
        return self


class EntraPrincipal(ConfigModel):
    """An Entra ID object a role is assigned to."""

    object_id: UUID
    """Its object id (``az ad group show -g <name> --query id -o tsv``, ``az ad sp show --id <appId> --query id -o
    tsv``, ``az ad signed-in-user show --query id -o tsv``); not an application (client) id."""
    type: Literal["Group", "ServicePrincipal", "User"]
    """ARM's ``principalType``. Sending it lets ARM accept an assignment to a service principal created moments before,
    which Entra ID has not replicated yet
    (https://learn.microsoft.com/azure/role-based-access-control/role-assignments-template#new-service-principal)."""

    @field_validator("object_id")
    @classmethod
    @rule("entra-id.not-a-placeholder", source=_AZURE_RBAC_URL)
    def _not_a_placeholder(cls, value: UUID) -> UUID:
        """No all-zero object id, because it is a placeholder that names no Entra ID group or identity."""
        if value == NIL_UUID:
            raise ValueError("the all-zero id is a placeholder: write the object id of the group or identity")
        return value


class EntraIdConfig(ConfigModel):
    """Entra ID integration (AKS-managed) with Azure RBAC for Kubernetes authorization."""

    cluster_admins: list[EntraPrincipal] = Field(default_factory=list)
    """Who gets "Azure Kubernetes Service RBAC Cluster Admin" on this cluster: the identities that run ``pulumi up``
    and ``destroy`` of the stack, best one Entra group they belong to. Empty (the default), the identity that runs the
    first ``up`` gets it and keeps it: the assignment never moves to whoever runs Pulumi later, so a preview or drift
    check by another identity plans no change, and that other identity cannot deploy. Changing the list adds and
    removes assignments; moving from the default to a list removes the first deployer's."""

    admin_group_object_ids: list[UUID] = Field(default_factory=list)
    """Entra groups that get cluster-admin through Kubernetes RBAC, besides the Azure RBAC role assignments (ARM
    ``aadProfile.adminGroupObjectIDs``): who can still administer the cluster when role assignments are wrong."""
    disable_local_accounts: bool = True
    """No static admin credential (ARM ``disableLocalAccounts``): every sign-in goes through Entra ID and is audited
    (https://learn.microsoft.com/azure/aks/manage-local-accounts-managed-azure-ad). ``false`` opts out."""
    kubelogin: KubeloginConfig = Field(default_factory=KubeloginConfig)
    """How Pulumi and the smoke waiter sign in to the cluster without a prompt."""

    @model_validator(mode="after")
    @rule("entra-id.cluster-admins-once", source=_AZURE_RBAC_URL)
    def _cluster_admins_once(self) -> EntraIdConfig:
        """Each cluster admin once, because a repeated object id grants nothing more and is a
        copy-paste slip."""
        require_unique(
            [str(p.object_id) for p in self.cluster_admins],
            lambda i: key_path("clusterAdmins", i, "objectId"),
            "cluster admins",
        )
        return self
