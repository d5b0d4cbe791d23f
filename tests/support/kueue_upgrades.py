"""What each step of docs/kueue-upgrades.md changes, computed: a shipped stack at the old and the new version, its
Kubernetes objects plus the real chart's, compared object by object once the stamps every step changes are masked.
Helm's library renders the chart (helm-python-sdk); the chart sources come from ../shared/charts/kueue (skipped
without them).

Each step's generated block of the doc is :func:`step_block`: the profiles' words for the target minor and the
computed diff. tests/test_kueue_upgrades.py fails while the doc differs; rewrite the blocks with

    python -m tests.support.kueue_upgrades --write

(it needs the chart sources in ../shared/charts/kueue and helm-python-sdk, as the tests do).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from components import yaml_text
from components.config.kueue.profiles import KueueProfile, profile_for
from tests.support import PROJECT_ROOT
from tests.support.kueue_sources import VERIFIED, source_dir
from tests.support.stacks import AKS_STACK, as_shipped, edited_stack
from tools import gitops_preview, render

UPGRADES_DOC = PROJECT_ROOT / "docs/kueue-upgrades.md"
UPGRADE_STACK = AKS_STACK
"""The stack the doc's diffs are computed on (its chartVersion set to each version)."""
STEPS = [(old, new) for (old, _), (new, _) in itertools.pairwise(VERIFIED)]
"""Each verified patch to the next one: within 0.17, then one minor at a time."""
CHART = "kubernetes:helm.sh/v4:Chart"
JOB = "kubernetes:batch/v1:Job"
_CHECKSUM = "charts.kueue.x-k8s.io/config-checksum"
_MANAGER_CONFIG = "controller_manager_config.yaml"


@dataclasses.dataclass(frozen=True)
class Install:
    """One version of the stack's Kueue as the cluster would get it."""

    version: str
    objects: dict[str, dict[str, Any]]
    """``Kind namespace/name`` -> object, the version stamps masked (:func:`masked`)."""
    manager_config: dict[str, Any]
    """The manager Configuration the chart's ConfigMap holds."""
    gate_job: str
    """The readiness gate Job's name."""


def install(version: str, out: Path) -> Install:
    """:data:`UPGRADE_STACK` at ``version``: the objects the program emits and those Chart v4 registers from the real
    chart (the program's own renderer, :func:`tools.gitops_preview.chart_objects`: Helm's library and libyaml). The
    program's run is the session's (:func:`tests.support.stacks.as_shipped`), which tests/test_kueue_chart.py makes
    for the same copy."""
    out.mkdir(parents=True, exist_ok=True)
    copy = edited_stack(
        UPGRADE_STACK, lambda config: config["elastic-capacity:kueue"].update(chartVersion=version), out
    )
    _, recording = as_shipped(copy)
    chart = recording.one(CHART)
    objects = [
        *render.manifests(recording).values(),
        *gitops_preview.chart_objects(source_dir(version) / "chart", chart),
    ]
    [config_map] = [o for o in objects if o["kind"] == "ConfigMap" and _MANAGER_CONFIG in o.get("data", {})]
    return Install(
        version=version,
        objects={_identity(m): m for m in (masked(o, version) for o in objects)},
        manager_config=yaml_text.load(config_map["data"][_MANAGER_CONFIG]),
        gate_job=recording.one(JOB, "kueue-ready").inputs["metadata"]["name"],
    )


def masked(obj: dict[str, Any], version: str) -> dict[str, Any]:
    """``obj`` with what every version changes masked: the chart's version labels and image tags, the manager's
    config checksum, and the version and digest in the gate Jobs' names."""
    dashed = version.replace(".", "-")
    text = json.dumps(obj)
    text = re.sub(rf"-{dashed}-[0-9a-f]{{8}}\b", "-<version>-<digest>", text)
    text = text.replace(f":v{version}", ":v<version>").replace(f"kueue-{version}", "kueue-<version>")
    text = text.replace(f'"{version}"', '"<version>"').replace(f'"v{version}"', '"v<version>"')
    out = json.loads(text)
    out.get("spec", {}).get("template", {}).get("metadata", {}).get("annotations", {}).pop(_CHECKSUM, None)
    return out


def _identity(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{obj['kind']} {meta['namespace'] + '/' if meta.get('namespace') else ''}{meta['name']}"


def _leaves(old: Any, new: Any, path: str = "") -> Iterator[tuple[str, Any, Any]]:
    """``(path, old, new)`` of every differing leaf; lists are leaves, a missing key is ``None``."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            step = f"[{key}]" if re.search(r"[./]", key) else f".{key}"
            yield from _leaves(old.get(key), new.get(key), f"{path}{step}")
    elif old != new:
        yield path.lstrip("."), old, new


@dataclasses.dataclass(frozen=True)
class StepDiff:
    """What moving from one install to the next changes."""

    objects: list[tuple[str, str, str, list[str]]]
    """``(added|removed|changed, kind, fields changed, names)``, objects grouped by those three."""
    manager_config: list[tuple[str, Any, Any]]
    """``(key, old, new)`` of each Configuration field that changed."""
    webhook_scopes: list[tuple[str, Any, Any]]
    """``(webhook, old namespaceSelector, new)`` of each webhook whose scope changed (``{}``: every namespace,
    ``None``: no such webhook)."""
    gate_jobs: tuple[str, str]


def step_diff(old: Install, new: Install) -> StepDiff:
    """The diff of two installs (:func:`install`)."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for identity in sorted(set(old.objects) | set(new.objects)):
        before, after = old.objects.get(identity), new.objects.get(identity)
        kind, name = identity.split(" ", 1)
        if before == after:
            continue
        if before is None or after is None:
            change, fields = ("added" if before is None else "removed"), ""
        else:
            change, fields = "changed", ", ".join(path for path, _, _ in _leaves(before, after))
        groups.setdefault((change, kind, fields), []).append(name)
    return StepDiff(
        objects=[(change, kind, fields, names) for (change, kind, fields), names in groups.items()],
        manager_config=list(_leaves(old.manager_config, new.manager_config)),
        webhook_scopes=[
            (hook, before.get(hook), after.get(hook))
            for before, after in [(_scopes(old), _scopes(new))]
            for hook in sorted(set(before) | set(after))
            if before.get(hook) != after.get(hook)
        ],
        gate_jobs=(old.gate_job, new.gate_job),
    )


def _scopes(install_: Install) -> dict[str, Any]:
    """Webhook name -> its namespaceSelector (``{}``: every namespace)."""
    return {
        webhook["name"]: webhook.get("namespaceSelector") or {}
        for identity, obj in install_.objects.items()
        if identity.split(" ", 1)[0].endswith("WebhookConfiguration")
        for webhook in obj["webhooks"]
    }


def _code(value: Any) -> str:
    return "—" if value is None else f"`{json.dumps(value, separators=(', ', ': '))}`"


def _wait_for_pods_ready(profile: KueueProfile) -> str:
    return f"on, timeout {profile.wait_for_pods_ready_default}" if profile.wait_for_pods_ready_default else "off"


def step_block(old_version: str, new_version: str, diff: StepDiff) -> str:
    """The generated part of the doc's section for one step: the target profile's words, then the computed diff."""
    old, new = profile_for(old_version), profile_for(new_version)
    notes = f"https://github.com/kubernetes-sigs/kueue/blob/v{new_version}/CHANGELOG/CHANGELOG-{new.minor}.md"
    read = f"[{new.minor}.0 notes]({new.release_notes}), then " if old.minor != new.minor else ""
    values = ", ".join(f"`{key}`" for key in new.chart_values_added) or "none"
    lines = [
        f"<!-- step {old_version} -> {new_version}: generated by python -m tests.support.kueue_upgrades --write -->",
        f"Read: {read}[the {new.minor} patch notes]({notes}).",
        "",
        f"What Kueue {new.minor} changes (components/config/kueue/profiles.py): {new.changes}",
        "",
        f"- Chart values new in {new.minor}, left at the chart's defaults: {values}.",
        f"- WaitForPodsReady when the stack sets no `kueue.waitForPodsReady`: {_wait_for_pods_ready(old)} → "
        f"{_wait_for_pods_ready(new)}.",
        f"- Readiness gate Job: `{_gate_pattern(diff.gate_jobs[0])}` → `{_gate_pattern(diff.gate_jobs[1])}`, a new "
        "Job, so the probe runs again.",
        "",
        f"Objects that change from {old_version} to {new_version} on `stacks/{UPGRADE_STACK.name}`, besides the "
        "version stamps every step changes (the chart's `helm.sh/chart` and `app.kubernetes.io/version` labels, "
        "the image tags, the manager's config checksum, the gate Jobs' names):",
        "",
        "| change | kind | fields | objects |",
        "|---|---|---|---|",
        *(
            f"| {change} | {kind} | {fields and f'`{fields}`'} | {', '.join(f'`{n}`' for n in names)} |"
            for change, kind, fields, names in diff.objects
        ),
        "",
        "Manager Configuration keys that change:" if diff.manager_config else "Manager Configuration: unchanged.",
        *(f"- `{key}`: {_code(before)} → {_code(after)}" for key, before, after in diff.manager_config),
        "",
        "Webhooks whose namespaceSelector changes:" if diff.webhook_scopes else "Webhook scopes: unchanged.",
        *(f"- `{hook}`: {_code(before)} → {_code(after)}" for hook, before, after in diff.webhook_scopes),
        f"<!-- end of step {old_version} -> {new_version} -->",
    ]
    return "\n".join(lines)


def _gate_pattern(name: str) -> str:
    return re.sub(r"-[0-9a-f]{8}$", "-<digest>", name)


def documented_block(doc: str, old_version: str, new_version: str) -> str | None:
    """The doc's generated block for one step, markers included, or ``None`` if it has none."""
    found = re.search(
        rf"<!-- step {re.escape(old_version)} -> {re.escape(new_version)}: .*?"
        rf"<!-- end of step {re.escape(old_version)} -> {re.escape(new_version)} -->",
        doc,
        re.S,
    )
    return found.group(0) if found else None


def write_doc() -> None:
    """Rewrite each step's block in :data:`UPGRADES_DOC` (the blocks must be there: the prose around them is not
    generated)."""
    doc = UPGRADES_DOC.read_text()
    with tempfile.TemporaryDirectory() as scratch:
        installs = {v: install(v, Path(scratch) / v) for v in {v for step in STEPS for v in step}}
        for old, new in STEPS:
            current = documented_block(doc, old, new)
            if current is None:
                raise SystemExit(f"{UPGRADES_DOC}: no block for {old} -> {new}; add its two marker lines first")
            doc = doc.replace(current, step_block(old, new, step_diff(installs[old], installs[new])))
    UPGRADES_DOC.write_text(doc)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: python -m tests.support.kueue_upgrades --write")
    write_doc()
