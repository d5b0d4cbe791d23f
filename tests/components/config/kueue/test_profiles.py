"""Each Kueue profile holds what the chart and sources of its verified patches say: the test reads them from the
shared folder and skips saying why when they are absent."""

from __future__ import annotations

import json

import pytest

from tests.support.kueue_sources import VERIFIED, chart_manager_config, source_dir

SET_BY_THE_PROGRAM = {"apiVersion", "kind", "integrations"}
"""Keys of the chart's manager Configuration that the program writes from the stack (``manager_config``)."""


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_manager_defaults_and_frameworks_are_the_charts(version, profile):
    chart = chart_manager_config(version)
    assert {k: v for k, v in chart.items() if k not in SET_BY_THE_PROGRAM} == dict(profile.manager_defaults)
    assert tuple(chart["integrations"]["frameworks"]) == profile.chart_frameworks


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_known_frameworks_are_the_managers_minus_the_gated_spark(version, profile):
    frameworks = json.loads((source_dir(version) / "src/frameworks.json").read_text())
    assert set(frameworks) - set(profile.known_frameworks) == {"sparkoperator.k8s.io/sparkapplication"}
    assert set(profile.known_frameworks) <= set(frameworks)
    assert set(profile.multikueue_adapters) <= set(profile.known_frameworks)


@pytest.mark.parametrize(("version", "profile"), VERIFIED, ids=[v for v, _ in VERIFIED])
def test_minimum_kubernetes_is_not_older_than_the_sources_say(version, profile):
    minimum = json.loads((source_dir(version) / "src/kubernetes.json").read_text())["minimum"]
    if minimum is not None:
        assert profile.min_kubernetes == tuple(int(p) for p in minimum.split("."))
