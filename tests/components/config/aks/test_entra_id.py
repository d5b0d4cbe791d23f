"""Entra ID sign-in: the ``aks.entraId`` section and its kubelogin settings, each rule naming the exact key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.aks import AksConfig
from components.config.aks.entra_id import EntraIdConfig, KubeloginConfig
from tests.support.config import model_error_keys, stack_error_keys

GROUP = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def test_defaults_sign_in_with_the_az_login_session_and_no_local_accounts() -> None:
    entra = EntraIdConfig()
    assert entra.disable_local_accounts and entra.admin_group_object_ids == []
    assert (entra.kubelogin.login, entra.kubelogin.client_id) == ("azurecli", None)


def test_kubelogin_rules_name_their_key_wherever_the_settings_sit() -> None:
    assert model_error_keys(KubeloginConfig, {"login": "spn"}, "existingCluster.kubelogin") == [
        "existingCluster.kubelogin.clientId"
    ]
    assert model_error_keys(KubeloginConfig, {"login": "devicecode"}, "x") == ["x.login"]


# (rule, an ``aks`` section that passes, one that breaks it, the key the error must name under ``aks.``)
RULES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "kubelogin spn needs its client id",
        {"entraId": {"kubelogin": {"login": "spn", "clientId": "11111111-2222-3333-4444-555555555555"}}},
        {"entraId": {"kubelogin": {"login": "spn"}}},
        "entraId.kubelogin.clientId",
    ),
    (
        "kubelogin client id only for spn",
        {"entraId": {"kubelogin": {"login": "azurecli"}}},
        {"entraId": {"kubelogin": {"login": "azurecli", "clientId": "11111111-2222-3333-4444-555555555555"}}},
        "entraId.kubelogin.clientId",
    ),
    (
        "admin groups are object ids",
        {"entraId": {"adminGroupObjectIds": [GROUP]}},
        {"entraId": {"adminGroupObjectIds": ["admins"]}},
        "entraId.adminGroupObjectIds[0]",
    ),
]


@pytest.mark.parametrize(("good", "bad", "key"), [rule[1:] for rule in RULES], ids=[rule[0] for rule in RULES])
def test_rule(good: dict[str, Any], bad: dict[str, Any], key: str) -> None:
    AksConfig.model_validate(good)
    assert stack_error_keys({"aks": bad}) == [f"elastic-capacity:aks.{key}"]
