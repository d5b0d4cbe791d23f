"""The mock runtime: preview answers the way the engine does, and the SDK internals it relies on still exist."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import gc
import json
import logging
import pickle

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
from pulumi.runtime import resource, rpc
from pulumi_azure_native import containerservice, resources

from components import yaml_text
from components.waiters.version_pin import ClusterVersion
from tests.support.stacks import STACKS, recorded
from tools import bench_fleets, mock_cloud, mock_runtime, render
from tools.recording import REDACTED, UNKNOWN, Recording, Registration

GROUP = "azure-native:resources:ResourceGroup"
CLUSTER = "azure-native:containerservice:ManagedCluster"
CREDENTIALS = "azure-native:containerservice:listManagedClusterUserCredentials"


def group_and_cluster() -> None:
    bundle = pulumi.ComponentResource("test:index:Bundle", "bundle")
    child = pulumi.ResourceOptions(parent=bundle)
    group = resources.ResourceGroup("demo-rg", resource_group_name="demo", location="eastus2", opts=child)
    cluster = containerservice.ManagedCluster(
        "demo-cluster",
        resource_group_name=group.name,
        resource_name_="demo",
        location="eastus2",
        oidc_issuer_profile={"enabled": True},
        opts=child,
    )
    pulumi.export("groupId", group.id)
    pulumi.export("groupName", group.name)
    pulumi.export("groupLocation", group.location)
    pulumi.export("issuer", cluster.oidc_issuer_profile.apply(lambda profile: profile.issuer_url if profile else None))


def test_preview_leaves_what_the_cloud_computes_unknown_and_keeps_inputs():
    preview = mock_runtime.run(group_and_cluster, {}, preview=True)
    assert preview.one(GROUP).id == preview.one(CLUSTER).id == UNKNOWN
    assert preview.outputs["groupId"] == preview.outputs["groupName"] == UNKNOWN
    assert preview.outputs["groupLocation"] == "eastus2"
    # oidcIssuerProfile.enabled is an input, .issuerURL is not: the whole profile is unknown, never a known None.
    assert preview.outputs["issuer"] == UNKNOWN
    cluster = preview.one(CLUSTER)
    assert (cluster.inputs["resourceGroupName"], cluster.inputs["location"]) == (UNKNOWN, "eastus2")
    assert preview.one("test:index:Bundle").id == ""


def test_up_knows_every_id_and_output():
    up = mock_runtime.run(group_and_cluster, {})
    assert (
        up.outputs["groupId"]
        == up.one(GROUP).id
        == "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/demo"
    )
    assert up.outputs["groupName"] == up.one(CLUSTER).inputs["resourceGroupName"] == "demo"
    assert up.outputs["issuer"] == "https://oidc.mock.invalid/"
    assert up.one("test:index:Bundle").id == ""


def provider_and_namespace() -> None:
    provider = kubernetes.Provider("k8s", kubeconfig=mock_cloud.FAKE_KUBECONFIG)
    kubernetes.core.v1.Namespace("ns", metadata={"name": "ns"}, opts=pulumi.ResourceOptions(provider=provider))
    pulumi.export("providerId", provider.id)


def test_preview_gives_a_new_provider_the_engines_unknown_id():
    preview = mock_runtime.run(provider_and_namespace, {}, preview=True)
    provider = preview.one("pulumi:providers:kubernetes")
    assert provider.id == UNKNOWN
    assert preview.one("kubernetes:core/v1:Namespace").provider == f"{provider.urn}::{rpc.UNKNOWN}"
    # The engine answers a provider's preview create with its unknown sentinel, and the SDK takes it as known.
    assert preview.outputs["providerId"] == rpc.UNKNOWN

    up = mock_runtime.run(provider_and_namespace, {})
    provider = up.one("pulumi:providers:kubernetes")
    assert up.one("kubernetes:core/v1:Namespace").provider == f"{provider.urn}::{provider.id}"
    assert up.outputs["providerId"] == provider.id != rpc.UNKNOWN


def credentials_of_a_new_and_an_existing_cluster() -> None:
    group = resources.ResourceGroup("demo-rg", resource_group_name="demo", location="eastus2")
    for name, group_name in (("new", group.name), ("existing", "platform-rg")):
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group_name, resource_name=name
        )
        pulumi.export(name, credentials.kubeconfigs[0].value)


def invoked_clusters(recording: Recording) -> list[tuple[str, str]]:
    return [(c.args["resourceGroupName"], c.args["resourceName"]) for c in recording.invokes if c.token == CREDENTIALS]


def test_preview_runs_an_invoke_only_when_its_arguments_are_known():
    preview = mock_runtime.run(credentials_of_a_new_and_an_existing_cluster, {}, preview=True)
    assert invoked_clusters(preview) == [("platform-rg", "existing")]
    assert preview.outputs["new"] == UNKNOWN
    assert yaml_text.load(base64.b64decode(preview.outputs["existing"]))["clusters"][0]["name"] == "existing"

    up = mock_runtime.run(credentials_of_a_new_and_an_existing_cluster, {})
    assert sorted(invoked_clusters(up)) == [("demo", "new"), ("platform-rg", "existing")]
    assert yaml_text.load(base64.b64decode(up.outputs["new"]))["clusters"][0]["name"] == "new"


@pytest.mark.parametrize("stack_file", STACKS, ids=[p.name for p in STACKS])
def test_a_plan_rendered_from_a_preview_is_json_with_unknowns_and_secrets_marked(stack_file, tmp_path):
    stack = render.read_stack_file(stack_file)[0]
    render.write(tmp_path, stack, recorded(stack_file, preview=True))
    text = (tmp_path / "plan.json").read_text()
    plan = json.loads(text)

    assert rpc.UNKNOWN not in text, "the engine's sentinel is shown as [unknown]"
    providers = [r for r in plan["resources"] if r["type"] == "pulumi:providers:kubernetes"]
    assert providers and all(p["inputs"]["kubeconfig"] == REDACTED for p in providers)
    assert any(r["provider"].endswith(f"::{UNKNOWN}") for r in plan["resources"] if r["provider"])
    if any(r["type"].startswith(("azure-native:", "alicloud:")) for r in plan["resources"]):  # not on a shared cluster
        assert any(UNKNOWN in json.dumps(r["inputs"]) for r in plan["resources"])


# --- the SDK internals the mock layer relies on ------------------------------------------------------------------


def test_canary_the_sdk_internals_the_mock_layer_and_the_config_loader_use_still_exist():
    """pulumi is pinned to one minor (requirements-dev.txt); when an upgrade moves one of these, this test names it."""
    import inspect

    from pulumi.runtime import config as runtime_config
    from pulumi.runtime import known_types, mocks, rpc, settings, stack, sync_await

    used = {
        "pulumi.runtime.sync_await._sync_await": getattr(sync_await, "_sync_await", None),
        "pulumi.runtime.stack.run_pulumi_func": getattr(stack, "run_pulumi_func", None),
        "pulumi.runtime.settings.SETTINGS.rpc_manager": getattr(settings.SETTINGS, "rpc_manager", None),
        "pulumi.runtime.settings.SETTINGS.outputs": getattr(settings.SETTINGS, "outputs", None),
        "pulumi.runtime.settings.reset_options": getattr(settings, "reset_options", None),
        "pulumi.runtime.settings.get_root_resource": getattr(settings, "get_root_resource", None),
        "pulumi.runtime.mocks.MockMonitor.RegisterResource": getattr(mocks.MockMonitor, "RegisterResource", None),
        "pulumi.runtime.rpc.UNKNOWN": getattr(rpc, "UNKNOWN", None),
        "pulumi.runtime.rpc.is_rpc_secret": getattr(rpc, "is_rpc_secret", None),
        "pulumi.runtime.known_types.is_unknown": getattr(known_types, "is_unknown", None),
        "pulumi.runtime.config.CONFIG": getattr(runtime_config, "CONFIG", None),
        "pulumi.runtime.config.get_config_env": getattr(runtime_config, "get_config_env", None),
        "pulumi.runtime.config.get_config_secret_keys_env": getattr(runtime_config, "get_config_secret_keys_env", None),
        "pulumi.runtime.config.is_config_secret": getattr(runtime_config, "is_config_secret", None),
    }
    assert [name for name, found in used.items() if found is None] == []
    assert "keep_internal" in inspect.signature(rpc.deserialize_properties).parameters


def test_a_run_leaves_the_pickler_the_sdk_patches_for_dynamic_providers_as_it_found_it():
    """Without the restore, every dynamic resource of every run nests one more sorting wrapper into the pure-Python
    pickler, and a process running many programs hits the recursion limit."""
    before = dict(vars(pickle._Pickler))

    def program() -> None:
        for index in range(3):
            ClusterVersion(f"pin-{index}", key="k", requested="1.35", offer=("1.35.1", None))

    mock_runtime.run(program, {})
    assert {name: vars(pickle._Pickler).get(name) for name in before} == before


# --- the run's shortcuts: what the SDK does for a real engine that no mock monitor needs ----------------------------


def the_sdk_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undo the mock runtime's shortcuts: every alias collapsed into a URN, the call stack walked for every
    registration."""
    monkeypatch.setattr(mock_runtime, "_alias_urn_unread", pulumi.resource.collapse_alias_to_urn)
    monkeypatch.setattr(mock_runtime, "_no_stack_trace", resource._get_stack_trace)


def as_the_engine_keeps_them(recording: Recording) -> list[Registration]:
    """Every registration by URN, its dependencies as sets (the SDK gathers them in a set of resources, in no fixed
    order)."""
    return sorted(
        (
            dataclasses.replace(
                r,
                dependencies=tuple(sorted(r.dependencies)),
                property_dependencies={k: tuple(sorted(v)) for k, v in r.property_dependencies.items()},
            )
            for r in recording.registrations
        ),
        key=lambda r: r.urn,
    )


@pytest.mark.parametrize("stack_file", [s for s in STACKS if s.name == "Pulumi.local.yaml"], ids=lambda s: s.stem)
def test_the_shortcuts_leave_every_registration_and_output_as_the_sdk_makes_them(stack_file, monkeypatch):
    """The stack renames a component with children (an alias the SDK would collapse for each child too)."""
    stack, config, secret_keys = render.read_stack_file(stack_file)
    fast = render.run_main(stack, config, secret_keys)
    assert any(r.aliases for r in fast.registrations if not r.custom)
    the_sdk_as_it_is(monkeypatch)
    as_is = render.run_main(stack, config, secret_keys)
    assert as_the_engine_keeps_them(fast) == as_the_engine_keeps_them(as_is)
    assert (fast.outputs, fast.secret_outputs) == (as_is.outputs, as_is.secret_outputs)


def test_a_run_collapses_no_alias_and_restores_the_sdk(monkeypatch):
    collapsed: list[object] = []
    monkeypatch.setattr(pulumi.resource, "collapse_alias_to_urn", lambda *alias: collapsed.append(alias))
    spy = pulumi.resource.collapse_alias_to_urn

    def program() -> None:
        resources.ResourceGroup("demo-rg", resource_group_name="demo", location="eastus2")

    mock_runtime.run(program, {})
    assert collapsed == []
    assert pulumi.resource.collapse_alias_to_urn is spy


def test_a_run_holds_fifty_cluster_queues():
    """The mock monitor answers each registration by pumping the event loop (``_sync_await``); called on the loop's
    own thread, as an inline executor once did, each answer nested the next registration inside it: 35 ClusterQueues
    ran out of stack and about 50 ACK clusters waited on each other for good."""
    spec = bench_fleets.queues(50)
    recording = render.run_main(spec.stack, spec.config, set(spec.secret_keys))
    queues = [r.inputs["metadata"]["name"] for r in recording.registrations if r.type.endswith(":ClusterQueue")]
    assert sorted(queues) == sorted(f"cq-{index}" for index in range(50))


def test_a_failed_runs_abandoned_futures_are_not_logged_but_other_loop_errors_are(caplog):
    """A program that raises leaves the SDK's futures behind with their errors unread: asyncio's report of each, as
    the collector frees it, is the raise's echo; the raise itself still reaches the caller."""
    loops, left_behind = [], []

    def program() -> None:
        loop = asyncio.get_event_loop()
        loops.append(loop)
        left_behind.append(loop.create_future())  # held past the run, as the SDK's own cycles hold them
        left_behind[0].set_exception(RuntimeError("echo"))
        raise ValueError("the program's own error")

    caplog.set_level(logging.ERROR, logger="asyncio")  # tools.render's command line raises it for the process
    with pytest.raises(ValueError, match="program's own"):
        mock_runtime.run(program, {})
    left_behind.clear()
    gc.collect()
    assert [r for r in caplog.records if r.name == "asyncio"] == []

    loops[0].call_exception_handler({"message": "something else"})
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == ["something else"]


def test_a_run_lists_its_registrations_in_one_order_every_time_with_what_each_needs_first():
    spec = bench_fleets.clusters(3)
    first, second = (render.run_main(spec.stack, spec.config, set()) for _ in range(2))
    assert [r.urn for r in first.registrations] == [r.urn for r in second.registrations]
    registered, seen = {r.urn for r in first.registrations}, set()
    for r in first.registrations:
        needed = {*r.all_dependencies, r.parent, (r.provider or "").rsplit("::", 1)[0]} & registered
        assert needed <= seen, r.urn
        seen.add(r.urn)
