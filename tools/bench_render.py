"""Render cost in fresh processes: the real program, and a flat replay of the very same resources as its floor.

    python -m tools.bench_render real SPEC.json PLAN.json [PRELOAD.json]  # run __main__.py under the mocks
    python -m tools.bench_render flat PLAN.json             # register the plan's resources bare, under the same mocks

The parent (:func:`measure`) starts each child with ``sys.executable``, takes the whole process's wall time and its
peak RSS from ``os.wait4`` (the child's own ``getrusage``, as the kernel reports it), and reads the phases the child
prints as one JSON line: ``importSeconds`` (its imports) and ``runSeconds`` (the program under the mocks). The SDKs
import much of themselves lazily, on first use inside the program; so that ``runSeconds`` holds no import, a real
child given ``PRELOAD.json`` (the plan of an earlier run) first imports the SDK modules that run had loaded.

The flat replay is what the program would cost if it were nothing but its resources: it imports every SDK module
the real render had loaded (``sdkModules`` of the plan), then registers each resource of the plan, in the plan's
order, with ``pulumi.CustomResource`` (``ProviderResource`` for providers) or ``pulumi.ComponentResource``, with the
same type, name, inputs (as plan.json shows them), parent, provider, dependencies, ``protect`` and
``ignoreChanges``, under :func:`tools.mock_runtime.run`. It makes no invoke and validates no config.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

SDK_PACKAGES = ("pulumi", "pulumi_azure_native", "pulumi_alicloud", "pulumi_kubernetes")
"""The top-level packages whose loaded modules the flat replay imports too."""
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Measured:
    """One child process: whole-process wall time and peak RSS, and what it reported."""

    wall_seconds: float
    peak_rss_mb: float
    import_seconds: float
    run_seconds: float
    resources: int


def annotated_plan(stack: str, recording: Any) -> dict[str, Any]:
    """``tools.render``'s plan.json, each resource with what plan.json leaves out and the benchmark needs:
    ``propertyDependencies`` (the resources each input is derived from), ``remote`` and the component's
    ``providers``; plus ``sdkModules``, the SDK modules run so far, in the order they were loaded."""
    from tools import render

    plan = render.plan(stack, recording)
    for entry, registration in zip(plan["resources"], recording.registrations, strict=True):
        entry["propertyDependencies"] = {
            k: sorted(v) for k, v in sorted(registration.property_dependencies.items()) if v
        }
        entry["remote"] = registration.remote
        entry["providers"] = sorted(set(registration.providers.values()))
    plan["sdkModules"] = loaded_sdk_modules()
    return plan


def _report(started: float, imported: float, ran: float, resources: int) -> None:
    phases = {"importSeconds": imported - started, "runSeconds": ran - imported, "resources": resources}
    print(json.dumps(phases))


def import_sdk_modules(modules: list[str]) -> None:
    """Import these modules as a run had loaded them: in order, each package run before its submodules.

    The SDKs import their sub-packages lazily (``importlib.util.LazyLoader``): importing a submodule of a package that
    is still lazy would load that submodule twice and bind the package's attribute of its name to the module (so
    ``pulumi_kubernetes.apiextensions.CustomResource`` would be a module, not the class)."""
    for name in modules:
        if name not in sys.modules:
            parent = name.rpartition(".")[0]
            if parent in sys.modules:
                _run_lazy(sys.modules[parent])
            if name not in sys.modules:
                with contextlib.suppress(ImportError):  # a module the SDK loads only through another name
                    importlib.import_module(name)
        _run_lazy(sys.modules.get(name))


def _run_lazy(module: object) -> None:
    """Run a lazily imported module now: any attribute but the introspection ones (``__name__`` ...) runs it."""
    getattr(module, "_bench_runs_a_lazy_module", None)


def loaded_sdk_modules() -> list[str]:
    """The SDK modules this process has run (not those only registered for a lazy import), in load order."""
    return [
        name
        for name, module in list(sys.modules.items())
        if name.split(".")[0] in SDK_PACKAGES and type(module).__name__ != "_LazyModule"
    ]


def real_child(spec_path: Path, plan_path: Path, preload: Path | None = None) -> None:
    """Run the program with the spec's config under the mocks; write its annotated plan."""
    started = time.perf_counter()
    import logging

    from components import gc_tuning
    from tools import render
    from tools.bench_fleets import Spec

    if preload is not None:
        import_sdk_modules(json.loads(preload.read_text())["sdkModules"])
    imported = time.perf_counter()
    spec = Spec.from_json(json.loads(spec_path.read_text()))
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    gc_tuning.tune()  # one program per process, as under the language host, which __main__.py alone tunes for
    recording = render.run_main(spec.stack, spec.config, set(spec.secret_keys))
    ran = time.perf_counter()
    plan_path.write_text(json.dumps(annotated_plan(spec.stack, recording)))
    _report(started, imported, ran, len(recording.registrations))


def flat_child(plan_path: Path) -> None:
    """Import the SDK modules the real render loaded, then register the plan's resources bare under the mocks."""
    started = time.perf_counter()
    from tools import mock_runtime

    plan = json.loads(plan_path.read_text())
    import_sdk_modules(plan["sdkModules"])
    imported = time.perf_counter()
    recording = mock_runtime.run(lambda: replay(plan["resources"]), {}, stack=plan["stack"])
    _report(started, imported, time.perf_counter(), len(recording.registrations))


def replay(resources: list[Mapping[str, Any]]) -> None:
    """Register every resource of a plan, in its order, with the SDK's base classes."""
    import pulumi

    made: dict[str, pulumi.Resource] = {}
    for r in resources:
        provider_ref = r.get("provider")
        opts = pulumi.ResourceOptions(
            parent=made.get(r.get("parent") or ""),
            provider=made.get(str(provider_ref).rsplit("::", 1)[0]) if provider_ref else None,  # type: ignore[arg-type]
            depends_on=[made[u] for u in r.get("explicitDependencies") or [] if u in made],
            protect=bool(r.get("protect")),
            ignore_changes=list(r.get("ignoreChanges") or []) or None,
        )
        type_, name, props = str(r["type"]), str(r["name"]), dict(r.get("inputs") or {})
        made_one: pulumi.Resource
        if type_.startswith("pulumi:providers:"):
            made_one = pulumi.ProviderResource(type_.removeprefix("pulumi:providers:"), name, props, opts)
        elif r.get("custom"):
            made_one = pulumi.CustomResource(type_, name, props, opts)
        else:
            remote = bool(r.get("remote"))
            made_one = pulumi.ComponentResource(type_, name, props if remote else None, opts, remote=remote)
            if not remote:
                made_one.register_outputs({})
        made[str(r["urn"])] = made_one


def measure(args: list[str], timeout: float = 900) -> Measured:
    """Run ``python -m tools.bench_render ARGS`` in a fresh process; its wall time, peak RSS and report."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-m", "tools.bench_render", *args], stdout=out, stderr=err, cwd=PROJECT_ROOT
        )
        _, status, usage = _wait(child.pid, timeout)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        lines = out.read().decode().strip().splitlines()
        if child.returncode != 0 or not lines:
            raise RuntimeError(f"bench child {args} failed ({child.returncode}): {err.read().decode()[-2000:]}")
    report = json.loads(lines[-1])
    return Measured(wall, usage.ru_maxrss / 1024, report["importSeconds"], report["runSeconds"], report["resources"])


def _wait(pid: int, timeout: float) -> tuple[int, int, resource.struct_rusage]:
    """``os.wait4`` for this one child (so the RSS is its own), killed if it runs past ``timeout`` seconds."""
    watchdog = threading.Timer(timeout, os.kill, (pid, signal.SIGKILL))
    watchdog.start()
    try:
        return os.wait4(pid, 0)
    finally:
        watchdog.cancel()


def slope(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of y over x: the marginal cost per resource."""
    if len(points) < 2:
        return float("nan")
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else float("nan")


def main(argv: list[str]) -> int:
    if argv[:1] == ["real"] and len(argv) in (3, 4):
        real_child(Path(argv[1]), Path(argv[2]), Path(argv[3]) if len(argv) == 4 else None)
    elif argv[:1] == ["flat"] and len(argv) == 2:
        flat_child(Path(argv[1]))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
