"""Build everything a stack asks for from its validated configuration, and export what operators need.

Two independent halves: Kueue with provisioning-gated queues on an AKS (new or existing) or any cluster, and ACK
Pro clusters with ACS workloads. Each half only wires components together; the components own the resources.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as kubernetes

from components.ack import AckProCluster
from components.acs import AcsWorkload
from components.aks import AksCluster, ExistingCluster
from components.config.acs import AckConfig
from components.config.stack import StackConfig
from components.kueue import Kueue
from components.queues import KueueQueues
from components.smoke_job import SmokeJob


def deploy(config: StackConfig) -> None:
    if config.kueue_target is not None:
        _deploy_kueue(config)
    if config.ack is not None:
        _deploy_ack(config.ack)


def _deploy_kueue(config: StackConfig) -> None:
    cluster: AksCluster | ExistingCluster
    if config.aks is not None:
        cluster = aks = AksCluster("aks", config.aks)
        pulumi.export("aksClusterName", aks.cluster_name)
        pulumi.export("aksResourceGroupName", aks.resource_group_name)
    else:
        assert config.existing_cluster is not None  # kueue_target guarantees one of the two
        secret = config.kubeconfig.get_secret_value() if config.kubeconfig else None
        cluster = ExistingCluster(
            "existing", config.existing_cluster, kubeconfig=pulumi.Output.secret(secret) if secret else None
        )
    pulumi.export("kubeconfig", cluster.kubeconfig)

    on_cluster = pulumi.ResourceOptions(provider=cluster.provider)
    kueue = Kueue(
        "kueue",
        config.kueue,
        check_provisioning_request_crd=config.queues.uses_provisioning_requests,
        opts=on_cluster,
    )
    queues = KueueQueues("queues", config.queues, kueue_ready=kueue.ready, opts=on_cluster)
    pulumi.export("localQueues", [f"{q.namespace}/{q.name}" for q in config.queues.local_queues])
    if config.smoke_job.enabled:
        SmokeJob(
            "smoke-job",
            config.smoke_job,
            kubeconfig=cluster.kubeconfig,
            opts=pulumi.ResourceOptions(provider=cluster.provider, depends_on=[queues]),
        )


def _deploy_ack(config: AckConfig) -> None:
    clusters = {c.name: AckProCluster(f"ack-{c.name}", c) for c in config.clusters}
    namespaces: dict[tuple[str, str], kubernetes.core.v1.Namespace] = {}
    billed: dict[str, pulumi.Output[str]] = {}
    for workload in config.workloads:
        cluster = clusters[workload.cluster]
        key = (workload.cluster, workload.namespace)
        if workload.namespace != "default" and key not in namespaces:
            namespaces[key] = kubernetes.core.v1.Namespace(
                f"ack-{workload.cluster}-ns-{workload.namespace}",
                metadata={"name": workload.namespace},
                opts=pulumi.ResourceOptions(provider=cluster.provider),
            )
        namespace = namespaces.get(key)
        acs = AcsWorkload(
            f"acs-{workload.cluster}-{workload.namespace}-{workload.name}",
            workload,
            addons=cluster.addons,
            opts=pulumi.ResourceOptions(provider=cluster.provider, depends_on=[namespace] if namespace else None),
        )
        if acs.billed_spec is not None:
            billed[f"{workload.cluster}/{workload.namespace}/{workload.name}"] = acs.billed_spec

    pulumi.export(
        "ackClusters",
        {c.name: {"clusterId": clusters[c.name].cluster_id, "region": c.region} for c in config.clusters},
    )
    pulumi.export("ackKubeconfigs", pulumi.Output.secret({name: c.kubeconfig for name, c in clusters.items()}))
    pulumi.export("acsBilledSpecs", billed)
