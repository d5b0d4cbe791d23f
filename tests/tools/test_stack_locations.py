"""Configuration errors point at their key: the render tool's one line starts with ``file:line:column``."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.config.base import ConfigError
from tests.support import PROJECT_ROOT
from tools import render, stack_file, stack_locations

INVALID = PROJECT_ROOT / "tests" / "cases" / "invalid"
CASES = {
    "aks-unknown-key": ("8:5", "elastic-capacity:aks.clustrName: unknown key `clustrName`"),
    "aks-min-above-max": ("14:52", "elastic-capacity:aks.userPools[0].minCount: 6 is not allowed"),
    "china-global-region": ("7:5", "elastic-capacity:aks.location: 'eastus2' is not allowed"),
    "acs-compute-class-label": ("54:18", "elastic-capacity:ack.workloads[0].labels.alibabacloud.com/compute-class:"),
    "burst-manager-watches-jobset": ("28:7", "elastic-capacity:kueue.frameworks[1]: 'jobset.x-k8s.io/jobset'"),
    "kueue-admission-fs-missing": (
        "23:5",
        "elastic-capacity:kueue.admissionFairSharing.usageHalfLifeTime: required key is missing",
    ),
    "kueue-admission-fs-negative-weight": (
        "26:9",
        "elastic-capacity:kueue.admissionFairSharing.resourceWeights[nvidia.com/gpu]: -1.0 is not allowed",
    ),
    "queues-admission-check-controller": (
        "47:9",
        "elastic-capacity:queues.admissionChecks[0].controllerName: required key is missing",
    ),
    "queues-managed-namespaces": ("26:3", "elastic-capacity:queues.localQueues[0].namespace: 'cas-kueue-demo'"),
}
"""Case -> where its error points, and how the message begins there. A key in the file points at itself (a map key
holding dots, or written in brackets as Kueue's field paths write it, a list item, a flow mapping's entry); a missing
required key at the mapping that lacks it (``admissionFairSharing: {...}``, the list item ``- {name: sample-prov}``); a
key only a preset fills at the section that names the preset (``elastic-capacity:queues: {preset: aks-walkthrough}``).
"""


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_render_error_names_the_file_line_and_column_of_its_key(case, tmp_path, capsys):
    path = INVALID / f"Pulumi.{case}.yaml"
    where, message = CASES[case]
    assert render.main([str(path), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {path}:{where}: {message}"), error
    assert error.count("\n") == 1


def _stack(tmp_path: Path, text: str) -> stack_file.StackFile:
    path = tmp_path / "Pulumi.x.yaml"
    path.write_text(text)
    return stack_file.read(path)


def test_each_problem_gets_its_own_place_on_the_one_line(tmp_path):
    source = _stack(
        tmp_path,
        "config:\n  azure-native:location: eastus2\n  elastic-capacity:aks:\n    location: eastus2\n"
        "    userPools:\n      - name: a\n        minCount: 6\n",
    )
    error = ConfigError([("azure-native:location", "first"), ("elastic-capacity:aks.userPools[0].minCount", "second")])
    located = stack_locations.locate(error, source)
    assert str(located) == (
        f"{source.path}:2:3: azure-native:location: first; "
        f"{source.path}:7:9: elastic-capacity:aks.userPools[0].minCount: second"
    )
    assert located.keys == error.keys


def test_a_key_brought_in_by_a_merge_key_points_where_it_is_written(tmp_path):
    source = _stack(
        tmp_path,
        "config:\n  elastic-capacity:queues:\n    base: &base\n      name: shared\n    localQueues:\n"
        "      - <<: *base\n        namespace: team-a\n",
    )
    located = stack_locations.locate(ConfigError([("elastic-capacity:queues.localQueues[0].name", "bad")]), source)
    assert str(located).startswith(f"{source.path}:4:7: ")
    own = stack_locations.locate(ConfigError([("elastic-capacity:queues.localQueues[0].namespace", "bad")]), source)
    assert str(own).startswith(f"{source.path}:7:9: ")


def test_a_key_the_file_cannot_hold_stays_as_it_is(tmp_path):
    source = _stack(tmp_path, "config:\n  azure-native:location: eastus2\n")
    flag = ConfigError([("--kueue-chart", "/tmp/chart: not a chart")])
    assert str(stack_locations.locate(flag, source)) == "--kueue-chart: /tmp/chart: not a chart"


def test_a_stack_without_config_points_at_the_top_of_the_file(tmp_path):
    source = _stack(tmp_path, "# nothing yet\nsecretsprovider: passphrase\n")
    located = stack_locations.locate(ConfigError([("elastic-capacity:aks", "needed")]), source)
    assert str(located) == f"{source.path}:2:1: elastic-capacity:aks: needed"


def test_a_stack_file_error_keeps_its_own_place(tmp_path):
    error = stack_file.StackFileError(tmp_path / "Pulumi.x.yaml", "config", "it must be a mapping", line=3, column=1)
    assert stack_locations.locate(error, _stack(tmp_path, "config: {}\n")) is error
