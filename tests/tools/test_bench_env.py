"""The process-level measures: pip's index settings handed to uv, pytest's closing line, sizes, missing tools."""

from __future__ import annotations

import os
import sys

from tools import bench_env

PIP_CONFIG = """:env:.default-timeout='180'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/opt/wheels'
global.cert='/etc/ssl/certs/ca-certificates.crt'
"""


def test_pips_indexes_find_links_and_constraints_become_uv_arguments():
    assert bench_env.pip_indexes(PIP_CONFIG) == [
        "--constraint",
        "/etc/xdg/pip/constraints.txt",
        "--extra-index-url",
        "file:///opt/pypi/simple",
        "--extra-index-url",
        "file:///opt/pypi-more/simple",
        "--find-links",
        "/opt/wheels",
    ]
    assert bench_env.pip_indexes("") == []


def test_the_summary_is_pytests_closing_line():
    output = "....F\nERROR t.py::test_x - TypeError: in here\n=== 1 failed, 4 passed, 2 xfailed in 3.21s ===\n"
    assert bench_env.summary_line(output) == "1 failed, 4 passed, 2 xfailed in 3.21s"
    assert bench_env.summary_line("no summary here\n") == "no summary here"


def test_a_hard_linked_file_counts_once(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1000)
    os.link(tmp_path / "a", tmp_path / "b")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c").write_bytes(b"y" * 500)
    assert bench_env.tree_size_mb(tmp_path) == 1500 / 1e6


def test_a_failed_command_is_reported_with_its_exit_code():
    seconds, code, output = bench_env.run_timed([sys.executable, "-c", "import sys; print('x'); sys.exit(3)"], 60)
    assert (code, output.strip()) == (3, "x") and seconds > 0
    failed = bench_env._installed(1.0, 3, "first\nlast line\n", bench_env.PROJECT_ROOT, "pip")
    assert (failed.ok, failed.note) == (False, "pip install failed: last line")


def test_uv_installs_what_pip_installs_from_the_same_indexes_and_is_reported_missing_not_raised(monkeypatch, tmp_path):
    monkeypatch.setattr(bench_env, "uv_command", lambda: None)
    missing = bench_env.install_uv(tmp_path)
    assert (missing.ok, missing.seconds) == (False, None)
    assert missing.note.startswith("not available")
    commands: list[list[str]] = []

    def fake_run(command, timeout, env=None):
        commands.append(command)
        return 1.0, 0, PIP_CONFIG if command[-2:] == ["config", "list"] else ""

    monkeypatch.setattr(bench_env, "uv_command", lambda: ["uv"])
    monkeypatch.setattr(bench_env, "run_timed", fake_run)
    result = bench_env.install_uv(tmp_path)
    install = commands[-1]
    assert result.ok and install[:3] == ["uv", "pip", "install"]
    assert {"--compile-bytecode", "--no-cache", "--find-links", "/opt/wheels"} <= set(install)
    assert install[install.index("--index-strategy") + 1] == "unsafe-best-match"
    assert install[-2:] == ["-r", str(bench_env.REQUIREMENTS)]


def recording_runs(monkeypatch, times: list[float]) -> list[tuple[list[str], dict[str, str]]]:
    """``run_timed`` answering ``times`` in turn, each command and environment recorded; PYTHONDONTWRITEBYTECODE set."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    calls: list[tuple[list[str], dict[str, str]]] = []
    answers = iter(times)

    def timed(command, timeout, env=None):
        calls.append((command, env))
        return next(answers), 0, "3 passed in 1.00s"

    monkeypatch.setattr(bench_env, "run_timed", timed)
    return calls


def test_imports_are_timed_in_turns_with_their_bytecode_written_first(monkeypatch):
    """A real run has every module's bytecode cached; PYTHONDONTWRITEBYTECODE would compile only the project's."""
    calls = recording_runs(monkeypatch, [9.0, 8.0, 0.3, 0.6, 0.1, 0.2, 0.2, 0.4])
    assert bench_env.import_medians(["pulumi", "components.fleet"], runs=3) == {
        "pulumi": 0.2,
        "components.fleet": 0.4,
    }, "the warm-ups (9 s, 8 s) are not measured"
    assert all("PYTHONDONTWRITEBYTECODE" not in env for _, env in calls)
    imported = [command[2].removeprefix("import ") for command, _ in calls]
    assert imported == ["pulumi", "components.fleet"] * 4


def test_the_suite_is_timed_after_a_collection_has_written_the_bytecode(monkeypatch):
    calls = recording_runs(monkeypatch, [20.0, 60.0])
    timed = bench_env.suite_wall_time(["tests/components"])
    assert (timed.seconds, timed.ok, timed.note) == (60.0, True, "3 passed in 1.00s"), "the collection is not measured"
    (collect, _), (measured, _) = calls
    assert collect[-5:] == ["--collect-only", "-q", "-n", "0", "tests/components"]
    assert "--collect-only" not in measured and measured[-1] == "tests/components"
    assert all("PYTHONDONTWRITEBYTECODE" not in env for _, env in calls)


def test_the_cpu_time_counts_the_processes_a_child_waited_for():
    """pytest's workers are the master's children: their time is in the measure once the master has reaped them."""
    spin = "import time; t = time.process_time()\nwhile time.process_time() - t < 0.3: pass"
    before = bench_env.children_cpu_seconds()
    nested = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}], check=True)"
    _, code, _ = bench_env.run_timed([sys.executable, "-c", nested], timeout=60)
    assert code == 0
    assert bench_env.children_cpu_seconds() - before >= 0.3
