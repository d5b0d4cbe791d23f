"""The whole program, as `pulumi preview` and `pulumi up` run it, and as a second `pulumi up` runs it again.

Preview must register what up registers (no resource hidden in an ``apply``) and never show a value up then changes;
a second run must register every resource with the same inputs, or every later ``pulumi preview`` shows changes.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs
from pulumi_azure_native import containerservice

from tests.support.stacks import STACKS, recorded, run_stack
from tools import mock_runtime
from tools.recording import UNKNOWN, Recording, Registration

_MISSING = object()


def _differing_paths(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Dotted paths where ``actual`` differs from ``expected``; an unknown in ``expected`` matches anything."""
    if expected == UNKNOWN:
        return []
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = sorted(set(expected) | set(actual))
        return [
            p
            for k in keys
            for p in _differing_paths(expected.get(k, _MISSING), actual.get(k, _MISSING), f"{path}.{k}" if path else k)
        ]
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [
            p
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for p in _differing_paths(e, a, f"{path}[{i}]")
        ]
    return [] if expected == actual else [path or "<value>"]


def _label(registration: Registration) -> str:
    return f"{registration.name} ({registration.type})"


def _provider_urn(registration: Registration) -> str | None:
    """The provider reference without its id: the id of a provider created during preview is unknown."""
    return registration.provider.rsplit("::", 1)[0] if registration.provider else None


def preview_differences(preview: Recording, up: Recording) -> list[str]:
    """Where ``preview`` misrepresents what ``up`` registers; empty when the preview is honest.

    Both runs must register the same URNs with the same parent, provider, options and kind. An input preview already
    knows must keep its value in up: an unknown may become anything, a known value may not change. Preview may know
    fewer dependencies than up, never more: an ``*_output`` invoke that preview skips (its arguments are unknown)
    resolves without the dependencies of its arguments.
    """
    previewed = {r.urn: r for r in preview.registrations}
    deployed = {r.urn: r for r in up.registrations}
    problems = [f"registered by up only: {urn}" for urn in deployed if urn not in previewed]
    problems += [f"registered by preview only: {urn}" for urn in previewed if urn not in deployed]
    for urn in previewed.keys() & deployed.keys():
        seen, done = previewed[urn], deployed[urn]
        options = ("ignore_changes", "replace_on_changes", "delete_before_replace", "protect")
        for field in ("parent", "custom", "remote", *options):
            if getattr(seen, field) != getattr(done, field):
                problems.append(
                    f"{_label(done)}: {field} {getattr(seen, field)!r} in preview, {getattr(done, field)!r}"
                )
        if _provider_urn(seen) != _provider_urn(done):
            problems.append(f"{_label(done)}: provider {_provider_urn(seen)} in preview, {_provider_urn(done)} in up")
        if extra := seen.all_dependencies - done.all_dependencies:
            problems.append(f"{_label(done)}: preview-only dependencies {sorted(extra)}")
        if changed := _differing_paths(seen.inputs, done.inputs):
            problems.append(f"{_label(done)}: inputs known in preview differ in up: {', '.join(changed)}")
    return problems


def input_differences(first: Recording, second: Recording) -> list[str]:
    """Every resource whose inputs differ between two runs, with the differing keys; empty when the runs agree.

    Providers count like any resource: a provider whose inputs change is diffed, and may be replaced, on every run.
    Nothing is exempt. The one input that could be per-run by nature, a dynamic resource's ``__provider`` (the
    pickled provider), is the same bytes for the same program, across processes too.
    """
    before = {r.urn: r for r in first.registrations}
    after = {r.urn: r for r in second.registrations}
    problems = [f"registered by one run only: {urn}" for urn in before.keys() ^ after.keys()]
    for urn in before.keys() & after.keys():
        if changed := _differing_paths(before[urn].inputs, after[urn].inputs):
            problems.append(f"{_label(after[urn])}: {', '.join(changed)}")
    return sorted(problems)


@pytest.mark.parametrize("stack_file", STACKS, ids=[p.name for p in STACKS])
def test_preview_registers_what_up_registers(stack_file):
    """Unknown values during preview must not change the shape of the program (no logic hidden in an apply)."""
    up = recorded(stack_file, preview=False)
    preview = recorded(stack_file, preview=True)
    assert preview_differences(preview, up) == []
    assert len(up.registrations) > 10
    assert any(r.id == UNKNOWN for r in preview.registrations), "preview must leave new ids unknown"


@pytest.mark.parametrize("stack_file", STACKS, ids=[p.name for p in STACKS])
def test_a_second_run_registers_every_resource_with_the_same_inputs(stack_file):
    """The offline stand-in for "a second `pulumi preview` shows no changes": two runs, identical inputs."""
    first = recorded(stack_file, preview=False)
    second = run_stack(stack_file, preview=False)
    assert any(r.type.startswith("pulumi:providers:") for r in first.registrations)
    differences = input_differences(first, second)
    assert not differences, "inputs change between two runs:\n" + "\n".join(differences)


def test_preview_comparison_catches_a_resource_registered_inside_an_apply():
    """The planted mistake: an addon created once the cluster id is known is missing from every preview."""

    def program() -> None:
        region = pulumi.ResourceOptions(provider=AlicloudProvider("planted-region", region="cn-hangzhou"))
        cluster = cs.ManagedKubernetes("planted-cluster", name="planted", version="1.33.1-aliyun.1", opts=region)
        cluster.id.apply(
            lambda cluster_id: cs.KubernetesAddon(
                "planted-addon", cluster_id=cluster_id, name="ack-virtual-node", opts=region
            )
        )

    up = mock_runtime.run(program, {})
    preview = mock_runtime.run(program, {}, preview=True)

    addon = up.one("alicloud:cs/kubernetesAddon:KubernetesAddon", "planted-addon")
    assert addon.inputs["clusterId"] == up.one("alicloud:cs/managedKubernetes:ManagedKubernetes").id
    assert preview.by_type("alicloud:cs/kubernetesAddon:KubernetesAddon") == []
    assert preview_differences(preview, up) == [f"registered by up only: {addon.urn}"]


def test_preview_comparison_catches_a_known_value_that_up_changes():
    """A credential fetched in preview (its arguments are known) is already stale when up fetches its own."""

    def program() -> None:
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name="platform-rg", resource_name="platform"
        )
        kubernetes.Provider("planted-k8s", kubeconfig=credentials.kubeconfigs[0].value)

    up = mock_runtime.run(program, {})
    preview = mock_runtime.run(program, {}, preview=True)

    provider = up.one("pulumi:providers:kubernetes")
    assert preview.one("pulumi:providers:kubernetes").inputs["kubeconfig"] != UNKNOWN
    assert preview_differences(preview, up) == [f"{_label(provider)}: inputs known in preview differ in up: kubeconfig"]
