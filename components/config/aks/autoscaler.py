"""The ``aks.autoscalerProfile`` section: cluster-autoscaler settings for the whole AKS cluster.

The autoscaler is what turns a ProvisioningRequest into nodes; its profile decides how fast idle nodes go away again.
Values are strings in the formats the ARM API documents
(https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#autoscalerprofile).
"""

from __future__ import annotations

from typing import Annotated, Literal

from components.config.base import ConfigModel, matching

Minutes = Annotated[str, matching(r"\d+m", "an integer number of minutes followed by 'm', e.g. '10m'")]
Seconds = Annotated[str, matching(r"\d+s?", "an integer number of seconds, e.g. '10' or '10s'")]
Duration = Annotated[str, matching(r"\d+[smh]", "an integer followed by s, m or h, e.g. '0s'")]
Integer = Annotated[str, matching(r"\d+", "a non-negative integer written as a string, e.g. '600'")]
BoolString = Annotated[str, matching(r"true|false", "'true' or 'false' (a string, as AKS wants it)")]
Percentage = Annotated[str, matching(r"(100|\d{1,2})", "an integer percentage 0-100 written as a string")]
Fraction = Annotated[str, matching(r"0(\.\d+)?|1(\.0+)?", "a fraction between 0 and 1 written as a string, e.g. '0.5'")]


class AutoscalerProfileConfig(ConfigModel):
    """Cluster-autoscaler settings, passed as they are to ``ManagedClusterPropertiesAutoScalerProfileArgs``.

    Field names match that class's arguments and the ARM ``autoScalerProfile``
    (https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update#autoscalerprofile); values are
    strings in the formats the ARM API documents. Unset keys keep AKS's defaults, which
    https://learn.microsoft.com/azure/aks/cluster-autoscaler#cluster-autoscaler-profile-settings lists. The AKS
    example suggests short scale-down times for demos.
    """

    expander: Literal["least-waste", "most-pods", "priority", "random"] | None = None
    """How the autoscaler picks the pool to grow when several fit (AKS default ``random``)."""
    scan_interval: Seconds | None = None
    """How often the autoscaler re-evaluates the cluster, e.g. ``10s`` (AKS default 10 s)."""
    scale_down_unneeded_time: Minutes | None = None
    """How long a node must be unneeded before it is removed, e.g. ``10m``."""
    scale_down_delay_after_add: Minutes | None = None
    """How long after a scale-up scale-down evaluation resumes, e.g. ``10m``."""
    scale_down_delay_after_delete: Minutes | None = None
    """How long after a node deletion scale-down evaluation resumes; AKS defaults to the scan interval."""
    scale_down_delay_after_failure: Minutes | None = None
    """How long after a failed scale-down evaluation resumes, e.g. ``3m``."""
    scale_down_unready_time: Minutes | None = None
    """How long an unready node must be unneeded before it is removed, e.g. ``20m``."""
    scale_down_utilization_threshold: Fraction | None = None
    """Requested over allocatable resources below which a node counts as unneeded, e.g. ``'0.5'``."""
    max_graceful_termination_sec: Integer | None = None
    """Seconds the autoscaler waits for pods to terminate when it removes a node, e.g. ``'600'``."""
    max_node_provision_time: Minutes | None = None
    """How long the autoscaler waits for a new node to be provisioned, e.g. ``15m``."""
    max_empty_bulk_delete: Integer | None = None
    """Empty nodes the autoscaler removes at once, e.g. ``'10'``."""
    max_total_unready_percentage: Percentage | None = None
    """Unready nodes, in percent of the cluster, above which the autoscaler stops acting, e.g. ``'45'``."""
    ok_total_unready_count: Integer | None = None
    """Unready nodes allowed whatever ``maxTotalUnreadyPercentage`` says, e.g. ``'3'``."""
    new_pod_scale_up_delay: Duration | None = None
    """How young a pending pod may be and still be ignored for scale-up, e.g. ``0s``."""
    balance_similar_node_groups: BoolString | None = None
    """``'true'`` keeps similar pools at similar sizes."""
    skip_nodes_with_local_storage: BoolString | None = None
    """``'true'`` never removes a node whose pods use local storage (emptyDir, hostPath)."""
    skip_nodes_with_system_pods: BoolString | None = None
    """``'true'`` never removes a node running kube-system pods other than DaemonSet pods."""
    daemonset_eviction_for_empty_nodes: bool | None = None
    """Whether DaemonSet pods are gracefully evicted from nodes without other pods before removal."""
    daemonset_eviction_for_occupied_nodes: bool | None = None
    """Whether DaemonSet pods are gracefully evicted from nodes with other pods before removal."""
    ignore_daemonsets_utilization: bool | None = None
    """Whether DaemonSet pods are left out of a node's utilization when deciding scale-down."""
