"""The ``existingCluster`` section: Kueue and the queues on a cluster this stack does not create."""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from components.config.base import ConfigModel, RuleViolation
from components.config.entra_id import KubeloginConfig


class ExistingClusterConfig(ConfigModel):
    """Install Kueue and the queues on a cluster this stack does not create.

    ``source: aks`` looks up an AKS cluster by resource group and name and fetches its user credentials
    (https://learn.microsoft.com/rest/api/aks/managed-clusters/list-cluster-user-credentials); ``source: kubeconfig``
    uses the secret config value ``kubeconfig`` for any conformant cluster.
    """

    source: Literal["aks", "kubeconfig"]
    """Where the cluster's credentials come from: ``aks`` (looked up in Azure) or ``kubeconfig`` (the secret config
    value ``kubeconfig``)."""
    resource_group_name: str | None = None
    """``source: aks``: the resource group of the AKS cluster."""
    cluster_name: str | None = None
    """``source: aks``: the name of the AKS cluster; its Kubernetes version must be 1.33 or later when the queues use
    ProvisioningRequests."""
    kubelogin: KubeloginConfig = KubeloginConfig()
    """How to sign in to an Entra ID cluster without a prompt: every kubelogin user of the kubeconfig, the one AKS
    returns or the ``kubeconfig`` value (such as ``az aks get-credentials`` writes, with ``--login devicecode``), is
    switched to this login, as ``kubelogin convert-kubeconfig -l`` does. A kubeconfig without one (local accounts,
    another cluster) is used as it is."""

    @model_validator(mode="after")
    def _aks_needs_its_name(self) -> ExistingClusterConfig:
        if self.source == "aks":
            for key, value in (("resourceGroupName", self.resource_group_name), ("clusterName", self.cluster_name)):
                if not value:
                    raise RuleViolation(key, value, "source 'aks' needs resourceGroupName and clusterName")
        elif self.resource_group_name or self.cluster_name:
            raise RuleViolation("source", self.source, "resourceGroupName/clusterName only go with source 'aks'")
        return self
