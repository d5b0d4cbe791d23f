"""The ExistingCluster component: credentials from AKS or a kubeconfig, always secret, a URN kept across a move."""

from __future__ import annotations

import base64
from typing import Any

import pulumi
import pytest

from components import yaml_text
from components.azure.existing_cluster import ExistingCluster
from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.base import ConfigError
from tools import mock_cloud
from tools.recording import Recording

K8S_PROVIDER = "pulumi:providers:kubernetes"
CREDENTIALS = "azure-native:containerservice:listManagedClusterUserCredentials"
TYPE = "elastic-capacity:kubernetes:ExistingCluster"
ON_AKS = ExistingClusterConfig(source="aks", resource_group_name="platform-rg", cluster_name="platform")
ON_KUBECONFIG = ExistingClusterConfig(source="kubeconfig")


def kubelogin_args(kubeconfig: str) -> list[str]:
    [user] = yaml_text.load(kubeconfig)["users"]
    return user["user"]["exec"]["args"]


def build_existing(run_program, config: ExistingClusterConfig, kubeconfig: Any = None) -> Recording:
    def program() -> None:
        cluster = ExistingCluster("shared", config, kubeconfig=kubeconfig)
        pulumi.export("kubeconfig", cluster.kubeconfig)

    return run_program(program)


def test_existing_aks_cluster_uses_its_user_credentials(run_program) -> None:
    config = ON_AKS
    recording = build_existing(run_program, config)

    [call] = [c for c in recording.invokes if c.token == CREDENTIALS]
    assert (call.args["resourceGroupName"], call.args["resourceName"]) == ("platform-rg", "platform")
    assert call.args["format"] == "exec", "an Entra ID cluster must answer with a kubelogin user we can convert"
    provider = recording.one(K8S_PROVIDER, "shared-k8s")
    assert provider.is_secret("kubeconfig")
    assert kubelogin_args(provider.inputs["kubeconfig"])[:3] == ["get-token", "--login", "azurecli"]
    assert provider.inputs["clusterIdentifier"] == "platform-rg/platform"
    assert "kubeconfig" in recording.secret_outputs
    assert not [r for r in recording.registrations if r.type.startswith("azure-native:")]


def test_a_cluster_in_another_subscription_is_looked_up_through_a_provider_of_that_subscription(run_program) -> None:
    """A pull-request sandbox whose azure-native signs in to its own subscription, on the dev cluster elsewhere."""
    subscription = "12345678-1234-1234-1234-123456789abc"
    config = ON_AKS.model_copy(update={"subscription_id": subscription})
    recording = build_existing(run_program, config)
    azure = recording.one("pulumi:providers:azure-native", "shared-azure")
    assert azure.inputs["subscriptionId"] == subscription and azure.parent == recording.one(TYPE).urn
    lookups = [c for c in recording.invokes if c.token.startswith("azure-native:containerservice:")]
    assert lookups and all(c.provider and c.provider.startswith(azure.urn) for c in lookups)


def test_a_subscription_is_only_for_a_cluster_found_in_azure() -> None:
    with pytest.raises(ValueError, match="resourceGroupName, clusterName and subscriptionId only go with source"):
        ExistingClusterConfig.model_validate(
            {"source": "kubeconfig", "subscriptionId": "12345678-1234-1234-1234-123456789abc"}
        )


def test_existing_cluster_from_a_kubeconfig_keeps_it_secret(run_program) -> None:
    kubeconfig = "apiVersion: v1\nkind: Config\n"
    recording = build_existing(run_program, ExistingClusterConfig(source="kubeconfig"), kubeconfig)

    assert not [c for c in recording.invokes if c.token == CREDENTIALS]
    provider = recording.one(K8S_PROVIDER, "shared-k8s")
    assert provider.is_secret("kubeconfig")
    assert provider.inputs["kubeconfig"] == kubeconfig
    assert "kubeconfig" in recording.secret_outputs


def pasted_from_aks() -> str:
    """What ``az aks get-credentials`` writes for an Entra ID cluster: a kubelogin user that signs in by device code."""
    answer = mock_cloud.aks_user_credentials({"resourceGroupName": "rg", "resourceName": "aks", "format": "exec"})
    return base64.b64decode(answer["kubeconfigs"][0]["value"]).decode()


@pytest.mark.parametrize("login", ["azurecli", "workloadidentity"])
def test_a_kubeconfig_pasted_from_aks_signs_in_as_configured_without_a_prompt(run_program, login) -> None:
    """A device-code user would wait for a person at a terminal: the provider gets the configured login instead."""
    assert kubelogin_args(pasted_from_aks())[:3] == ["get-token", "--login", "devicecode"]
    config = ExistingClusterConfig(source="kubeconfig", kubelogin={"login": login})
    provider = build_existing(run_program, config, pasted_from_aks()).one(K8S_PROVIDER)
    assert provider.is_secret("kubeconfig")
    assert kubelogin_args(provider.inputs["kubeconfig"]) == [
        "get-token",
        "--login",
        login,
        "--server-id",
        mock_cloud.AKS_AAD_SERVER_APP,
    ]
    [user] = yaml_text.load(provider.inputs["kubeconfig"])["users"]
    assert user["user"]["exec"]["interactiveMode"] == "Never"


def test_a_pasted_kubeconfig_gives_the_provider_the_same_input_on_every_run(run_program) -> None:
    first, second = (build_existing(run_program, ON_KUBECONFIG, pasted_from_aks()) for _ in range(2))
    assert first.one(K8S_PROVIDER).inputs["kubeconfig"] == second.one(K8S_PROVIDER).inputs["kubeconfig"]


def test_existing_cluster_from_a_kubeconfig_needs_the_value(run_program) -> None:
    with pytest.raises(ValueError, match="needs the kubeconfig"):
        build_existing(run_program, ExistingClusterConfig(source="kubeconfig"))


def test_existing_entra_cluster_signs_in_as_configured(run_program) -> None:
    config = ExistingClusterConfig(
        source="aks", resource_group_name="platform-rg", cluster_name="platform", kubelogin={"login": "azurecli"}
    )
    provider = build_existing(run_program, config).one(K8S_PROVIDER, "shared-k8s")
    assert kubelogin_args(provider.inputs["kubeconfig"]) == [
        "get-token",
        "--login",
        "azurecli",
        "--server-id",
        mock_cloud.AKS_AAD_SERVER_APP,
    ]


def test_an_existing_aks_cluster_below_1_33_is_refused_before_anything_reaches_it(run_program, monkeypatch) -> None:
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_VERSION", "1.32.7")
    config = ON_AKS

    def program() -> None:
        ExistingCluster("shared", config, needs_provisioning_requests=True)

    with pytest.raises(ConfigError) as caught:
        run_program(program)
    [(key, message)] = caught.value.problems
    assert key == "elastic-capacity:existingCluster.clusterName"
    assert "platform-rg/platform runs Kubernetes 1.32.7" in message and "from 1.33 on" in message


def test_an_existing_aks_cluster_is_only_checked_when_its_queues_need_provisioning_requests(run_program, monkeypatch):
    monkeypatch.setattr(mock_cloud, "EXISTING_AKS_VERSION", "1.32.7")
    config = ON_AKS
    recording = build_existing(run_program, config)
    assert not [c for c in recording.invokes if c.token.endswith(":getManagedCluster")]


def test_an_existing_aks_cluster_on_1_33_or_later_passes_the_check(run_program) -> None:
    config = ON_AKS

    def program() -> None:
        cluster = ExistingCluster("shared", config, needs_provisioning_requests=True)
        pulumi.export("kubeconfig", cluster.kubeconfig)

    recording = run_program(program)
    assert [c.args["resourceName"] for c in recording.invokes if c.token.endswith(":getManagedCluster")] == ["platform"]
    assert "kubeconfig" in recording.secret_outputs
    assert recording.one(K8S_PROVIDER, "shared-k8s").is_secret("kubeconfig")


def test_the_type_is_cloud_neutral_and_the_old_azure_urn_is_an_alias(run_program) -> None:
    """The engine matches the old URN through the alias, and moves the component's children with it."""
    recording = build_existing(run_program, ExistingClusterConfig(source="kubeconfig"), "apiVersion: v1\n")
    component = recording.one(TYPE, "shared")
    assert component.aliases == ("urn:pulumi:dev::elastic-capacity::elastic-capacity:azure:ExistingCluster::shared",)
    assert recording.one(K8S_PROVIDER, "shared-k8s").parent == component.urn


@pytest.mark.parametrize(("config", "kubeconfig"), [(ON_AKS, None), (ON_KUBECONFIG, "apiVersion: v1\n")])
def test_a_shared_clusters_provider_never_forgets_the_stacks_objects(run_program, config, kubeconfig) -> None:
    """A failed sign-in makes pulumi-kubernetes call the cluster unreachable: with ``deleteUnreachable`` a destroy
    would then drop the stack's objects from the state and leave them on the cluster."""
    recording = build_existing(run_program, config, kubeconfig)
    assert "deleteUnreachable" not in recording.one(K8S_PROVIDER).inputs
