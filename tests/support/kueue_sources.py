"""Kueue's chart and sources at each verified patch, read from the shared folder (never copied into the repository):
``charts/kueue/<version>/chart`` is the chart as Kueue's release script packages it, ``src/`` the manager
Configuration types and feature gates at that tag. Tests that need them skip with the reason when absent."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.config.kueue_profiles import PROFILES
from tests.support import PROJECT_ROOT

KUEUE_CHARTS = PROJECT_ROOT.parent / "shared/charts/kueue"
VERIFIED = [(version, profile) for profile in PROFILES.values() for version in profile.verified]
"""Every verified patch with its minor's profile, oldest first."""


def source_dir(version: str) -> Path:
    """``<version>/`` of the shared charts, or skip saying where it was looked for."""
    folder = KUEUE_CHARTS / version
    if not (folder / "chart/Chart.yaml").is_file():
        pytest.skip(f"Kueue {version} chart and sources not found at {folder}")
    return folder


def chart_manager_config(version: str) -> dict[str, Any]:
    """The chart's default manager Configuration (``managerConfig.controllerManagerConfigYaml``)."""
    values = yaml.safe_load((source_dir(version) / "chart/values.yaml").read_text())
    return yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])


_SPEC = re.compile(
    r'Version: version.MustParse\("([\d.]+)"\), Default: (true|false), PreRelease: featuregate.(\w+)'
    r"(, LockToDefault: true)?"
)


def feature_gates(version: str) -> dict[str, tuple[bool, bool]]:
    """``defaultVersionedFeatureGates`` of ``pkg/features/kube_features.go`` at ``version``: each gate's (default,
    locked) as the binary of that minor resolves its versioned specs (the last spec not newer than the minor)."""
    text = (source_dir(version) / "src/kube_features.go").read_text()
    body = text[text.index("var defaultVersionedFeatureGates") :]
    minor = tuple(int(part) for part in version.split(".")[:2])
    gates = {}
    for entry in re.finditer(r"\n\t(\w+): \{\n(.*?)\n\t\},", body, re.S):
        current = None
        for spec_version, default, _, locked in _SPEC.findall(entry.group(2)):
            if tuple(int(part) for part in spec_version.split(".")) <= minor:
                current = (default == "true", bool(locked))
        assert current is not None, f"{entry.group(1)} has no spec for {version}"
        gates[entry.group(1)] = current
    return gates
