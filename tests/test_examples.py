"""The Kueue gallery (examples/kueue/): every stack renders one of Kueue v0.19.2's own example set-ups field for
field, and the upstream set-ups Kueue refuses are refused by the program too, with the key that is wrong."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from components.config.kueue.kueue import OPT_IN_LABEL
from tests.support import PROJECT_ROOT
from tests.support.gallery import assert_renders_the_upstream_objects, canonical
from tests.support.kueue_examples import GALLERY, REFUSED, Refused
from tests.support.stacks import STACKS, edited_stack, of_type, rendered
from tools import render, stack_schema

GALLERY_DIR = PROJECT_ROOT / "examples/kueue"
GALLERY_FILES = sorted(GALLERY_DIR.glob("Pulumi.*.yaml"))
MANAGER_KEYS = ("fairSharing", "admissionFairSharing", "resources", "waitForPodsReady", "objectRetentionPolicies")
"""The manager Configuration keys a gallery set-up may need, besides ``metrics.customLabels`` and the feature gates;
every other key is the program's own."""

Rendered = tuple[dict[str, Any], dict[str, dict[str, Any]]]


def stack_name(path: Path) -> str:
    return path.name.removeprefix("Pulumi.").removesuffix(".yaml")


GALLERY_NAMES = [stack_name(path) for path in GALLERY_FILES]


def manager_settings(plan: dict[str, Any]) -> dict[str, Any]:
    """The gallery's keys of the manager Configuration the Kueue chart is given
    (``managerConfig.controllerManagerConfigYaml``): :data:`MANAGER_KEYS`, ``metrics`` with only its ``customLabels``
    (``bindAddress`` is the chart's), and ``featureGates`` from the chart's ``controllerManager.featureGates`` (the
    manager's ``--feature-gates`` flag)."""
    (chart,) = of_type(plan, "kubernetes:helm.sh/v4:Chart")
    values = chart["inputs"]["values"]
    config = yaml_text.load(values["managerConfig"]["controllerManagerConfigYaml"])
    settings = {key: config[key] for key in MANAGER_KEYS if key in config}
    if "customLabels" in config.get("metrics", {}):
        settings["metrics"] = {"customLabels": config["metrics"]["customLabels"]}
    if gates := values["controllerManager"].get("featureGates"):
        settings["featureGates"] = {gate["name"]: gate["enabled"] for gate in gates}
    return settings


@pytest.fixture(scope="module")
def gallery() -> Callable[[str], Rendered]:
    """Renders each stack once for the tests that read it, as ``python -m tools.render`` does."""
    cache: dict[str, Rendered] = {}

    def render_stack(name: str) -> Rendered:
        if name not in cache:
            cache[name] = rendered(GALLERY_DIR / f"Pulumi.{name}.yaml")
        return cache[name]

    return render_stack


def test_every_gallery_stack_has_its_upstream_set_up_and_every_set_up_its_stack():
    assert sorted(GALLERY_NAMES) == sorted(GALLERY)


def test_every_example_and_shipped_stack_file_points_editors_at_the_schema():
    """Each file's first line is the YAML language server's modeline, by a relative path that reaches
    stacks/stack-file.schema.json from where the file sits (tests/cases/ are corpus inputs, not stack files to edit)."""
    violations = []
    for path in [*sorted(PROJECT_ROOT.glob("examples/*/Pulumi.*.yaml")), *STACKS]:
        first = path.read_text().partition("\n")[0]
        prefix, _, schema = first.partition("$schema=")
        if prefix != stack_schema.MODELINE.partition("$schema=")[0] or not schema:
            violations.append(f"{path.relative_to(PROJECT_ROOT)}: first line {first!r} is not the modeline")
        elif (path.parent / schema).resolve() != stack_schema.SCHEMA_FILE:
            violations.append(f"{path.relative_to(PROJECT_ROOT)}: {schema} does not reach {stack_schema.SCHEMA_FILE}")
    assert not violations, "\n".join(violations)


def header(path: Path) -> str:
    """The comment lines a stack file starts with."""
    lines = path.read_text().splitlines()
    return "\n".join(itertools.takewhile(lambda line: line.startswith("#"), lines))


def test_the_header_names_the_upstream_source_at_the_tag():
    assert [
        name for name in GALLERY_NAMES if GALLERY[name].url not in header(GALLERY_DIR / f"Pulumi.{name}.yaml")
    ] == []


def test_the_gallery_readme_lists_each_stack_once_with_its_source():
    lines = (GALLERY_DIR / "README.md").read_text().splitlines()
    rows = {name: [line for line in lines if f"`Pulumi.{name}.yaml`" in line] for name in GALLERY_NAMES}
    assert [name for name, found in rows.items() if len(found) != 1 or f"({GALLERY[name].url})" not in found[0]] == []


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_the_stack_renders_the_upstream_objects_field_for_field(name, gallery):
    plan, manifests = gallery(name)
    assert_renders_the_upstream_objects(plan, manifests, GALLERY[name].objects)


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_the_manager_has_exactly_the_settings_the_set_up_needs(name, gallery):
    plan, _ = gallery(name)
    assert canonical(manager_settings(plan)) == canonical(GALLERY[name].manager)


@pytest.mark.parametrize("refused", REFUSED, ids=[r.name for r in REFUSED])
def test_a_set_up_kueue_refuses_is_refused_naming_the_key(refused: Refused, tmp_path, capsys):
    def express(config: dict[str, Any]) -> None:
        for section in ("queues", "kueue"):
            config.pop(f"elastic-capacity:{section}", None)
        config.update({f"elastic-capacity:{section}": value for section, value in refused.sections.items()})

    stack = edited_stack(GALLERY_DIR / "Pulumi.single-clusterqueue.yaml", express, tmp_path)
    assert render.main([str(stack), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {stack}:"), error
    assert f": elastic-capacity:{refused.key}: " in error, f"{refused.rule}: {error}"


def waits_on_something_made_elsewhere(objects: list[dict[str, Any]]) -> bool:
    """A check whose controller is not Kueue's, or a flavor, check, config or ClusterQueue the set-up does not
    create."""
    created = {(obj["kind"], obj["metadata"]["name"]) for obj in objects}
    for obj in objects:
        spec = obj.get("spec", {})
        if obj["kind"] == "AdmissionCheck" and spec["controllerName"] != "kueue.x-k8s.io/provisioning-request":
            return True
        named = [("ResourceFlavor", f["name"]) for group in spec.get("resourceGroups", []) for f in group["flavors"]]
        named += [
            ("AdmissionCheck", c["name"]) for c in spec.get("admissionChecksStrategy", {}).get("admissionChecks", [])
        ]
        named += [("ClusterQueue", spec["clusterQueue"])] if obj["kind"] == "LocalQueue" else []
        named += [(spec["parameters"]["kind"], spec["parameters"]["name"])] if "parameters" in spec else []
        if any(ref not in created for ref in named):
            return True
    return False


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_a_set_up_waiting_on_objects_made_elsewhere_warns_instead_of_failing_up(name, gallery):
    """Its queues stay inactive until those objects exist; failing ``up`` after the timeout would help nobody."""
    plan, _ = gallery(name)
    waiters = of_type(plan, "pulumi-python:dynamic/kueue:QueuesActive")
    if not {obj["kind"] for obj in GALLERY[name].objects} & {"AdmissionCheck", "ClusterQueue"}:
        assert waiters == [], "nothing it creates has an Active condition to prove"
        return
    [waiter] = waiters
    expected = "warn" if waits_on_something_made_elsewhere(GALLERY[name].objects) else "fail"
    assert waiter["inputs"]["onInactive"] == expected


@pytest.mark.parametrize("name", GALLERY_NAMES)
def test_every_local_queue_namespace_opts_in_to_kueues_job_webhook(name, gallery):
    """Created namespaces carry the label; existing ones (``default``) get it patched on, and nothing else."""
    plan, manifests = gallery(name)
    labelled = {
        obj["metadata"]["name"]
        for obj in manifests.values()
        if obj["kind"] == "Namespace" and obj["metadata"].get("labels", {}).get(OPT_IN_LABEL[0]) == OPT_IN_LABEL[1]
    }
    hosting = {obj["metadata"]["namespace"] for obj in GALLERY[name].objects if obj["kind"] == "LocalQueue"}
    assert hosting <= labelled
    for patch in of_type(plan, "kubernetes:core/v1:NamespacePatch"):
        assert patch["inputs"]["metadata"] == {
            "name": patch["inputs"]["metadata"]["name"],
            "labels": dict([OPT_IN_LABEL]),
        }
