"""How every cluster component hands out its cluster: a Kubernetes provider built from the secret kubeconfig.

AKS, existing and ACK clusters all end in the same ``provider``, named the same way, so the components that create
Kubernetes objects never need to know which cloud the cluster came from. Why it is keyed by the cluster id:
docs/decisions/0004-providers-keyed-by-cluster-id.md.
"""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import Provider as KubernetesProvider


def kubernetes_provider(
    name: str,
    kubeconfig: pulumi.Input[str],
    *,
    parent: pulumi.Resource,
    cluster_identifier: pulumi.Input[str] | None = None,
    delete_unreachable: bool = False,
    secrets_mutable: bool = False,
    depends_on: list[pulumi.Resource] | None = None,
    render_to: str | None = None,
) -> KubernetesProvider:
    """The provider every Kubernetes object on the cluster is created with.

    ``cluster_identifier`` (the cloud's id of the cluster) makes the provider be replaced only when the cluster
    itself changes: AKS and ACK hand out fresh credentials on every run, and a provider replaced for a rotated token
    would replace every object on the cluster with it. ``delete_unreachable`` is sent only when true: the provider
    flag overrides the ``PULUMI_K8S_DELETE_UNREACHABLE`` variable, and that variable is the escape hatch the
    provider's own error recommends once a cluster is gone
    (https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go, ``Configure`` and
    ``Delete``). ``secrets_mutable`` (a MultiKueue manager) updates a Secret's data in place instead of deleting and
    re-creating it under the same name, so a worker's renewed kubeconfig never leaves its MultiKueueCluster without a
    Secret (``enableSecretMutable``: data and type are otherwise replace-only, ``forceNewProperties`` in
    https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/diff.go; turning it on is an update
    of the provider, not a replacement); it is sent only when true. ``depends_on`` holds what must exist before the
    provider can act, such as the role assignment that lets the deployer in.

    With ``render_to`` (a directory) the provider writes every object's YAML under ``<render_to>/<name>`` instead
    of applying it, for a GitOps controller to apply; it then holds no kubeconfig and reaches no cluster
    (https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/#renderyamltodirectory_python).
    """
    if render_to is not None:
        return KubernetesProvider(
            f"{name}-k8s",
            render_yaml_to_directory=f"{render_to.rstrip('/')}/{name}",
            opts=pulumi.ResourceOptions(parent=parent),
        )
    return KubernetesProvider(
        f"{name}-k8s",
        kubeconfig=kubeconfig,
        cluster_identifier=cluster_identifier,
        delete_unreachable=True if delete_unreachable else None,
        enable_secret_mutable=True if secrets_mutable else None,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=depends_on),
    )
