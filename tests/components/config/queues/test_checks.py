"""AdmissionChecks and ProvisioningRequestConfigs: both halves of a provisioning gate, and either kind on its own."""

from __future__ import annotations

import pytest

from components.config.queues.checks import (
    PROVISIONING_CONTROLLER,
    AdmissionCheckConfig,
    ProvisioningCheckConfig,
    ProvisioningRequestConfigConfig,
)
from tests.support.config import model_error_keys

NODE_SELECTOR = [{"key": "cloud.example.com/block", "valueFromProvisioningClassDetail": "block"}]


def test_a_provisioning_check_splits_into_its_admission_check_and_its_config():
    check = ProvisioningCheckConfig.model_validate(
        {
            "name": "gate",
            "configName": "gate-config",
            "managedResources": ["cpu"],
            "podSetMergePolicy": "IdenticalPodTemplates",
        }
    )
    admission = check.admission_check()
    assert (admission.name, admission.controller_name, admission.runs_provisioning_requests) == (
        "gate",
        PROVISIONING_CONTROLLER,
        True,
    )
    assert admission.parameters is not None and admission.parameters.is_provisioning_config
    assert admission.parameters.name == "gate-config"
    config = check.provisioning_request_config()
    assert (config.name, config.managed_resources, config.pod_set_merge_policy) == (
        "gate-config",
        ["cpu"],
        "IdenticalPodTemplates",
    )
    assert config.provisioning_class_name == "best-effort-atomic-scale-up.autoscaling.x-k8s.io"


@pytest.mark.parametrize("delay", [0, 1, 2**31 - 1])
def test_retry_delays_take_what_kueue_takes(delay):
    """Kueue's own provisioning example retries at once (backoffBaseSeconds: 0); the fields are int32."""
    config = ProvisioningRequestConfigConfig.model_validate(
        {"name": "c", "retryStrategy": {"backoffBaseSeconds": delay, "backoffMaxSeconds": delay}}
    )
    assert config.retry_strategy is not None and config.retry_strategy.backoff_base_seconds == delay


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"retryStrategy": {"backoffBaseSeconds": 2**31}}, "retryStrategy.backoffBaseSeconds"),
        ({"retryStrategy": {"backoffLimitCount": "3"}}, "retryStrategy.backoffLimitCount"),
        ({"managedResources": ["cpu", "memory", "cpu"]}, "managedResources[2]"),
        ({"podSetMergePolicy": "Identical"}, "podSetMergePolicy"),
        ({"podSetUpdates": {"nodeSelector": NODE_SELECTOR * 2}}, "podSetUpdates.nodeSelector[1].key"),
        ({"podSetUpdates": {"nodeSelector": [{**NODE_SELECTOR[0], "key": f"k{i}"} for i in range(9)]}},
         "podSetUpdates.nodeSelector"),
        ({"podSetUpdates": {"nodeSelector": [{"key": "k", "valueFromProvisioningClassDetail": ""}]}},
         "podSetUpdates.nodeSelector[0].valueFromProvisioningClassDetail"),
        ({"retryDelayMinutes": 5}, "retryDelayMinutes"),
    ],
)  # fmt: skip
def test_config_fields_follow_the_crd(spec, key):
    assert model_error_keys(ProvisioningRequestConfigConfig, {"name": "c", **spec}) == [key]


def test_pod_set_updates_render_as_kueue_spells_them():
    config = ProvisioningRequestConfigConfig.model_validate(
        {"name": "c", "podSetUpdates": {"nodeSelector": NODE_SELECTOR}}
    )
    dumped = config.model_dump(by_alias=True, exclude_none=True)
    assert dumped["podSetUpdates"] == {"nodeSelector": NODE_SELECTOR}


def test_an_admission_check_takes_any_controller_with_or_without_parameters():
    plain = AdmissionCheckConfig.model_validate({"name": "approval", "controllerName": "example.com/approval"})
    assert (plain.parameters, plain.runs_provisioning_requests) == (None, False)
    with_parameters = AdmissionCheckConfig.model_validate(
        {
            "name": "prov-test",
            "controllerName": "ProvisioningRequestController",
            "parameters": {
                "apiGroup": "kueue.x-k8s.io",
                "kind": "ProvisioningRequestConfig",
                "name": "prov-test-config",
            },
        }
    )
    assert with_parameters.parameters is not None and with_parameters.parameters.is_provisioning_config
    assert not with_parameters.runs_provisioning_requests


@pytest.mark.parametrize(
    ("check", "key"),
    [
        ({"name": "a", "controllerName": ""}, "controllerName"),
        ({"name": "a", "controllerName": "c" * 254}, "controllerName"),
        ({"name": "a", "controllerName": "c", "parameters": {"apiGroup": "x", "kind": "9Kind", "name": "p"}},
         "parameters.kind"),
        ({"name": "a", "controllerName": "c", "parameters": {"apiGroup": "x", "kind": "K", "name": "p.q"}},
         "parameters.name"),
        ({"name": "A", "controllerName": "c"}, "name"),
    ],
)  # fmt: skip
def test_admission_check_fields_follow_the_crd(check, key):
    assert model_error_keys(AdmissionCheckConfig, check) == [key]
