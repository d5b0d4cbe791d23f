"""The dated AKS version table: the calendar of the day it was read, and what it tells a new cluster."""

from __future__ import annotations

import pytest

from components.config.aks.versions import (
    AKS_GA_MINORS,
    AKS_LTS_ONLY_MINORS,
    AKS_PROVISIONING_REQUESTS_MIN,
    AKS_VERSIONS_CHECKED,
    unsupported,
)


def test_the_table_follows_the_aks_calendar_on_the_day_it_was_checked() -> None:
    """On 2026-12-01: 1.34's community support ended with November 2026 (LTS until November 2027), 1.37 is GA since
    October 2026, 1.31's LTS ended with November 2026 and 1.32 (LTS until March 2027) lacks ProvisioningRequests."""
    assert (AKS_VERSIONS_CHECKED, AKS_GA_MINORS, AKS_LTS_ONLY_MINORS) == (
        "2026-12-01",
        ((1, 35), (1, 36), (1, 37)),
        ((1, 33), (1, 34)),
    )


def test_every_minor_a_new_cluster_may_use_serves_provisioning_requests() -> None:
    assert min(AKS_GA_MINORS + AKS_LTS_ONLY_MINORS) >= AKS_PROVISIONING_REQUESTS_MIN


@pytest.mark.parametrize(("minor", "lts"), [((1, 35), False), ((1, 37), False), ((1, 38), False), ((1, 34), True)])
def test_a_minor_in_support_or_newer_than_the_table_is_accepted(minor, lts) -> None:
    assert unsupported(minor, lts=lts) is None


@pytest.mark.parametrize(
    ("minor", "lts", "says"),
    [
        ((1, 34), False, "this minor is LTS-only: set supportPlan AKSLongTermSupport and skuTier Premium"),
        ((1, 32), True, "LTS: 1.33, 1.34"),
        ((1, 31), True, "LTS: 1.33, 1.34"),
    ],
)
def test_a_minor_out_of_support_says_what_aks_supports_and_since_when(minor, lts, says) -> None:
    problem = unsupported(minor, lts=lts)
    assert problem is not None and says in problem
    assert "AKS supports 1.35, 1.36, 1.37 as of 2026-12-01 (https://learn.microsoft.com/azure/aks/supported" in problem
