"""Kueue 0.17's feature gates: the names the manager knows, which ones are locked, and which need which.

The manager exits at start-up on an unknown gate (``unrecognized feature gate``), on a GA gate set false (``locked
to true``) and on a gate whose dependency is off (``validateFeatureGateDependency``): a crash-looping manager after
``helm upgrade`` rather than an error at apply time, so the same rules are checked here. Source:
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/features/kube_features.go and
https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/config/validation.go (``LoadAndValidateFeatureGates``).
"""

from __future__ import annotations

from components.config.base import RuleViolation, key_path

LOCKED_ON = [
    "LendingLimit",
    "MultiKueueBatchJobWithManagedBy",
    "LocalQueueDefaulting",
    "HierarchicalCohorts",
    "ObjectRetentionPolicies",
    "SanitizePodSets",
    "PropagateBatchJobLabelsToWorkload",
]
"""GA gates locked to true (to be removed in 0.19): setting one false stops the manager."""

DEFAULT_ON = [
    "PartialAdmission",
    "FlavorFungibility",
    "VisibilityOnDemand",
    "PrioritySortingWithinCohort",
    "FairSharingPreemptWithinNominal",
    "FairSharingPrioritizeNonBorrowing",
    "MultiKueue",
    "MultiKueueAdaptersForCustomJobs",
    "MultiKueueWaitForWorkloadAdmitted",
    "MultiKueueRedoAdmissionOnEvictionInWorker",
    "TopologyAwareScheduling",
    "TASProfileMixed",
    "TASFailedNodeReplacement",
    "TASFailedNodeReplacementFailFast",
    "TASReplaceNodeOnPodTermination",
    "TASReplaceNodeDueToNotReadyOverFixedTime",
    "TASReplaceNodeOnNodeTaints",
    "TASRecomputeAssignmentWithinSchedulingCycle",
    "TASCacheNodeMatchResults",
    "TASCachingRemainingResources",
    "LocalQueueMetrics",
    "AdmissionFairSharing",
    "ManagedJobsNamespaceSelectorAlwaysRespected",
    "ReclaimablePods",
    "SkipFinalizersForPodsSuspendedByParent",
    "TLSOptions",
    "RemoveFinalizersWithStrictPatch",
    "AssignQueueLabelsForPods",
    "CleanupProvisioningRequestsOnEviction",
    "DeferRayServiceFinalizationForRedisCleanup",
    "VectorizedResourceRequests",
]
"""Beta gates, on unless set false."""

DEFAULT_OFF = [
    "SchedulingEquivalenceHashing",
    "ElasticJobsViaWorkloadSlices",
    "ElasticJobsViaWorkloadSlicesWithTAS",
    "SkipReassignmentForPodOwnedWorkloads",
    "TASBalancedPlacement",
    "TASMultiLayerTopology",
    "TASHandleOverlappingFlavors",
    "DynamicResourceAllocation",
    "DRAExtendedResources",
    "WorkloadRequestUseMergePatch",
    "MultiKueueClusterProfile",
    "MultiKueueOrchestratedPreemption",
    "FailureRecoveryPolicy",
    "SchedulerLongRequeueInterval",
    "SchedulerTimestampPreemptionBuffer",
    "CustomMetricLabels",
    "SparkApplicationIntegration",
    "PriorityBoost",
    "AdmissionGatedBy",
    "ShortWorkloadNames",
    "FastQuotaReleaseInPodIntegration",
    "RejectUpdatesToCQWithInvalidOnFlavors",
    "FinishOrphanedWorkloads",
    "WorkloadIdentifierAnnotations",
    "MultiKueueAllowInsecureKubeconfigs",
]
"""Alpha (and one beta and one deprecated) gates, off unless set true."""

_TAS = "TopologyAwareScheduling"
REQUIRES: dict[str, tuple[str, ...]] = {
    "TASProfileMixed": (_TAS,),
    "TASHandleOverlappingFlavors": (_TAS,),
    "TASFailedNodeReplacement": (_TAS,),
    "TASBalancedPlacement": (_TAS,),
    "TASReplaceNodeOnNodeTaints": (_TAS,),
    "TASMultiLayerTopology": (_TAS,),
    "TASFailedNodeReplacementFailFast": (_TAS, "TASFailedNodeReplacement"),
    "TASReplaceNodeOnPodTermination": (_TAS, "TASFailedNodeReplacement"),
    "TASReplaceNodeDueToNotReadyOverFixedTime": (_TAS, "TASFailedNodeReplacement"),
    "ElasticJobsViaWorkloadSlicesWithTAS": ("ElasticJobsViaWorkloadSlices", _TAS),
    "DRAExtendedResources": ("DynamicResourceAllocation",),
}
"""Gates the manager refuses to run with while a gate they need is off."""

REMOVED = {
    "ProvisioningACC": "it went GA in Kueue 0.14 and was removed in 0.15 (https://github.com/kubernetes-sigs/kueue/pull/7465)",
    "FlavorFungibilityImplicitPreferenceDefault": "Kueue 0.17 removed it",
    "TASProfileLeastFreeCapacity": "Kueue 0.17 removed it",
    "ConfigurableResourceTransformations": "it went GA and was removed in Kueue 0.16; transformations need no gate",
    "ManagedJobsNamespaceSelector": "it went GA and was removed in Kueue 0.15; the selector needs no gate",
}
"""Gates of earlier releases people still copy: each refused with what happened to it."""

KNOWN = frozenset(LOCKED_ON + DEFAULT_ON + DEFAULT_OFF)


def effective(gates: dict[str, bool]) -> dict[str, bool]:
    """Every known gate's value once ``gates`` are applied over the defaults."""
    defaults = {name: True for name in LOCKED_ON + DEFAULT_ON} | {name: False for name in DEFAULT_OFF}
    return defaults | gates


def require_valid(gates: dict[str, bool]) -> None:
    """Raise :class:`RuleViolation` at ``featureGates.<name>`` for the first gate the 0.17 manager would exit on."""
    for name, on in gates.items():
        key = key_path("featureGates", name)
        if name in REMOVED:
            raise RuleViolation(key, on, REMOVED[name])
        if name not in KNOWN:
            raise RuleViolation(key, on, "Kueue 0.17 knows no such gate (https://kueue.sigs.k8s.io/docs/installation/)")
        if name in LOCKED_ON and not on:
            raise RuleViolation(key, on, "the gate is GA and locked to true in Kueue 0.17")
    values = effective(gates)
    for name, needs in REQUIRES.items():
        for need in needs:
            if values[name] and not values[need]:
                culprit = need if need in gates else name
                default = "" if name in gates else " by default"
                allowed = f"{name} is on{default} and requires {need}: turn {name} off as well, or {need} on"
                raise RuleViolation(key_path("featureGates", culprit), gates.get(culprit, True), allowed)
