"""The benchmark's structure, never a timing: options, tables, a complete weight table, and the resource graph of
every shipped stack, whose critical path should be its minimal chain (no wait that is not needed lengthens it)."""

from __future__ import annotations

import gc
import logging
from typing import Any

import pytest

from tests.support.stacks import STACKS, as_shipped
from tools import bench, bench_weights
from tools.bench_render import Measured, annotated_plan


@pytest.fixture(scope="module")
def shipped() -> dict[str, dict[str, Any]]:
    """Every shipped stack's annotated plan, as ``python -m tools.bench`` analyses it, rendered in-process once.

    Garbage collection is paused meanwhile: the SDKs' modules make each full collection walk a few hundred thousand
    objects, which is most of a render's time (BENCHMARKS.md)."""
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    gc.disable()
    try:
        plans = {}
        for path in STACKS:
            stack, recording = as_shipped(path)
            plans[path.name.removeprefix("Pulumi.").removesuffix(".yaml")] = annotated_plan(stack, recording)
        return plans
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def paths(shipped) -> dict[str, dict[str, Any]]:
    return {name: bench.analyse(plan) for name, plan in shipped.items()}


def test_every_resource_type_of_every_shipped_stack_has_a_create_time(shipped):
    assert [
        f"{name}: {key}" for name, plan in shipped.items() for key in bench_weights.missing(plan["resources"])
    ] == []


def test_each_shipped_stacks_critical_path_is_its_minimal_chain_and_no_longer_than_the_serial_flow(paths):
    """No wait that is not needed lengthens a shipped stack's time to ready."""
    assert [
        f"{name}: {problem}"
        for name, path in paths.items()
        for holds, problem in [
            (path["offendingWaits"] == [], f"waits not needed lengthen it: {path['offendingWaits']}"),
            (path["criticalSeconds"] == path["minimalSeconds"], "critical path != minimal chain"),
            (path["criticalSeconds"] <= path["serialSeconds"], "critical path longer than the serial flow"),
            (bool(path["criticalChain"] and path["minimalChain"]), "an empty chain"),
        ]
        if not holds
    ] == []


def test_multicloud_takes_no_longer_than_its_slower_branch(paths):
    multicloud = paths["multicloud"]
    assert set(multicloud["branches"]) == {"aks", "ack"}
    assert multicloud["criticalSeconds"] <= max(multicloud["branches"].values())


def test_both_ephemeral_modes_have_a_time_to_ready(paths):
    assert set(bench.EPHEMERAL_MODES) <= set(paths)
    assert paths["ephemeral-shared"]["criticalSeconds"] < paths["ephemeral"]["criticalSeconds"]


def test_options_and_their_defaults():
    assert bench.parse_args([]).repeat == 3
    quick = bench.parse_args(["--quick", "--skip-install", "--sizes", "1,5,20", "--json", "out.json"])
    assert (quick.quick, quick.skip_install, quick.sizes, quick.repeat, str(quick.json)) == (
        True,
        True,
        (1, 5, 20),
        1,
        "out.json",
    )
    with pytest.raises(SystemExit):
        bench.parse_args(["--sizes", "0,5"])


def test_tables_are_markdown_and_medians_are_per_field():
    assert bench.table(["a", "b"], [[1, "x"]]) == "| a | b |\n|---|---|\n| 1 | x |"
    assert bench.minutes(90) == "1.5 min (90 s)"
    runs = [Measured(1, 100, 0.5, 0.5, 10), Measured(3, 300, 0.1, 2.5, 10), Measured(2, 200, 0.2, 1.5, 10)]
    assert bench.median_of(runs) == Measured(2, 200, 0.2, 1.5, 10)
    assert {"cpu", "cores", "memory", "loadAverage"} <= set(bench.machine())


def test_a_size_past_a_fleets_limit_is_rendered_once_at_the_limit_and_says_so(monkeypatch, tmp_path, capsys):
    built: list[str] = []

    def render_pair(spec, workdir, repeat):
        built.append(spec.stack)
        n = int(spec.stack.rsplit("-", 1)[1])
        return Measured(1 + n, 100, 0.1, n / 100, n), Measured(1, 100, 0.1, n / 200, n), {}

    monkeypatch.setattr(bench, "render_pair", render_pair)
    monkeypatch.setattr(bench, "FLEETS", {"aks-pools": bench.FLEETS["aks-pools"]})
    rows = bench.fleets([5, 200, 300], tmp_path, 1)["aks-pools"]["rows"]
    assert built == ["bench-aks-pools-5", "bench-aks-pools-99"]
    assert [r["name"] for r in rows] == [
        "aks-pools N=5",
        "aks-pools N=200 → 99 (AKS limit)",
        "aks-pools N=300 → 99 (AKS limit)",
    ]
    assert rows[1]["runMsPerResource"] == pytest.approx(10)
    assert "aks-pools N=200 → 99 (AKS limit)" in capsys.readouterr().out


def test_the_targets_table_says_which_target_is_met(monkeypatch, capsys):
    monkeypatch.setattr(
        bench.bench_env, "import_medians", lambda modules, runs: {"pulumi": 1.0, "components.fleet": 1.5}
    )
    timed = {(): bench.bench_env.Timed(70, False, "1 failed"), bench.FAST_SUBSET: bench.bench_env.Timed(9, True, "")}
    monkeypatch.setattr(bench.bench_env, "suite_wall_time", lambda args=(): timed[tuple(args)])
    result = bench.environment(bench.parse_args(["--skip-install"]))
    assert {k: t["met"] for k, t in result["targets"].items()} == {
        "start-up ratio": True,
        "suite wall s": False,
        "fast subset wall s": True,
    }
    assert "| suite wall s | ≤ 60 | 70.00 | MISSED (not all passed: 1 failed) |" in capsys.readouterr().out
