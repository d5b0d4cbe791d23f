"""The opt-in smoke test: submit the article's Job through Kueue and make ``pulumi up`` wait for it to complete."""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import batch

from components.cluster_target import WORKLOADS, ClusterTarget
from components.config.kueue.smoke_job import SmokeJobConfig
from components.manifests import jobs
from components.waiters.job_wait import JobCompletion


class SmokeJob(pulumi.ComponentResource):
    """The article's ``kueue-cas-job`` plus a waiter that fails ``pulumi up`` with a diagnosis if it does not complete.

    The Job carries ``pulumi.com/skipAwait`` and :class:`~components.waiters.job_wait.JobCompletion` does the waiting,
    so a Job that cannot run fails with its likely cause (an unpullable image, no autoscaler serving
    ProvisioningRequests) instead of a bare timeout. Kueue owns ``spec.suspend`` once the Job exists: it flips it to
    false on admission, so the diff ignores that field, and any other change replaces the Job (delete, then create)
    rather than patching it in place, because a server-side apply of the original manifest would send ``suspend: true``
    again. The caller orders this after the queues are Active and the pools it targets exist (``opts.depends_on``).
    """

    def __init__(
        self,
        name: str,
        args: SmokeJobConfig,
        target: ClusterTarget,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """On a ``target`` that renders for a GitOps controller, the Job is only registered, without ``suspend``
        (:func:`~components.manifests.jobs.smoke_job`): nothing here can wait for it on the cluster."""
        if args.namespace is None or args.local_queue is None:
            raise ValueError("SmokeJob takes the loader's targeted Job (StackConfig.smoke_job_targeted)")
        on_cluster = pulumi.ResourceOptions.merge(target.on(WORKLOADS), opts)
        super().__init__("elastic-capacity:kueue:SmokeJob", name, None, on_cluster)
        manifest = jobs.smoke_job(args, rendered=not target.live)
        job = batch.v1.Job(
            f"{name}-job",
            metadata=manifest["metadata"],
            spec=manifest["spec"],
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=["spec.suspend"], replace_on_changes=["*"], delete_before_replace=True
            ),
        )
        if not target.live:
            self.register_outputs({})
            return
        completion = JobCompletion(
            f"{name}-completion",
            job_namespace=args.namespace,
            job_name=args.name,
            job_uid=job.metadata.apply(lambda m: m.uid if m else None),
            timeout_seconds=args.timeout_seconds,
            reader=target.reader,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[job]),
        )
        self.register_outputs({"succeeded": completion.succeeded})
