"""Entra ID kubeconfigs rewritten to sign in without a prompt, as ``kubelogin convert-kubeconfig`` would."""

from __future__ import annotations

import pytest

from components import yaml_text
from components.azure.kubelogin import non_interactive
from components.config.aks.entra_id import KubeloginConfig

SERVER_ID = "6dae42f8-4368-4678-94ff-3960e28e3630"
DEVICE_CODE_KUBECONFIG = f"""
apiVersion: v1
kind: Config
clusters:
- name: kueue-cas
  cluster: {{server: "https://kueue-cas-dns.hcp.eastus2.azmk8s.io:443", certificate-authority-data: "Q0E="}}
contexts:
- name: kueue-cas
  context: {{cluster: kueue-cas, user: clusterUser_kueue-cas-demo_kueue-cas}}
current-context: kueue-cas
users:
- name: clusterUser_kueue-cas-demo_kueue-cas
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin
      args: [get-token, --login, devicecode, --server-id, {SERVER_ID},
             --client-id, 80faf920-1908-4b52-b5ef-a8e7bedfc67a, --tenant-id, tenant-1, --environment, AzurePublicCloud]
"""


def converted(login: KubeloginConfig) -> dict:
    return yaml_text.load(non_interactive(DEVICE_CODE_KUBECONFIG, login))


def exec_of(document: dict) -> dict:
    return document["users"][0]["user"]["exec"]


def test_azurecli_uses_the_az_login_session_and_keeps_the_server_id():
    exec_config = exec_of(converted(KubeloginConfig()))
    assert exec_config["command"] == "kubelogin"
    assert exec_config["args"] == ["get-token", "--login", "azurecli", "--server-id", SERVER_ID]
    assert exec_config["interactiveMode"] == "Never"


def test_workload_identity_takes_everything_else_from_the_environment():
    exec_config = exec_of(converted(KubeloginConfig(login="workloadidentity")))
    assert exec_config["args"] == ["get-token", "--login", "workloadidentity", "--server-id", SERVER_ID]


def test_spn_signs_in_as_the_configured_principal_in_the_cluster_tenant_and_cloud():
    client_id = "11111111-2222-3333-4444-555555555555"
    exec_config = exec_of(converted(KubeloginConfig(login="spn", client_id=client_id)))
    assert exec_config["args"] == [
        "get-token",
        "--login",
        "spn",
        "--server-id",
        SERVER_ID,
        "--client-id",
        client_id,
        "--tenant-id",
        "tenant-1",
        "--environment",
        "AzurePublicCloud",
    ]
    assert "secret" not in str(exec_config).lower(), "the secret comes from AAD_SERVICE_PRINCIPAL_CLIENT_SECRET"


def test_an_azure_china_kubeconfig_keeps_its_cloud_for_every_login_since_ci_may_turn_it_into_spn():
    """CI's AAD_LOGIN_METHOD=spn overrides the stack's azurecli in Azure China (Azure R7); kubelogin's spn reads its
    authority from ``--environment`` only, so without it the China app would sign in at global Azure's."""
    china = DEVICE_CODE_KUBECONFIG.replace("AzurePublicCloud", "AzureChinaCloud")
    args = exec_of(yaml_text.load(non_interactive(china, KubeloginConfig())))["args"]
    assert args == ["get-token", "--login", "azurecli", "--server-id", SERVER_ID, "--environment", "AzureChinaCloud"]


def test_clusters_and_contexts_are_kept():
    original = yaml_text.load(DEVICE_CODE_KUBECONFIG)
    document = converted(KubeloginConfig())
    assert document["clusters"] == original["clusters"]
    assert document["contexts"] == original["contexts"]


def test_a_local_account_kubeconfig_comes_back_unchanged_to_the_byte():
    local = "apiVersion: v1\nkind: Config\nusers:\n- {name: u, user: {token: t}}  # as AKS wrote it\n"
    assert non_interactive(local, KubeloginConfig()) is local


@pytest.mark.parametrize("text", ["clusters: [unclosed", "a pasted sentence", ""])
def test_text_that_is_no_kubeconfig_comes_back_unchanged_for_the_provider_to_report(text):
    assert non_interactive(text, KubeloginConfig()) is text


def test_the_same_answer_converts_to_the_same_kubeconfig():
    assert non_interactive(DEVICE_CODE_KUBECONFIG, KubeloginConfig()) == non_interactive(
        DEVICE_CODE_KUBECONFIG, KubeloginConfig()
    )


def test_a_kubelogin_user_without_server_id_is_refused():
    broken = DEVICE_CODE_KUBECONFIG.replace(f"--server-id, {SERVER_ID},", "")
    with pytest.raises(ValueError, match="no --server-id"):
        non_interactive(broken, KubeloginConfig())
