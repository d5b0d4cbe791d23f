"""Each shipped and gallery stack that installs Kueue, through the real chart of its version, rendered by Helm's own
library with the values the program passes (the Chart resource's recorded inputs): every Kueue object a shipped stack
emits validates against that version's CRDs, and the chart holds what the stack asked for: a manager Configuration
that decodes strictly into that version's Configuration type, values a template reads, the image and gates of the
stack from a registry the cluster's region reaches, and the objects the readiness gate and the waiters name.

By default each stack at its own version, the first shipped stack at every verified version, and each distinct set
of the gallery's chart inputs once; the slow tier moves every stack to every other verified version (edited copies;
0.17.1 is the AKS walkthrough's), where a stack asking for a newer minor's feature is refused naming the minor.
Skips saying why when the chart sources or helm-python-sdk are absent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from components.config.base import PROJECT, ConfigError
from components.config.kueue.registries import (
    AZURE_CHINA_MIRRORS,
    MAINLAND_CHINA_UNREACHABLE,
    is_azure_china_only,
    is_mainland_china_region,
    registry_host,
)
from components.config.loader import load_stack_config
from components.config.stack import StackConfig, is_azure_china_region
from components.manifests.kueue_install import chart_values
from tests.support import PROJECT_ROOT
from tests.support.kueue_sources import (
    VERIFIED,
    configuration_structs,
    render_chart,
    undecodable_keys,
    unread_value_keys,
    value_references,
)
from tests.support.schemas import validate_kueue
from tests.support.stacks import STACKS, edited_stack, kueue_version, of_type, rendered
from tests.support.tiers import SLOW, tiered
from tools import render, stack_file

CHART = "kubernetes:helm.sh/v4:Chart"
KUEUE_KEY = f"{PROJECT}:kueue"
GALLERY = sorted((PROJECT_ROOT / "examples").glob("*/Pulumi.*.yaml"))


def config_of(stack: Path) -> StackConfig:
    return render.validate(stack_file.read(stack))


def installs_kueue(stack: Path) -> bool:
    config = config_of(stack)
    return config.kueue_target is not None and config.kueue.install


def moved(stack: Path, version: str, out: Path) -> Path:
    """A copy of ``stack`` installing Kueue ``version``."""
    copy = edited_stack(
        stack, lambda config: config.setdefault("elastic-capacity:kueue", {}).update(chartVersion=version), out
    )
    assert kueue_version(copy) == version
    return copy


def refusals(stack: Path) -> dict[str, str]:
    """The verified versions the config refuses ``stack`` at, with the refusal: the stack read once, each version
    loaded from its engine config with ``chartVersion`` changed, as :func:`moved` edits the file."""
    source = stack_file.read(stack)
    found = {}
    for version, _profile in VERIFIED:
        config = source.engine_config()
        kueue = json.loads(config.get(KUEUE_KEY, "{}"))
        config[KUEUE_KEY] = json.dumps({**kueue, "chartVersion": version})
        try:
            load_stack_config(config, source.secret_keys, stack=source.stack, yaml_scalars=source.yaml_scalars)
        except ConfigError as error:
            found[version] = str(error)
    return found


INSTALLING = [stack for stack in STACKS if installs_kueue(stack)]
GALLERY_INSTALLING = [stack for stack in GALLERY if installs_kueue(stack)]


def names_the_minor(reason: str, version: str) -> bool:
    return re.search(rf"\b{re.escape(version.rsplit('.', 1)[0])}\b", reason) is not None


def test_a_stack_is_refused_only_at_an_older_minor_and_says_which():
    """The verified versions a stack cannot move to: it asks for a feature of a newer minor (MultiKueue before
    0.17.8, DRA mappings or concurrent admission before their minors ...). The error names the minor it got, and the
    stack renders at its own version (its default cell)."""
    found = {
        (stack, version): reason
        for stack in INSTALLING + GALLERY_INSTALLING
        for version, reason in refusals(stack).items()
    }
    assert found, "no stack asks for a newer minor: the matrix below would meet no refusal"
    wrong = {
        (stack.name, version): reason
        for (stack, version), reason in found.items()
        if not names_the_minor(reason, version) or version == kueue_version(stack)
    }
    assert wrong == {}


def kueue_charts(stack: Path, version: str, out: Path) -> list[dict[str, Any]]:
    """The Kueue Chart resources of ``stack`` moved to ``version``, the manager's and any worker's, once
    every Kueue object it emits has validated against the CRDs of ``version`` (OpenAPI + CEL). At its own version
    the stack file itself, whose run the session has made already."""
    plan, manifests = rendered(stack if version == kueue_version(stack) else moved(stack, version, out))
    kueue_objects = [obj for obj in manifests.values() if str(obj["apiVersion"]).startswith("kueue.x-k8s.io/")]
    assert kueue_objects
    for obj in kueue_objects:
        validate_kueue(obj, version)
    charts = [r for r in of_type(plan, CHART) if str(r["inputs"]["chart"]).endswith("/kueue")]
    assert charts and {chart["inputs"]["version"] for chart in charts} == {version}
    return charts


def one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def check_chart(version: str, profile: Any, inputs: dict[str, Any]) -> set[str]:
    """Render the real chart of ``version`` with a Chart's inputs, check it against what the inputs ask for, and
    return the images its workloads run."""
    values = inputs["values"]
    assert unread_value_keys(values, value_references(version)) == [], "every value the program passes is read"
    asked = yaml_text.load(values["managerConfig"]["controllerManagerConfigYaml"])
    objects = render_chart(version, inputs)
    fullname = inputs["name"] if "kueue" in inputs["name"] else f"{inputs['name']}-kueue"
    config_map = one(objects, "ConfigMap", f"{fullname}-manager-config")
    config = yaml_text.load(config_map["data"]["controller_manager_config.yaml"])
    chart_added = config.pop("internalCertManagement")
    assert config == asked, "the chart writes the program's manager Configuration as it is"
    assert chart_added["webhookServiceName"] == f"{fullname}-webhook-service" and chart_added["enable"]
    assert (
        undecodable_keys(
            config | {"internalCertManagement": chart_added}, "Configuration", configuration_structs(version)
        )
        == []
    )
    for key, default in profile.manager_defaults.items():  # the stack's settings (e.g. metrics labels) beside them
        assert config[key] | default == config[key], f"{key}: the chart's default of {profile.minor}"

    manager = one(objects, "Deployment", f"{fullname}-controller-manager")
    assert manager["metadata"]["namespace"] == inputs["namespace"]
    assert manager["spec"]["replicas"] == values["controllerManager"]["replicas"]
    pod = manager["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == "manager"]
    repository = values["controllerManager"]["manager"]["image"]["repository"]
    assert container["image"] == f"{repository}:v{version}", "the stack's registry, the chart's tag"
    gates = ",".join(f"{g['name']}={str(g['enabled']).lower()}" for g in values["controllerManager"]["featureGates"])
    assert (f"--feature-gates={gates}" in container["args"]) == bool(gates)
    assert pod.get("nodeSelector", {}) == values["controllerManager"]["nodeSelector"]
    assert pod.get("tolerations", []) == values["controllerManager"]["tolerations"]

    webhooks = {w["name"] for o in objects if o["kind"] == "MutatingWebhookConfiguration" for w in o["webhooks"]}
    assert {"mresourceflavor.kb.io", "mclusterqueue.kb.io"} <= webhooks, "what the readiness gate's probe needs"
    one(objects, "Service", f"{fullname}-webhook-service")
    images = {
        c["image"]
        for o in objects
        if "template" in o.get("spec", {})
        for c in [
            *o["spec"]["template"]["spec"].get("initContainers", []),
            *o["spec"]["template"]["spec"]["containers"],
        ]
    }
    assert images == {f"{repository}:v{version}"}, "no other image: KueueViz stays off"
    return images


def unreachable(image: str, config: StackConfig, provider: str) -> str | None:
    """Why the nodes of the cluster behind ``provider`` (a provider URN) cannot pull ``image``, or ``None``."""
    host = registry_host(image)
    if "$elastic-capacity:azure:AksCluster$" in provider:
        assert config.aks is not None
        china = is_azure_china_region(config.aks.location)
        if china and host in AZURE_CHINA_MIRRORS:
            return f"Azure China ({config.aks.location}) pulls {host} through {AZURE_CHINA_MIRRORS[host]}"
        if not china and is_azure_china_only(host):
            return f"{host} serves Azure China only, the cluster is in {config.aks.location}"
    if "$elastic-capacity:alicloud:AckProCluster$" in provider:
        assert config.ack is not None
        (region,) = [c.region for c in config.ack.clusters if f"::ack-{c.name}-k8s::" in provider]
        if is_mainland_china_region(region) and host in MAINLAND_CHINA_UNREACHABLE:
            return f"{region} cannot pull from {host}"
        if is_azure_china_only(host):
            return f"{host} serves Azure China only, the cluster is in {region}"
    return None


def own_version_or_first_stack(stack: Path, version: str, _profile: Any) -> bool:
    """The covering cells: each stack at the version it installs, and the first stack at every verified version."""
    return version == kueue_version(stack) or stack == INSTALLING[0]


def refused_for_its_minor(error: ConfigError, stack: Path, version: str) -> None:
    """A stack moved to an older minor than it asks for features of may be refused, naming that minor."""
    assert version != kueue_version(stack) and names_the_minor(str(error), version), error


@pytest.mark.parametrize(
    ("stack", "version", "profile"),
    tiered(
        [(stack, version, profile) for stack in INSTALLING for version, profile in VERIFIED],
        own_version_or_first_stack,
        lambda s, v, _: f"{s.name}-{v}",
    ),
)
def test_the_chart_renders_what_the_stack_asked_for(stack, version, profile, tmp_path):
    """Each stack at its own version, the first at every verified version; in the slow tier every stack at every
    verified version it is not refused at."""
    config = config_of(stack)
    try:
        charts = kueue_charts(stack, version, tmp_path)
    except ConfigError as error:
        return refused_for_its_minor(error, stack, version)
    for chart in charts:
        for image in check_chart(version, profile, chart["inputs"]):
            assert unreachable(image, config, chart["provider"]) is None


def chart_inputs(config: StackConfig) -> dict[str, Any]:
    """What the Chart resource of ``config`` gets: ``chart_values``, whose wiring the test above covers."""
    kueue = config.kueue
    values = chart_values(kueue)
    return {"version": kueue.chart_version, "name": kueue.release_name, "namespace": kueue.namespace, "values": values}


def test_the_chart_renders_the_manager_settings_of_every_gallery_stack():
    """The gallery's manager settings (fair sharing, WaitForPodsReady, retention, metrics labels ...) through the real
    chart of each stack's own version, each distinct set of chart inputs once (most stacks differ only in their queue
    objects, which are not the chart's): every failure named by the stacks that share its inputs."""
    stacks_by_inputs: dict[str, list[str]] = {}
    for stack in GALLERY_INSTALLING:
        inputs = json.dumps(chart_inputs(config_of(stack)), sort_keys=True)
        stacks_by_inputs.setdefault(inputs, []).append(f"{stack.parent.name}/{stack.name}")
    assert 1 < len(stacks_by_inputs) < len(GALLERY_INSTALLING), "the gallery varies its manager settings, not all"
    profiles = dict(VERIFIED)
    failures = {}
    for text, stacks in stacks_by_inputs.items():
        inputs = json.loads(text)
        try:
            check_chart(inputs["version"], profiles[inputs["version"]], inputs)
        except AssertionError as failure:
            failures[", ".join(stacks)] = str(failure)
    assert failures == {}


@pytest.mark.parametrize(
    ("stack", "version", "profile"),
    [
        pytest.param(stack, version, profile, id=f"{stack.parent.name}/{stack.name}-{version}", marks=SLOW)
        for stack in GALLERY_INSTALLING
        for version, profile in VERIFIED
        if version != kueue_version(stack)
    ],
)
def test_the_chart_renders_what_each_gallery_stack_asked_for_at_another_version(stack, version, profile, tmp_path):
    """The slow tier: each gallery stack's manager settings through the chart of every other verified version it is
    not refused at."""
    try:
        config = config_of(moved(stack, version, tmp_path))
    except ConfigError as error:
        return refused_for_its_minor(error, stack, version)
    check_chart(version, profile, chart_inputs(config))


def test_a_value_no_template_reads_is_found():
    """The check above would pass a key the chart ignores (a misspelling, a key of another minor) only if it were
    blind to one."""
    version = VERIFIED[0][0]
    values = chart_values(config_of(INSTALLING[0]).kueue)
    values["controllerManager"]["manager"]["imagePullPolcy"] = "Always"
    values["controllerManager"]["dnsPolicy"] = "ClusterFirst"  # a value of 0.18.5 on
    assert unread_value_keys(values, value_references(version)) == [
        "controllerManager.manager.imagePullPolcy",
        "controllerManager.dnsPolicy",
    ]
