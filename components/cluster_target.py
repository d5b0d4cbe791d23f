"""How every cluster component hands out its cluster: where its Kubernetes objects go, layer by layer.

AKS, existing and ACK clusters all end in the same :class:`ClusterTarget`, named the same way, so the components that
create Kubernetes objects never need to know which cloud the cluster came from; whether the objects are applied or
rendered is decided here once per cluster (the stack's ``gitops.renderToDirectory``), and a component that must behave
differently when rendering (no waiter, no gate Job) asks :attr:`ClusterTarget.live`. Applying, every layer goes through
one provider built from the secret kubeconfig (why it is keyed by the cluster id:
docs/decisions/0004-providers-keyed-by-cluster-id.md). Rendering for a GitOps controller, each layer has a provider of
its own writing ``<dir>/<cluster>/<NN-layer>/``, every object there carries its layer's Argo CD sync wave, and each
layer gets a Flux Kustomization that waits for the layer before it (docs/decisions/0006-gitops-layers.md).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pulumi
from pulumi_kubernetes import Provider as KubernetesProvider
from pulumi_kubernetes.apiextensions import CustomResource

from components.config.deploy.checks import secret_data_rendered
from components.manifests.flux import kustomization
from components.waiters.kube_wait import ClusterReader

SYNC_WAVE = "argocd.argoproj.io/sync-wave"
"""The annotation Argo CD orders a sync by: lower waves are applied, and healthy, before higher ones
(https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/)."""
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
"""Argo CD's per-object sync options, a comma-separated list (``GetAnnotationCSVs`` in
https://github.com/argoproj/argo-cd/blob/master/gitops-engine/pkg/sync/resource/annotations.go)."""
SERVER_SIDE_APPLY = "ServerSideApply"
"""The option that makes Argo CD apply an object server-side, which keeps no ``last-applied-configuration``
annotation: Kueue's ``workloads`` CRD is about 670 kB as JSON, past the 262144 bytes all of an object's annotations
may hold, so client-side apply, Argo CD's default, is refused for it
(https://argo-cd.readthedocs.io/en/stable/user-guide/sync-options/#server-side-apply)."""
CRD_GROUP = "apiextensions.k8s.io/"
FLUX_DIRECTORY = "flux"
"""``<dir>/flux/<cluster>/`` holds the Flux Kustomizations, beside (not inside) the cluster's layers, so an Argo CD
Application recursing through ``<dir>/<cluster>`` never meets them."""


@dataclasses.dataclass(frozen=True)
class Layer:
    """One step of a cluster's apply order: its ``wave`` is both the directory's prefix and the Argo CD sync wave."""

    wave: int
    name: str

    @property
    def directory(self) -> str:
        return f"{self.wave:02d}-{self.name}"


KUEUE = Layer(10, "kueue")
"""Kueue's namespace and chart: its CRDs, the controller and the webhooks every Kueue object is admitted by."""
QUEUES = Layer(20, "queues")
"""The ``queues`` section's objects: Kueue's webhooks must serve before they can be created."""
WORKLOADS = Layer(30, "workloads")
"""What runs as workloads: the smoke Job (submitted to a LocalQueue) and the ACS namespaces and Deployments."""
LAYERS = (KUEUE, QUEUES, WORKLOADS)


def layer_of(directory: str) -> Layer | None:
    """The layer a render directory (``<dir>/<cluster>/<NN-layer>``) is written for; ``None`` for any other."""
    last = directory.rstrip("/").rsplit("/", 1)[-1]
    return next((layer for layer in LAYERS if layer.directory == last), None)


def placed_in(layer: Layer, obj: dict[str, Any], name: str) -> dict[str, Any]:
    """``obj`` as it is rendered into ``layer``: with the layer's sync wave, a CRD also with Argo CD's server-side
    apply (:data:`SERVER_SIDE_APPLY`); a Secret holding values is refused.

    The one place both the program (through :func:`_layer_transform`) and the offline render use. A rendered
    Secret's ``data`` and ``stringData`` land in the directory, and so in git, in plain text (the provider only warns:
    ``Check`` in https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go). A
    Secret without values (the Kueue chart's webhook certificate Secret, filled in by Kueue at run time) is fine. In
    the engine ``metadata`` may be an output (a value only ``up`` knows): it is then annotated once known."""
    metadata = obj.get("metadata") or {}
    if obj.get("kind") == "Secret" and (obj.get("data") or obj.get("stringData")):
        known = metadata if isinstance(metadata, dict) else {}
        where = "/".join(str(part) for part in (known.get("namespace"), known.get("name") or name) if part)
        raise secret_data_rendered(where)
    crd = obj.get("kind") == "CustomResourceDefinition" and str(obj.get("apiVersion")).startswith(CRD_GROUP)
    if isinstance(metadata, pulumi.Output):
        return {**obj, "metadata": metadata.apply(lambda known: _annotated(layer, known or {}, crd))}
    return {**obj, "metadata": _annotated(layer, metadata, crd)}


def _annotated(layer: Layer, metadata: dict[str, Any], crd: bool) -> dict[str, Any]:
    """The layer's sync wave; on a CRD, the sync options it carries plus ``ServerSideApply=true``, in place of any
    ``ServerSideApply=false``, which Argo CD would let win (``shouldUseServerSideApply`` in
    https://github.com/argoproj/argo-cd/blob/master/gitops-engine/pkg/sync/sync_context.go)."""
    annotations = {**(metadata.get("annotations") or {}), SYNC_WAVE: str(layer.wave)}
    if crd:
        options = [o.strip() for o in annotations.get(SYNC_OPTIONS, "").split(",")]
        kept = [o for o in options if o and o.split("=", 1)[0] != SERVER_SIDE_APPLY]
        annotations[SYNC_OPTIONS] = ",".join([*kept, f"{SERVER_SIDE_APPLY}=true"])
    return {**metadata, "annotations": annotations}


def _layer_transform(layer: Layer) -> pulumi.ResourceTransform:
    """A Pulumi transform for everything created into ``layer``. Set on the component that creates the objects, the
    engine runs it for each of its descendants, the Kueue chart's objects included: transforms reach the children of
    packaged components such as Chart v4 (https://www.pulumi.com/docs/iac/concepts/resources/options/transforms/)."""

    def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if not args.custom or not args.type_.startswith("kubernetes:"):
            return None  # components, the chart itself
        return pulumi.ResourceTransformResult(props=placed_in(layer, dict(args.props), args.name), opts=args.opts)

    return transform


class ClusterTarget:
    """One cluster as the components that put Kubernetes objects on it see it: :meth:`on` gives the options such a
    component takes, :attr:`reader` is what its waiters read the cluster with, and :attr:`live` says whether the
    objects are applied (a waiter can watch them) or rendered for a GitOps controller (nothing here can)."""

    def __init__(
        self,
        name: str,
        parent: pulumi.Resource,
        kubeconfig: pulumi.Input[str],
        provider: KubernetesProvider | None,
        render_to: str | None,
        access: tuple[pulumi.Resource, ...] = (),
    ):
        self._name = name
        self._parent = parent
        self._provider = provider
        self._render_to = render_to
        self._layers: dict[Layer, tuple[KubernetesProvider, pulumi.ResourceTransform]] = {}
        self.kubeconfig = kubeconfig
        """The program's own secret kubeconfig of the cluster: what token requests and the manager's kubeconfigs are
        built from."""
        self.reader = ClusterReader(kubeconfig, access)
        """What every waiter on the cluster reads it with: the kubeconfig, after whatever grants its identity access
        there (the access waiter of an Entra ID cluster)."""

    @property
    def provider(self) -> KubernetesProvider:
        """The applying provider: for what never renders (MultiKueue is refused in render mode)."""
        assert self._provider is not None, "a rendering cluster has one provider per layer"
        return self._provider

    @property
    def live(self) -> bool:
        """Objects are applied to the cluster during ``up``: something can wait for them there."""
        return self._render_to is None

    def on(self, layer: Layer, depends_on: list[pulumi.Resource] | None = None) -> pulumi.ResourceOptions:
        """The provider (and, rendering, the transform) for objects of ``layer``, with ``depends_on``; a layer's
        provider is created by its first use, so only layers that hold objects get a directory (and a Flux
        Kustomization)."""
        if self._render_to is None:
            return pulumi.ResourceOptions(provider=self.provider, depends_on=depends_on)
        if layer not in self._layers:
            directory = f"{self._render_to}/{self._name}/{layer.directory}"
            provider = _rendering_provider(f"{self._name}-{layer.name}", directory, self._parent)
            self._layers[layer] = (provider, _layer_transform(layer))
        provider, transform = self._layers[layer]
        return pulumi.ResourceOptions(provider=provider, transforms=[transform], depends_on=depends_on)

    def flux_kustomizations(self) -> None:
        """Rendering: one Flux Kustomization per layer in use, each applied after the one before it is Ready, into
        ``<dir>/flux/<cluster>/``. Call it once every object of the cluster is placed."""
        if self._render_to is None or not self._layers:
            return
        provider = _rendering_provider(
            f"{self._name}-flux", f"{self._render_to}/{FLUX_DIRECTORY}/{self._name}", self._parent
        )
        previous: str | None = None
        for layer in (layer for layer in LAYERS if layer in self._layers):
            name = f"{self._name}-{layer.directory}"
            manifest = kustomization(name, path=f"./{self._render_to}/{self._name}/{layer.directory}", after=previous)
            previous = name
            CustomResource(
                f"{self._name}-flux-{layer.name}",
                api_version=manifest["apiVersion"],
                kind=manifest["kind"],
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions(parent=self._parent, provider=provider),
            )


def _rendering_provider(name: str, directory: str, parent: pulumi.Resource) -> KubernetesProvider:
    """A provider that writes YAML under ``directory`` instead of applying, holding no kubeconfig. ``alwaysRender``
    rewrites every object on every ``up``, not only the changed ones, so the directory is complete even when CI starts
    from a checkout without it; by design it also makes every preview show each object as an update
    (``Diff`` in https://github.com/pulumi/pulumi-kubernetes/blob/master/provider/pkg/provider/provider.go)."""
    return KubernetesProvider(
        f"{name}-k8s",
        render_yaml_to_directory=directory,
        always_render=True,
        opts=pulumi.ResourceOptions(parent=parent),
    )


def cluster_target(
    name: str,
    kubeconfig: pulumi.Input[str],
    *,
    parent: pulumi.Resource,
    cluster_identifier: pulumi.Input[str] | None = None,
    delete_unreachable: bool = False,
    secrets_mutable: bool = False,
    depends_on: list[pulumi.Resource] | None = None,
    render_to: str | None = None,
) -> ClusterTarget:
    """Where every Kubernetes object on the cluster goes: the applying provider built from ``kubeconfig``, or, with
    ``render_to`` (a directory), one rendering provider per layer, which holds no kubeconfig and reaches no cluster
    (https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/#renderyamltodirectory_python).

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
    of the provider, not a replacement); it is sent only when true. ``depends_on`` holds what must be done before the
    provider, and every waiter reading the cluster (:attr:`ClusterTarget.reader`), can act: the waiter that proves
    the deployer's role assignments arrived.
    """
    if render_to is not None:
        return ClusterTarget(name, parent, kubeconfig, None, render_to)
    access = tuple(depends_on or ())
    provider = KubernetesProvider(
        f"{name}-k8s",
        kubeconfig=kubeconfig,
        cluster_identifier=cluster_identifier,
        delete_unreachable=True if delete_unreachable else None,
        enable_secret_mutable=True if secrets_mutable else None,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=list(access)),
    )
    return ClusterTarget(name, parent, kubeconfig, provider, None, access)
