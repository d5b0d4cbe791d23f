"""The mocked clouds' answers: fresh credentials for the same cluster, and what AKS and ACK put in them."""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pulumi
from pulumi_azure_native import authorization, containerservice

from components import yaml_text
from tools import mock_cloud, mock_runtime
from tools.mock_cloud import ack_cluster_credential, aks_user_credentials

GROUP = "azure-native:resources:ResourceGroup"
CLUSTER = "azure-native:containerservice:ManagedCluster"
CREDENTIALS = "azure-native:containerservice:listManagedClusterUserCredentials"


def aks_kubeconfig(value: str) -> dict[str, Any]:
    return yaml_text.load(base64.b64decode(value))


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
        *("--tenant-id", mock_cloud.AZURE_TENANT_ID),
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
    assert exec_flag(up.outputs["entra"], "--tenant-id") == up.outputs["tenant"] == mock_cloud.AZURE_TENANT_ID
    assert exec_flag(up.outputs["entra"], "--environment") == "AzurePublicCloud"
    assert exec_flag(up.outputs["china"], "--environment") == "AzureChinaCloud"


def test_ack_credentials_are_a_fresh_client_certificate_for_the_same_cluster_ca():
    first = ack_cluster_credential({"clusterId": "c1", "temporaryDurationMinutes": 60})
    second = ack_cluster_credential({"clusterId": "c1", "temporaryDurationMinutes": 60})
    assert first["kubeConfig"] != second["kubeConfig"]
    [authority], [again] = first["certificateAuthorities"], second["certificateAuthorities"]
    assert authority["clusterCert"] == again["clusterCert"]
    assert authority["clientCert"] != again["clientCert"] and authority["clientKey"] != again["clientKey"]

    kubeconfig = yaml_text.load(first["kubeConfig"])
    assert kubeconfig["clusters"] == yaml_text.load(second["kubeConfig"])["clusters"]
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


def test_ack_reports_an_existing_cluster_as_pro_with_both_addons_and_a_new_one_without_the_virtual_node():
    mocks = mock_cloud.ProgramMocks()

    def answer(token: str, **args: Any) -> dict[str, Any]:
        return mocks._answer(pulumi.runtime.MockCallArgs(token, args, ""))

    [found] = answer("alicloud:cs/getClusters:getClusters", clusterId="c0123456789")["clusters"]
    assert (found["clusterId"], found["clusterSpec"]) == ("c0123456789", "ack.pro.small")
    assert found["currentVersion"] == mock_cloud.ACK_EXISTING_VERSION
    addons = "alicloud:cs/getKubernetesAddons:getKubernetesAddons"
    existing = {a["name"]: a["currentVersion"] for a in answer(addons, clusterId="c0123456789")["addons"]}
    assert existing == mock_cloud.ACK_CURRENT_ADDONS
    created = {a["name"]: a["currentVersion"] for a in answer(addons, clusterId="managedkubernetes-x")["addons"]}
    assert created["ack-virtual-node"] == ""


def test_the_token_request_api_answers_a_token_per_account_and_anchor_for_the_lifetime_asked():
    asked = {"namespace": "kueue-system", "serviceAccount": "mk", "anchor": {"uid": "1"}, "expirationSeconds": 3600}
    answer = mock_cloud.service_account_token(asked)
    assert answer["token"].endswith(".mock") and answer["issuedAt"] == mock_cloud.MOCK_NOW.isoformat()
    assert answer["expiresAt"] == (mock_cloud.MOCK_NOW + datetime.timedelta(hours=1)).isoformat()
    rotated = mock_cloud.service_account_token({**asked, "anchor": {"uid": "2"}})
    assert rotated["token"] != answer["token"]
    assert mock_cloud.service_account_token(asked) == answer, "the same on every run: no diff of what holds it"
