"""The mock engine runs a version pin's check against the last run's inputs, as ``pulumi preview`` does."""

from __future__ import annotations

import pytest
from pulumi.runtime import mocks as pulumi_mocks

from tools import mock_engine

KEY = "elastic-capacity:aks.kubernetesVersion"
CLUSTER_VERSION = "pulumi-python:dynamic/clusters:ClusterVersion"


def pin(requested: str, candidate: str) -> pulumi_mocks.MockResourceArgs:
    inputs = {"key": KEY, "requested": requested, "candidate": candidate, "refusal": None, "version": None}
    return pulumi_mocks.MockResourceArgs(CLUSTER_VERSION, "aks-version", inputs, "", "", True)


def test_a_fresh_stack_resolves_every_run_and_keeps_nothing():
    assert mock_engine.VERSION_PIN_STATE is None
    assert mock_engine.version_pin(pin("1.35", "1.35"))["version"] == "1.35"


def test_a_kept_state_holds_the_version_and_a_failed_check_fails_the_run(monkeypatch):
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", {})
    mock_engine.version_pin(pin("1.35", "1.35.2"))
    assert mock_engine.VERSION_PIN_STATE[(CLUSTER_VERSION, "aks-version")]["version"] == "1.35.2"
    with pytest.raises(mock_engine.CheckFailed, match=r"skips a minor"):
        mock_engine.version_pin(pin("1.37", "1.37.1"))
