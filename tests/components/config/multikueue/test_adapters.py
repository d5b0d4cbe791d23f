"""The one table of what MultiKueue dispatches and watches: it matches Kueue's own integrations and adapters."""

from __future__ import annotations

from components.config.kueue.profiles import KNOWN_FRAMEWORKS
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, WORKLOADS, watched_frameworks


def test_every_integration_but_deployment_has_an_adapter_that_watches_the_workers():
    """Kueue 0.17.8 registers an adapter for each of its integrations except ``deployment``; each one watches."""
    assert set(KNOWN_FRAMEWORKS) - set(MULTIKUEUE_ADAPTERS) == {"deployment"}
    assert set(MULTIKUEUE_ADAPTERS) <= set(KNOWN_FRAMEWORKS)


def test_each_adapter_names_the_group_and_plural_its_rbac_and_watch_use():
    assert MULTIKUEUE_ADAPTERS["batch/job"] == ("batch", "jobs")
    assert MULTIKUEUE_ADAPTERS["pod"] == ("", "pods"), "the core group"
    assert MULTIKUEUE_ADAPTERS["statefulset"] == ("apps", "statefulsets")
    assert MULTIKUEUE_ADAPTERS["ray.io/rayservice"] == ("ray.io", "rayservices")
    assert all(kind.resource.endswith("s") and kind.resource.islower() for kind in MULTIKUEUE_ADAPTERS.values())
    assert WORKLOADS == ("kueue.x-k8s.io", "workloads")


def test_only_integrations_with_an_adapter_are_watched_in_the_managers_order():
    assert watched_frameworks(["deployment", "ray.io/rayjob", "batch/job"]) == ["ray.io/rayjob", "batch/job"]
