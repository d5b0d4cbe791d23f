"""The opt-in smoke test: submit the seed's Job through Kueue and make ``pulumi up`` wait for it to complete."""

from __future__ import annotations

import pulumi
from pulumi_kubernetes import batch

from components.config.kueue import SmokeJobConfig
from components.job_wait import JobCompletion
from components.manifests import jobs


class SmokeJob(pulumi.ComponentResource):
    """The seed's ``kueue-cas-job`` plus a waiter that fails ``pulumi up`` with a diagnosis if it does not complete.

    The Job carries ``pulumi.com/skipAwait`` and :class:`~components.job_wait.JobCompletion` does the waiting, so a
    Job that cannot run fails with its likely cause (an unpullable image, no autoscaler serving ProvisioningRequests)
    instead of a bare timeout. Kueue owns ``spec.suspend`` once the Job exists: it flips it to false on admission, so
    the diff ignores that field, and any other change replaces the Job (delete, then create) rather than patching it
    in place, because a server-side apply of the original manifest would send ``suspend: true`` again. The caller
    orders this after the queues are Active and the pools it targets exist (``opts.depends_on``).
    """

    job: batch.v1.Job
    completion: JobCompletion
    succeeded: pulumi.Output[int]
    """Pods that succeeded, known once the Job completed."""

    def __init__(
        self,
        name: str,
        args: SmokeJobConfig,
        kubeconfig: pulumi.Input[str],
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__("elastic-capacity:kueue:SmokeJob", name, None, opts)
        manifest = jobs.smoke_job(args)
        self.job = batch.v1.Job(
            f"{name}-job",
            metadata=manifest["metadata"],
            spec=manifest["spec"],
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=["spec.suspend"], replace_on_changes=["*"], delete_before_replace=True
            ),
        )
        self.completion = JobCompletion(
            f"{name}-completion",
            job_namespace=args.namespace,
            job_name=args.name,
            job_uid=self.job.metadata.apply(lambda m: m.uid if m else None),
            timeout_seconds=args.timeout_seconds,
            kubeconfig=kubeconfig,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.job]),
        )
        self.succeeded = self.completion.succeeded
        self.register_outputs({"succeeded": self.succeeded})
