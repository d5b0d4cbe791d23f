"""The manager's side of the MultiKueue burst set-up as plain dicts, and the burst smoke Job.

On the manager: one kubeconfig Secret and one MultiKueueCluster per worker and the MultiKueueConfig that lists them;
with ``burstQueue``, also the MultiKueue AdmissionCheck pointing at it and a burst ClusterQueue of its own on an empty
flavor, with its namespace and LocalQueue (https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/). The manager's
provisioning-gated queues stay apart: a ClusterQueue with a MultiKueue and a ProvisioningRequest check goes inactive
(``MultiKueueWithProvisioningRequest``). Pure functions, no Pulumi: the Secret's value is added by the component.
"""

from __future__ import annotations

from typing import Any

from components.config.multikueue.multikueue import BURST_FLAVOR, MULTIKUEUE_CONTROLLER, MultiKueueConfig
from components.config.queues.checks import MULTIKUEUE_CONFIG_KIND
from components.manifests.core import namespace
from components.manifests.labels import QUEUE_NAME_LABEL
from components.manifests.queues import API_GROUP, API_VERSION

Manifest = dict[str, Any]

KUBECONFIG_KEY = "kubeconfig"
"""The Secret key MultiKueue reads the kubeconfig from (``MultiKueueConfigSecretKey``); another key leaves the
MultiKueueCluster inactive with ``BadKubeConfig``."""
MANAGED_BY = "kueue.x-k8s.io/multikueue"
"""What Kueue's Job webhook writes into ``spec.managedBy`` of a Job sent to a MultiKueue ClusterQueue: the manager's
own Job controller then leaves it to MultiKueue."""


def _object(kind: str, name: str, spec: dict[str, Any], namespace: str | None = None) -> Manifest:
    metadata: dict[str, Any] = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


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
    credential is."""
    source = {"kubeConfig": {"locationType": "Secret", "location": secret_name}}
    return _object("MultiKueueCluster", name, {"clusterSource": source})


def multikueue_config(burst: MultiKueueConfig, clusters: list[str]) -> Manifest:
    """Every worker's MultiKueueCluster, in the stack's order (``Incremental`` dispatching orders them by name)."""
    return _object("MultiKueueConfig", burst.multikueue_config, {"clusters": clusters})


def admission_check(burst: MultiKueueConfig) -> Manifest:
    """The check MultiKueue's controller runs, pointing at the MultiKueueConfig."""
    parameters = {"apiGroup": API_GROUP, "kind": MULTIKUEUE_CONFIG_KIND, "name": burst.multikueue_config}
    return _object(
        "AdmissionCheck", burst.admission_check, {"controllerName": MULTIKUEUE_CONTROLLER, "parameters": parameters}
    )


def resource_flavor() -> Manifest:
    """:data:`BURST_FLAVOR`: no labels, taints or tolerations (Kueue's own MultiKueue examples use an empty one)."""
    return {"apiVersion": API_VERSION, "kind": "ResourceFlavor", "metadata": {"name": BURST_FLAVOR}}


def cluster_queue(burst: MultiKueueConfig) -> Manifest:
    """The burst ClusterQueue: exactly one admission check, the MultiKueue one, for every flavor (Kueue refuses one
    limited by ``onFlavors``: ``MultiKueueAdmissionCheckAppliedPerFlavor``), open to every namespace, in Kueue's
    default order (written out, as on the stack's other ClusterQueues). Its quota is what the manager lets out at
    once, about the sum of the workers' quotas."""
    quota = [{"name": "cpu", "nominalQuota": burst.quota.cpu}, {"name": "memory", "nominalQuota": burst.quota.memory}]
    return _object(
        "ClusterQueue",
        burst.cluster_queue,
        {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [
                {"coveredResources": ["cpu", "memory"], "flavors": [{"name": BURST_FLAVOR, "resources": quota}]}
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": burst.admission_check}]},
        },
    )


def burst_namespace(burst: MultiKueueConfig, labels: dict[str, str] | None) -> Manifest:
    """Labelled like the manager's other LocalQueue namespaces, so Kueue's Job webhook takes its Jobs."""
    return namespace(burst.namespace, labels)


def local_queue(burst: MultiKueueConfig) -> Manifest:
    """The queue Jobs name in ``kueue.x-k8s.io/queue-name``; every worker has one of the same name and namespace."""
    return _object("LocalQueue", burst.local_queue, {"clusterQueue": burst.cluster_queue}, namespace=burst.namespace)


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
