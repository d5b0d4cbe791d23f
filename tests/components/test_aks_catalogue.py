"""A new AKS cluster's version against AKS's live catalogue, and the dated table when the catalogue cannot be had."""

from __future__ import annotations

import pytest

from components import aks_catalogue
from tools import mock_cloud

KEY = "elastic-capacity:aks.kubernetesVersion"
SUB = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def live(monkeypatch):
    monkeypatch.setattr(aks_catalogue, "LOOKUP", mock_cloud.aks_catalogue)


@pytest.mark.parametrize(("requested", "lts"), [("1.35", False), ("1.37.1", False), ("1.34", True), ("1.33", True)])
def test_a_listed_minor_with_the_stacks_plan_is_offered(live, requested, lts):
    assert aks_catalogue.offer(KEY, requested, lts, SUB, "eastus2") == (requested, None)


def test_a_minor_listed_only_under_lts_is_refused_without_it_naming_the_key_and_the_offer(live):
    assert aks_catalogue.offer(KEY, "1.34", False, SUB, "chinanorth3") == (
        None,
        f"{KEY}: '1.34' cannot be created: AKS creates ['1.35', '1.36', '1.37'] with KubernetesOfficial in "
        "chinanorth3 today",
    )


def test_a_minor_the_catalogue_moved_past_is_refused_although_the_table_accepts_it(monkeypatch):
    monkeypatch.setattr(aks_catalogue, "LOOKUP", lambda _sub, _location: {"1.36": ("KubernetesOfficial",)})
    _, refusal = aks_catalogue.offer(KEY, "1.35", False, SUB, "eastus2")
    assert refusal == f"{KEY}: '1.35' cannot be created: AKS creates ['1.36'] with KubernetesOfficial in eastus2 today"


def test_without_the_live_answer_the_dated_table_answers_and_a_warning_says_so(monkeypatch):
    def unreachable(_sub: str, _location: str) -> aks_catalogue.Catalogue:
        raise OSError("no route to management.azure.com")

    warnings: list[str] = []
    monkeypatch.setattr(aks_catalogue, "LOOKUP", unreachable)
    monkeypatch.setattr(aks_catalogue.pulumi.log, "warn", lambda message, *_a, **_k: warnings.append(message))
    assert aks_catalogue.offer(KEY, "1.35", False, SUB, "eastus2") == ("1.35", None)
    _, refusal = aks_catalogue.offer(KEY, "1.34", False, SUB, "eastus2")
    assert refusal is not None and refusal.startswith(f"{KEY}: '1.34' cannot be created: AKS supports 1.35, 1.36")
    assert "as of 2026-12-01" in refusal and "supportPlan AKSLongTermSupport and skuTier Premium" in refusal
    assert len(warnings) == 2 and "OSError: no route" in warnings[0]
    assert warnings[0].startswith(f"{KEY}: cannot read AKS's Kubernetes versions for eastus2")
    assert "against the table of 2026-12-01 instead" in warnings[0]
