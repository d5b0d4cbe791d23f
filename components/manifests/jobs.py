"""Batch Jobs submitted through Kueue, as plain dicts."""

from __future__ import annotations

from typing import Any

from components.config.aks.pools import POOL_LABEL
from components.config.kueue.smoke_job import SmokeJobConfig
from components.manifests.labels import QUEUE_NAME_LABEL

SKIP_AWAIT = "pulumi.com/skipAwait"
"""pulumi-kubernetes' documented annotation: create the object without waiting for it to become ready."""
FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"
"""Flux's recreate policy: ``Enabled`` deletes and re-creates an object whose change touches an immutable field, such
as a Job's pod template
(https://github.com/fluxcd/kustomize-controller/blob/main/docs/spec/v1/kustomizations.md#kustomizetoolkitfluxcdioforce)."""


def _resources(args: SmokeJobConfig) -> dict[str, Any]:
    """cpu and memory requested; extended resources (GPUs) requested and limited alike, as the API server requires
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources)."""
    requests = {"cpu": args.cpu, "memory": args.memory, **args.extended_resources}
    return {"requests": requests} | ({"limits": dict(args.extended_resources)} if args.extended_resources else {})


def smoke_job(args: SmokeJobConfig, *, rendered: bool = False) -> dict[str, Any]:
    """The article's ``kueue-cas-job``, created suspended for Kueue to admit.

    ``pulumi.com/skipAwait``: the program's own waiter watches the Job and explains a stuck one; pulumi-kubernetes'
    Job await would only time out.

    ``rendered`` (for a GitOps controller, which re-applies the file on every sync) leaves ``spec.suspend`` out:
    Kueue flips it on admission, and a manifest holding ``suspend: true`` would keep Argo CD OutOfSync and have Flux
    suspend the running Job again. Kueue's Job webhook suspends any Job with a queue-name label as it is created
    (``mjob.kb.io``, CREATE only, ``failurePolicy: Fail``; ``WorkloadShouldBeSuspended`` in
    https://github.com/kubernetes-sigs/kueue/blob/main/pkg/controller/jobframework/utils.go), so it still waits for
    its queue. :data:`FLUX_FORCE` has Flux re-create the Job when its spec changes, as ``pulumi up`` replaces it.
    """
    annotations = {SKIP_AWAIT: "true", **({FLUX_FORCE: "Enabled"} if rendered else {})}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": args.name,
            "namespace": args.namespace,
            "labels": {QUEUE_NAME_LABEL: args.local_queue},
            "annotations": annotations,
        },
        "spec": {
            "parallelism": args.parallelism,
            "completions": args.completions,
            **({} if rendered else {"suspend": True}),
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
