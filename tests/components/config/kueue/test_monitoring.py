"""The ``monitoring`` section's model: each collector's default scraper, its own settings block only with it, ARMS
naming its scraper, and the thresholds' bounds (the stack-level rules are in tests/cases/)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from components.config.kueue.monitoring import AMA_METRICS, KUBE_PROMETHEUS_STACK, MonitoringConfig


@pytest.mark.parametrize(
    ("collector", "scraper"),
    [("azure-managed-prometheus", AMA_METRICS), ("prometheus-operator", KUBE_PROMETHEUS_STACK)],
)
def test_each_collector_scrapes_as_its_own_service_account_by_default(collector, scraper):
    identity = MonitoringConfig(collector=collector).scraper_identity
    assert (identity.namespace, identity.service_account) == scraper


def test_a_written_scraper_wins():
    config = MonitoringConfig.model_validate(
        {"collector": "prometheus-operator", "scraper": {"namespace": "obs", "serviceAccount": "prom"}}
    )
    assert (config.scraper_identity.namespace, config.scraper_identity.service_account) == ("obs", "prom")


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"collector": "prometheus-operator", "azure": {"grafana": True}}, "it configures collector azure-managed"),
        ({"collector": "arms", "prometheusOperator": {}}, "it configures collector prometheus-operator"),
        ({"collector": "arms"}, "needs the ServiceAccount its agent runs as"),
        ({"collector": "prometheus-operator", "provisioningMinutes": 0}, "greater than or equal to 1"),
    ],
)
def test_a_setting_of_another_collector_or_a_missing_arms_scraper_is_refused(data, said):
    with pytest.raises(ValidationError, match=said):
        MonitoringConfig.model_validate(data)


def test_the_defaults_are_the_documented_thresholds():
    config = MonitoringConfig(collector="azure-managed-prometheus")
    assert (config.pending_minutes, config.provisioning_minutes) == (30, 20)
    assert config.azure_settings.alert_rules and not config.azure_settings.grafana
    assert config.operator_settings.rule_labels == {"release": "kube-prometheus-stack"}
