"""Batch Jobs submitted through Kueue, as plain dicts."""

from __future__ import annotations

from typing import Any

from components.config.aks import POOL_LABEL
from components.config.smoke_job import SmokeJobConfig
from components.kube_wait import QUEUE_NAME_LABEL

SKIP_AWAIT = "pulumi.com/skipAwait"
"""pulumi-kubernetes' documented annotation: create the object without waiting for it to become ready."""


def _resources(args: SmokeJobConfig) -> dict[str, Any]:
    """cpu and memory requested; extended resources (GPUs) requested and limited alike, as the API server requires
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources)."""
    requests = {"cpu": args.cpu, "memory": args.memory, **args.extended_resources}
    return {"requests": requests} | ({"limits": dict(args.extended_resources)} if args.extended_resources else {})


def smoke_job(args: SmokeJobConfig) -> dict[str, Any]:
    """The article's ``kueue-cas-job``, created suspended for Kueue to admit.

    ``pulumi.com/skipAwait``: the program's own waiter watches the Job and explains a stuck one; pulumi-kubernetes'
    Job await would only time out.
    """
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": args.name,
            "namespace": args.namespace,
            "labels": {QUEUE_NAME_LABEL: args.local_queue},
            "annotations": {SKIP_AWAIT: "true"},
        },
        "spec": {
            "parallelism": args.parallelism,
            "completions": args.completions,
            "suspend": True,
            "template": {
                "spec": {
                    **({"nodeSelector": {POOL_LABEL: args.pool}} if args.pool else {}),
                    "containers": [
                        {
                            "name": "worker",
                            "image": args.image,
                            "command": list(args.command),
                            "resources": _resources(args),
                        }
                    ],
                    "restartPolicy": args.restart_policy,
                }
            },
        },
    }
