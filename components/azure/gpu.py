"""The NVIDIA software that makes an AKS cluster's GPUs schedulable, installed from its Helm chart."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pulumi_kubernetes import core, helm

from components.cluster_target import KUEUE, ClusterTarget
from components.config.aks.aks import AksConfig
from components.manifests.core import namespace
from components.manifests.gpu import nvidia_chart


class NvidiaGpus(pulumi.ComponentResource):
    """NVIDIA's device plugin (AKS installs the driver) or GPU Operator (``gpu.driver: None``) in its namespace.

    It goes in with the platform layer, beside Kueue: a GPU Job admitted before the plugin runs would wait for
    ``nvidia.com/gpu`` to appear on its node. ``pools`` are the GPU pools, which its DaemonSets need to exist.
    """

    def __init__(
        self,
        name: str,
        args: AksConfig,
        target: ClusterTarget,
        pools: Sequence[pulumi.Resource],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(
            "elastic-capacity:azure:NvidiaGpus", name, None, pulumi.ResourceOptions.merge(target.on(KUEUE), opts)
        )
        chart = nvidia_chart(args)
        assert chart is not None  # the fleet builds this only for a cluster with GPU pools
        manifest = namespace(args.nvidia.namespace)
        created = core.v1.Namespace(
            f"{name}-namespace", metadata=manifest["metadata"], opts=pulumi.ResourceOptions(parent=self)
        )
        self.chart = helm.v4.Chart(
            f"{name}-chart",
            chart=chart.chart,
            version=chart.version,
            repository_opts=helm.v4.RepositoryOptsArgs(repo=chart.repository) if chart.repository else None,
            namespace=created.metadata.name,
            values=chart.values,
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(pools)),
        )
        self.register_outputs({})
