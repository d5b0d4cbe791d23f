"""What each piece of the suite's speed machinery saves: ``python -m tools.bench_machinery``.

    python -m tools.bench_machinery [--only gc,run-cache,...] [--json out.json]

runs the default suite (``python -m pytest``) once as it is and once with each piece switched off, and prints each
run's wall and CPU time and the CPU the piece saves, as a share of the suite's as it is (the CPU time, user and
system of pytest and its workers, is the steadier of the two on a shared machine). A piece is switched off from
outside, by this module loaded as a pytest plugin (``-p tools.bench_machinery``) in every process of the run, which
reads ``BENCH_MACHINERY_OFF``:

- ``gc``: :mod:`components.gc_tuning` does nothing, so the suite runs at CPython's default collector thresholds and
  freezes nothing (tests/conftest.py calls it at start-up and after collection);
- ``run-cache``: every program run of :mod:`tests.support.run_cache` is made afresh, as if no run were cached;
- ``run-cache-sharing``: each xdist worker caches its own runs, none reads another's;
- ``yaml-text``: :mod:`components.yaml_text` reads and writes with PyYAML's pure-Python safe classes, not libyaml's.

Every run leaves out the machinery's own tests (:data:`OWN_TESTS`), which test what is switched off.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

VARIABLE = "BENCH_MACHINERY_OFF"
PLUGIN = "tools.bench_machinery"
PIECES = ("gc", "run-cache", "run-cache-sharing", "yaml-text")
OWN_TESTS = ("tests/components/test_gc_tuning.py", "tests/components/test_yaml_text.py", "tests/test_run_cache.py")
SAVES_ENOUGH = 0.05
"""Issue 37: machinery that does not save 5% of the suite's CPU goes."""


def _switch_off_at_import(piece: str) -> None:
    if piece == "gc":
        from components import gc_tuning

        gc_tuning.tune = gc_tuning.collect_less_often = lambda: None
    elif piece == "yaml-text":
        import yaml

        from components import yaml_text

        yaml_text.FAST_LOADER, yaml_text.FAST_DUMPER = yaml.SafeLoader, yaml.SafeDumper


def pytest_configure(config: pytest.Config) -> None:
    """The run cache is switched off in the processes that run tests only: the xdist controller never imports it."""
    piece = os.environ.get(VARIABLE, "")
    if not piece.startswith("run-cache") or ("PYTEST_XDIST_WORKER" not in os.environ and _has_workers(config)):
        return
    from tests.support import run_cache
    from tools import mock_cloud
    from tools.recording import Recording

    if piece == "run-cache":
        run_cache.patched = lambda: True
    else:

        def unshared(
            directory: Path,
            stack: str,
            config: tuple[tuple[str, str], ...],
            secret_keys: frozenset[str],
            preview: bool,
            signer: mock_cloud.Signer = mock_cloud.DEPLOYER,
        ) -> Recording:
            del directory
            return run_cache.run_afresh(stack, dict(config), set(secret_keys), preview=preview, signer=signer)

        run_cache.shared = unshared


def _has_workers(config: pytest.Config) -> bool:
    return getattr(config.option, "numprocesses", None) not in (None, 0, "0")


_switch_off_at_import(os.environ.get(VARIABLE, ""))


@dataclasses.dataclass(frozen=True)
class Run:
    piece: str
    wall_seconds: float
    cpu_seconds: float
    note: str


def run_suite(piece: str) -> Run:
    from tools import bench_env

    env = dict(os.environ, **{VARIABLE: piece})
    ignored = [f"--ignore={path}" for path in OWN_TESTS]
    command = [sys.executable, "-m", "pytest", "--verbosity=0", "-p", "no:cacheprovider", "-p", PLUGIN, *ignored]
    before = bench_env.children_cpu_seconds()
    seconds, _, output = bench_env.run_timed(command, 1800, env)
    return Run(piece or "none", seconds, bench_env.children_cpu_seconds() - before, bench_env.summary_line(output))


def rows(runs: list[Run]) -> list[list[str]]:
    """One row per run: the CPU each piece saves is its run's CPU less the baseline's (the first run), as a share of
    the baseline's."""
    base = runs[0].cpu_seconds
    out = []
    for run in runs:
        saved = (run.cpu_seconds - base) / base if base else float("nan")
        verdict = "-" if run is runs[0] else ("keeps" if saved >= SAVES_ENOUGH else "below 5%")
        cells = [f"{run.wall_seconds:.1f}", f"{run.cpu_seconds:.1f}", f"{100 * saved:+.1f}%", verdict, run.note]
        out.append([run.piece, *cells])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from tools.bench import table

    parser = argparse.ArgumentParser(prog="python -m tools.bench_machinery", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PIECES), help="pieces to switch off, one run each")
    parser.add_argument("--json", type=Path, help="also write the runs to this file")
    args = parser.parse_args(argv)
    pieces = [p for p in args.only.split(",") if p]
    unknown = sorted(set(pieces) - set(PIECES))
    if unknown:
        parser.error(f"unknown pieces {unknown}: choose from {', '.join(PIECES)}")
    print(f"load average before: {os.getloadavg()}", flush=True)
    runs = []
    for piece in ["", *pieces]:
        runs.append(run_suite(piece))
        print(f"{runs[-1]}", flush=True)
    print(f"load average after: {os.getloadavg()}\n")
    headers = ["switched off", "wall s", "CPU s", "CPU it saves (% of the suite as it is)", "5% rule", "closing line"]
    print(table(headers, rows(runs)))
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in runs], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
