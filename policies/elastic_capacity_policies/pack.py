"""The pack: its name and every policy, all mandatory (a violation fails ``pulumi preview`` and stops ``pulumi up``)."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, Policy

from elastic_capacity_policies import ack, aks, kueue, pools, workloads

PACK_NAME = "elastic-capacity"
ENFORCEMENT_LEVEL = EnforcementLevel.MANDATORY

POLICIES: list[Policy] = [*aks.POLICIES, *pools.POLICIES, *ack.POLICIES, *kueue.POLICIES, *workloads.POLICIES]
"""In the order of the guarantees in docs/operations.md."""
