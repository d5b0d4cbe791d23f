"""The mock engine runs a version pin's check against the last run's inputs, as ``pulumi preview`` does."""

from __future__ import annotations

import functools
import pickle

import pulumi
import pytest
from pulumi.runtime import mocks as pulumi_mocks

from components.version_pin import KueueVersion
from tools import mock_engine, mock_runtime

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


def test_a_run_leaves_pickle_as_it_found_it():
    """Serialising a dynamic provider wraps pickle's ``_batch_setitems`` for good; the mock runtime undoes it, so the
    suite's thousands of runs do not pile the wrappers up to a RecursionError."""
    before = pickle._Pickler._batch_setitems  # type: ignore[attr-defined]
    pin = functools.partial(KueueVersion, "pin", key=KEY, requested="0.19.2", opts=pulumi.ResourceOptions())
    recording = mock_runtime.run(pin, {})
    assert [r.type for r in recording.registrations] == ["pulumi-python:dynamic/kueue:KueueVersion"]
    assert pickle._Pickler._batch_setitems is before  # type: ignore[attr-defined]
