"""A queue set-up that uses every part of the ``queues`` section, a way to change one key of it, and the keys a
broken one is rejected for."""

from __future__ import annotations

import copy
import functools
import operator
from typing import Any

from components.config.queues.queues import QueuesConfig
from tests.support.config import model_error_keys

GENERAL: dict[str, Any] = {
    "namespaces": ["team-a", "team-b"],
    "resourceFlavors": [
        {"name": "scalepool", "nodeLabels": {"agentpool": "scalepool"}},
        {
            "name": "gpu-a100",
            "nodeLabels": {"agentpool": "gpupool", "kubernetes.azure.com/accelerator": "nvidia"},
            "nodeTaints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}],
        },
        {"name": "on-demand", "nodeLabels": {"agentpool": "fixedpool"}},
    ],
    "provisioningChecks": [
        {"name": "cpu-provisioning", "configName": "cpu-provreq-config", "managedResources": ["cpu"]},
        {
            "name": "gpu-provisioning",
            "configName": "gpu-provreq-config",
            "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
            "managedResources": ["nvidia.com/gpu"],
            "retryStrategy": {"backoffLimitCount": 2, "backoffBaseSeconds": 30, "backoffMaxSeconds": 600},
            "parameters": {"maxRunDurationSeconds": "3600"},
        },
    ],
    "cohorts": [
        {"name": "org"},
        {
            "name": "shared-cohort",
            "parentName": "org",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "scalepool",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "8", "borrowingLimit": "8"},
                                {"name": "memory", "nominalQuota": "32Gi"},
                            ],
                        }
                    ],
                }
            ],
        },
    ],
    "clusterQueues": [
        {
            "name": "team-a-cq",
            "cohortName": "shared-cohort",
            "preemption": {
                "withinClusterQueue": "LowerPriority",
                "reclaimWithinCohort": "Any",
                "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 100},
            },
            "flavorFungibility": {
                "whenCanBorrow": "TryNextFlavor",
                "whenCanPreempt": "TryNextFlavor",
                "preference": "BorrowingOverPreemption",
            },
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "on-demand",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "48", "lendingLimit": "16"},
                                {"name": "memory", "nominalQuota": "768Gi"},
                            ],
                        },
                        {
                            "name": "scalepool",
                            "resources": [
                                {"name": "cpu", "nominalQuota": 48, "borrowingLimit": "48"},
                                {"name": "memory", "nominalQuota": "768Gi", "borrowingLimit": "768Gi"},
                            ],
                        },
                    ],
                },
                {
                    "coveredResources": ["nvidia.com/gpu"],
                    "flavors": [
                        {"name": "gpu-a100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]},
                    ],
                },
            ],
            "admissionChecksStrategy": {
                "admissionChecks": [
                    {"name": "cpu-provisioning", "onFlavors": ["scalepool"]},
                    {"name": "gpu-provisioning", "onFlavors": ["gpu-a100"]},
                ]
            },
        },
        {
            "name": "team-b-cq",
            "cohortName": "shared-cohort",
            "namespaceSelector": {
                "matchLabels": {"team": "b"},
                "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-b"]}],
            },
            "queueingStrategy": "StrictFIFO",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": "scalepool",
                            "resources": [
                                {"name": "cpu", "nominalQuota": "16"},
                                {"name": "memory", "nominalQuota": "64Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "cpu-provisioning"}]},
        },
    ],
    "localQueues": [
        {"name": "team-a", "namespace": "team-a", "clusterQueue": "team-a-cq"},
        {"name": "gpu", "namespace": "team-a", "clusterQueue": "team-a-cq"},
        {"name": "team-b", "namespace": "team-b", "clusterQueue": "team-b-cq"},
    ],
}
"""Several flavors (one without a provisioning check), two checks, a cohort tree with borrowing and lending limits,
preemption, flavor fungibility, a namespace selector and several LocalQueues: every optional field in use."""

DELETE = object()

PROVISIONING_CONFIG_REF = {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "capacity-check"}
EVERY_KIND: dict[str, Any] = {
    **GENERAL,
    "existingNamespaces": ["default"],
    "topologies": [
        {
            "name": "gpu-topology",
            "levels": [
                {"nodeLabel": "cloud.example.com/topology-block"},
                {"nodeLabel": "cloud.example.com/topology-rack"},
                {"nodeLabel": "kubernetes.io/hostname"},
            ],
        }
    ],
    "resourceFlavors": [
        *GENERAL["resourceFlavors"],
        {"name": "tas-flavor", "nodeLabels": {"cloud.example.com/node-group": "tas"}, "topologyName": "gpu-topology"},
    ],
    "workloadPriorityClasses": [{"name": "high", "value": 1000, "description": "production batch"}],
    "provisioningRequestConfigs": [
        {
            "name": "capacity-check",
            "provisioningClassName": "check-capacity.autoscaling.x-k8s.io",
            "managedResources": ["cpu"],
            "podSetMergePolicy": "IdenticalWorkloadSchedulingRequirements",
            "podSetUpdates": {
                "nodeSelector": [{"key": "cloud.example.com/block", "valueFromProvisioningClassDetail": "block"}]
            },
            "retryStrategy": {"backoffBaseSeconds": 0},
        }
    ],
    "admissionChecks": [
        {
            "name": "capacity",
            "controllerName": "kueue.x-k8s.io/provisioning-request",
            "parameters": PROVISIONING_CONFIG_REF,
        },
        {"name": "approval", "controllerName": "example.com/approval"},
    ],
    "external": {"resourceFlavors": ["shared-spot"], "admissionChecks": ["org-approval"], "clusterQueues": ["org-cq"]},
    "cohorts": [GENERAL["cohorts"][0], {**GENERAL["cohorts"][1], "fairSharing": {"weight": "2"}}],
    "clusterQueues": [
        {**GENERAL["clusterQueues"][0], "fairSharing": {"weight": "1.5"}, "stopPolicy": "None"},
        {**GENERAL["clusterQueues"][1], "admissionScope": {"admissionMode": "UsageBasedAdmissionFairSharing"}},
        {
            "name": "tas-cq",
            "labels": {"team": "platform"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {"name": "tas-flavor", "resources": [{"name": "cpu", "nominalQuota": "8"}]},
                        {"name": "shared-spot", "resources": [{"name": "cpu", "nominalQuota": "4"}]},
                    ],
                }
            ],
            "admissionChecksStrategy": {
                "admissionChecks": [
                    {"name": "capacity", "onFlavors": ["tas-flavor"]},
                    {"name": "approval"},
                    {"name": "org-approval"},
                ]
            },
        },
        {"name": "drained", "namespaceSelector": None, "stopPolicy": "HoldAndDrain"},
    ],
    "localQueues": [
        *GENERAL["localQueues"],
        {"name": "user-queue", "namespace": "default", "clusterQueue": "tas-cq", "stopPolicy": "Hold"},
        {"name": "org", "namespace": "default", "clusterQueue": "org-cq"},
        {"name": "fair", "namespace": "team-b", "clusterQueue": "team-b-cq", "fairSharing": {"weight": "2"}},
    ],
}
""":data:`GENERAL` plus every kind and field it leaves out: a topology and a flavor using it, a priority class, a
standalone ProvisioningRequestConfig with pod set updates, checks of any controller, external objects and an existing
namespace, fair-sharing weights, an admission scope, stop policies, a queue without quota or namespace selector."""
EVERY_KIND_MANAGER: dict[str, Any] = {"fairSharing": {}, "admissionFairSharing": {"usageHalfLifeTime": "168h"}}
CONCURRENT_ADMISSION: dict[str, Any] = {
    "resourceFlavors": [{"name": "reservation"}, {"name": "spot"}],
    "clusterQueues": [
        {
            "name": "migrating",
            "concurrentAdmissionPolicy": {
                "migration": {"mode": "TryPreferredFlavors", "constraints": {"lastAcceptableFlavorName": "reservation"}}
            },
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {"name": "reservation", "resources": [{"name": "cpu", "nominalQuota": "4"}]},
                        {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": "16"}]},
                    ],
                }
            ],
        }
    ],
}
"""A ClusterQueue with Kueue 0.18's concurrent admission policy, which :data:`EVERY_KIND` (loaded at 0.17 too) cannot
hold; its manager needs ``featureGates.ConcurrentAdmission: true``."""
"""The ``kueue`` settings :data:`EVERY_KIND`'s fair-sharing fields need."""


def edited(base: dict[str, Any], *changes: tuple[str, Any]) -> dict[str, Any]:
    """A deep copy of ``base`` with ``("clusterQueues.0.cohortName", value)`` changes applied (``DELETE`` removes; an
    index one past the end appends)."""
    out = copy.deepcopy(base)
    for path, value in changes:
        *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
        target = functools.reduce(operator.getitem, parents, out)
        if value is DELETE:
            del target[last]
        elif isinstance(target, list) and last == len(target):
            target.append(value)
        else:
            target[last] = value
    return out


def queues_error_keys(section: dict[str, Any]) -> list[str]:
    """The full keys (``queues.…``) the ``queues`` section is rejected for."""
    return model_error_keys(QueuesConfig, section, "queues")


MULTIKUEUE_OBJECTS: dict[str, Any] = {
    "admissionChecks": [
        {
            "name": "dispatch",
            "controllerName": "kueue.x-k8s.io/multikueue",
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "workers"},
        }
    ],
    "multiKueueConfigs": [{"name": "workers", "clusters": ["onprem", "cloud"], "quotaManagement": "Manual"}],
    "multiKueueClusters": [
        {"name": "onprem", "clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "onprem-secret"}}},
        {
            "name": "cloud",
            "clusterSource": {
                "kubeConfig": {"locationType": "Path", "location": "/etc/multikueue/kubeconfigs/cloud.kubeconfig"}
            },
        },
    ],
}
"""A MultiKueue manager's queue objects: a check, an ordered MultiKueueConfig and two clusters whose kubeconfigs the
user provides, a Secret and a file (``quotaManagement`` needs Kueue 0.18)."""
