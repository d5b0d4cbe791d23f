"""How fast a user gets a working environment, and how cheap a preview is: ``python -m tools.bench``.

    python -m tools.bench [--quick] [--skip-install] [--sizes 1,5,20,50,200] [--repeat 3] [--json out.json]

prints, in one run (docs/bench.md explains every table):

1. the weighted critical path of every shipped stack (``stacks/Pulumi.*.yaml``) from the waits in its plan, beside
   the time of all its creates done in series (each one after the other, as a step-by-step manual set-up does them)
   and the minimal chain (only the waits that are really needed), the waits that are not needed, and the time to
   ready of both ephemeral modes;
2. the render wall time and peak memory of every shipped stack and of the synthetic fleets of
   :mod:`tools.bench_fleets` (N queues, workloads, ACK clusters, AKS pools, ACK pools, MultiKueue workers; a fleet with
   a limit at most its limit), each in a fresh process, against a flat replay of the same resources measured in the
   same run, with the ratio, the run time per resource and the marginal cost per resource;
3. program start-up against ``import pulumi``, the test suite's and the fast subset's wall and CPU time (not with
   ``--quick``) and the install
   time and size with pip and uv (not with ``--skip-install``).

Nothing is deployed: the create times are the documented table of :mod:`tools.bench_weights`.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools import bench_env, bench_graph, bench_render, bench_rules, bench_weights
from tools.bench_fleets import CAPS, FLEETS, Spec, capped
from tools.bench_graph import Graph, short
from tools.bench_render import Measured

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml"))
EPHEMERAL_MODES = ("ephemeral", "ephemeral-shared")
DEFAULT_SIZES = (1, 5, 20, 50, 200)
TARGETS = {"suite wall s": 60.0, "fast subset wall s": 15.0, "start-up ratio": 2.0}
"""Issue 37's targets, each an upper bound: the default suite on 2 cores, the fast subset, and the program's import
against ``import pulumi``."""
FAST_SUBSET = ("-n", "0", "tests/components/config")
"""The fast feedback loop: the config models and their rules, in one process (xdist's workers would each collect
the lot again: twice the CPU for no gain at this size)."""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one run per render, no test suite")
    parser.add_argument("--skip-install", action="store_true", help="no pip/uv install into fresh venvs")
    parser.add_argument("--sizes", type=sizes, default=DEFAULT_SIZES, help="fleet sizes N (default 1,5,20,50,200)")
    parser.add_argument("--repeat", type=int, default=None, help="runs per render and import (default 3, quick 1)")
    parser.add_argument("--json", type=Path, help="also write every number to this file")
    args = parser.parse_args(argv)
    args.repeat = args.repeat or (1 if args.quick else 3)
    return args


def sizes(text: str) -> tuple[int, ...]:
    values = tuple(int(part) for part in text.split(",") if part.strip())
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("sizes are positive integers, comma-separated: 1,5,20")
    return values


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min ({seconds:.0f} s)"


def machine() -> dict[str, Any]:
    cpu = next((line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo") if line.startswith("model name")), "")
    memory = next((line.split(":", 1)[1].strip() for line in _read("/proc/meminfo") if line.startswith("MemTotal")), "")
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "python": platform.python_version(),
        "loadAverage": [round(x, 2) for x in os.getloadavg()],
    }


def _read(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


# ---- 1. critical paths --------------------------------------------------------------------------------------------


def analyse(plan: dict[str, Any]) -> dict[str, Any]:
    """Critical path, minimal chain, serial sum, branches and the audit of every wait of one annotated plan."""
    graph = Graph(plan)
    needed = bench_graph.minimal_waits(graph)
    weight = bench_weights.seconds
    critical = bench_graph.critical_path(graph, weight)
    minimal = bench_graph.minimal_chain(graph, weight, needed)
    halves = {
        name: bench_graph.critical_path(graph, weight, nodes).seconds
        for name, nodes in bench_graph.branches(graph).items()
    }
    unneeded = [w for w in bench_graph.audit(graph, needed) if w.needed_by is None]
    offending = [(a, b) for a, b in bench_graph.chain_edges(critical) if b not in needed[a]]
    return {
        "resources": len(graph.resources),
        "serialSeconds": sum(weight(r) for r in graph.resources),
        "criticalSeconds": critical.seconds,
        "criticalChain": [short(u) for u in critical.chain],
        "minimalSeconds": minimal.seconds,
        "minimalChain": [short(u) for u in minimal.chain],
        "branches": halves,
        "unneededWaits": [
            {
                "dependent": short(w.dependent),
                "dependency": short(w.dependency),
                "via": list(w.via),
                "implied": w.implied,
            }
            for w in unneeded
        ],
        "offendingWaits": [f"{short(a)} -> {short(b)}" for a, b in offending],
    }


def print_paths(paths: dict[str, dict[str, Any]]) -> None:
    print("\n## Critical path per shipped stack (typical create times of tools/bench_weights.py)\n")
    rows = [
        [
            name,
            p["resources"],
            minutes(p["serialSeconds"]),
            minutes(p["criticalSeconds"]),
            minutes(p["minimalSeconds"]),
            f"{p['criticalSeconds'] - p['minimalSeconds']:.0f} s",
            " / ".join(f"{k} {minutes(v)}" for k, v in sorted(p["branches"].items())),
        ]
        for name, p in paths.items()
    ]
    headers = ["stack", "resources", "all creates in series", "critical path", "minimal chain", "excess", "branches"]
    print(table(headers, rows))
    print("\n## Time to ready of the ephemeral modes\n")
    rows = [
        [
            m,
            minutes(paths[m]["criticalSeconds"]),
            minutes(paths[m]["minimalSeconds"]),
            " → ".join(paths[m]["criticalChain"]),
        ]
        for m in EPHEMERAL_MODES
        if m in paths
    ]
    print(table(["mode", "critical path", "minimal chain", "critical chain"], rows))
    print("\n## Critical chains\n")
    for name, p in paths.items():
        print(f"- {name}: {' → '.join(p['criticalChain'])}")
    print("\n## Waits that are not needed (tools/bench_rules.py), per stack\n")
    for name, p in paths.items():
        offending = ", ".join(p["offendingWaits"]) or "none"
        print(f"{name}: {len(p['unneededWaits'])} not needed; on the critical path: {offending}")
        for w in p["unneededWaits"]:
            effect = "implied by needed waits" if w["implied"] else "adds waiting"
            print(f"  - {w['dependent']} waits for {w['dependency']} ({', '.join(w['via'])}; {effect})")


def print_tables(plans: dict[str, dict[str, Any]]) -> None:
    used = sorted({key for plan in plans.values() for key in bench_weights.used_keys(plan["resources"])})
    print("\n## Create times used (seconds; basis: vendor figure, estimate, or none)\n")
    rows = []
    for key in used:
        w = bench_weights.WEIGHTS.get(key)
        rows.append(
            [key, *(["no weight"] * 4)]
            if w is None
            else [key, f"{w.seconds:g}", f"{w.low:g}-{w.high:g}", w.basis, f"{w.note} {w.source or ''}".strip()]
        )
    print(table(["type", "typical", "range", "basis", "note and source"], rows))
    print("\n## Documented ordering requirements (besides provider and consumed outputs)\n")
    print(
        table(
            ["rule", "what", "why", "source"], [[r.name, r.what, r.reason, r.source] for r in bench_rules.REQUIREMENTS]
        )
    )


# ---- 2. render cost -----------------------------------------------------------------------------------------------


def median_of(runs: list[Measured]) -> Measured:
    fields = [f.name for f in dataclasses.fields(Measured)]
    return Measured(**{f: statistics.median(getattr(m, f) for m in runs) for f in fields})


def render_pair(spec: Spec, workdir: Path, repeat: int) -> tuple[Measured, Measured, dict[str, Any]]:
    """The real render and its flat replay, ``repeat`` times each after one unmeasured real run (which writes the
    plan the others preload their SDK modules from); the medians and the annotated plan."""
    spec_path, plan_path = workdir / f"{spec.stack}.spec.json", workdir / f"{spec.stack}.plan.json"
    spec_path.write_text(json.dumps(spec.to_json()))
    bench_render.measure(["real", str(spec_path), str(plan_path)])
    preload = workdir / f"{spec.stack}.preload.json"
    preload.write_text(plan_path.read_text())
    real = [bench_render.measure(["real", str(spec_path), str(plan_path), str(preload)]) for _ in range(repeat)]
    flat = [bench_render.measure(["flat", str(plan_path)]) for _ in range(repeat)]
    return median_of(real), median_of(flat), json.loads(plan_path.read_text())


def render_row(name: str, real: Measured, flat: Measured) -> dict[str, Any]:
    return {
        "name": name,
        "resources": real.resources,
        "real": dataclasses.asdict(real),
        "flat": dataclasses.asdict(flat),
        "wallRatio": real.wall_seconds / flat.wall_seconds,
        "runRatio": real.run_seconds / flat.run_seconds if flat.run_seconds else float("nan"),
        "runMsPerResource": 1000 * real.run_seconds / real.resources if real.resources else float("nan"),
    }


def print_render(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n## {title}\n")
    body = [
        [
            r["name"],
            r["resources"],
            f"{r['real']['wall_seconds']:.2f}",
            f"{r['flat']['wall_seconds']:.2f}",
            f"{r['wallRatio']:.2f}",
            f"{r['real']['run_seconds']:.3f}",
            f"{r['flat']['run_seconds']:.3f}",
            f"{r['runRatio']:.1f}",
            f"{r['runMsPerResource']:.1f}",
            f"{r['real']['peak_rss_mb']:.0f}",
            f"{r['flat']['peak_rss_mb']:.0f}",
        ]
        for r in rows
    ]
    headers = [
        "render",
        "resources",
        "wall s",
        "floor wall s",
        "ratio",
        "run s",
        "floor run s",
        "run ratio",
        "run ms/resource",
        "RSS MB",
        "floor RSS MB",
    ]
    print(table(headers, body))


def slopes(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Marginal cost per resource in ms (least-squares slope over the fleet's sizes), real and floor."""

    def fit(side: str, field: str) -> float:
        return 1000 * bench_render.slope([(r["resources"], r[side][field]) for r in rows])

    return {
        "wallMs": fit("real", "wall_seconds"),
        "floorWallMs": fit("flat", "wall_seconds"),
        "runMs": fit("real", "run_seconds"),
        "floorRunMs": fit("flat", "run_seconds"),
    }


def fleets(sizes_: Sequence[int], workdir: Path, repeat: int) -> dict[str, Any]:
    """Every fleet at every size; a size past the fleet's limit is rendered at the limit (once, however many sizes
    exceed it) and its row says so: ``aks-pools N=200 → 99 (AKS limit)``."""
    results: dict[str, Any] = {}
    for fleet, build in FLEETS.items():
        rows, measured = [], {}
        for n in sizes_:
            built = capped(fleet, n)
            if built not in measured:
                real, flat, _ = render_pair(build(n), workdir, repeat)
                measured[built] = render_row(f"{fleet} N={built}", real, flat)
            row = dict(measured[built], requested=n, built=built)
            if built != n:
                row["name"] = f"{fleet} N={n} → {built} ({CAPS[fleet][1]})"
            rows.append(row)
        results[fleet] = {"rows": rows, "slopes": slopes(list(measured.values()))}
        print_render(f"Synthetic fleet: {fleet}", rows)
        print("\nmarginal cost per resource: " + ", ".join(f"{k} {v:.2f}" for k, v in results[fleet]["slopes"].items()))
    return results


# ---- 3. process-level measures ------------------------------------------------------------------------------------


def suite_line(suite: bench_env.Timed) -> str:
    """``python -m pytest: 118 s wall, 198 s CPU, 4504 passed ...``: the CPU time is the steadier of the two."""
    cpu = f", {suite.cpu_seconds:.0f} s CPU" if suite.cpu_seconds is not None else ""
    return f"python -m pytest: {suite.seconds:.0f} s wall{cpu}, {suite.note}"


def environment(args: argparse.Namespace) -> dict[str, Any]:
    runs = 3 if args.quick else 9
    startup = bench_env.import_medians(("pulumi", "components.fleet"), runs)
    print("\n## Program start-up (median of fresh processes)\n")
    ratio = startup["components.fleet"] / startup["pulumi"]
    print(table(["import", "seconds"], [[m, f"{s:.2f}"] for m, s in startup.items()] + [["ratio", f"{ratio:.2f}"]]))
    result: dict[str, Any] = {"startup": startup, "startupRatio": ratio, "startupRuns": runs}
    suite = None if args.quick else bench_env.suite_wall_time()
    fast = None if args.quick else bench_env.suite_wall_time(FAST_SUBSET)
    result["testSuite"] = dataclasses.asdict(suite) if suite else "skipped (--quick)"
    result["fastSubset"] = dataclasses.asdict(fast) if fast else "skipped (--quick)"
    result["fastSubsetArgs"] = list(FAST_SUBSET)
    print("\n## Test suite\n")
    print(suite_line(suite) if suite and suite.seconds else "skipped (--quick)")
    if fast and fast.seconds:
        print(suite_line(fast).replace("python -m pytest", "python -m pytest " + " ".join(FAST_SUBSET), 1))
    measured = {"start-up ratio": ratio}
    failed = {}
    for key, timed in (("suite wall s", suite), ("fast subset wall s", fast)):
        if timed and timed.seconds:
            measured[key] = timed.seconds
            if not timed.ok:
                failed[key] = f" (not all passed: {timed.note})"
    result["targets"] = {k: {"target": TARGETS[k], "measured": v, "met": v <= TARGETS[k]} for k, v in measured.items()}
    print("\n## Targets\n")
    rows = [
        [k, f"≤ {t['target']:g}", f"{t['measured']:.2f}", ("met" if t["met"] else "MISSED") + failed.get(k, "")]
        for k, t in result["targets"].items()
    ]
    print(table(["target", "bound", "measured", "result"], rows))
    installed = {} if args.skip_install else bench_env.installs()
    result["install"] = {k: dataclasses.asdict(v) for k, v in installed.items()} or "skipped (--skip-install)"
    print("\n## Install of requirements-dev.txt into a fresh venv\n")
    rows = [
        [tool, f"{t.seconds:.0f}" if t.seconds else "-", f"{t.size_mb:.0f}" if t.size_mb else "-", t.note]
        for tool, t in installed.items()
    ]
    print(table(["tool", "seconds", "size MB", "result"], rows) if rows else "skipped (--skip-install)")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict[str, Any] = {
        "machine": machine(),
        "command": "python -m tools.bench " + " ".join(argv or sys.argv[1:]),
    }
    print(f"# python -m tools.bench\n\n{json.dumps(report['machine'])}")
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        workdir = Path(tmp)
        rendered = {path.name.removeprefix("Pulumi.").removesuffix(".yaml"): _stack_spec(path) for path in SHIPPED}
        stack_rows, plans = [], {}
        for name, spec in rendered.items():
            real, flat, plans[name] = render_pair(spec, workdir, args.repeat)
            stack_rows.append(render_row(name, real, flat))
        report["criticalPaths"] = {name: analyse(plan) for name, plan in plans.items()}
        print_paths(report["criticalPaths"])
        print_tables(plans)
        print_render("Render of the shipped stacks (fresh process each; floor = flat replay)", stack_rows)
        report["render"] = stack_rows
        report["fleets"] = fleets(args.sizes, workdir, args.repeat)
    report.update(environment(args))
    report["machine"]["loadAverageAfter"] = [round(x, 2) for x in os.getloadavg()]
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return 0


def _stack_spec(path: Path) -> Spec:
    from tools import render

    stack, config, secret_keys = render.read_stack_file(path)
    return Spec(stack, config, tuple(sorted(secret_keys)))


if __name__ == "__main__":
    sys.exit(main())
