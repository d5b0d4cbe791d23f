"""Kueue installed from its Helm chart with ``helm.v4.Chart``, behind a readiness gate every Kueue object waits for.

Why Chart v4 rather than a Release: docs/decisions/0001-helm-chart-v4.md. As with any install of this chart, the CRDs
are templates of the chart, so deleting the chart deletes every Kueue object.
"""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import batch, core, helm, rbac

from components.config.kueue import KueueConfig
from components.manifests import kueue_install


class Kueue(pulumi.ComponentResource):
    """Kueue in its namespace, plus the readiness gate exposed as :attr:`ready`.

    The gate is a Job that dry-run-creates the kinds whose webhooks race Kueue's start-up, replaced when it failed
    once and named after the install so a changed install runs it again (docs/decisions/0002-readiness-gate.md). With
    ``check_provisioning_request_crd`` it also fails at once, saying what to do, when the ProvisioningRequest CRD is
    missing: Kueue only sets up its provisioning controller when the CRD exists at its start.
    """

    ready: pulumi.Resource
    """The readiness gate: make every Kueue object ``depends_on`` it."""
    namespace: core.v1.Namespace
    """Kueue's namespace: what objects that only live there (not talk to Kueue) wait for."""

    def __init__(
        self,
        name: str,
        args: KueueConfig,
        *,
        check_provisioning_request_crd: bool,
        protect: bool = False,
        readiness_gate: bool = True,
        chart_waits_for: list[pulumi.Resource] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``readiness_gate=False`` leaves the gate out, for providers that render instead of applying. ``protect``
        (production stacks) puts Pulumi's ``protect`` on the chart: removing the chart would delete
        Kueue's CRDs, and with them every queue and workload, so a destroy or a replacement of it must fail first."""
        super().__init__("elastic-capacity:kueue:Kueue", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        ns = kueue_install.kueue_namespace(args)
        namespace = core.v1.Namespace(f"{name}-namespace", metadata=ns["metadata"], opts=child)
        self.namespace = namespace

        chart_name, repository = kueue_install.chart_reference(args)
        chart = helm.v4.Chart(
            f"{name}-chart",
            chart=chart_name,
            version=args.chart_version,
            repository_opts=helm.v4.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=namespace.metadata.name,
            name=args.release_name,
            values=kueue_install.chart_values(args),
            # Only the chart waits (for the ProvisioningRequest CRD to exist when Kueue starts): its namespace and the
            # readiness gate's RBAC need nothing.
            opts=pulumi.ResourceOptions(parent=self, protect=protect, depends_on=chart_waits_for),
        )
        # Without a gate (objects rendered for a GitOps controller, no cluster to probe) the chart is what the queue
        # objects follow.
        self.ready = (
            self._readiness_gate(
                name, args, namespace, chart, check_provisioning_request_crd=check_provisioning_request_crd
            )
            if readiness_gate
            else chart
        )
        self.register_outputs({"namespace": namespace.metadata.name})

    def _readiness_gate(
        self,
        name: str,
        args: KueueConfig,
        namespace: core.v1.Namespace,
        chart: helm.v4.Chart,
        *,
        check_provisioning_request_crd: bool,
    ) -> batch.v1.Job:
        """The gate's ConfigMap and ServiceAccount only need the namespace; the Job itself waits for the chart."""
        once_namespace_exists = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        config_map = kueue_install.gate_config_map(args)
        probe = core.v1.ConfigMap(
            f"{name}-probe", metadata=config_map["metadata"], data=config_map["data"], opts=once_namespace_exists
        )
        account = core.v1.ServiceAccount(
            f"{name}-probe", metadata=kueue_install.gate_service_account(args)["metadata"], opts=once_namespace_exists
        )
        role_manifest = kueue_install.gate_cluster_role(
            args, check_provisioning_request_crd=check_provisioning_request_crd
        )
        role = rbac.v1.ClusterRole(
            f"{name}-probe",
            metadata=role_manifest["metadata"],
            rules=role_manifest["rules"],
            opts=pulumi.ResourceOptions(parent=self),
        )
        binding_manifest = kueue_install.gate_cluster_role_binding(args)
        binding = rbac.v1.ClusterRoleBinding(
            f"{name}-probe",
            metadata=binding_manifest["metadata"],
            role_ref=binding_manifest["roleRef"],
            subjects=binding_manifest["subjects"],
            # A binding only names its role and account: it needs neither to exist first; the Job needs all three.
            opts=pulumi.ResourceOptions(parent=self),
        )
        job = kueue_install.gate_job(args, check_provisioning_request_crd=check_provisioning_request_crd)
        await_for = f"{args.readiness_gate.timeout_seconds + 60}s"
        return batch.v1.Job(
            f"{name}-ready",
            metadata=job["metadata"],
            spec=job["spec"],
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[chart, probe, account, role, binding],
                custom_timeouts=pulumi.CustomTimeouts(create=await_for, update=await_for),
            ),
        )
