"""Kueue's own example set-ups, typed in from kubernetes-sigs/kueue at tag v0.19.2 (the example files are the same at
v0.17.8, where the gallery was first typed from; the pages' objects were re-checked): the oracle of examples/kueue/.

Each constant is one set-up as upstream writes it, from a file under ``site/static/examples/`` or the complete queue
objects of a docs page under ``site/content/en/docs/``, and, where the set-up needs them, the manager Configuration
settings the page prescribes. Quantities are written as upstream writes them (``9``, ``"36Gi"``); the test compares
them canonically and with the CRD defaults applied. Nothing is copied from upstream YAML files into the repository:
these are Python values, checked against the tag by hand.

:data:`REFUSED` lists the upstream objects Kueue itself refuses (0.17.8 to 0.19.2), with the config that expresses
them, the key the program must name in its error and the Kueue rule behind it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

TAG = "v0.19.2"
UPSTREAM = f"https://github.com/kubernetes-sigs/kueue/blob/{TAG}/"
"""Where every ``source`` below is, at the tag the gallery reproduces."""
API_VERSION = "kueue.x-k8s.io/v1beta2"

Manifest = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Example:
    """One upstream set-up: where it is, its objects, and the manager settings it needs (top-level keys)."""

    source: str
    """The path in kubernetes-sigs/kueue at :data:`TAG`."""
    objects: list[Manifest]
    manager: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Top-level keys of the manager Configuration as the page writes them; of ``metrics`` only ``customLabels`` (the
    rest is the chart's). ``featureGates`` reach the manager as its ``--feature-gates`` flag."""

    tag: str = TAG
    """The tag ``source`` is read at."""

    @property
    def url(self) -> str:
        return f"https://github.com/kubernetes-sigs/kueue/blob/{self.tag}/{self.source}"


def kueue(
    kind: str,
    name: str,
    spec: dict[str, Any] | None = None,
    namespace: str | None = None,
    labels: dict[str, str] | None = None,
) -> Manifest:
    """A Kueue object as upstream writes it: ``spec`` (and ``labels``) left out when the example has none."""
    metadata = {"name": name} if namespace is None else {"namespace": namespace, "name": name}
    metadata |= {} if labels is None else {"labels": labels}
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata} | ({} if spec is None else {"spec": spec})


def local_queue(namespace: str, name: str, cluster_queue: str, **spec: Any) -> Manifest:
    return kueue("LocalQueue", name, {"clusterQueue": cluster_queue, **spec}, namespace)


def group(covered: list[str], *flavors: tuple[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A resource group: covered resources, then ``(flavor, [{"name": ..., "nominalQuota": ...}, ...])`` pairs."""
    return {"coveredResources": covered, "flavors": [{"name": f, "resources": r} for f, r in flavors]}


def quota(name: str, nominal: int | str, **limits: int | str) -> dict[str, Any]:
    """``{"name": name, "nominalQuota": nominal}`` plus ``borrowingLimit``/``lendingLimit`` as given."""
    return {"name": name, "nominalQuota": nominal, **limits}


def cpu_memory_queue(name: str, flavor: str, cpu: int, memory: str, *, checks: tuple[str, ...] = ()) -> Manifest:
    """A ClusterQueue for every namespace with one flavor's cpu and memory quota (and admission checks): the shape
    most of Kueue's published set-ups use."""
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [group(["cpu", "memory"], (flavor, [quota("cpu", cpu), quota("memory", memory)]))],
    }
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": check} for check in checks]}
    return kueue("ClusterQueue", name, spec)


EXAMPLES = "site/static/examples/"
DOCS = "site/content/en/docs/"
DEFAULT_FLAVOR = kueue("ResourceFlavor", "default-flavor")
ADMISSION_FAIR_SHARING = {
    "admissionFairSharing": {
        "usageHalfLifeTime": "168h",
        "usageSamplingInterval": "5m",
        "resourceWeights": {"cpu": 2.0, "memory": 1.0},
    }
}
"""The manager settings of site/content/en/docs/concepts/admission_fair_sharing.md (v0.19.2), "Example
configuration"."""

# site/static/examples/admin/single-clusterqueue-setup.yaml (v0.19.2)
SINGLE_CLUSTERQUEUE = Example(
    EXAMPLES + "admin/single-clusterqueue-setup.yaml",
    [
        DEFAULT_FLAVOR,
        cpu_memory_queue("cluster-queue", "default-flavor", 9, "36Gi"),
        local_queue("default", "user-queue", "cluster-queue"),
    ],
)

# site/static/examples/admin/shared-quota-setup.yaml (v0.19.2); the manager settings are the ones its header comment
# prescribes.
SHARED_QUOTA = Example(
    EXAMPLES + "admin/shared-quota-setup.yaml",
    [
        kueue("ResourceFlavor", "on-demand", {"nodeLabels": {"node-type": "on-demand"}}),
        kueue("ResourceFlavor", "spot", {"nodeLabels": {"node-type": "spot"}}),
        kueue("ResourceFlavor", "credits"),
        kueue(
            "ClusterQueue",
            "team-cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(["cpu"], ("on-demand", [quota("cpu", 9)]), ("spot", [quota("cpu", 9)])),
                    group(["cpu_credits"], ("credits", [quota("cpu_credits", 14)])),
                ],
            },
        ),
        local_queue("default", "team-queue", "team-cluster-queue"),
    ],
    {"resources": {"transformations": [{"input": "cpu", "strategy": "Retain", "outputs": {"cpu_credits": 1}}]}},
)

# site/static/examples/admin/resource-flavor-empty.yaml (v0.19.2)
FLAVOR_EMPTY = Example(EXAMPLES + "admin/resource-flavor-empty.yaml", [DEFAULT_FLAVOR])

# site/static/examples/admin/resource-flavor-taints.yaml (v0.19.2)
FLAVOR_TAINTS = Example(
    EXAMPLES + "admin/resource-flavor-taints.yaml",
    [
        kueue(
            "ResourceFlavor",
            "spot",
            {
                "nodeLabels": {"instance-type": "spot"},
                "nodeTaints": [{"effect": "NoSchedule", "key": "spot", "value": "true"}],
            },
        )
    ],
)

# site/static/examples/admin/resource-flavor-tolerations.yaml (v0.19.2)
FLAVOR_TOLERATIONS = Example(
    EXAMPLES + "admin/resource-flavor-tolerations.yaml",
    [
        kueue(
            "ResourceFlavor",
            "spot",
            {
                "nodeLabels": {"instance-type": "spot"},
                "tolerations": [{"key": "spot-taint", "operator": "Exists", "effect": "NoSchedule"}],
            },
        )
    ],
)

# site/static/examples/admission-fs/admission-fair-sharing-setup.yaml (v0.19.2), with the manager settings of
# site/content/en/docs/concepts/admission_fair_sharing.md.
ADMISSION_FAIR_SHARING_SETUP = Example(
    EXAMPLES + "admission-fs/admission-fair-sharing-setup.yaml",
    [
        DEFAULT_FLAVOR,
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "queueingStrategy": "StrictFIFO",
                "admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"},
                "resourceGroups": [group(["cpu"], ("default-flavor", [quota("cpu", 9)]))],
            },
        ),
        local_queue("default", "lq-a", "cluster-queue", fairSharing={"weight": "1"}),
        local_queue("default", "lq-b", "cluster-queue", fairSharing={"weight": "1"}),
    ],
    ADMISSION_FAIR_SHARING,
)

# site/static/examples/provisioning/provisioning-setup.yaml (v0.19.2)
PROVISIONING = Example(
    EXAMPLES + "provisioning/provisioning-setup.yaml",
    [
        DEFAULT_FLAVOR,
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["cpu", "memory", "nvidia.com/gpu"],
                        ("default-flavor", [quota("cpu", 9), quota("memory", "36Gi"), quota("nvidia.com/gpu", 9)]),
                    )
                ],
                "admissionChecksStrategy": {
                    "admissionChecks": [{"name": "sample-prov", "onFlavors": ["default-flavor"]}]
                },
            },
        ),
        local_queue("default", "user-queue", "cluster-queue"),
        kueue(
            "AdmissionCheck",
            "sample-prov",
            {
                "controllerName": "kueue.x-k8s.io/provisioning-request",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "ProvisioningRequestConfig",
                    "name": "prov-test-config",
                },
            },
        ),
        kueue(
            "ProvisioningRequestConfig",
            "prov-test-config",
            {
                "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                "managedResources": ["nvidia.com/gpu"],
                "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 0, "backoffMaxSeconds": 1800},
            },
        ),
    ],
)

# site/static/examples/sample-admission-check.yaml (v0.19.2)
ADMISSION_CHECK = Example(
    EXAMPLES + "sample-admission-check.yaml",
    [
        kueue(
            "AdmissionCheck",
            "prov-test",
            {
                "controllerName": "ProvisioningRequestController",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "ProvisioningRequestConfig",
                    "name": "prov-test-config",
                },
            },
        ),
        kueue(
            "ProvisioningRequestConfig",
            "prov-test-config",
            {"provisioningClassName": "test-class", "parameters": {"parma1": "value1"}},
        ),
    ],
)

# site/static/examples/serving-workloads/sample-hami.yaml (v0.19.2): its Kueue objects and Namespace, not the
# Deployment; the manager transformations are those of site/content/en/docs/tasks/run/using_hami.md.
HAMI = Example(
    EXAMPLES + "serving-workloads/sample-hami.yaml",
    [
        kueue("ResourceFlavor", "hami-flavor", {"nodeLabels": {"gpu": "on"}}),
        kueue(
            "ClusterQueue",
            "hami-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["nvidia.com/gpu", "nvidia.com/total-gpucores", "nvidia.com/total-gpumem"],
                        (
                            "hami-flavor",
                            [
                                quota("nvidia.com/gpu", 20),
                                quota("nvidia.com/total-gpucores", 600),
                                quota("nvidia.com/total-gpumem", 20480),
                            ],
                        ),
                    )
                ],
            },
        ),
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-test"}},
        local_queue("kueue-test", "user-queue", "hami-queue"),
    ],
    {
        "resources": {
            "transformations": [
                {
                    "input": "nvidia.com/gpucores",
                    "strategy": "Replace",
                    "multiplyBy": "nvidia.com/gpu",
                    "outputs": {"nvidia.com/total-gpucores": "1"},
                },
                {
                    "input": "nvidia.com/gpumem",
                    "strategy": "Replace",
                    "multiplyBy": "nvidia.com/gpu",
                    "outputs": {"nvidia.com/total-gpumem": "1"},
                },
            ]
        }
    },
)

TAS_TOPOLOGY = kueue(
    "Topology",
    "default",
    {
        "levels": [
            {"nodeLabel": "cloud.provider.com/topology-block"},
            {"nodeLabel": "cloud.provider.com/topology-rack"},
            {"nodeLabel": "kubernetes.io/hostname"},
        ]
    },
)
TAS_FLAVOR_SPEC = {"nodeLabels": {"cloud.provider.com/node-group": "tas-group"}, "topologyName": "default"}

# site/static/examples/tas/sample-queues.yaml (v0.19.2)
TAS = Example(
    EXAMPLES + "tas/sample-queues.yaml",
    [
        TAS_TOPOLOGY,
        kueue("ResourceFlavor", "tas-flavor", TAS_FLAVOR_SPEC),
        kueue(
            "ClusterQueue",
            "tas-cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(["cpu", "memory"], ("tas-flavor", [quota("cpu", 100), quota("memory", "100Gi")]))
                ],
            },
        ),
        local_queue("default", "tas-user-queue", "tas-cluster-queue"),
    ],
)

# site/static/examples/tas/sample-gpu-queues.yaml (v0.19.2)
TAS_GPU = Example(
    EXAMPLES + "tas/sample-gpu-queues.yaml",
    [
        TAS_TOPOLOGY,
        kueue(
            "ResourceFlavor",
            "tas-flavor",
            TAS_FLAVOR_SPEC
            | {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
        ),
        kueue(
            "ClusterQueue",
            "tas-cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["cpu", "memory", "nvidia.com/gpu"],
                        ("tas-flavor", [quota("cpu", 100), quota("memory", "100Gi"), quota("nvidia.com/gpu", 16)]),
                    )
                ],
            },
        ),
        local_queue("default", "tas-user-queue", "tas-cluster-queue"),
    ],
)

ADMINISTER_QUOTAS = DOCS + "tasks/manage/administer_cluster_quotas.md"
CLUSTER_QUEUE_PAGE = DOCS + "concepts/cluster_queue.md"
COHORT_PAGE = DOCS + "concepts/cohort.md"
X86 = kueue("ResourceFlavor", "x86", {"nodeLabels": {"cpu-arch": "x86"}})
ARM = kueue("ResourceFlavor", "arm", {"nodeLabels": {"cpu-arch": "arm"}})

# site/content/en/docs/tasks/manage/administer_cluster_quotas.md (v0.19.2), "Multiple ResourceFlavors setup"
MULTIPLE_FLAVORS = Example(
    ADMINISTER_QUOTAS,
    [
        DEFAULT_FLAVOR,
        X86,
        ARM,
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(["cpu"], ("x86", [quota("cpu", 9)]), ("arm", [quota("cpu", 12)])),
                    group(["memory"], ("default-flavor", [quota("memory", "84Gi")])),
                ],
            },
        ),
    ],
)


def team_queue(name: str, *groups: dict[str, Any]) -> Manifest:
    """A ClusterQueue of the docs' cohort examples: every namespace, in the cohort ``team-ab``, with ``groups``."""
    return kueue(
        "ClusterQueue", name, {"namespaceSelector": {}, "cohortName": "team-ab", "resourceGroups": list(groups)}
    )


# site/content/en/docs/tasks/manage/administer_cluster_quotas.md (v0.19.2), "Multiple ClusterQueues and borrowing
# cohorts" (default-flavor from the page's single-ClusterQueue set-up)
COHORT_BORROWING = Example(
    ADMINISTER_QUOTAS,
    [
        DEFAULT_FLAVOR,
        team_queue(
            "team-a-cq",
            group(
                ["cpu", "memory"],
                (
                    "default-flavor",
                    [quota("cpu", 9, borrowingLimit=6), quota("memory", "36Gi", borrowingLimit="24Gi")],
                ),
            ),
        ),
        team_queue(
            "team-b-cq", group(["cpu", "memory"], ("default-flavor", [quota("cpu", 12), quota("memory", "48Gi")]))
        ),
    ],
)

# site/content/en/docs/tasks/manage/administer_cluster_quotas.md (v0.19.2), "Multiple ClusterQueue with dedicated and
# fallback flavors"
COHORT_FLAVORS = Example(
    ADMINISTER_QUOTAS,
    [
        ARM,
        X86,
        DEFAULT_FLAVOR,
        team_queue(
            "team-a-cq",
            group(["cpu"], ("arm", [quota("cpu", 9, borrowingLimit=0)]), ("x86", [quota("cpu", 0)])),
            group(["memory"], ("default-flavor", [quota("memory", "36Gi")])),
        ),
        team_queue(
            "team-b-cq",
            group(["cpu"], ("arm", [quota("cpu", 12, borrowingLimit=0)]), ("x86", [quota("cpu", 0)])),
            group(["memory"], ("default-flavor", [quota("memory", "48Gi")])),
        ),
        team_queue(
            "shared-cq",
            group(["cpu"], ("x86", [quota("cpu", 6)])),
            group(["memory"], ("default-flavor", [quota("memory", "24Gi")])),
        ),
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), the first ClusterQueue ("ClusterQueue")
CLUSTERQUEUE_PODS = Example(
    CLUSTER_QUEUE_PAGE,
    [
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["cpu", "memory", "pods"],
                        ("default-flavor", [quota("cpu", 9), quota("memory", "36Gi"), quota("pods", 5)]),
                    )
                ],
            },
        )
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "Resource Groups"
MULTI_GROUP_CLUSTERQUEUE = Example(
    CLUSTER_QUEUE_PAGE,
    [
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["cpu", "memory", "foo.com/gpu"],
                        ("spot", [quota("cpu", 9), quota("memory", "36Gi"), quota("foo.com/gpu", 50)]),
                        ("on-demand", [quota("cpu", 18), quota("memory", "72Gi"), quota("foo.com/gpu", 100)]),
                    ),
                    group(
                        ["bar.com/license"],
                        ("pool1", [quota("bar.com/license", 10)]),
                        ("pool2", [quota("bar.com/license", 10)]),
                    ),
                ],
            },
        )
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "Borrowing example"
COHORT_PAIR = Example(
    CLUSTER_QUEUE_PAGE,
    [
        team_queue(
            "team-a-cq", group(["cpu", "memory"], ("default-flavor", [quota("cpu", 9), quota("memory", "36Gi")]))
        ),
        team_queue(
            "team-b-cq", group(["cpu", "memory"], ("default-flavor", [quota("cpu", 12), quota("memory", "48Gi")]))
        ),
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "LendingLimit"
COHORT_LENDING = Example(
    CLUSTER_QUEUE_PAGE,
    [
        team_queue("team-a-cq", group(["cpu"], ("default-flavor", [quota("cpu", 9)]))),
        team_queue("team-b-cq", group(["cpu"], ("default-flavor", [quota("cpu", 12, lendingLimit=1)]))),
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "Preemption"
PREEMPTION = Example(
    CLUSTER_QUEUE_PAGE,
    [
        kueue(
            "ClusterQueue",
            "team-a-cq",
            {
                "preemption": {
                    "reclaimWithinCohort": "Any",
                    "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
                    "withinClusterQueue": "LowerPriority",
                }
            },
        )
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "FlavorFungibility"
FLAVOR_FUNGIBILITY = Example(
    CLUSTER_QUEUE_PAGE,
    [
        kueue(
            "ClusterQueue",
            "team-a-cq",
            {"flavorFungibility": {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "MayStopSearch"}},
        )
    ],
)

# site/content/en/docs/concepts/cluster_queue.md (v0.19.2), "StopPolicy"
STOP_POLICY = Example(CLUSTER_QUEUE_PAGE, [kueue("ClusterQueue", "team-a-cq", {"stopPolicy": "Hold"})])

# site/content/en/docs/concepts/cohort.md (v0.19.2), "Hello, Cohorts"
COHORT_HELLO = Example(
    COHORT_PAGE,
    [kueue("Cohort", "hello-cohort"), kueue("ClusterQueue", "my-cluster-queue", {"cohortName": "hello-cohort"})],
)

# site/content/en/docs/concepts/cohort.md (v0.19.2), "Configuring Quotas"
COHORT_QUOTA = Example(
    COHORT_PAGE,
    [
        kueue("Cohort", "hello-cohort", {"resourceGroups": [group(["cpu"], ("default-flavor", [quota("cpu", 12)]))]}),
        kueue(
            "ClusterQueue",
            "my-cluster-queue",
            {"cohortName": "hello-cohort", "resourceGroups": [group(["cpu"], ("default-flavor", [quota("cpu", 0)]))]},
        ),
    ],
)

# site/content/en/docs/concepts/cohort.md (v0.19.2), "Hierarchical Cohorts"; fair sharing with its default
# preemption strategies, as site/content/en/docs/concepts/preemption.md ("Fair Sharing") writes them out.
FAIR_SHARING = Example(
    COHORT_PAGE,
    [
        kueue("Cohort", "root-cohort"),
        kueue("Cohort", "important-org", {"parentName": "root-cohort", "fairSharing": {"weight": "0.75"}}),
        kueue("Cohort", "regular-org", {"parentName": "root-cohort", "fairSharing": {"weight": "0.25"}}),
    ],
    {"fairSharing": {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]}},
)

# site/content/en/docs/concepts/workload_priority_class.md (v0.19.2); the same object as in
# site/content/en/docs/tasks/manage/run_job_with_workload_priority.md. The one kind without a spec.
PRIORITIES = Example(
    DOCS + "concepts/workload_priority_class.md",
    [
        {
            "apiVersion": API_VERSION,
            "kind": "WorkloadPriorityClass",
            "metadata": {"name": "sample-priority"},
            "value": 10000,
            "description": "Sample priority",
        }
    ],
)

# site/content/en/docs/concepts/local_queue.md (v0.19.2)
LOCAL_QUEUE = Example(DOCS + "concepts/local_queue.md", [local_queue("team-a", "team-a-queue", "cluster-queue")])

# site/content/en/docs/concepts/admission_fair_sharing.md (v0.19.2), "LocalQueue configuration" and "Example
# configuration"
LOCAL_QUEUE_FAIR_SHARING = Example(
    DOCS + "concepts/admission_fair_sharing.md",
    [local_queue("team-a", "team-a-queue", "shared-queue", fairSharing={"weight": "2"})],
    ADMISSION_FAIR_SHARING,
)

# site/content/en/docs/concepts/topology.md (v0.19.2)
TOPOLOGY = Example(
    DOCS + "concepts/topology.md",
    [
        kueue(
            "Topology",
            "default",
            {
                "levels": [
                    {"nodeLabel": "topology.kubernetes.io/zone"},
                    {"nodeLabel": "cloud.provider.com/topology-block"},
                    {"nodeLabel": "cloud.provider.com/topology-rack"},
                    {"nodeLabel": "kubernetes.io/hostname"},
                ]
            },
        ),
        kueue("ResourceFlavor", "tas-flavor", TAS_FLAVOR_SPEC),
    ],
)

# site/content/en/docs/concepts/admission_check/_index.md (v0.19.2)
ADMISSION_CHECK_PROVISIONING = Example(
    DOCS + "concepts/admission_check/_index.md",
    [
        kueue(
            "AdmissionCheck",
            "prov-test",
            {
                "controllerName": "kueue.x-k8s.io/provisioning-request",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "ProvisioningRequestConfig",
                    "name": "prov-test-config",
                },
            },
        )
    ],
)

# site/content/en/docs/concepts/admission_check/provisioning_request.md (v0.19.2)
PROVISIONING_REQUEST_CONFIG = Example(
    DOCS + "concepts/admission_check/provisioning_request.md",
    [
        kueue(
            "ProvisioningRequestConfig",
            "prov-test-config",
            {
                "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
                "managedResources": ["nvidia.com/gpu"],
                "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 60, "backoffMaxSeconds": 1800},
                "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements",
            },
        )
    ],
)

# site/content/en/docs/tasks/manage/share_quotas_across_flavors.md (v0.19.2), "Assign different costs to different
# flavors"
GPU_CREDITS = Example(
    DOCS + "tasks/manage/share_quotas_across_flavors.md",
    [
        kueue(
            "ClusterQueue",
            "team-cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(["nvidia.com/gpu-a100"], ("a100", [quota("nvidia.com/gpu-a100", 8)])),
                    group(["nvidia.com/gpu-v100"], ("v100", [quota("nvidia.com/gpu-v100", 16)])),
                    group(["nvidia.com/gpu-t4"], ("t4", [quota("nvidia.com/gpu-t4", 32)])),
                    group(["gpu_credits"], ("credits", [quota("gpu_credits", 500)])),
                ],
            },
        )
    ],
    {
        "resources": {
            "transformations": [
                {"input": f"nvidia.com/gpu-{model}", "strategy": "Replace", "outputs": {"gpu_credits": credits}}
                for model, credits in (("a100", 100), ("v100", 40), ("t4", 10))
            ]
        }
    },
)

MANAGE = DOCS + "tasks/manage/"

# site/content/en/docs/tasks/manage/setup_wait_for_pods_ready.md (v0.19.2), "Configure ClusterQueue quotas", with the
# waitForPodsReady of "Configuring waitForPodsReady" (30m and 30m since v0.19.0; timestamp: Eviction, the default
# of its "Eviction | Creation").
WAIT_FOR_PODS_READY = Example(
    MANAGE + "setup_wait_for_pods_ready.md",
    [
        DEFAULT_FLAVOR,
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [group(["memory"], ("default-flavor", [quota("memory", "16858Mi")]))],
            },
        ),
        local_queue("default", "user-queue", "cluster-queue"),
    ],
    {
        "waitForPodsReady": {
            "timeout": "30m",
            "recoveryTimeout": "30m",
            "blockAdmission": False,
            "requeuingStrategy": {
                "timestamp": "Eviction",
                "backoffLimitCount": 5,
                "backoffBaseSeconds": 60,
                "backoffMaxSeconds": 3600,
            },
        }
    },
)

# site/content/en/docs/tasks/manage/setup_object_retention_policy.md (v0.19.2): the queues of scenarios A and B, with
# the manager settings of "Example" / "Kueue Configuration".
OBJECT_RETENTION = Example(
    MANAGE + "setup_object_retention_policy.md",
    [
        kueue(
            "ClusterQueue",
            name,
            {
                "namespaceSelector": {},
                "resourceGroups": [group(["cpu"], ("objectretention-rf", [quota("cpu", cpu)]))],
            },
        )
        for name, cpu in (("successful-cq", "2"), ("limited-cq", "100"))
    ]
    + [
        local_queue("default", "successful-lq", "successful-cq"),
        local_queue("default", "limited-lq", "limited-cq"),
    ],
    {
        "objectRetentionPolicies": {"workloads": {"afterFinished": "1m", "afterDeactivatedByKueue": "1m"}},
        "waitForPodsReady": {
            "timeout": "2m",
            "recoveryTimeout": "1m",
            "blockAdmission": False,
            "requeuingStrategy": {"backoffLimitCount": 0},
        },
    },
)

# site/content/en/docs/tasks/manage/observability/configure_custom_metric_labels.md (v0.19.2), "Example: label by
# team", with the Configuration of "Configure custom labels" (v0.19.2 adds the Workload label workload_type).
CUSTOM_METRIC_LABELS = Example(
    MANAGE + "observability/configure_custom_metric_labels.md",
    [
        kueue(
            "ClusterQueue",
            "engineering-cq",
            {"resourceGroups": [group(["cpu"], ("default", [quota("cpu", 10)]))]},
            labels={"team": "platform"},
        )
    ],
    {
        "featureGates": {"CustomMetricLabels": True},
        "metrics": {
            "customLabels": [
                {"name": "team"},
                {"name": "cost_center", "sourceLabelKey": "billing/cost-center"},
                {"name": "budget", "sourceAnnotationKey": "billing.example.com/budget"},
                {
                    "name": "workload_type",
                    "sourceKind": "Workload",
                    "sourceLabelKey": "company.com/workload-type",
                    "trackedValues": ["inference", "training"],
                },
            ]
        },
    },
)

# site/static/examples/getting-started/quick-start-setup.yaml (v0.19.2, new since v0.17.8)
QUICK_START = Example(
    EXAMPLES + "getting-started/quick-start-setup.yaml",
    [
        DEFAULT_FLAVOR,
        cpu_memory_queue("cluster-queue", "default-flavor", 9, "9Gi"),
        local_queue("default", "user-queue", "cluster-queue"),
    ],
)

# site/static/examples/admin/concurrent-admission-setup.yaml (v0.19.2, new since v0.17.8), with the gate of
# site/content/en/docs/concepts/concurrent_admission.md.
CONCURRENT_ADMISSION = Example(
    EXAMPLES + "admin/concurrent-admission-setup.yaml",
    [
        *(kueue("ResourceFlavor", name) for name in ("reservation", "on-demand", "spot")),
        kueue(
            "ClusterQueue",
            "team-cluster-queue",
            {
                "namespaceSelector": {},
                "concurrentAdmissionPolicy": {"migration": {"mode": "TryPreferredFlavors"}},
                "resourceGroups": [
                    group(
                        ["cpu", "memory"],
                        ("reservation", [quota("cpu", 4), quota("memory", "16Gi")]),
                        ("on-demand", [quota("cpu", 8), quota("memory", "32Gi")]),
                        ("spot", [quota("cpu", 16), quota("memory", "64Gi")]),
                    )
                ],
            },
        ),
        local_queue("default", "team-queue", "team-cluster-queue"),
    ],
    {"featureGates": {"ConcurrentAdmission": True}},
)


def dra_queues(resource: str, amount: str) -> list[Manifest]:
    """The objects of site/static/examples/dra/sample-dra*-queues.yaml (v0.19.2): one flavor, cpu, memory and the DRA
    resource."""
    return [
        DEFAULT_FLAVOR,
        kueue(
            "ClusterQueue",
            "cluster-queue",
            {
                "namespaceSelector": {},
                "resourceGroups": [
                    group(
                        ["cpu", "memory", resource],
                        ("default-flavor", [quota("cpu", 40), quota("memory", "200Gi"), quota(resource, amount)]),
                    )
                ],
            },
        ),
        local_queue("default", "user-queue", "cluster-queue"),
    ]


DRA_SELECTOR = {"cel": {"expression": "device.driver == 'gpu.example.com'"}}
# The three DRA set-ups of site/content/en/docs/tasks/manage/setup_dra.md (v0.19.2), each with its queues file: device
# count, counter-based (partitionable devices) and capacity-based (consumable capacity, alpha).
DRA_DEVICES = Example(
    EXAMPLES + "dra/sample-dra-queues.yaml",
    dra_queues("example.com/gpu", "8"),
    {"resources": {"deviceClassMappings": [{"name": "example.com/gpu", "deviceClassNames": ["gpu.example.com"]}]}},
)
DRA_COUNTER = Example(
    EXAMPLES + "dra/sample-dra-counter-queues.yaml",
    dra_queues("gpu.memory", "800Gi"),
    {
        "resources": {
            "deviceClassMappings": [
                {
                    "name": "gpu.memory",
                    "deviceClassNames": ["gpu.example.com"],
                    "sources": [
                        {"counter": {"name": "memory", "driver": "gpu.example.com", "deviceSelector": DRA_SELECTOR}}
                    ],
                }
            ]
        }
    },
)
DRA_CAPACITY = Example(
    EXAMPLES + "dra/sample-dra-capacity-queues.yaml",
    dra_queues("gpu.memory", "800Gi"),
    {
        "featureGates": {"KueueDRAIntegrationConsumableCapacity": True},
        "resources": {
            "deviceClassMappings": [
                {
                    "name": "gpu.memory",
                    "deviceClassNames": ["gpu.example.com"],
                    "sources": [
                        {
                            "capacity": {
                                "name": "gpu.example.com/memory",
                                "driver": "gpu.example.com",
                                "deviceSelector": DRA_SELECTOR,
                            }
                        }
                    ],
                }
            ]
        },
    },
)

GALLERY: dict[str, Example] = {
    "single-clusterqueue": SINGLE_CLUSTERQUEUE,
    "shared-quota": SHARED_QUOTA,
    "flavor-empty": FLAVOR_EMPTY,
    "flavor-taints": FLAVOR_TAINTS,
    "flavor-tolerations": FLAVOR_TOLERATIONS,
    "admission-fair-sharing": ADMISSION_FAIR_SHARING_SETUP,
    "provisioning": PROVISIONING,
    "admission-check": ADMISSION_CHECK,
    "hami": HAMI,
    "tas": TAS,
    "tas-gpu": TAS_GPU,
    "multiple-flavors": MULTIPLE_FLAVORS,
    "cohort-borrowing": COHORT_BORROWING,
    "cohort-flavors": COHORT_FLAVORS,
    "clusterqueue-pods": CLUSTERQUEUE_PODS,
    "multi-group-clusterqueue": MULTI_GROUP_CLUSTERQUEUE,
    "cohort-pair": COHORT_PAIR,
    "cohort-lending": COHORT_LENDING,
    "preemption": PREEMPTION,
    "flavor-fungibility": FLAVOR_FUNGIBILITY,
    "stop-policy": STOP_POLICY,
    "cohort-hello": COHORT_HELLO,
    "cohort-quota": COHORT_QUOTA,
    "fair-sharing": FAIR_SHARING,
    "priorities": PRIORITIES,
    "local-queue": LOCAL_QUEUE,
    "local-queue-fair-sharing": LOCAL_QUEUE_FAIR_SHARING,
    "topology": TOPOLOGY,
    "admission-check-provisioning": ADMISSION_CHECK_PROVISIONING,
    "provisioning-request-config": PROVISIONING_REQUEST_CONFIG,
    "gpu-credits": GPU_CREDITS,
    "wait-for-pods-ready": WAIT_FOR_PODS_READY,
    "object-retention": OBJECT_RETENTION,
    "custom-metric-labels": CUSTOM_METRIC_LABELS,
    "quick-start": QUICK_START,
    "concurrent-admission": CONCURRENT_ADMISSION,
    "dra-devices": DRA_DEVICES,
    "dra-counter": DRA_COUNTER,
    "dra-capacity": DRA_CAPACITY,
}
"""Every gallery stack, by the name in ``examples/kueue/Pulumi.<name>.yaml``, and the set-up it reproduces."""


@dataclasses.dataclass(frozen=True)
class Refused:
    """An upstream set-up Kueue 0.17.8 refuses: the program must refuse its config too, naming ``key``."""

    name: str
    source: str
    sections: dict[str, Any]
    """The stack's ``queues``/``kueue`` sections that express the upstream objects."""
    key: str
    """The config key the error names (without the ``elastic-capacity:`` prefix)."""
    rule: str
    """Where Kueue refuses it."""


NO_DEFAULT_QUEUES: dict[str, Any] = {
    "namespaces": [],
    "resourceFlavors": [],
    "provisioningChecks": [],
    "localQueues": [],
}
"""Queue sections that replace the program's default objects, so only the upstream ones remain."""

REFUSED = [
    # site/static/examples/admin/minimal-cq.yaml (v0.19.2, same at v0.17.8): onFlavors names default-flavor, which the
    # queue lacks.
    Refused(
        "minimal-cq",
        EXAMPLES + "admin/minimal-cq.yaml",
        {
            "queues": NO_DEFAULT_QUEUES
            | {
                "external": {
                    "resourceFlavors": ["default-flavor"],
                    "admissionChecks": ["sample-prov", "sample-prov-2"],
                },
                "clusterQueues": [
                    {
                        "name": "cluster-queue-2",
                        "namespaceSelector": {},
                        "admissionChecksStrategy": {
                            "admissionChecks": [
                                {"name": "sample-prov", "onFlavors": ["default-flavor"]},
                                {"name": "sample-prov-2"},
                            ]
                        },
                    }
                ],
            }
        },
        "queues.clusterQueues[0].admissionChecksStrategy.admissionChecks[0].onFlavors[0]",
        "validateAdmissionCheckOnFlavors in pkg/webhooks/clusterqueue_webhook.go (since Kueue 0.17.1)",
    ),
    # site/content/en/docs/concepts/cluster_queue.md (v0.19.2, same at v0.17.8), "BorrowingLimit": both queues cover cpu
    # and memory but list quota for cpu alone.
    Refused(
        "cluster-queue-borrowing-limit",
        CLUSTER_QUEUE_PAGE,
        {
            "queues": NO_DEFAULT_QUEUES
            | {
                "external": {"resourceFlavors": ["default-flavor"]},
                "clusterQueues": [
                    {
                        "name": name,
                        "namespaceSelector": {},
                        "cohortName": "team-ab",
                        "resourceGroups": [
                            {
                                "coveredResources": ["cpu", "memory"],
                                "flavors": [{"name": "default-flavor", "resources": [resource]}],
                            }
                        ],
                    }
                    for name, resource in (
                        ("team-a-cq", quota("cpu", 9, borrowingLimit=1)),
                        ("team-b-cq", quota("cpu", 12)),
                    )
                ],
            }
        },
        "queues.clusterQueues[0].resourceGroups[0].flavors[0].resources",
        'CEL rule "flavors must have the same number of resources as the coveredResources" on ClusterQueue '
        "spec.resourceGroups[] in config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml",
    ),
]
