"""Kueue installed from its Helm chart with ``helm.v4.Chart``, behind a readiness gate every Kueue object waits for.

Why Chart v4 rather than a Release: docs/decisions/0001-helm-chart-v4.md. As with any install of this chart, the CRDs
are templates of the chart, so deleting the chart deletes every Kueue object.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi_kubernetes import batch, core, helm, rbac

from components.cluster_target import KUEUE, ClusterTarget
from components.config.kueue.kueue import KueueConfig
from components.manifests import kueue_gate, kueue_install
from components.waiters.crd_wait import CrdEstablished, CrdWaitTarget
from components.waiters.kube_wait import PROVISIONING_REQUEST_CRD
from components.waiters.version_pin import KueueVersion

if TYPE_CHECKING:  # the AKS extension (and the azure-native SDK) loads only for a stack that installs it
    from components.kueue import extension as kueue_extension


@dataclasses.dataclass(frozen=True)
class KueueArgs:
    """One Kueue install: the ``kueue`` section and what the fleet decided for this cluster."""

    config: KueueConfig
    probe_image: pulumi.Input[str]
    """The readiness gate's kubectl, of the cluster's minor (``ReadinessGateConfig.image_for``; an Output where the
    version is read at deploy time)."""
    crd_wait: CrdWaitTarget | None = None
    """When the queues need the ProvisioningRequest CRD: how the chart's wait for it reads the cluster."""
    protect: bool = False
    """Production stacks: Pulumi's ``protect`` on the chart, whose removal would delete Kueue's CRDs and with them
    every queue and workload, so a destroy or a replacement of it must fail first."""
    chart_waits_for: Sequence[pulumi.Resource] = ()
    """What Kueue must start after (on AKS the autoscaling pools, after which AKS serves the CRD)."""
    extension_on: kueue_extension.ManagedCluster | None = None
    """With ``kueue.install: aks-extension``, the AKS cluster whose managed extension takes the chart's place
    (:mod:`components.kueue.extension`): after the namespace, protected and gated the same."""


class Kueue(pulumi.ComponentResource):
    """Kueue in its namespace, plus the readiness gate exposed as :attr:`ready`.

    The gate is a Job that dry-run-creates the kinds whose webhooks race Kueue's start-up, replaced when it failed
    once and named after the install so a changed install runs it again (docs/decisions/0002-readiness-gate.md). With
    a ``crd_wait`` target the chart first waits (bounded) until the ProvisioningRequest CRD is served
    (:mod:`components.waiters.crd_wait`): Kueue only sets up its provisioning controller when the CRD exists at its
    start.
    """

    ready: pulumi.Resource
    """The readiness gate: make every Kueue object ``depends_on`` it."""
    namespace: core.v1.Namespace
    """Kueue's namespace: what objects that only live there (not talk to Kueue) wait for."""

    def __init__(
        self,
        name: str,
        args: KueueArgs,
        target: ClusterTarget,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """On a ``target`` that renders for a GitOps controller there is no cluster to probe: the gate and the CRD
        wait are left out."""
        super().__init__(
            "elastic-capacity:kueue:Kueue", name, None, pulumi.ResourceOptions.merge(target.on(KUEUE), opts)
        )
        child = pulumi.ResourceOptions(parent=self)

        config = args.config
        ns = kueue_install.kueue_namespace(config)
        namespace = core.v1.Namespace(f"{name}-namespace", metadata=ns["metadata"], opts=child)
        self.namespace = namespace

        # Only the chart (and the CRD wait, which it follows) waits for what Kueue must start after: the namespace and
        # the gate's RBAC need nothing. Both wait for the version pin, so a refused version (a skipped minor, a minor
        # down: docs/kueue-upgrades.md) fails before either is touched; the extension's version is pinned the same.
        pin = KueueVersion(f"{name}-version", key=config.pinned_key, requested=config.installed_version, opts=child)
        before_kueue = [pin, *args.chart_waits_for]
        if target.live and args.crd_wait is not None:
            before_kueue.append(self._crd_wait(name, config, args.crd_wait, [*before_kueue]))

        chart = self._install(
            name, config, namespace, before_kueue, protect=args.protect, extension_on=args.extension_on
        )
        # Without a gate (objects rendered for a GitOps controller) the chart is what the queue objects follow.
        self.ready = self._readiness_gate(name, config, args.probe_image, namespace, chart) if target.live else chart
        self.register_outputs({"namespace": namespace.metadata.name})

    def _install(
        self,
        name: str,
        args: KueueConfig,
        namespace: core.v1.Namespace,
        before_kueue: list[pulumi.Resource],
        *,
        protect: bool,
        extension_on: kueue_extension.ManagedCluster | None,
    ) -> pulumi.Resource:
        """The chart, or AKS's managed extension on ``extension_on``, which goes into the namespace once it exists."""
        if extension_on is not None:
            from components.kueue import extension as kueue_extension

            depends_on = [namespace, *before_kueue]
            return kueue_extension.extension(
                f"{name}-extension", args, extension_on, protect=protect, depends_on=depends_on, parent=self
            )
        chart_name, repository = kueue_install.chart_reference(args)
        return helm.v4.Chart(
            f"{name}-chart",
            chart=chart_name,
            version=args.chart_version,
            repository_opts=helm.v4.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=namespace.metadata.name,
            name=args.release_name,
            values=kueue_install.chart_values(args),
            opts=pulumi.ResourceOptions(parent=self, protect=protect, depends_on=before_kueue),
        )

    def _gate_access(self, name: str, args: KueueConfig, namespace: core.v1.Namespace) -> list[pulumi.Resource]:
        """The identity the gate's Job runs as: its ServiceAccount (which needs the namespace), ClusterRole and
        ClusterRoleBinding (a binding only names its role and account: it needs neither to exist first)."""
        account = core.v1.ServiceAccount(
            f"{name}-probe",
            metadata=kueue_gate.gate_service_account(args)["metadata"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        role_manifest = kueue_gate.gate_cluster_role(args)
        role = rbac.v1.ClusterRole(
            f"{name}-probe",
            metadata=role_manifest["metadata"],
            rules=role_manifest["rules"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        binding_manifest = kueue_gate.gate_cluster_role_binding(args)
        binding = rbac.v1.ClusterRoleBinding(
            f"{name}-probe",
            metadata=binding_manifest["metadata"],
            role_ref=binding_manifest["roleRef"],
            subjects=binding_manifest["subjects"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        return [account, role, binding]

    def _crd_wait(
        self, name: str, args: KueueConfig, target: CrdWaitTarget, waits_for: list[pulumi.Resource]
    ) -> CrdEstablished:
        """The wait the chart follows: after what Kueue must start after (on AKS the autoscaling pools, after which AKS
        serves the CRD), and again whenever the install changes (the gate Job's name)."""
        return CrdEstablished(
            f"{name}-crd-wait",
            crd=PROVISIONING_REQUEST_CRD,
            kueue_revision=kueue_gate.gate_job_name(args),
            timeout_seconds=args.readiness_gate.crd_timeout_seconds,
            target=target,
            opts=pulumi.ResourceOptions(parent=self, depends_on=waits_for),
        )

    def _readiness_gate(
        self,
        name: str,
        args: KueueConfig,
        probe_image: pulumi.Input[str],
        namespace: core.v1.Namespace,
        chart: pulumi.Resource,
    ) -> batch.v1.Job:
        """The gate's identity and ConfigMap only need the namespace; the Job itself waits for the chart and them. It
        is awaited a minute longer than it may run (its pod must start first)."""
        config_map = kueue_gate.gate_config_map(args)
        probe = core.v1.ConfigMap(
            f"{name}-probe",
            metadata=config_map["metadata"],
            data=config_map["data"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[namespace]),
        )
        await_for = f"{args.readiness_gate.timeout_seconds + 60}s"
        # Plain dicts, the builders' form (docs/decisions/0005-manifests-as-plain-dicts.md): Any to the SDK's types.
        metadata: Any = kueue_gate.job_metadata(args)
        spec: Any = pulumi.Output.from_input(probe_image).apply(lambda image: kueue_gate.gate_job(args, image)["spec"])
        return batch.v1.Job(
            f"{name}-ready",
            metadata=metadata,
            spec=spec,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[chart, probe, *self._gate_access(name, args, namespace)],
                custom_timeouts=pulumi.CustomTimeouts(create=await_for, update=await_for),
            ),
        )
