"""Build everything a stack asks for from its validated configuration, and export what operators need.

Two independent halves: Kueue with provisioning-gated queues on an AKS (new or existing) or any cluster, and ACK Pro
clusters with ACS workloads. A ``multiKueue`` section joins them: the AKS cluster's Kueue sends burst Jobs to ACK
clusters whose capacity is ACS. Each half only wires components together; the components own the resources. The config
arrives resolved for its environment (:mod:`components.config.environment_rules`): every physical name and every
per-resource flag is a config value (a new ACK cluster's ``name`` stays what workloads and outputs key by; its
``clusterName`` is its name in ACK); only Pulumi's ``protect`` is handed to the components here, as a plain flag. Each
cloud's components (and SDK) are imported by the function that builds that cloud's clusters, so a one-cloud stack never
loads the other's SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from components.alicloud.acs import AcsNamespace, AcsWorkload
from components.cluster_target import WORKLOADS, ClusterTarget
from components.config.ack.ack import AckClusterConfig, AckConfig
from components.config.deploy import plans
from components.config.kueue.monitoring import AZURE_MANAGED_PROMETHEUS, MonitoringConfig
from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.multikueue.workers import (
    WorkerPlan,
    burst_queues,
    dispatching_cluster_queues,
    dispatching_queues,
    multikueue_checks,
    worker_plans,
)
from components.config.stack import StackConfig
from components.kueue.kueue import Kueue, KueueArgs
from components.kueue.monitoring import KueueMonitoring, rule_objects
from components.kueue.multikueue import MultiKueueBurst, MultiKueueBurstArgs, Proof, WorkerAccess, given_kubeconfig
from components.kueue.multikueue_worker import MultiKueueWorker
from components.kueue.queues import KueueQueues
from components.kueue.smoke_job import SmokeJob
from components.manifests import kueue_gate
from components.waiters.crd_wait import CrdWaitTarget
from components.waiters.job_wait import AKS_PROVISIONING_REQUESTS, GENERIC_PROVISIONING_REQUESTS
from components.waiters.queue_wait import QueuesActive, QueuesActiveArgs

if TYPE_CHECKING:  # the cloud SDKs load with the section that needs them (the functions that build its clusters)
    from components.alicloud.ack import AckClusterHandle
    from components.azure.aks import AksCluster
    from components.azure.existing_cluster import ExistingCluster
    from components.kueue.extension import ManagedCluster

AckClusters = dict[str, "AckClusterHandle"]
"""The stack's ACK clusters, new and existing, by ``name``."""
EXISTING_KUEUE_REVISION = "cluster-kueue"
"""What the activation waiter records as Kueue's revision when the stack uses the cluster's own Kueue
(``kueue.install: false``): the stack cannot see that install change."""


def deploy(config: StackConfig) -> None:
    for setting, message in config.warnings():
        pulumi.log.warn(f"{setting}: {message}")
    manager = _deploy_kueue(config) if config.kueue_target is not None else None
    ack_clusters = _deploy_ack(config, config.ack) if config.ack is not None else {}
    for ack_cluster in ack_clusters.values():  # rendering: each cluster's Flux order, once its objects are placed
        ack_cluster.target.flux_kustomizations()
    if config.multi_kueue is not None:
        assert manager is not None  # multikueue_rules: the manager is the stack's Kueue cluster, with Kueue installed
        cluster, kueue = manager
        assert kueue is not None
        _deploy_multikueue(config, cluster, kueue, ack_clusters)


def _deploy_kueue(config: StackConfig) -> tuple[AksCluster | ExistingCluster, Kueue | None]:
    cluster, kueue_waits_for = _kueue_cluster(config)
    pulumi.export("kubeconfig", cluster.kubeconfig)

    target = cluster.target
    kueue = None
    if config.kueue.install:
        kueue = Kueue(
            "kueue",
            KueueArgs(
                config.kueue,
                probe_image=_probe_image(config, cluster),
                crd_wait=_crd_wait(config, target),
                protect=config.environment.protect,
                chart_waits_for=kueue_waits_for if config.queues.uses_provisioning_requests else (),
                extension_on=_extension_cluster(config, cluster) if config.kueue.extension is not None else None,
            ),
            target,
        )
    gpus = _nvidia_gpus(config, cluster)
    if config.monitoring is not None:
        assert kueue is not None  # stack.monitoring-where-its-collector-runs: the stack installs Kueue's chart
        _deploy_monitoring(config, config.monitoring, cluster, kueue)
    queues = KueueQueues(
        "queues",
        config.queues,
        target,
        kueue_ready=kueue.ready if kueue else None,
        namespace_labels=config.kueue.managed_namespace_labels,
    )
    pulumi.export("localQueues", [f"{q.namespace}/{q.name}" for q in config.queues.local_queues])
    # Rendered objects reach a cluster only through the GitOps controller: nothing here can wait for them there.
    active = _queues_active(config, target, queues) if target.live else queues
    if config.smoke_job.enabled:
        SmokeJob(
            "smoke-job",
            config.smoke_job,
            target,
            opts=pulumi.ResourceOptions(
                depends_on=[active, *kueue_waits_for, *gpus, *_smoke_job_queue(config, queues)]
            ),
        )
    target.flux_kustomizations()
    return cluster, kueue


def _deploy_monitoring(
    config: StackConfig, monitoring: MonitoringConfig, cluster: AksCluster | ExistingCluster, kueue: Kueue
) -> None:
    """Kueue's scraper let in and pointed at it, after Kueue; on a new AKS cluster with managed Prometheus, the
    workspace the add-on writes to, its data collection and alert rules (Azure's side, beside the cluster's)."""
    KueueMonitoring("monitoring", monitoring, config.kueue, cluster.target, kueue_ready=kueue.ready)
    if monitoring.collector != AZURE_MANAGED_PROMETHEUS:
        return
    from components.azure.aks import AksCluster
    from components.azure.monitor import AzureManagedPrometheus, AzureMonitorArgs

    if not isinstance(cluster, AksCluster) or config.aks is None:
        return  # an existing AKS cluster's add-on writes to the workspace its owner set up
    args = AzureMonitorArgs(
        monitoring,
        resource_group_name=cluster.resource_group_name,
        location=config.aks.location,
        cluster_id=cluster.cluster_id,
        cluster_name=cluster.cluster_name,
        physical_name=config.aks.cluster_name,
        alert_rules=rule_objects(monitoring, config.kueue),
    )
    AzureManagedPrometheus("monitoring-azure", args)


def _kueue_cluster(config: StackConfig) -> tuple[AksCluster | ExistingCluster, list[pulumi.Resource]]:
    """The cluster Kueue and the queues go onto, and what Kueue must wait for there.

    Kueue sets up its provisioning controller only if the ProvisioningRequest CRD exists when it starts, and on AKS
    the autoscaler that serves the CRD acts on autoscaling pools: install Kueue once the pools exist. A MultiKueue
    manager's provider updates its workers' kubeconfig Secrets in place.
    """
    from components.azure.existing_cluster import ExistingCluster

    manages_multikueue = config.multi_kueue is not None
    if config.aks is not None:
        from components.azure.aks import AksCluster

        aks = AksCluster(
            "aks",
            config.aks,
            protect=config.environment.protect,
            secrets_mutable=manages_multikueue,
            render_to=config.gitops.render_to_directory,
            prometheus_metrics=config.monitoring is not None
            and config.monitoring.collector == AZURE_MANAGED_PROMETHEUS,
        )
        pulumi.export("aksClusterName", aks.cluster_name)
        pulumi.export("aksResourceGroupName", aks.resource_group_name)
        pulumi.export("aksOidcIssuerUrl", aks.oidc_issuer_url)
        return aks, list(aks.user_pools.values())
    assert config.existing_cluster is not None  # kueue_target guarantees one of the two
    secret = config.kubeconfig.get_secret_value() if config.kubeconfig else None
    existing = ExistingCluster(
        "existing",
        config.existing_cluster,
        kubeconfig=pulumi.Output.secret(secret) if secret else None,
        needs_provisioning_requests=config.queues.uses_provisioning_requests,
        secrets_mutable=manages_multikueue,
        render_to=config.gitops.render_to_directory,
    )
    return existing, []


def _extension_cluster(config: StackConfig, cluster: AksCluster | ExistingCluster) -> ManagedCluster:
    """The AKS cluster of ``kueue.install: aks-extension`` (an AKS one: the config allows no other); an existing
    one's region and version are only known at deploy time, so the extension checks them there."""
    from components.azure.aks import AksCluster
    from components.kueue.extension import ManagedCluster

    if isinstance(cluster, AksCluster):
        return ManagedCluster(cluster.resource_group_name, cluster.cluster_name)
    existing = config.existing_cluster
    assert existing is not None and existing.resource_group_name and existing.cluster_name
    return ManagedCluster(existing.resource_group_name, existing.cluster_name, existing=True)


def _probe_image(config: StackConfig, cluster: AksCluster | ExistingCluster) -> pulumi.Input[str]:
    """The readiness gate's kubectl for Kueue's cluster: of the minor the stack file states, else of the version the
    existing AKS cluster runs (:func:`~components.config.deploy.plans.running_probe_image`)."""
    from components.azure.existing_cluster import ExistingCluster

    if config.probe_image is not None:
        return config.probe_image
    assert isinstance(cluster, ExistingCluster)
    return cluster.current_version().apply(lambda version: plans.running_probe_image(config, version))


def _crd_wait(config: StackConfig, target: ClusterTarget) -> CrdWaitTarget | None:
    """How the chart's wait for the ProvisioningRequest CRD reads the cluster, when Kueue must find it at start."""
    needed = config.queues.needs_provisioning_crd_at_start
    return CrdWaitTarget(reader=target.reader, hint=_provisioning_hint(config)) if needed else None


def _provisioning_hint(config: StackConfig) -> str:
    """Where the ProvisioningRequest CRD comes from on the stack's Kueue cluster: AKS's own autoscaler, or any."""
    on_aks = config.aks is not None or (config.existing_cluster is not None and config.existing_cluster.source == "aks")
    return AKS_PROVISIONING_REQUESTS if on_aks else GENERIC_PROVISIONING_REQUESTS


WATCHED = ("AdmissionCheck", "ClusterQueue")
"""The kinds the activation waiter reads."""


def _nvidia_gpus(config: StackConfig, cluster: AksCluster | ExistingCluster) -> list[pulumi.Resource]:
    """NVIDIA's chart on an AKS cluster with GPU pools (:mod:`components.azure.gpu`), after those pools; a GPU smoke Job
    waits for it, as its pods need ``nvidia.com/gpu`` advertised."""
    from components.azure.aks import AksCluster
    from components.azure.gpu import NvidiaGpus

    if config.aks is None or not isinstance(cluster, AksCluster) or config.aks.gpu_driver is None:
        return []
    gpu_pools = [cluster.user_pools[p.name] for p in config.aks.user_pools if p.gpu_settings is not None]
    return [NvidiaGpus("nvidia", config.aks, cluster.target, pools=gpu_pools).chart]


def _smoke_job_queue(config: StackConfig, queues: KueueQueues) -> list[pulumi.Resource]:
    """The smoke Job's LocalQueue and namespace, when the stack creates them: the Job is submitted to them."""
    job = config.smoke_job
    wanted = (("Namespace", job.namespace), ("LocalQueue", f"{job.namespace}/{job.local_queue}"))
    return [queues.objects[key] for key in wanted if key in queues.objects]


def _queues_active(config: StackConfig, target: ClusterTarget, queues: KueueQueues) -> pulumi.Resource:
    """Wait until Kueue reports every AdmissionCheck and ClusterQueue Active: admission proven, not assumed. With
    nothing to watch (Kueue alone, or only burst queues) there is no waiter: the queues component stands for it."""
    watched = plans.activation_objects(config)
    if not watched:
        return queues
    wait = config.queues.wait_until_active
    args = QueuesActiveArgs(
        objects=watched,
        kueue_namespace=config.kueue.namespace,
        kueue_revision=_kueue_revision(config),
        timeout_seconds=wait.timeout_seconds,
        on_inactive=wait.on_inactive,
        hint=_provisioning_hint(config),
    )
    # Only what it watches: flavors, configs, namespaces and LocalQueues do not decide whether a queue is Active.
    waits_for = [r for (kind, _), r in queues.objects.items() if kind in WATCHED]
    active = QueuesActive("queues-active", args, target.reader, pulumi.ResourceOptions(depends_on=waits_for))
    active.inactive.apply(lambda message: pulumi.log.warn(message, resource=active) if message else None)
    return active


def _kueue_revision(config: StackConfig) -> str:
    """What changes whenever Kueue restarts: the gate Job's name (chart version and values digest), so the activation
    proof runs again; a cluster's own Kueue is taken as it is."""
    if not config.kueue.install:
        return EXISTING_KUEUE_REVISION
    return kueue_gate.gate_job_name(config.kueue)


def _deploy_multikueue(
    config: StackConfig, manager: AksCluster | ExistingCluster, kueue: Kueue, ack_clusters: AckClusters
) -> None:
    """The burst set-up: each worker the stack sets up (its Kueue, burst queues, the manager's identity) on its own
    cluster's provider, and each worker's credential; then the manager's objects on the manager's provider."""
    burst = config.multi_kueue
    assert burst is not None
    workers = [(plan, _worker_access(config, burst, plan, ack_clusters)) for plan in worker_plans(config)]
    args = MultiKueueBurstArgs(
        burst,
        queues=burst_queues(burst),
        kueue_ready=kueue.ready,
        kueue_namespace=config.kueue.namespace,
        namespace_labels=config.kueue.managed_namespace_labels,
        workers=workers,
        proof=Proof(
            manager.target.reader,
            _kueue_revision(config),
            checks=multikueue_checks(dispatching_queues(burst, config.queues)),
            cluster_queues=dispatching_cluster_queues(burst, config.queues),
        ),
    )
    MultiKueueBurst("multikueue", args, pulumi.ResourceOptions(provider=manager.target.provider))


def _worker_access(
    config: StackConfig, burst: MultiKueueConfig, plan: WorkerPlan, ack_clusters: AckClusters
) -> WorkerAccess:
    """A worker's credential for the manager: the given kubeconfig, or the token of the identity the stack sets up
    there, after the worker's Kueue and queues (an ACK worker's Kueue after its ECS nodes, its ACS placement after
    the cluster's addons: the virtual node the burst pods run on)."""
    if not plan.sets_up:
        assert config.multi_kueue_kubeconfigs is not None  # multikueue_rules: every kubeconfig worker has one
        return given_kubeconfig(
            pulumi.Output.secret(config.multi_kueue_kubeconfigs[plan.cluster_name].get_secret_value())
        )
    if plan.aks is not None:
        from components.azure.existing_cluster import ExistingCluster

        cluster: AksCluster | ExistingCluster | AckClusterHandle = ExistingCluster(f"aks-{plan.label}", plan.aks)
        kueue_waits_for: list[pulumi.Resource] = []
        addons: pulumi.Input[list[pulumi.Resource]] = []
        name = f"aks-{plan.label}-multikueue"
    else:
        handle = ack_clusters[str(plan.worker.cluster)]
        cluster, kueue_waits_for, addons = handle, handle.ecs_nodes, handle.addons
        name = f"ack-{plan.label}-multikueue"
    on_worker = MultiKueueWorker(
        name, burst, plan, cluster.target, kueue_waits_for=kueue_waits_for, placement_waits_for=addons
    )
    return WorkerAccess(on_worker.kubeconfig, on_worker.token_expires_at, on_worker.ready)


def _deploy_ack(stack: StackConfig, config: AckConfig) -> AckClusters:
    """The ACK clusters, each checked at deploy time for what its workloads and burst queues need of its addons,
    and the ACS workloads on them."""
    clusters = _ack_clusters(stack)
    billed = _acs_workloads(config, clusters)
    _export_ack(config, clusters, billed)
    return clusters


def _ack_clusters(stack: StackConfig) -> AckClusters:
    """Each ACK cluster of :func:`~components.config.deploy.plans.ack_cluster_plans`, by name. An existing cluster gets
    only what the stack's workloads put there: no network, cluster, pool or addon."""
    from components.alicloud.ack import AckProCluster
    from components.alicloud.ack_existing import ExistingAckCluster

    render_to = stack.gitops.render_to_directory
    clusters: AckClusters = {}
    for plan in plans.ack_cluster_plans(stack):
        name = f"ack-{plan.cluster.name}"
        clusters[plan.cluster.name] = (
            AckProCluster(name, plan.cluster, plan.needs, plan.report, render_to=render_to)
            if isinstance(plan.cluster, AckClusterConfig)
            else ExistingAckCluster(name, plan.cluster, plan.needs, plan.report, render_to=render_to)
        )
    return clusters


def _acs_workloads(config: AckConfig, clusters: AckClusters) -> dict[str, pulumi.Output[str]]:
    """The shared namespaces, then each workload after its namespace and its cluster's addons; the spec ACS bills
    each CPU workload's pods as, by ``cluster/namespace/name``."""
    namespaces = {
        (cluster, namespace): AcsNamespace(
            f"ack-{cluster}-ns-{namespace}", namespace, opts=clusters[cluster].target.on(WORKLOADS)
        )
        for cluster, namespace in plans.acs_namespaces(config)
    }
    billed: dict[str, pulumi.Output[str]] = {}
    for workload in config.workloads:
        cluster = clusters[workload.cluster]
        namespace = namespaces.get((workload.cluster, workload.namespace))
        acs = AcsWorkload(
            f"acs-{workload.cluster}-{workload.namespace}-{workload.name}",
            workload,
            addons=cluster.addons,
            opts=cluster.target.on(WORKLOADS, depends_on=[namespace] if namespace else None),
        )
        if acs.billed_spec is not None:
            billed[f"{workload.cluster}/{workload.namespace}/{workload.name}"] = acs.billed_spec
    return billed


def _export_ack(config: AckConfig, clusters: AckClusters, billed: dict[str, pulumi.Output[str]]) -> None:
    """What operators need of the ACK clusters: ids, regions, versions, endpoints, kubeconfigs, billed specs."""
    regions = {c.name: c.region for c in config.clusters} | {c.name: c.region for c in config.existing_clusters}
    pulumi.export(
        "ackClusters",
        {
            name: {
                "clusterId": cluster.cluster_id,
                "region": regions[name],
                "kubernetesVersion": cluster.kubernetes_version,
                "apiServerEndpoint": cluster.api_server_endpoint,
            }
            for name, cluster in clusters.items()
        },
    )
    pulumi.export("ackKubeconfigs", pulumi.Output.secret({name: c.kubeconfig for name, c in clusters.items()}))
    pulumi.export("acsBilledSpecs", billed)
