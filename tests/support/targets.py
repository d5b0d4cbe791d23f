"""Clusters for component tests: a :class:`~components.cluster_target.ClusterTarget` over a stand-in provider."""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import Provider

from components.cluster_target import ClusterTarget
from tools.mock_cloud import FAKE_KUBECONFIG


def live_target(provider: Provider, kubeconfig: str = FAKE_KUBECONFIG) -> ClusterTarget:
    """A cluster whose objects are applied through ``provider``; its waiters sign in with ``kubeconfig``."""
    return ClusterTarget("cluster", provider, pulumi.Output.secret(kubeconfig), provider, render_to=None)


def rendering_target(parent: pulumi.Resource, directory: str = "out/gitops") -> ClusterTarget:
    """A cluster whose objects are written under ``directory`` for a GitOps controller, layer by layer."""
    return ClusterTarget("cluster", parent, pulumi.Output.secret(FAKE_KUBECONFIG), None, render_to=directory)
