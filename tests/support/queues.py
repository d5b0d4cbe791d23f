"""A queue set-up that uses every part of the ``queues`` section, a way to change one key of it, and the keys a
broken one is rejected for."""

from __future__ import annotations

import copy
import functools
import operator
from typing import Any

from components.config.queues import QueuesConfig
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


def edited(base: dict[str, Any], *changes: tuple[str, Any]) -> dict[str, Any]:
    """A deep copy of ``base`` with ``("clusterQueues.0.cohortName", value)`` changes applied (``DELETE`` removes)."""
    out = copy.deepcopy(base)
    for path, value in changes:
        *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
        target = functools.reduce(operator.getitem, parents, out)
        if value is DELETE:
            del target[last]
        else:
            target[last] = value
    return out


def queues_error_keys(section: dict[str, Any]) -> list[str]:
    """The full keys (``queues.…``) the ``queues`` section is rejected for."""
    return model_error_keys(QueuesConfig, section, "queues")
