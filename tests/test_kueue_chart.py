"""Each shipped stack that installs Kueue, moved to every verified version (edited copies; 0.17.1 is the seed's
walkthrough): every Kueue object it emits validates against that version's CRDs, and the real chart of the version,
rendered by Helm's own library with the values the program passes (the Chart resource's recorded inputs), holds what
the stack asked for: a manager Configuration that decodes strictly into that version's Configuration type, the image
and gates of the stack, and the objects the readiness gate and the waiters name. Skips saying why when the chart
sources or helm-python-sdk are absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support import PROJECT_ROOT
from tests.support.kueue_sources import VERIFIED, configuration_structs, render_chart, undecodable_keys
from tests.support.schemas import validate_kueue
from tests.support.stacks import (
    AKS_STACK,
    CHINA_STACK,
    MULTICLOUD_STACK,
    edited_stack,
    kueue_version,
    of_type,
    rendered,
)

BURST_STACK = PROJECT_ROOT / "stacks/Pulumi.burst.yaml"
STACKS = [AKS_STACK, CHINA_STACK, MULTICLOUD_STACK, BURST_STACK]
CHART = "kubernetes:helm.sh/v4:Chart"
CASES = [
    (stack, version, profile)
    for stack in STACKS
    for version, profile in VERIFIED
    if not (stack == BURST_STACK and version == "0.17.1")  # refused: MultiKueue needs 0.17.8 (multikueue_rules)
]


def kueue_charts(stack: Path, version: str, out: Path) -> list[dict[str, Any]]:
    """The Kueue Chart resources (inputs) of ``stack`` moved to ``version``, the manager's and any worker's, once
    every Kueue object the copy emits has validated against the CRDs of ``version`` (OpenAPI + CEL)."""
    copy = edited_stack(stack, lambda config: config["elastic-capacity:kueue"].update(chartVersion=version), out)
    assert kueue_version(copy) == version
    plan, manifests = rendered(out / "out", copy)
    kueue_objects = [obj for obj in manifests.values() if str(obj["apiVersion"]).startswith("kueue.x-k8s.io/")]
    assert kueue_objects
    for obj in kueue_objects:
        validate_kueue(obj, version)
    charts = [r["inputs"] for r in of_type(plan, CHART) if str(r["inputs"]["chart"]).endswith("/kueue")]
    assert charts and {chart["version"] for chart in charts} == {version}
    return charts


def one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


@pytest.mark.parametrize(("stack", "version", "profile"), CASES, ids=[f"{s.name}-{v}" for s, v, _ in CASES])
def test_the_chart_renders_what_the_stack_asked_for(stack, version, profile, tmp_path):
    structs = configuration_structs(version)
    charts = kueue_charts(stack, version, tmp_path)
    assert charts
    for inputs in charts:
        values = inputs["values"]
        asked = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
        objects = render_chart(version, inputs)
        fullname = inputs["name"] if "kueue" in inputs["name"] else f"{inputs['name']}-kueue"
        config_map = one(objects, "ConfigMap", f"{fullname}-manager-config")
        config = yaml.safe_load(config_map["data"]["controller_manager_config.yaml"])
        chart_added = config.pop("internalCertManagement")
        assert config == asked, "the chart writes the program's manager Configuration as it is"
        assert chart_added["webhookServiceName"] == f"{fullname}-webhook-service" and chart_added["enable"]
        assert undecodable_keys(config | {"internalCertManagement": chart_added}, "Configuration", structs) == []
        assert {k: v for k, v in config.items() if k in profile.manager_defaults} == dict(profile.manager_defaults)

        manager = one(objects, "Deployment", f"{fullname}-controller-manager")
        assert manager["metadata"]["namespace"] == inputs["namespace"]
        assert manager["spec"]["replicas"] == values["controllerManager"]["replicas"]
        pod = manager["spec"]["template"]["spec"]
        (container,) = [c for c in pod["containers"] if c["name"] == "manager"]
        repository = values["controllerManager"]["manager"]["image"]["repository"]
        assert container["image"] == f"{repository}:v{version}", "the stack's registry, the chart's tag"
        gates = ",".join(
            f"{g['name']}={str(g['enabled']).lower()}" for g in values["controllerManager"]["featureGates"]
        )
        assert (f"--feature-gates={gates}" in container["args"]) == bool(gates)
        assert pod.get("nodeSelector", {}) == values["controllerManager"]["nodeSelector"]
        assert pod.get("tolerations", []) == values["controllerManager"]["tolerations"]

        webhooks = {w["name"] for o in objects if o["kind"] == "MutatingWebhookConfiguration" for w in o["webhooks"]}
        assert {"mresourceflavor.kb.io", "mclusterqueue.kb.io"} <= webhooks, "what the readiness gate's probe needs"
        one(objects, "Service", f"{fullname}-webhook-service")
        images = {
            c["image"]
            for o in objects
            if o["kind"] == "Deployment"
            for c in o["spec"]["template"]["spec"]["containers"]
        }
        assert images == {f"{repository}:v{version}"}, "no other image: KueueViz stays off"
