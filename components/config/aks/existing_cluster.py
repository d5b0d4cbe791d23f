"""The ``existingCluster`` section: Kueue and the queues on a cluster this stack does not create."""

from __future__ import annotations

import re
from typing import Literal
from uuid import UUID

from pydantic import Field, field_validator, model_validator

from components.config.aks.entra_id import KubeloginConfig
from components.config.base import ConfigModel, MisplacedKey, RuleViolation
from components.config.kube import KubernetesVersionText
from components.config.rules import rule

_SKEW_URL = "https://kubernetes.io/releases/version-skew-policy/"
_USER_CREDENTIALS_URL = "https://learn.microsoft.com/rest/api/aks/managed-clusters/list-cluster-user-credentials"


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
    subscription_id: UUID | None = None
    """``source: aks``: the subscription the cluster is in, when it is not the one azure-native signs in to
    (``azure-native:subscriptionId``, ``ARM_SUBSCRIPTION_ID``): a pull-request sandbox putting its queues on a shared
    cluster elsewhere. The lookups then go through a provider of that subscription; the identity running Pulumi needs
    "Azure Kubernetes Service Cluster User Role" on the cluster there."""
    kubernetes_version: KubernetesVersionText | None = None
    """``source: kubeconfig``: the cluster's Kubernetes minor, such as ``"1.35"``, which nothing can read before the
    deployment: the readiness gate's kubectl follows it and Kueue's minimum Kubernetes is checked against it. Required
    when the stack installs Kueue, unless ``kueue.readinessGate.probeImage`` carries its own tag. An AKS cluster's
    (``source: aks``) is read from Azure."""
    kubelogin: KubeloginConfig = Field(default_factory=KubeloginConfig)
    """How to sign in to an Entra ID cluster without a prompt: every kubelogin user of the kubeconfig, the one AKS
    returns or the ``kubeconfig`` value (such as ``az aks get-credentials`` writes, with ``--login devicecode``), is
    switched to this login, as ``kubelogin convert-kubeconfig -l`` does. A kubeconfig without one (local accounts,
    another cluster) is used as it is."""

    @model_validator(mode="after")
    @rule("existing-cluster.aks-needs-its-name", source=_USER_CREDENTIALS_URL)
    def _aks_needs_its_name(self) -> ExistingClusterConfig:
        """``resourceGroupName`` and ``clusterName`` exactly with ``source: aks`` and no ``kubernetesVersion`` there,
        because the program asks Azure for that cluster's credentials and version."""
        if self.source == "aks":
            for key, value in (("resourceGroupName", self.resource_group_name), ("clusterName", self.cluster_name)):
                if not value:
                    raise RuleViolation(key, value, "source 'aks' needs resourceGroupName and clusterName")
            if self.kubernetes_version is not None:
                raise MisplacedKey("kubernetesVersion", "source 'aks' reads the cluster's version from Azure")
        elif self.resource_group_name or self.cluster_name or self.subscription_id:
            raise RuleViolation(
                "source", self.source, "resourceGroupName, clusterName and subscriptionId only go with source 'aks'"
            )
        return self

    @field_validator("kubernetes_version")
    @classmethod
    @rule("existing-cluster.a-minor", source=_SKEW_URL)
    def _a_minor(cls, value: str | None) -> str | None:
        """A Kubernetes minor such as ``"1.35"``, because the Kueue checks compare minors."""
        if value is not None and not re.fullmatch(r"\d+\.\d+", value):
            raise ValueError('write the cluster\'s minor, such as "1.35"')
        return value

    @property
    def minor(self) -> tuple[int, int] | None:
        """The Kubernetes minor the stack file states for the cluster, if any."""
        if self.kubernetes_version is None:
            return None
        major, minor = self.kubernetes_version.split(".")
        return int(major), int(minor)
