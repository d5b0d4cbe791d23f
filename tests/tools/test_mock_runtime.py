"""The mock runtime itself: preview answers the way the engine does, and credentials are as fresh as AKS's and ACK's."""

from __future__ import annotations

import base64
import datetime
import json
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml
from pulumi.runtime import rpc
from pulumi_azure_native import authorization, containerservice, resources

from tests.support.stacks import STACKS, run_stack
from tools import mock_runtime, render
from tools.mock_runtime import UNKNOWN, ack_cluster_credential, aks_user_credentials

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
    provider = kubernetes.Provider("k8s", kubeconfig=mock_runtime.FAKE_KUBECONFIG)
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


def invoked_clusters(recording: mock_runtime.Recording) -> list[tuple[str, str]]:
    return [(c.args["resourceGroupName"], c.args["resourceName"]) for c in recording.invokes if c.token == CREDENTIALS]


def test_preview_runs_an_invoke_only_when_its_arguments_are_known():
    preview = mock_runtime.run(credentials_of_a_new_and_an_existing_cluster, {}, preview=True)
    assert invoked_clusters(preview) == [("platform-rg", "existing")]
    assert preview.outputs["new"] == UNKNOWN
    assert aks_kubeconfig(preview.outputs["existing"])["clusters"][0]["name"] == "existing"

    up = mock_runtime.run(credentials_of_a_new_and_an_existing_cluster, {})
    assert sorted(invoked_clusters(up)) == [("demo", "new"), ("platform-rg", "existing")]
    assert aks_kubeconfig(up.outputs["new"])["clusters"][0]["name"] == "new"


def aks_kubeconfig(value: str) -> dict[str, Any]:
    return yaml.safe_load(base64.b64decode(value))


def aks_answer(**args: Any) -> dict[str, Any]:
    answer = aks_user_credentials({"resourceGroupName": "rg", "resourceName": "c", **args})
    assert [k["name"] for k in answer["kubeconfigs"]] == ["clusterUser"]
    return aks_kubeconfig(answer["kubeconfigs"][0]["value"])


def test_aks_credentials_keep_the_clusters_server_and_ca_but_never_the_token():
    first, second = aks_answer(), aks_answer()
    assert first["clusters"] == second["clusters"]
    assert first["clusters"][0]["cluster"]["server"].startswith("https://c-")
    assert first["users"][0]["name"] == "clusterUser_rg_c"
    assert first["users"][0]["user"]["token"] != second["users"][0]["user"]["token"]
    elsewhere = aks_answer(resourceGroupName="rg2")["clusters"][0]["cluster"]
    assert elsewhere["server"] != first["clusters"][0]["cluster"]["server"]
    assert elsewhere["certificate-authority-data"] != first["clusters"][0]["cluster"]["certificate-authority-data"]


def test_aks_exec_credentials_are_the_kubelogin_user_of_an_entra_id_cluster():
    kubeconfig = aks_answer(format="exec")
    assert kubeconfig == aks_answer(format="exec"), "no secret in it: the same on every call"
    assert kubeconfig["clusters"] == aks_answer()["clusters"]
    exec_user = kubeconfig["users"][0]["user"]["exec"]
    assert (exec_user["apiVersion"], exec_user["command"]) == ("client.authentication.k8s.io/v1beta1", "kubelogin")
    assert exec_user["args"] == [
        *("get-token", "--login", "devicecode"),
        *("--server-id", "6dae42f8-4368-4678-94ff-3960e28e3630"),
        *("--client-id", "80faf920-1908-4b52-b5ef-a8e7bedfc67a"),
        *("--tenant-id", mock_runtime.AZURE_TENANT_ID),
        *("--environment", "AzurePublicCloud"),
    ]


def exec_credentials_of_new_clusters() -> None:
    for name, location, aad_profile in (
        ("local", "eastus2", None),
        ("entra", "eastus2", {"managed": True}),
        ("china", "chinanorth3", {"managed": True}),
    ):
        cluster = containerservice.ManagedCluster(
            name, resource_group_name="rg", resource_name_=name, location=location, aad_profile=aad_profile
        )
        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name="rg", resource_name=cluster.name, format="exec"
        )
        pulumi.export(name, credentials.kubeconfigs[0].value)
    pulumi.export("tenant", authorization.get_client_config_output().tenant_id)


def exec_flag(kubeconfig: str, flag: str) -> str:
    args = aks_kubeconfig(kubeconfig)["users"][0]["user"]["exec"]["args"]
    return args[args.index(flag) + 1]


def test_aks_exec_credentials_follow_the_clusters_sign_in_and_cloud():
    up = mock_runtime.run(exec_credentials_of_new_clusters, {})
    assert set(aks_kubeconfig(up.outputs["local"])["users"][0]["user"]) == {"token"}, "AKS ignores format there"
    assert exec_flag(up.outputs["entra"], "--tenant-id") == up.outputs["tenant"] == mock_runtime.AZURE_TENANT_ID
    assert exec_flag(up.outputs["entra"], "--environment") == "AzurePublicCloud"
    assert exec_flag(up.outputs["china"], "--environment") == "AzureChinaCloud"


def test_ack_credentials_are_a_fresh_client_certificate_for_the_same_cluster_ca():
    first = ack_cluster_credential({"clusterId": "c1", "temporaryDurationMinutes": 60})
    second = ack_cluster_credential({"clusterId": "c1", "temporaryDurationMinutes": 60})
    assert first["kubeConfig"] != second["kubeConfig"]
    [authority], [again] = first["certificateAuthorities"], second["certificateAuthorities"]
    assert authority["clusterCert"] == again["clusterCert"]
    assert authority["clientCert"] != again["clientCert"] and authority["clientKey"] != again["clientKey"]

    kubeconfig = yaml.safe_load(first["kubeConfig"])
    assert kubeconfig["clusters"] == yaml.safe_load(second["kubeConfig"])["clusters"]
    assert kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"] == authority["clusterCert"]
    assert kubeconfig["users"][0]["user"] == {
        "client-certificate-data": authority["clientCert"],
        "client-key-data": authority["clientKey"],
    }
    other = ack_cluster_credential({"clusterId": "c2"})
    assert other["certificateAuthorities"][0]["clusterCert"] != authority["clusterCert"]
    assert first["clusterId"] == "c1"


def test_ack_credentials_expire_after_the_requested_minutes():
    before = datetime.datetime.now(datetime.UTC).replace(microsecond=0)
    answer = ack_cluster_credential({"clusterId": "c1", "temporaryDurationMinutes": 90})
    expires = datetime.datetime.strptime(answer["expiration"], "%Y-%m-%dT%H:%M:%S%z")
    assert before + datetime.timedelta(minutes=90) <= expires <= before + datetime.timedelta(minutes=91)


@pytest.mark.parametrize("stack_file", STACKS, ids=[p.name for p in STACKS])
def test_a_plan_rendered_from_a_preview_is_json_with_unknowns_and_secrets_marked(stack_file, tmp_path):
    stack = render.read_stack_file(stack_file)[0]
    render.write(tmp_path, stack, run_stack(stack_file, preview=True))
    text = (tmp_path / "plan.json").read_text()
    plan = json.loads(text)

    assert rpc.UNKNOWN not in text, "the engine's sentinel is shown as [unknown]"
    providers = [r for r in plan["resources"] if r["type"] == "pulumi:providers:kubernetes"]
    assert providers and all(p["inputs"]["kubeconfig"] == mock_runtime.REDACTED for p in providers)
    assert any(r["provider"].endswith(f"::{UNKNOWN}") for r in plan["resources"] if r["provider"])
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


# --- the dependency walk tests and render rely on ----------------------------------------------------------------


def registration(name: str, *, parent: str | None = None, deps=(), provider: str | None = None):
    return mock_runtime.Registration(
        urn=f"urn:{name}",
        id=name,
        type="test:index:Thing",
        name=name,
        custom=True,
        remote=False,
        parent=f"urn:{parent}" if parent else None,
        provider=f"urn:{provider}::id" if provider else None,
        providers={},
        dependencies=tuple(f"urn:{d}" for d in deps),
        property_dependencies={},
        ignore_changes=(),
        replace_on_changes=(),
        delete_before_replace=False,
        raw_inputs={},
    )


def recording_of(*registrations) -> mock_runtime.Recording:
    return mock_runtime.Recording(list(registrations), {}, set(), [])


def test_depends_on_follows_explicit_dependencies_transitively():
    graph = recording_of(registration("a"), registration("b", deps=["a"]), registration("c", deps=["b"]))
    assert graph.depends_on(graph.named("c"), graph.named("a"))
    assert not graph.depends_on(graph.named("a"), graph.named("c"))


def test_depending_on_a_component_means_waiting_for_each_of_its_children():
    graph = recording_of(
        registration("component"), registration("child", parent="component"), registration("user", deps=["component"])
    )
    assert graph.depends_on(graph.named("user"), graph.named("child"))


def test_a_child_inherits_what_its_parent_waits_for():
    graph = recording_of(
        registration("pool"), registration("component", deps=["pool"]), registration("child", parent="component")
    )
    assert graph.depends_on(graph.named("child"), graph.named("pool"))


def test_a_resource_waits_for_its_provider_and_what_the_provider_waits_for():
    graph = recording_of(
        registration("cluster"), registration("provider", deps=["cluster"]), registration("obj", provider="provider")
    )
    assert graph.depends_on(graph.named("obj"), graph.named("cluster"))
    assert graph.provider_of(graph.named("obj")) == graph.named("provider")


def test_siblings_do_not_wait_for_each_other():
    graph = recording_of(
        registration("component"), registration("a", parent="component"), registration("b", parent="component")
    )
    assert not graph.depends_on(graph.named("a"), graph.named("b"))
