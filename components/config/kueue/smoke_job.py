"""The ``smokeJob`` section: an opt-in Job submitted through Kueue that ``pulumi up`` waits to see complete."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from components.config.base import ConfigModel, DnsLabel, MissingKey, RuleViolation
from components.config.kube import LabelKey, Quantity
from components.config.kueue.registries import PinnedImage, Source
from components.config.rules import rule

SMOKE_JOB_WITHOUT_QUEUES = (
    "the stack creates no LocalQueue: name queues.preset aks-walkthrough, whose LocalQueue the smoke Job then uses, "
    "or write queues.localQueues"
)
"""What a smoke Job is told on a stack with no queue objects."""

_JOB_API_URL = "https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/"


class SmokeJobConfig(ConfigModel):
    """An opt-in end-to-end check: the article's ``kueue-cas-job``, which ``pulumi up`` waits to see complete.

    Three 1800m pods cannot fit one 4-core ``scalepool`` node, so the Job only completes after Kueue's
    ProvisioningRequest has made the autoscaler add nodes
    (https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler). The Job's keys mirror
    ``batch/v1`` Job fields (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/job-v1/).
    """

    enabled: bool = False
    """Off by default: it scales a pool up and holds ``pulumi up`` until the Job completes."""
    name: DnsLabel = "kueue-cas-job"
    """The Job's name; a new name (or any other change) replaces the Job and waits again."""
    namespace: DnsLabel | None = None
    """The Job's namespace: the namespace of ``localQueue``. Unset: the namespace of the LocalQueue it is submitted
    to."""
    local_queue: DnsLabel | None = None
    """The LocalQueue the Job is submitted to (label ``kueue.x-k8s.io/queue-name``), one of ``queues.localQueues``.
    Unset: the stack's only LocalQueue in ``namespace`` (``queues.preset: aks-walkthrough`` has one); with several,
    name one."""
    pool: DnsLabel | None = None
    """The AKS user pool the pods select through the ``agentpool`` label AKS puts on every node. Unset: the stack's
    only user pool (with several, name one); without ``aks`` (kind, minikube, k3d: the ``local`` stack) no pool."""
    parallelism: int = Field(default=3, ge=1, le=100)
    """Pods running at once (Job ``spec.parallelism``); at most ``completions``."""
    completions: int = Field(default=3, ge=1, le=100)
    """Pods that must succeed for the Job to complete (Job ``spec.completions``)."""
    cpu: Quantity = "1800m"
    """Each pod's cpu request: three 1800m pods do not fit one 4-core node, so the autoscaler must add one."""
    memory: Quantity = "256Mi"
    """Each pod's memory request."""
    extended_resources: dict[LabelKey, Quantity] = Field(default_factory=dict)
    """Each pod's extended resources, e.g. ``{nvidia.com/gpu: "1"}`` to prove a GPU flavor (requested and limited
    alike, as Kubernetes requires of extended resources); the pool's nodes must advertise them."""
    image: PinnedImage = "mcr.microsoft.com/azurelinux/busybox:1.36"
    """The article's image; in Azure China use ``mcr.azure.cn/azurelinux/busybox:1.36`` or the proxy
    ``mcr.azk8s.cn/azurelinux/busybox:1.36``."""
    command: list[str] = Field(default=["sh", "-c", "echo running on $(hostname); sleep 30"], min_length=1)
    """The container's command (the article's: print the node name, sleep 30 s)."""
    restart_policy: Literal["Never", "OnFailure"] = "Never"
    """The pods' ``restartPolicy``: ``Never`` counts a failed pod against the Job, ``OnFailure`` restarts it."""
    timeout_seconds: int = Field(default=1200, ge=60, le=7200)
    """How long ``pulumi up`` waits for completion: a ProvisioningRequest scale-up takes minutes, and Kueue retries
    a failed one after 60 s, 120 s ... (``retryStrategy`` of ProvisioningRequestConfig,
    https://kueue.sigs.k8s.io/docs/admission-check-controllers/provisioning/)."""

    @model_validator(mode="after")
    @rule("smoke-job.parallelism-within-completions", source=_JOB_API_URL)
    def _parallelism_within_completions(self) -> SmokeJobConfig:
        """A smoke Job's parallelism no larger than its completions, because the Job never starts the extra pods."""
        if self.parallelism > self.completions:
            raise RuleViolation(
                "parallelism", self.parallelism, f"at most completions ({self.completions}); extra pods never start"
            )
        return self

    def targeting(
        self, local_queues: list[tuple[str, str]], pools: list[str] | None, *, key: str = "smokeJob"
    ) -> SmokeJobConfig:
        """The Job with its namespace, LocalQueue and pool: as written, or the stack's only candidate of each among
        ``local_queues`` (``(namespace, name)``) and the AKS user ``pools`` (None without AKS); a missing or
        ambiguous one is refused under ``key``, naming the candidates."""
        matching = [
            (ns, name) for ns, name in local_queues if self.namespace in (None, ns) and self.local_queue in (None, name)
        ]
        if len(matching) != 1:
            candidates = sorted(f"{ns}/{name}" for ns, name in (matching or local_queues))
            if not local_queues:
                allowed = SMOKE_JOB_WITHOUT_QUEUES
            elif not matching:
                allowed = f"it must be one of queues.localQueues {candidates}"
            else:
                allowed = f"name the LocalQueue it is submitted to, one of {candidates}"
            if self.local_queue is None:
                raise MissingKey(f"{key}.localQueue", allowed)
            raise RuleViolation(f"{key}.localQueue", self.local_queue, allowed)
        ((namespace, local_queue),) = matching
        pool = self.pool
        if pools is not None:
            if pool is None and len(pools) == 1:
                pool = pools[0]
            if pool not in pools:
                allowed = f"it must name an autoscaling pool of aks.userPools: {pools}"
                if pool is None:
                    raise MissingKey(f"{key}.pool", allowed)
                raise RuleViolation(f"{key}.pool", pool, allowed)
        return self.model_copy(update={"namespace": namespace, "local_queue": local_queue, "pool": pool})

    def named_with(self, suffix: str) -> SmokeJobConfig:
        """The Job in the suffixed namespace, submitted to the suffixed LocalQueue (see ``queues_naming``); its own
        name needs no suffix, its namespace is the stack's alone."""
        if not suffix or self.namespace is None or self.local_queue is None:
            return self
        return self.model_copy(update={"namespace": self.namespace + suffix, "local_queue": self.local_queue + suffix})

    def sources(self) -> list[Source]:
        """The image the Job pulls, with its key under ``smokeJob``."""
        return [Source("image", self.image, SmokeJobConfig().image)]
