"""The feature gates of each supported Kueue minor, as its manager resolves them: read from
``defaultVersionedFeatureGates`` of ``pkg/features/kube_features.go`` and ``LoadAndValidateFeatureGates`` of
``pkg/config/validation.go`` at the minor's newest verified patch (the URL under each table); a test compares every
table with the source when the shared folder holds it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclasses.dataclass(frozen=True)
class GateTable:
    """A manager's feature gates: its start-up refuses an unknown gate, a locked gate set against its lock, and a gate
    on while one it needs is off (``LoadAndValidateFeatureGates`` in ``pkg/config/validation.go``)."""

    locked_on: frozenset[str]
    """GA gates: setting one false stops the manager."""
    locked_off: frozenset[str]
    """Deprecated gates locked to false: setting one true stops the manager."""
    default_on: frozenset[str]
    """Beta (and some deprecated) gates, on unless set false."""
    default_off: frozenset[str]
    """Alpha (and some beta) gates, off unless set true."""
    requires: Mapping[str, tuple[str, ...]]
    """Gates the manager refuses to run with while a gate they need is off."""
    removed: Mapping[str, str]
    """Gates of earlier releases people still copy, each with what happened to it."""

    @property
    def known(self) -> frozenset[str]:
        return self.locked_on | self.locked_off | self.default_on | self.default_off

    def defaults(self) -> dict[str, bool]:
        """Every known gate's value when the stack sets none."""
        return {name: name in self.locked_on or name in self.default_on for name in sorted(self.known)}


_TAS = "TopologyAwareScheduling"
_TAS_REQUIRES: dict[str, tuple[str, ...]] = {
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
}
_REQUIRES_0_18 = {
    **_TAS_REQUIRES,
    "TASRespectNodeAffinityPreferred": (_TAS,),
    "TASRecomputeAssignmentWithinSchedulingCycle": (_TAS,),
    "UnadmittedWorkloadsExplicitStatus": ("UnadmittedWorkloadsObservability",),
    "KueueDRAIntegrationExtendedResource": ("KueueDRAIntegration",),
    "KueueDRAIntegrationPartitionableDevices": ("KueueDRAIntegration",),
}
_REMOVED_BEFORE_0_17 = {
    "ProvisioningACC": "it went GA in Kueue 0.14 and was removed in 0.15 (https://github.com/kubernetes-sigs/kueue/pull/7465)",
    "FlavorFungibilityImplicitPreferenceDefault": "Kueue 0.17 removed it",
    "TASProfileLeastFreeCapacity": "Kueue 0.17 removed it",
    "ConfigurableResourceTransformations": "it went GA and was removed in Kueue 0.16; transformations need no gate",
    "ManagedJobsNamespaceSelector": "it went GA and was removed in Kueue 0.15; the selector needs no gate",
}
_GA_REMOVED_IN_0_19 = "it went GA and Kueue 0.19 removed it: drop the key"
_DRA_REMOVED_IN_0_19 = "Kueue 0.19 removed it: use KueueDRAIntegration (beta, on)"

GATES_0_17 = GateTable(
    locked_on=_names(
        "LendingLimit MultiKueueBatchJobWithManagedBy LocalQueueDefaulting HierarchicalCohorts "
        "ObjectRetentionPolicies SanitizePodSets PropagateBatchJobLabelsToWorkload "
    ),
    locked_off=frozenset(),
    default_on=_names(
        "PartialAdmission FlavorFungibility VisibilityOnDemand PrioritySortingWithinCohort "
        "FairSharingPreemptWithinNominal FairSharingPrioritizeNonBorrowing MultiKueue TopologyAwareScheduling "
        "LocalQueueMetrics TASProfileMixed AdmissionFairSharing TASFailedNodeReplacement "
        "TASFailedNodeReplacementFailFast TASReplaceNodeOnPodTermination TASReplaceNodeDueToNotReadyOverFixedTime "
        "ManagedJobsNamespaceSelectorAlwaysRespected MultiKueueAdaptersForCustomJobs ReclaimablePods "
        "SkipFinalizersForPodsSuspendedByParent MultiKueueWaitForWorkloadAdmitted "
        "MultiKueueRedoAdmissionOnEvictionInWorker TLSOptions RemoveFinalizersWithStrictPatch "
        "TASReplaceNodeOnNodeTaints AssignQueueLabelsForPods CleanupProvisioningRequestsOnEviction "
        "TASRecomputeAssignmentWithinSchedulingCycle DeferRayServiceFinalizationForRedisCleanup "
        "TASCacheNodeMatchResults TASCachingRemainingResources VectorizedResourceRequests "
    ),
    default_off=_names(
        "ElasticJobsViaWorkloadSlices ElasticJobsViaWorkloadSlicesWithTAS SkipReassignmentForPodOwnedWorkloads "
        "TASBalancedPlacement DynamicResourceAllocation DRAExtendedResources WorkloadRequestUseMergePatch "
        "MultiKueueAllowInsecureKubeconfigs MultiKueueClusterProfile FailureRecoveryPolicy TASMultiLayerTopology "
        "SchedulingEquivalenceHashing SchedulerLongRequeueInterval SchedulerTimestampPreemptionBuffer "
        "CustomMetricLabels SparkApplicationIntegration MultiKueueOrchestratedPreemption PriorityBoost "
        "AdmissionGatedBy ShortWorkloadNames FastQuotaReleaseInPodIntegration RejectUpdatesToCQWithInvalidOnFlavors "
        "FinishOrphanedWorkloads WorkloadIdentifierAnnotations TASHandleOverlappingFlavors "
    ),
    requires=MappingProxyType({**_TAS_REQUIRES, "DRAExtendedResources": ("DynamicResourceAllocation",)}),
    removed=MappingProxyType(_REMOVED_BEFORE_0_17),
)
"""https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/features/kube_features.go"""

GATES_0_18 = GateTable(
    locked_on=_names(
        "LendingLimit MultiKueueBatchJobWithManagedBy LocalQueueDefaulting HierarchicalCohorts "
        "ObjectRetentionPolicies SanitizePodSets PropagateBatchJobLabelsToWorkload "
        "SkipFinalizersForPodsSuspendedByParent MultiKueueWaitForWorkloadAdmitted "
        "MultiKueueRedoAdmissionOnEvictionInWorker "
    ),
    locked_off=_names("DynamicResourceAllocation DRAExtendedResources "),
    default_on=_names(
        "PartialAdmission FlavorFungibility VisibilityOnDemand PrioritySortingWithinCohort "
        "FairSharingPreemptWithinNominal FairSharingPrioritizeNonBorrowing MultiKueue TopologyAwareScheduling "
        "LocalQueueMetrics TASProfileMixed AdmissionFairSharing TASFailedNodeReplacement ElasticJobsViaWorkloadSlices "
        "TASFailedNodeReplacementFailFast TASReplaceNodeOnPodTermination TASReplaceNodeDueToNotReadyOverFixedTime "
        "ManagedJobsNamespaceSelectorAlwaysRespected KueueDRAIntegration KueueDRARejectWorkloadsWhenDRADisabled "
        "MultiKueueAdaptersForCustomJobs ReclaimablePods TLSOptions RemoveFinalizersWithStrictPatch "
        "TASReplaceNodeOnNodeTaints AssignQueueLabelsForPods SchedulingEquivalenceHashing FinishOrphanedWorkloads "
        "MetricForWorkloadCreationLatency WorkloadIdentifierAnnotations MetricsForCohorts "
        "CleanupProvisioningRequestsOnEviction TASHandleOverlappingFlavors "
        "TASRecomputeAssignmentWithinSchedulingCycle DeferRayServiceFinalizationForRedisCleanup "
        "TASCacheNodeMatchResults TASCachingRemainingResources VectorizedResourceRequests "
        "WorkloadValidateResourcesAreNonNegative TASValidateWorkloadSliceSize WorkloadValidationForPodSetMetadata "
        "LWSImmutableGroupSize FlavorFungibilityPreserveScanProgress SkipAncestorCheckForDeletedWorkloads "
        "MultiKueueRemoteSpecSync PodIntegrationValidateGroupOwner ValidateRayAndSparkJobUpdates "
    ),
    default_off=_names(
        "ElasticJobsViaWorkloadSlicesWithTAS SkipReassignmentForPodOwnedWorkloads TASBalancedPlacement "
        "KueueDRAIntegrationExtendedResource KueueDRAIntegrationPartitionableDevices WorkloadRequestUseMergePatch "
        "MultiKueueAllowInsecureKubeconfigs MultiKueueClusterProfile FailureRecoveryPolicy TASMultiLayerTopology "
        "SchedulerLongRequeueInterval SchedulerTimestampPreemptionBuffer CustomMetricLabels "
        "SparkApplicationIntegration MultiKueueOrchestratedPreemption PriorityBoost AdmissionGatedBy "
        "ShortWorkloadNames FastQuotaReleaseInPodIntegration RejectUpdatesToCQWithInvalidOnFlavors "
        "ConcurrentAdmission QuotaCheckStrategy TASRespectNodeAffinityPreferred MultiKueueManagerQuotaAutomation "
        "WorkloadPriorityClassDefaulting TASCacheTopologyTree UnadmittedWorkloadsObservability "
        "UnadmittedWorkloadsExplicitStatus PrioritizePreemptorWorkloads "
        "RecomputeAssignmentUponPreemptionTargetsOverlap "
    ),
    requires=MappingProxyType(_REQUIRES_0_18),
    removed=MappingProxyType(_REMOVED_BEFORE_0_17),
)
"""https://github.com/kubernetes-sigs/kueue/blob/v0.18.6/pkg/features/kube_features.go"""

GATES_0_19 = GateTable(
    locked_on=_names(
        "HierarchicalCohorts ObjectRetentionPolicies ManagedJobsNamespaceSelectorAlwaysRespected "
        "PropagateBatchJobLabelsToWorkload SkipFinalizersForPodsSuspendedByParent MultiKueueWaitForWorkloadAdmitted "
        "MultiKueueRedoAdmissionOnEvictionInWorker "
    ),
    locked_off=_names("MultiKueueAllowInsecureKubeconfigs "),
    default_on=_names(
        "PartialAdmission FlavorFungibility VisibilityOnDemand PrioritySortingWithinCohort "
        "FairSharingPreemptWithinNominal FairSharingPrioritizeNonBorrowing MultiKueue TopologyAwareScheduling "
        "LocalQueueMetrics TASProfileMixed AdmissionFairSharing TASFailedNodeReplacement ElasticJobsViaWorkloadSlices "
        "TASFailedNodeReplacementFailFast TASReplaceNodeOnPodTermination SkipReassignmentForPodOwnedWorkloads "
        "TASAssignmentsEncodingByHostnamePrefix KueueDRAIntegration KueueDRAIntegrationExtendedResource "
        "KueueDRARejectWorkloadsWhenDRADisabled KueueDRAIntegrationPartitionableDevices "
        "MultiKueueAdaptersForCustomJobs ReclaimablePods TLSOptions RemoveFinalizersWithStrictPatch "
        "TASReplaceNodeOnNodeTaints AssignQueueLabelsForPods TASMultiLayerTopology SchedulingEquivalenceHashing "
        "AdmissionGatedBy FinishOrphanedWorkloads MultiKueueIncrementalDispatcherConfig "
        "MultiKueueIncrementalDispatcherRespectConfigOrder QuotaCheckStrategy MetricForWorkloadCreationLatency "
        "WorkloadIdentifierAnnotations MetricsForCohorts CleanupProvisioningRequestsOnEviction "
        "TASHandleOverlappingFlavors TASRecomputeAssignmentWithinSchedulingCycle "
        "DeferRayServiceFinalizationForRedisCleanup TASCacheNodeMatchResults TASCachingRemainingResources "
        "VectorizedResourceRequests WorkloadValidateResourcesAreNonNegative TASValidateWorkloadSliceSize "
        "WorkloadValidationForPodSetMetadata LWSImmutableGroupSize FlavorFungibilityPreserveScanProgress "
        "SkipAncestorCheckForDeletedWorkloads MultiKueueRemoteSpecSync PodIntegrationValidateGroupOwner "
        "ValidateRayAndSparkJobUpdates "
    ),
    default_off=_names(
        "DisableWaitForPodsReady ElasticJobsViaWorkloadSlicesWithTAS TASReplaceNodeDueToNotReadyOverFixedTime "
        "TASBalancedPlacement KueueDRAIntegrationConsumableCapacity WorkloadRequestUseMergePatch "
        "MultiKueueKubeConfigPathValidation MultiKueueClusterProfile FailureRecoveryPolicy "
        "SchedulerLongRequeueInterval SchedulerTimestampPreemptionBuffer CustomMetricLabels "
        "SparkApplicationIntegration MultiKueueOrchestratedPreemption PriorityBoost ShortWorkloadNames "
        "FastQuotaReleaseInPodIntegration RejectUpdatesToCQWithInvalidOnFlavors ConcurrentAdmission "
        "TASRespectNodeAffinityPreferred MultiKueueManagerQuotaAutomation WorkloadPriorityClassDefaulting "
        "UnadmittedWorkloadsObservability UnadmittedWorkloadsExplicitStatus TASCacheTopologyTree "
        "SchedulerLibraryIntegration PrioritizePreemptorWorkloads RecomputeAssignmentUponPreemptionTargetsOverlap "
    ),
    requires=MappingProxyType({**_REQUIRES_0_18, "KueueDRAIntegrationConsumableCapacity": ("KueueDRAIntegration",)}),
    removed=MappingProxyType(
        {
            **_REMOVED_BEFORE_0_17,
            **dict.fromkeys(
                ("LendingLimit", "LocalQueueDefaulting", "MultiKueueBatchJobWithManagedBy", "SanitizePodSets"),
                _GA_REMOVED_IN_0_19,
            ),
            **dict.fromkeys(("DynamicResourceAllocation", "DRAExtendedResources"), _DRA_REMOVED_IN_0_19),
        }
    ),
)
"""https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/features/kube_features.go"""
