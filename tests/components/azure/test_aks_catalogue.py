"""A new AKS cluster's version against AKS's live catalogue, and the dated table when the catalogue cannot be had."""

from __future__ import annotations

import io
import json
import urllib.request

import pytest

from components.azure import aks_catalogue
from components.azure.aks import AksCluster
from components.config.aks.aks import AksConfig
from tools import mock_cloud, mock_runtime

KEY = "elastic-capacity:aks.kubernetesVersion"
SUB = "00000000-0000-0000-0000-000000000000"
TOKEN = "arm-token"


@pytest.fixture
def live(monkeypatch):
    monkeypatch.setattr(aks_catalogue, "LOOKUP", mock_cloud.aks_catalogue)


@pytest.mark.parametrize(("requested", "lts"), [("1.35", False), ("1.37.1", False), ("1.34", True), ("1.33", True)])
def test_a_listed_minor_with_the_stacks_plan_is_offered(live, requested, lts):
    assert aks_catalogue.offer(KEY, requested, lts, TOKEN, SUB, "eastus2") == (requested, None)


def test_a_minor_listed_only_under_lts_is_refused_without_it_naming_the_key_and_the_offer(live):
    assert aks_catalogue.offer(KEY, "1.34", False, TOKEN, SUB, "chinanorth3") == (
        None,
        f"{KEY}: '1.34' cannot be created: AKS creates ['1.35', '1.36', '1.37'] with KubernetesOfficial in "
        "chinanorth3 today [rule: deploy.aks-version-offered]",
    )


def test_a_minor_the_catalogue_moved_past_is_refused_although_the_table_accepts_it(monkeypatch):
    monkeypatch.setattr(aks_catalogue, "LOOKUP", lambda _token, _sub, _location: {"1.36": ("KubernetesOfficial",)})
    _, refusal = aks_catalogue.offer(KEY, "1.35", False, TOKEN, SUB, "eastus2")
    assert refusal == (
        f"{KEY}: '1.35' cannot be created: AKS creates ['1.36'] with KubernetesOfficial in eastus2 today "
        "[rule: deploy.aks-version-offered]"
    )


def test_without_the_live_answer_the_dated_table_answers_and_a_warning_says_so(monkeypatch):
    def unreachable(_token: str, _sub: str, _location: str) -> aks_catalogue.Catalogue:
        raise OSError("no route to management.azure.com")

    warnings: list[str] = []
    monkeypatch.setattr(aks_catalogue, "LOOKUP", unreachable)
    monkeypatch.setattr(aks_catalogue.pulumi.log, "warn", lambda message, *_a, **_k: warnings.append(message))
    assert aks_catalogue.offer(KEY, "1.35", False, TOKEN, SUB, "eastus2") == ("1.35", None)
    _, refusal = aks_catalogue.offer(KEY, "1.34", False, TOKEN, SUB, "eastus2")
    assert refusal is not None and refusal.startswith(f"{KEY}: '1.34' cannot be created: AKS supports 1.35, 1.36")
    assert "as of 2026-12-01" in refusal and "supportPlan AKSLongTermSupport and skuTier Premium" in refusal
    assert len(warnings) == 2 and "OSError: no route" in warnings[0]
    assert warnings[0].startswith(f"{KEY}: cannot read AKS's Kubernetes versions for eastus2")
    assert "against the table of 2026-12-01 instead" in warnings[0]


class _Answer(io.BytesIO):
    def __enter__(self) -> _Answer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


@pytest.mark.parametrize(
    ("location", "host"), [("eastus2", "management.azure.com"), ("chinanorth3", "management.chinacloudapi.cn")]
)
def test_the_live_answer_asks_the_arm_of_the_locations_cloud_with_the_providers_token(monkeypatch, location, host):
    sent: list[urllib.request.Request] = []
    listed = {
        "values": [
            {"version": "1.35", "capabilities": {"supportPlan": ["KubernetesOfficial", "AKSLongTermSupport"]}},
            {"version": "1.38", "isPreview": True, "capabilities": {"supportPlan": ["KubernetesOfficial"]}},
        ]
    }

    def urlopen(request: urllib.request.Request, timeout: int) -> _Answer:
        sent.append(request)
        return _Answer(json.dumps(listed).encode())

    monkeypatch.setattr(aks_catalogue.urllib.request, "urlopen", urlopen)
    assert aks_catalogue.live(TOKEN, SUB, location) == {"1.35": ("KubernetesOfficial", "AKSLongTermSupport")}
    [request] = sent
    assert request.full_url == (
        f"https://{host}/subscriptions/{SUB}/providers/Microsoft.ContainerService/locations/{location}"
        f"/kubernetesVersions?api-version={aks_catalogue.API_VERSION}"
    )
    assert request.get_header("Authorization") == f"Bearer {TOKEN}"


def test_a_new_aks_cluster_asks_with_the_token_azure_native_signs_in_with(monkeypatch):
    asked: list[tuple[str, str, str]] = []

    def lookup(token: str, subscription: str, location: str) -> aks_catalogue.Catalogue:
        asked.append((token, subscription, location))
        return mock_cloud.aks_catalogue(token, subscription, location)

    def program() -> None:
        AksCluster("demo", AksConfig.model_validate({"kubernetesVersion": "1.35"}))

    monkeypatch.setattr(mock_runtime, "mock_aks_catalogue", lookup)
    recording = mock_runtime.run(program, {}, preview=True)
    assert [call.token for call in recording.invokes].count("azure-native:authorization:getClientToken") == 1
    assert asked == [(mock_cloud.DEPLOYER.arm_token(), SUB, "eastus2")]
