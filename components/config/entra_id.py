"""Signing in to an AKS cluster with Entra ID: the ``aks.entraId`` section and the kubelogin settings it shares with
``existingCluster.kubelogin``.

AKS-managed Entra ID with Azure RBAC: https://learn.microsoft.com/azure/aks/manage-azure-rbac; the ARM
``aadProfile``: https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#managedclusteraadprofile.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import Field, model_validator

from components.config.base import ConfigModel, RuleViolation
from components.config.rules import rule


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
    @rule("entra-id.client-id-for-spn")
    def _client_id_for_spn(self) -> KubeloginConfig:
        if (self.login == "spn") != (self.client_id is not None):
            raise RuleViolation("clientId", self.client_id, "set clientId exactly when login is 'spn'")
        return self


class EntraIdConfig(ConfigModel):
    """Entra ID integration (AKS-managed) with Azure RBAC for Kubernetes authorization."""

    admin_group_object_ids: list[UUID] = Field(default_factory=list)
    """Entra groups that get cluster-admin through Kubernetes RBAC, besides the Azure RBAC role assignments (ARM
    ``aadProfile.adminGroupObjectIDs``): who can still administer the cluster when role assignments are wrong."""
    disable_local_accounts: bool = True
    """No static admin credential (ARM ``disableLocalAccounts``): every sign-in goes through Entra ID and is audited
    (https://learn.microsoft.com/azure/aks/manage-local-accounts-managed-azure-ad). ``false`` opts out."""
    kubelogin: KubeloginConfig = Field(default_factory=KubeloginConfig)
    """How Pulumi and the smoke waiter sign in to the cluster without a prompt."""
