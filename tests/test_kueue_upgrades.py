"""Kueue's upgrade path (docs/kueue-upgrades.md): one minor at a time, held by the version pin across runs of a stack,
with each step's diff, computed from the program's objects and the real chart, as the doc documents it."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.config.kueue.profiles import profile_for
from tests.support import kueue_upgrades
from tests.support.kueue_upgrades import STEPS, UPGRADE_STACK, Install, install, step_block, step_diff
from tests.support.stacks import STACKS, edited_stack, recorded, run_stack
from tools import mock_engine, mock_runtime
from tools.gitops_preview import is_kueue_chart
from tools.recording import Recording, RecordingMonitor, Registration

KEY = "elastic-capacity:kueue.chartVersion"
PIN = "pulumi-python:dynamic/kueue:KueueVersion"
CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"


def at(version: str, out: Path) -> Path:
    """A copy of the upgrade stack asking for ``version``."""
    out.mkdir(parents=True, exist_ok=True)
    return edited_stack(
        UPGRADE_STACK, lambda config: config["elastic-capacity:kueue"].update(chartVersion=version), out
    )


def previews(monkeypatch, tmp_path: Path, *versions: str) -> list[tuple[Recording, str]]:
    """``pulumi preview`` of the stack at each version in turn, each run against the state the last one left: what
    it registered and the version its pin decided."""
    state: dict = {}
    monkeypatch.setattr(mock_engine, "VERSION_PIN_STATE", state)
    runs = []
    for i, version in enumerate(versions):
        recording = run_stack(at(version, tmp_path / f"run-{i}"), preview=True)
        runs.append((recording, state[(PIN, "kueue-version")]["version"]))
    return runs


@pytest.mark.parametrize(("old", "new"), [("0.17.8", "0.18.6"), ("0.18.6", "0.19.2"), ("0.17.1", "0.17.8")])
def test_one_minor_or_one_patch_up_moves_the_chart_and_re_runs_the_gate(monkeypatch, tmp_path, old, new):
    (first, first_pin), (second, second_pin) = previews(monkeypatch, tmp_path, old, new)
    assert [first_pin, second_pin] == [old, new]
    assert [run.one(CHART).inputs["version"] for run in (first, second)] == [old, new]
    gates = [run.one(JOB, "kueue-ready").inputs["metadata"]["name"] for run in (first, second)]
    assert gates[0] != gates[1], "a new gate Job name: the probe runs again on the changed install"


def test_an_unchanged_stack_registers_the_same_inputs_on_its_second_preview(monkeypatch, tmp_path):
    (first, _), (second, _) = previews(monkeypatch, tmp_path, "0.19.2", "0.19.2")
    gates = [run.one(JOB, "kueue-ready").inputs["metadata"]["name"] for run in (first, second)]
    assert gates[0] == gates[1], "the same gate Job: it does not run again"
    registered = [{r.urn: r.inputs for r in run.registrations} for run in (first, second)]
    assert registered[1] == registered[0]


class KeptMonitor(RecordingMonitor):
    """The mock monitor, kept reachable after a failed run: what the run registered before its pin was refused."""

    last: KeptMonitor | None = None

    def __init__(self, mocks) -> None:
        super().__init__(mocks)
        KeptMonitor.last = self


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("0.17.8", "0.19.2", "skips a minor: Kueue runs 0.17.8; upgrade one minor at a time, to 0.18 first"),
        ("0.19.2", "0.18.6", "would downgrade Kueue from 0.19.2; Kueue documents no downgrade"),
    ],
)
def test_a_skipped_minor_or_a_minor_down_is_refused_before_the_chart_is_touched(monkeypatch, tmp_path, old, new, says):
    previews(monkeypatch, tmp_path, old)
    monkeypatch.setattr(mock_runtime, "RecordingMonitor", KeptMonitor)
    with pytest.raises(mock_engine.CheckFailed) as caught:
        run_stack(at(new, tmp_path / "refused"), preview=True)
    assert str(caught.value).startswith(f"{KEY}: {new!r} {says}")
    assert KeptMonitor.last is not None
    registered: list[Registration] = KeptMonitor.last.registrations
    assert PIN not in {r.type for r in registered}, "the refused pin is not registered"
    assert CHART not in {r.type for r in registered}, "the chart waits for the pin"
    assert not [r for r in registered if r.type == JOB and r.name == "kueue-crd-wait"], "so does the CRD wait"


def test_a_new_install_takes_any_supported_version(monkeypatch, tmp_path):
    for version in ("0.17.1", "0.19.2"):
        [(_, pinned)] = previews(monkeypatch, tmp_path / version, version)
        assert pinned == version


@pytest.mark.parametrize("stack", STACKS, ids=[stack.name for stack in STACKS])
def test_every_kueue_chart_waits_for_its_own_pin_of_the_same_version(stack):
    """The manager's Kueue and each MultiKueue worker's (a chart of its own, on the worker's cluster)."""
    recording = recorded(stack)
    charts = [chart for chart in recording.by_type(CHART) if is_kueue_chart(chart)]
    for chart in charts:
        [pin] = [p for p in recording.by_type(PIN) if p.parent == chart.parent]
        assert (pin.inputs["key"], pin.inputs["requested"]) == (KEY, chart.inputs["version"])
        assert pin.urn in chart.dependencies
    assert len(recording.by_type(PIN)) == len(charts)


# --- each step's diff, as docs/kueue-upgrades.md documents it -------------------------------------------------------


@pytest.fixture(scope="module")
def installs(tmp_path_factory) -> dict[str, Install]:
    """The upgrade stack at every version a step names, rendered once."""
    out = tmp_path_factory.mktemp("installs")
    return {version: install(version, out / version) for version in sorted({v for step in STEPS for v in step})}


@pytest.mark.parametrize(("old", "new"), STEPS, ids=[f"{old}->{new}" for old, new in STEPS])
def test_the_doc_documents_exactly_the_diff_of_each_step(installs, old, new):
    diff = step_diff(installs[old], installs[new])
    documented = kueue_upgrades.documented_block(kueue_upgrades.UPGRADES_DOC.read_text(), old, new)
    assert documented == step_block(old, new, diff), (
        "docs/kueue-upgrades.md is stale: python -m tests.support.kueue_upgrades --write"
    )


def test_the_steps_are_each_verified_patch_to_the_next_one_minor_at_a_time():
    assert STEPS == [("0.17.1", "0.17.8"), ("0.17.8", "0.18.6"), ("0.18.6", "0.19.2")]
    for old, new in STEPS:
        (old_major, old_minor), (major, minor) = (tuple(map(int, v.split(".")[:2])) for v in (old, new))
        assert (major, minor) in {(old_major, old_minor), (old_major, old_minor + 1)}


@pytest.mark.parametrize(("old", "new"), STEPS, ids=[f"{old}->{new}" for old, new in STEPS])
def test_each_step_renames_the_gate_job_after_the_new_version(installs, old, new):
    """An unchanged install keeps its name: test_an_unchanged_stack_registers_the_same_inputs_on_its_second_preview."""
    names = installs[old].gate_job, installs[new].gate_job
    assert [name.rsplit("-", 1)[0] for name in names] == [f"kueue-ready-{v.replace('.', '-')}" for v in (old, new)]


def test_the_webhooks_that_had_a_scope_keep_the_one_the_program_writes(installs):
    """0.18 scopes every integration webhook (kueue#11192); the program's managedJobsNamespaceSelector was already on
    the others, so only the webhooks that had none change, to that selector."""
    diff = step_diff(installs["0.17.8"], installs["0.18.6"])
    selector = installs["0.18.6"].manager_config["managedJobsNamespaceSelector"]
    assert diff.webhook_scopes
    assert [(before, after) for _, before, after in diff.webhook_scopes] == [({}, selector)] * len(diff.webhook_scopes)


def test_0_19_adds_no_wait_for_pods_ready_to_the_configuration_the_default_turns_it_on(installs):
    """The stack sets none, so 0.19's default applies: the doc's WaitForPodsReady line comes from the profiles."""
    assert "waitForPodsReady" not in installs["0.19.2"].manager_config
    assert (profile_for("0.18.6").wait_for_pods_ready_default, profile_for("0.19.2").wait_for_pods_ready_default) == (
        None,
        "30m",
    )
