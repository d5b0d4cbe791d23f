"""A cluster this stack does not create: an AKS cluster found by name, or any cluster given by kubeconfig.

Like :class:`~components.azure.aks.AksCluster` it ends in a secret ``kubeconfig`` and a Kubernetes ``provider`` built
from it, so the Kueue components never need to know where their cluster came from. Either kubeconfig's kubelogin users
sign in as ``existingCluster.kubelogin`` says (:func:`components.azure.kubelogin.non_interactive`).
"""

from __future__ import annotations

import pulumi
from pulumi_azure_native import Provider as AzureProvider
from pulumi_azure_native import containerservice

from components.azure.aks import aks_user_kubeconfig
from components.azure.kubelogin import non_interactive
from components.cluster_target import ClusterTarget, cluster_target
from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.deploy import checks as deploy_checks

PREVIOUS_TYPE = "elastic-capacity:azure:ExistingCluster"
"""The type token this component had while it lived in ``components/azure/aks.py``: an alias keeps its URN, and with it
every child's, so stacks deployed before the rename do not replace their Kueue install."""


class ExistingCluster(pulumi.ComponentResource):
    """A cluster this stack does not manage: an AKS cluster found by name, or any cluster given by kubeconfig."""

    kubeconfig: pulumi.Output[str]
    """Always a secret, whichever source it came from."""
    target: ClusterTarget
    """Where every object on the cluster goes: its Kubernetes provider, or per layer a rendering one."""

    def __init__(
        self,
        name: str,
        args: ExistingClusterConfig,
        kubeconfig: pulumi.Input[str] | None = None,
        *,
        needs_provisioning_requests: bool = False,
        secrets_mutable: bool = False,
        render_to: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``secrets_mutable`` goes to the Kubernetes provider (:func:`~components.cluster_target.cluster_target`).
        The provider never gets ``delete_unreachable``, whatever the environment: pulumi-kubernetes calls a cluster
        unreachable whenever signing in or reading its API fails, and the cluster is never the stack's to delete, so a
        ``destroy`` or ``refresh`` would then drop the stack's objects from the state and leave them on the shared
        cluster."""
        renamed = pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=PREVIOUS_TYPE)])
        super().__init__(
            "elastic-capacity:kubernetes:ExistingCluster", name, None, pulumi.ResourceOptions.merge(opts, renamed)
        )
        self._args = args
        self._current_version: pulumi.Output[str] | None = None
        if args.source == "aks":
            assert args.resource_group_name and args.cluster_name, "ExistingClusterConfig requires both for 'aks'"
            self._lookups = self._in_subscription(name, args)
            kubeconfig = aks_user_kubeconfig(
                args.resource_group_name, args.cluster_name, args.kubelogin, parent=self, opts=self._lookups
            )
            if needs_provisioning_requests:
                kubeconfig = self._once_provisioning_requests_are_served(args, kubeconfig)
            self.kubeconfig = pulumi.Output.secret(kubeconfig)
            identifier: str | None = f"{args.resource_group_name}/{args.cluster_name}"
        elif kubeconfig is None:
            raise ValueError("ExistingCluster with source 'kubeconfig' needs the kubeconfig value")
        else:
            # One pasted from `az aks get-credentials` signs in by device code, which would hang a run without a person.
            given = pulumi.Output.from_input(kubeconfig)
            self.kubeconfig = pulumi.Output.secret(given.apply(lambda text: non_interactive(text, args.kubelogin)))
            identifier = None  # only the kubeconfig names the cluster: keep the provider's own heuristics
        self.target = cluster_target(
            name,
            self.kubeconfig,
            parent=self,
            cluster_identifier=identifier,
            secrets_mutable=secrets_mutable,
            render_to=render_to,
        )
        self.register_outputs({"kubeconfig": self.kubeconfig})

    def _in_subscription(self, name: str, args: ExistingClusterConfig) -> pulumi.InvokeOutputOptions:
        """How the cluster is looked up: in the subscription azure-native signs in to, or through a provider of
        ``existingCluster.subscriptionId``."""
        if args.subscription_id is None:
            return pulumi.InvokeOutputOptions(parent=self)
        provider = AzureProvider(
            f"{name}-azure", subscription_id=str(args.subscription_id), opts=pulumi.ResourceOptions(parent=self)
        )
        return pulumi.InvokeOutputOptions(parent=self, provider=provider)

    def _once_provisioning_requests_are_served(
        self, args: ExistingClusterConfig, kubeconfig: pulumi.Output[str]
    ) -> pulumi.Output[str]:
        """``kubeconfig``, but only after checking that the cluster runs a Kubernetes version whose managed
        autoscaler serves ProvisioningRequests: nothing reaches the cluster otherwise, and ``up`` stops with one line.
        """
        checked = self.current_version().apply(
            lambda version: deploy_checks.require_provisioning_requests(args, version)
        )
        return pulumi.Output.all(checked, kubeconfig).apply(lambda values: values[1])

    def current_version(self) -> pulumi.Output[str]:
        """``source: aks``: the Kubernetes version the cluster runs (``currentKubernetesVersion``), read from Azure
        once, at preview as at up."""
        if self._current_version is None:
            self._current_version = containerservice.get_managed_cluster_output(
                resource_group_name=self._args.resource_group_name,
                resource_name=self._args.cluster_name,
                opts=self._lookups,
            ).current_kubernetes_version
        return self._current_version
