"""The manager's side of the MultiKueue burst set-up as plain dicts, and the burst smoke Job.

On the manager: one kubeconfig Secret and one MultiKueueCluster per worker and the MultiKueueConfig that lists them
(https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/). With ``burstQueue``, the MultiKueue AdmissionCheck
pointing at it and a burst ClusterQueue of its own on an empty flavor, with its namespace and LocalQueue, are queue
objects (:func:`components.config.multikueue.workers.burst_queues`) the queue builders render
(:func:`components.manifests.queues.queue_manifests`), as are the two Kueue kinds here. The manager's
provisioning-gated queues stay apart: a ClusterQueue with a MultiKueue and a ProvisioningRequest check goes inactive
(``MultiKueueWithProvisioningRequest``). Pure functions, no Pulumi: the Secret's value is added by the component.
"""

from __future__ import annotations

from typing import Any

from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.queues.multikueue import MultiKueueClusterObject, MultiKueueConfigObject
from components.manifests import queues
from components.manifests.labels import QUEUE_NAME_LABEL

Manifest = dict[str, Any]

KUBECONFIG_KEY = "kubeconfig"
"""The Secret key MultiKueue reads the kubeconfig from (``MultiKueueConfigSecretKey``); another key leaves the
MultiKueueCluster inactive with ``BadKubeConfig``."""
MANAGED_BY = "kueue.x-k8s.io/multikueue"
"""What Kueue's Job webhook writes into ``spec.managedBy`` of a Job sent to a MultiKueue ClusterQueue: the manager's
own Job controller then leaves it to MultiKueue."""


def kubeconfig_secret(name: str, kueue_namespace: str) -> Manifest:
    """The Secret a worker's MultiKueueCluster names, without its value: it must sit in the namespace Kueue's
    controller runs in, the only one whose Secrets the chart lets it read (``manager-secrets-role``)."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": name, "namespace": kueue_namespace},
    }


def multikueue_cluster(name: str, secret_name: str) -> Manifest:
    """Cluster-scoped; ``locationType: Secret`` is the CRD's default, written out so the object says where its
    credential is. Built by the queue builder from the queue model, whose rules it meets."""
    source = {"kubeConfig": {"locationType": "Secret", "location": secret_name}}
    return queues.multikueue_cluster(MultiKueueClusterObject.model_validate({"name": name, "clusterSource": source}))


def multikueue_config(burst: MultiKueueConfig, clusters: list[str]) -> Manifest:
    """Every worker's MultiKueueCluster, in the stack's order (``Incremental`` dispatching orders them by name). Built
    by the queue builder from the queue model, whose rules it meets."""
    return queues.multikueue_config(MultiKueueConfigObject(name=burst.multikueue_config, clusters=clusters))


def burst_smoke_job(burst: MultiKueueConfig) -> Manifest:
    """The burst smoke Job, as a user submits it to the manager: one pod that sleeps 30 seconds.

    It carries no ACS label on purpose: the worker's ResourcePolicy sends every pod of the burst namespace to ACS,
    and the runner checks that the pod ran there. Requests equal limits, so Kueue charges what ACS bills for the
    instance. No node selector: the worker's flavor places it, and a selector of the manager's cloud would match no
    worker flavor.
    """
    job = burst.smoke_job
    resources = {"cpu": job.cpu, "memory": job.memory}
    container = {
        "name": "burst",
        "image": job.image,
        "command": ["sleep", "30"],
        "resources": {"requests": dict(resources), "limits": dict(resources)},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": job.name, "namespace": burst.namespace, "labels": {QUEUE_NAME_LABEL: burst.local_queue}},
        "spec": {
            "parallelism": 1,
            "completions": 1,
            "suspend": True,
            "template": {"spec": {"containers": [container], "restartPolicy": "Never"}},
        },
    }
