"""The benchmark's process-level measures: program start-up, the test suite's wall time, install time and size.

Each runs in fresh processes started with ``sys.executable`` from the project root:

- start-up: ``python -c "import components.fleet"`` against ``python -c "import pulumi"``, the median of several runs
  taken in turns;
- the test suite: ``python -m pytest``, once, with its closing line;
both with bytecode written as a developer's machine writes it (:func:`with_bytecode_written`);
- install: ``requirements-dev.txt`` into a new temporary virtual environment, once with pip and once with uv (as
  ``uv`` on the PATH or ``python -m uv``), each without a cache, with the package indexes pip is configured with
  (``pip config list``) handed to uv too and uv compiling bytecode as pip does, so both install the same files; the
  size is the environment's apparent size on disk. A tool that is not installed, or an install that fails, is
  reported as such, not raised.
"""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = PROJECT_ROOT / "requirements-dev.txt"
CLOSING_LINE = re.compile(
    r"^(\d+ (passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?)|no tests ran)\b.* in \d"
)
"""pytest's closing line: ``3 failed, 120 passed, 4 xfailed in 98.20s (0:01:38)``."""


@dataclasses.dataclass(frozen=True)
class Timed:
    """A command's wall time in seconds, whether it succeeded, and a one-line note (its summary, or why not)."""

    seconds: float | None
    ok: bool
    note: str
    size_mb: float | None = None
    cpu_seconds: float | None = None
    """User and system time of the command and every process it waited for (pytest's workers): unlike the wall
    time, it hardly moves when other work shares the machine."""


def run_timed(command: list[str], timeout: float, env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Run a command from the project root; its wall time, exit code and combined output."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, -1, f"timed out after {timeout:.0f} s"
    return time.perf_counter() - started, done.returncode, done.stdout + done.stderr


def with_bytecode_written() -> dict[str, str]:
    """This environment without ``PYTHONDONTWRITEBYTECODE``: a developer's machine and GitHub's runners write every
    module's bytecode on the first run and read it on the next; with the variable set (some containers set it) every
    process, each pytest worker and each subprocess a test starts, compiles the project's modules from source again."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def import_medians(modules: Sequence[str], runs: int) -> dict[str, float]:
    """The median wall time of a fresh ``python -c "import MODULE"`` for each module, with bytecode cached as a real
    run has it: one unmeasured import of each writes it first (the installed SDKs always have theirs). The modules
    take turns, run after run, so a change in the machine's speed during the measure weighs on each alike."""
    env = with_bytecode_written()
    commands = {module: [sys.executable, "-c", f"import {module}"] for module in modules}
    for command in commands.values():
        run_timed(command, timeout=120, env=env)
    times: dict[str, list[float]] = {module: [] for module in modules}
    for _ in range(runs):
        for module, command in commands.items():
            seconds, code, output = run_timed(command, timeout=120, env=env)
            if code != 0:
                raise RuntimeError(f"import {module} failed: {output[-500:]}")
            times[module].append(seconds)
    return {module: statistics.median(measured) for module, measured in times.items()}


def summary_line(output: str) -> str:
    """pytest's closing line (``12 passed, 1 skipped in 3.2s``), or the last line if there is none."""
    lines = [line.strip(" =") for line in output.splitlines() if line.strip()]
    closing = [line for line in lines if CLOSING_LINE.match(line)]
    return closing[-1] if closing else (lines[-1] if lines else "")


def suite_wall_time(args: Sequence[str] = (), timeout: float = 1800) -> Timed:
    """The test suite's wall time and CPU time, once: the whole default suite, or what ``args`` select; after an
    unmeasured collection of the same tests has written the bytecode of every module they import
    (:func:`with_bytecode_written`), as a developer's second run has it."""
    env = with_bytecode_written()
    run_timed([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", *args], timeout, env=env)
    # --verbosity=0 after the project's addopts (-q): pytest then prints its closing line with the counts.
    command = [sys.executable, "-m", "pytest", "--verbosity=0", "-p", "no:cacheprovider", *args]
    before = children_cpu_seconds()
    seconds, code, output = run_timed(command, timeout, env=env)
    return Timed(seconds, code == 0, summary_line(output), cpu_seconds=children_cpu_seconds() - before)


def children_cpu_seconds() -> float:
    """User plus system time of every child process this one has waited for, and of theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def pip_indexes(config_list: str) -> list[str]:
    """uv arguments for the indexes, find-links and constraints in ``pip config list`` output."""
    flags = {"index-url": "--index-url", "extra-index-url": "--extra-index-url", "find-links": "--find-links"}
    flags["constraint"] = "--constraint"
    args: list[str] = []
    for line in config_list.splitlines():
        key, _, value = line.partition("=")
        option = key.rsplit(".", 1)[-1]
        if option in flags and value:
            for item in value.strip().strip("'\"").split():
                args += [flags[option], item]
    return args


def uv_command() -> list[str] | None:
    """How to run uv here, or ``None`` when it is not installed."""
    if found := shutil.which("uv"):
        return [found]
    probe = subprocess.run([sys.executable, "-m", "uv", "--version"], capture_output=True, check=False)
    return [sys.executable, "-m", "uv"] if probe.returncode == 0 else None


def tree_size_mb(path: Path) -> float:
    """The apparent size of every file under ``path`` (each hard-linked file once), in MB."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            stat = os.lstat(os.path.join(root, name))
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_size
    return total / 1e6


def install_pip(workdir: Path, timeout: float = 1800) -> Timed:
    """``pip install -r requirements-dev.txt`` into a new venv, without pip's cache."""
    venv = workdir / "pip-venv"
    _, code, output = run_timed([sys.executable, "-m", "venv", str(venv)], timeout=300)
    if code != 0:
        return Timed(None, False, f"venv failed: {output.strip().splitlines()[-1:]}")
    python = str(venv / "bin" / "python")
    command = [python, "-m", "pip", "install", "-q", "--no-cache-dir", "-r", str(REQUIREMENTS)]
    seconds, code, output = run_timed(command, timeout)
    return _installed(seconds, code, output, venv, "pip")


def install_uv(workdir: Path, timeout: float = 1800) -> Timed:
    """``uv pip install -r requirements-dev.txt`` into a new venv, without uv's cache, copying files."""
    uv = uv_command()
    if uv is None:
        return Timed(None, False, "not available: uv is not installed (python3 -m pip install uv)")
    venv = workdir / "uv-venv"
    _, code, output = run_timed([*uv, "venv", "-q", "--python", sys.executable, str(venv)], timeout=300)
    if code != 0:
        return Timed(None, False, f"uv venv failed: {output.strip().splitlines()[-1:]}")
    _, _, config = run_timed([sys.executable, "-m", "pip", "config", "list"], timeout=60)
    # pip takes the best version from every index (uv only from the first index that has the package, unless told)
    # and compiles every module to bytecode (uv only when told): the same install, done by each.
    command = [*uv, "pip", "install", "-q", "--no-cache", "--link-mode", "copy", "--compile-bytecode"]
    command += ["--index-strategy", "unsafe-best-match", "--python", str(venv / "bin/python")]
    seconds, code, output = run_timed([*command, *pip_indexes(config), "-r", str(REQUIREMENTS)], timeout)
    return _installed(seconds, code, output, venv, "uv")


def _installed(seconds: float, code: int, output: str, venv: Path, tool: str) -> Timed:
    if code != 0:
        last = output.strip().splitlines()[-1] if output.strip() else f"exit code {code}"
        return Timed(seconds, False, f"{tool} install failed: {last}")
    return Timed(seconds, True, "ok", tree_size_mb(venv))


def installs() -> dict[str, Timed]:
    """Both installs, each into its own temporary directory (removed afterwards)."""
    results = {}
    for tool, install in (("pip", install_pip), ("uv", install_uv)):
        with tempfile.TemporaryDirectory(prefix=f"bench-{tool}-") as workdir:
            results[tool] = install(Path(workdir))
    return results
