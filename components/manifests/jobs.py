"""Batch Jobs submitted through Kueue, as plain dicts."""

from __future__ import annotations

from typing import Any

from components.config.kueue import SmokeJobConfig

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""Routes a Job to a LocalQueue; since v1beta2 only the label works, not the old annotation."""
POOL_LABEL = "agentpool"
"""AKS puts ``agentpool: <pool name>`` on every node."""
SKIP_AWAIT = "pulumi.com/skipAwait"
"""pulumi-kubernetes' documented annotation: create the object without waiting for it to become ready."""


def smoke_job(config: SmokeJobConfig) -> dict[str, Any]:
    """The seed's ``kueue-cas-job``, created suspended for Kueue to admit.

    ``pulumi.com/skipAwait``: the program's own waiter watches the Job and explains a stuck one; pulumi-kubernetes'
    Job await would only time out.
    """
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": config.name,
            "namespace": config.namespace,
            "labels": {QUEUE_NAME_LABEL: config.local_queue},
            "annotations": {SKIP_AWAIT: "true"},
        },
        "spec": {
            "parallelism": config.parallelism,
            "completions": config.completions,
            "suspend": True,
            "template": {
                "spec": {
                    "nodeSelector": {POOL_LABEL: config.pool},
                    "containers": [
                        {
                            "name": "worker",
                            "image": config.image,
                            "command": list(config.command),
                            "resources": {"requests": {"cpu": config.cpu, "memory": config.memory}},
                        }
                    ],
                    "restartPolicy": config.restart_policy,
                }
            },
        },
    }
