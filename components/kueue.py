"""Kueue installed from its Helm chart, behind a readiness gate every Kueue object waits for.

Chart resource: ``kubernetes.helm.v4.Chart``, not ``helm.v3.Release``
(https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v4/chart/). Reasons:

- A render-to-directory mode for GitOps (``render_yaml_to_directory`` on the provider) only works with Chart v4;
  the provider refuses it for a Release (https://github.com/pulumi/pulumi-kubernetes/issues/1716). Choosing Chart
  v4 now avoids replacing the install resource, and with it every Kueue CRD and object, later.
- Chart v4 registers each chart object as a Pulumi child: ``depends_on`` on the chart waits for all of them (CRDs,
  webhook configurations, the Deployment rolled out), previews show per-object diffs, and policy packs see the
  objects. A Release is one opaque resource.
- What Chart v4 cannot do does not matter here: Kueue's chart uses Helm hooks only for the optional
  ``enableAutoKueue``, and nothing needs the Helm release secret (``helm list`` will not show the install).

As with any install of this chart, the CRDs are templates of the chart (``charts/kueue/templates/crd/`` in
https://github.com/kubernetes-sigs/kueue): deleting the chart deletes every Kueue object.
"""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import batch, core, helm, rbac

from components.config.kueue import KueueConfig
from components.manifests import kueue_install


class Kueue(pulumi.ComponentResource):
    """Kueue in its namespace, plus the readiness gate exposed as :attr:`ready`.

    Kueue's Deployment reports Ready 10-30 s before its webhook serves
    (https://github.com/kubernetes-sigs/kueue/issues/13036), and pulumi-kubernetes fails a create on a webhook error
    instead of retrying, so depending on the chart alone is not enough. The gate is a Job (in Kueue's namespace,
    after the chart) that dry-run-creates a ResourceFlavor and a ClusterQueue, the kinds whose webhooks race; a
    failed attempt is a failed pod and the Job controller retries with backoff until the webhooks admit.
    pulumi-kubernetes awaits a Job until it is Complete and fails as soon as it is Failed, so the Job itself is the
    gate: no sleeps, no polling code in the program. The Job's name carries the chart version and a digest of the
    values, so an upgrade or a settings change (which restarts Kueue) runs the probe again; and the Job carries
    ``pulumi.com/replaceUnready``, so a gate that failed or timed out runs again on the next ``pulumi up`` instead
    of failing it for good.

    With ``check_provisioning_request_crd`` (the queues use a ProvisioningRequest admission check) the gate also
    checks that the ProvisioningRequest CRD exists, and fails at once, saying what to do, if it does not: Kueue only
    sets up its provisioning controller when the CRD exists at its start, otherwise the AdmissionCheck stays
    inactive forever. Errors other than "not found" are retried like webhook errors. The check cannot tell whether
    the CRD appeared after Kueue started; then Kueue must be restarted.
    """

    ready: batch.v1.Job
    """The readiness gate: make every Kueue object ``depends_on`` it."""

    def __init__(
        self,
        name: str,
        args: KueueConfig,
        *,
        check_provisioning_request_crd: bool,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:kueue:Kueue", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)

        ns = kueue_install.kueue_namespace(args)
        namespace = core.v1.Namespace(f"{name}-namespace", metadata=ns["metadata"], opts=child)

        chart_name, repository = kueue_install.chart_reference(args)
        chart = helm.v4.Chart(
            f"{name}-chart",
            chart=chart_name,
            version=args.chart_version,
            repository_opts=helm.v4.RepositoryOptsArgs(repo=repository) if repository else None,
            namespace=namespace.metadata.name,
            name=args.release_name,
            values=kueue_install.chart_values(args),
            opts=child,
        )
        self.ready = self._readiness_gate(
            name, args, namespace, chart, check_provisioning_request_crd=check_provisioning_request_crd
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
            opts=pulumi.ResourceOptions(parent=self, depends_on=[role, account]),
        )
        job = kueue_install.gate_job(args, check_provisioning_request_crd=check_provisioning_request_crd)
        await_for = f"{args.readiness_gate.timeout_seconds + 60}s"
        return batch.v1.Job(
            f"{name}-ready",
            metadata=job["metadata"],
            spec=job["spec"],
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[chart, probe, binding],
                custom_timeouts=pulumi.CustomTimeouts(create=await_for, update=await_for),
            ),
        )
