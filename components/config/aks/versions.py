"""Which Kubernetes minors a new AKS cluster may be created with: AKS's version calendar on the day it was read.

AKS patches a minor for a year of community support, then, on the Premium tier with the ``AKSLongTermSupport`` plan,
for a year of Long-Term Support (https://learn.microsoft.com/azure/aks/long-term-support). The table below is dated;
``az aks get-versions --location <region>`` is the authority, and AKS itself refuses a minor it does not offer in the
region, so a minor newer than the table is accepted.
"""

from __future__ import annotations

AKS_VERSIONS_URL = "https://learn.microsoft.com/azure/aks/supported-kubernetes-versions"
AKS_VERSIONS_CHECKED = "2026-12-01"
AKS_GA_MINORS = ((1, 35), (1, 36), (1, 37))
"""Minors in AKS community support on :data:`AKS_VERSIONS_CHECKED` (:data:`AKS_VERSIONS_URL`, whose end-of-life month
means its last day): 1.34's ended with November 2026, 1.37 is GA since October 2026. An older one needs LTS."""
AKS_PROVISIONING_REQUESTS_MIN = (1, 33)
"""AKS's managed cluster autoscaler serves ProvisioningRequests from Kubernetes 1.33 on
(https://github.com/Azure/AKS/pull/5867, correcting https://github.com/Azure/AKS/issues/5492). Every minor a new
cluster may use (:data:`AKS_GA_MINORS`, :data:`AKS_LTS_ONLY_MINORS`) is at least this; an existing cluster is checked
at deploy time."""
AKS_LTS_ONLY_MINORS = ((1, 33), (1, 34))
"""Minors past community support that AKS still patches under Long-Term Support (Premium tier,
``AKSLongTermSupport`` plan) on :data:`AKS_VERSIONS_CHECKED`: 1.33 until July 2027, 1.34 until November 2027. The
page's LTS table also lists 1.32 (until March 2027), left out because it is below
:data:`AKS_PROVISIONING_REQUESTS_MIN`; 1.31's LTS ended with November 2026."""


def _minors(minors: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{major}.{minor}" for major, minor in minors)


def unsupported(minor: tuple[int, int], *, lts: bool) -> str | None:
    """Why a new cluster cannot be created with ``minor`` (``lts``: Premium tier and the LTS plan), or ``None``."""
    if minor in AKS_GA_MINORS or minor > max(AKS_GA_MINORS):
        return None
    supported = f"AKS supports {_minors(AKS_GA_MINORS)} as of {AKS_VERSIONS_CHECKED} ({AKS_VERSIONS_URL})"
    if minor not in AKS_LTS_ONLY_MINORS:
        return f"{supported}; LTS: {_minors(AKS_LTS_ONLY_MINORS)}"
    if not lts:
        return f"{supported}; this minor is LTS-only: set supportPlan AKSLongTermSupport and skuTier Premium"
    return None
