"""The ``aks.autoscalerProfile`` section: every value format AKS takes, with a good and a bad case naming its key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.aks.aks import AksConfig
from tests.support.config import stack_error_keys


def profile(fields: dict[str, Any]) -> dict[str, Any]:
    return {"autoscalerProfile": fields}


RULES = [
    ("expander", profile({"expander": "least-waste"}), profile({"expander": "fastest"}), "autoscalerProfile.expander"),
    (
        "scan interval seconds",
        profile({"scanInterval": "20s"}),
        profile({"scanInterval": "1m"}),
        "autoscalerProfile.scanInterval",
    ),
    (
        "scale-down minutes",
        profile({"scaleDownUnneededTime": "1m"}),
        profile({"scaleDownUnneededTime": "60s"}),
        "autoscalerProfile.scaleDownUnneededTime",
    ),
    (
        "grace seconds integer",
        profile({"maxGracefulTerminationSec": "60"}),
        profile({"maxGracefulTerminationSec": "60s"}),
        "autoscalerProfile.maxGracefulTerminationSec",
    ),
    (
        "boolean string",
        profile({"balanceSimilarNodeGroups": "true"}),
        profile({"balanceSimilarNodeGroups": "yes"}),
        "autoscalerProfile.balanceSimilarNodeGroups",
    ),
    (
        "percentage",
        profile({"maxTotalUnreadyPercentage": "100"}),
        profile({"maxTotalUnreadyPercentage": "101"}),
        "autoscalerProfile.maxTotalUnreadyPercentage",
    ),
    (
        "fraction",
        profile({"scaleDownUtilizationThreshold": "0.5"}),
        profile({"scaleDownUtilizationThreshold": "1.5"}),
        "autoscalerProfile.scaleDownUtilizationThreshold",
    ),
    (
        "duration",
        profile({"newPodScaleUpDelay": "30s"}),
        profile({"newPodScaleUpDelay": "30"}),
        "autoscalerProfile.newPodScaleUpDelay",
    ),
]


@pytest.mark.parametrize(("good", "bad", "key"), [rule[1:] for rule in RULES], ids=[rule[0] for rule in RULES])
def test_rule(good: dict[str, Any], bad: dict[str, Any], key: str) -> None:
    AksConfig.model_validate(good)
    assert stack_error_keys({"aks": bad}) == [f"elastic-capacity:aks.{key}"]


def test_unset_keys_keep_aks_defaults() -> None:
    assert AksConfig().autoscaler_profile.model_dump(exclude_none=True) == {}
