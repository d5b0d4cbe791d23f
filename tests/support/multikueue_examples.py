"""Kueue's own MultiKueue set-ups, typed in from kubernetes-sigs/kueue at tag v0.19.2 (the files under
``site/static/examples/multikueue/``, the same at v0.17.8, and the ordered MultiKueueConfig of
``site/content/en/docs/concepts/multikueue.md``): the oracle of examples/multikueue/. Python values written from the
tag, as in :mod:`tests.support.kueue_examples`; quantities as upstream writes them."""

from __future__ import annotations

import dataclasses

from tests.support.kueue_examples import DOCS, Example, Manifest, cpu_memory_queue, kueue, local_queue

MULTIKUEUE = "site/static/examples/multikueue/"
TOPOLOGY = kueue("Topology", "default", {"levels": [{"nodeLabel": "kubernetes.io/hostname"}]})
TAS_FLAVOR = kueue(
    "ResourceFlavor",
    "tas-flavor",
    {"nodeLabels": {"cloud.provider.com/node-group": "tas-node"}, "topologyName": "default"},
)


def multikueue_check(name: str, config: str) -> Manifest:
    parameters = {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": config}
    return kueue("AdmissionCheck", name, {"controllerName": "kueue.x-k8s.io/multikueue", "parameters": parameters})


def multikueue_cluster(name: str, secret: str) -> Manifest:
    return kueue(
        "MultiKueueCluster", name, {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": secret}}}
    )


@dataclasses.dataclass(frozen=True)
class MultiKueueExample:
    """One upstream set-up and the kubeconfig Secrets (in Kueue's namespace) its MultiKueueClusters read."""

    example: Example
    secrets: tuple[str, ...] = ()
    """The Secrets the stack makes; none where the MultiKueueClusters are queue objects reading the user's own."""


MULTIKUEUE_GALLERY = {
    "setup": MultiKueueExample(
        Example(
            MULTIKUEUE + "multikueue-setup.yaml",
            [
                kueue("ResourceFlavor", "default-flavor"),
                cpu_memory_queue("cluster-queue", "default-flavor", 9, "36Gi", checks=("sample-multikueue",)),
                local_queue("default", "user-queue", "cluster-queue"),
                multikueue_check("sample-multikueue", "multikueue-test"),
                kueue("MultiKueueConfig", "multikueue-test", {"clusters": ["multikueue-test-worker1"]}),
                multikueue_cluster("multikueue-test-worker1", "worker1-secret"),
            ],
        ),
        secrets=("worker1-secret",),
    ),
    "tas-manager": MultiKueueExample(
        Example(
            MULTIKUEUE + "tas/manager-setup.yaml",
            [
                TOPOLOGY,
                TAS_FLAVOR,
                kueue("MultiKueueConfig", "multikueue-config", {"clusters": ["worker1", "worker2"]}),
                multikueue_check("multikueue-ac", "multikueue-config"),
                multikueue_cluster("worker1", "worker1-secret"),
                multikueue_cluster("worker2", "worker2-secret"),
                cpu_memory_queue("cluster-queue", "tas-flavor", 16, "32Gi", checks=("multikueue-ac",)),
                local_queue("default", "user-queue", "cluster-queue"),
            ],
        ),
        secrets=("worker1-secret", "worker2-secret"),
    ),
    "setup-objects": MultiKueueExample(
        Example(
            MULTIKUEUE + "multikueue-setup.yaml",
            [
                kueue("ResourceFlavor", "default-flavor"),
                cpu_memory_queue("cluster-queue", "default-flavor", 9, "36Gi", checks=("sample-multikueue",)),
                local_queue("default", "user-queue", "cluster-queue"),
                multikueue_check("sample-multikueue", "multikueue-test"),
                kueue("MultiKueueConfig", "multikueue-test", {"clusters": ["multikueue-test-worker1"]}),
                multikueue_cluster("multikueue-test-worker1", "worker1-secret"),
            ],
        )
    ),
    "tas-manager-objects": MultiKueueExample(
        Example(
            MULTIKUEUE + "tas/manager-setup.yaml",
            [
                TOPOLOGY,
                TAS_FLAVOR,
                kueue("MultiKueueConfig", "multikueue-config", {"clusters": ["worker1", "worker2"]}),
                multikueue_check("multikueue-ac", "multikueue-config"),
                multikueue_cluster("worker1", "worker1-secret"),
                multikueue_cluster("worker2", "worker2-secret"),
                cpu_memory_queue("cluster-queue", "tas-flavor", 16, "32Gi", checks=("multikueue-ac",)),
                local_queue("default", "user-queue", "cluster-queue"),
            ],
        )
    ),
    "ordered-config": MultiKueueExample(
        Example(
            DOCS + "concepts/multikueue.md",
            [kueue("MultiKueueConfig", "cost-optimized", {"clusters": ["worker-onprem", "worker-aws", "worker-gcp"]})],
        )
    ),
    "tas-worker": MultiKueueExample(
        Example(
            MULTIKUEUE + "tas/worker-setup.yaml",
            [
                TOPOLOGY,
                TAS_FLAVOR,
                cpu_memory_queue("worker-cluster-queue", "tas-flavor", 8, "16Gi"),
                local_queue("default", "user-queue", "worker-cluster-queue"),
            ],
        )
    ),
}
"""Every file of ``site/static/examples/multikueue/`` at v0.19.2 with Kueue objects, the managers twice (built by the
``multiKueue`` section, and as queue objects), and the ordered MultiKueueConfig of the concepts page; ``dev/`` holds
kind cluster configs, a set-up script and a sample Job, none of which is a Kueue object."""
