"""How ``pulumi`` reaches an ACK API server: the exec-plugin kubeconfig, the same on every run, and ACK's temporary
one; the endpoint each uses; the one-line error when ACK reports no endpoint; and the RBAC roles of other RAM
identities."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pytest
from pulumi_alicloud import Provider as AlicloudProvider
from pulumi_alicloud import cs

from components.alicloud.ack_access import (
    CA_ONLY_MINUTES,
    EXEC_API_VERSION,
    api_server_endpoint,
    cluster_kubeconfig,
    exec_kubeconfig,
    rbac_grants,
)
from components.config.ack.ack import AckClusterConfig
from components.config.deploy.checks import AckReport
from tests.support.ack import (
    CI_USER,
    CLUSTER_TYPE,
    CREDENTIAL_INVOKE,
    EXISTING,
    GRANTS,
    KEY,
    OPS_ROLE,
    PERMISSION_TYPE,
    cluster_config,
    failed_run,
    invokes,
)
from tools import mock_cloud, mock_runtime
from tools.recording import Recording

SERVER = "https://abc.cs.mock.invalid:6443"


def connection(public: str | None, private: str | None) -> cs.outputs.ManagedKubernetesConnection:
    return cs.outputs.ManagedKubernetesConnection(api_server_internet=public, api_server_intranet=private)


@pytest.mark.parametrize(
    ("connections", "public", "endpoint"),
    [
        ([connection(SERVER, "https://10.1.0.5:6443")], True, SERVER),
        ([connection(SERVER, "https://10.1.0.5:6443")], False, "https://10.1.0.5:6443"),
        ([connection(SERVER, None), connection("https://other:6443", "https://10.9.9.9:6443")], True, SERVER),
        ([connection(SERVER, None)], False, ""),  # ACK has not reported the private endpoint (yet)
        ([], True, ""),
        (None, True, ""),
    ],
    ids=["public", "private", "first-of-several", "missing", "no-connections", "none"],
)
def test_api_server_endpoint_is_the_first_connections_public_or_private_one(connections, public, endpoint):
    assert api_server_endpoint(connections, public=public) == endpoint


def test_the_exec_kubeconfig_runs_ack_ram_tool_for_the_cluster():
    kubeconfig = json.loads(exec_kubeconfig("demo", "c-123", "cn-hangzhou", SERVER, "Q0E="))
    assert kubeconfig == {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "demo", "cluster": {"server": SERVER, "certificate-authority-data": "Q0E="}}],
        "users": [
            {
                "name": "demo",
                "user": {
                    "exec": {
                        "apiVersion": EXEC_API_VERSION,
                        "command": "ack-ram-tool",
                        "args": [
                            *("credential-plugin", "get-credential", "--cluster-id", "c-123"),
                            *("--api-version", "v1beta1", "--expiration", "3h"),
                            *("--region-id", "cn-hangzhou", "--log-level", "error"),
                        ],
                        "interactiveMode": "Never",
                        "provideClusterInfo": False,
                    }
                },
            }
        ],
        "contexts": [{"name": "demo", "context": {"cluster": "demo", "user": "demo"}}],
        "current-context": "demo",
    }
    assert exec_kubeconfig("demo", "c-123", "cn-hangzhou", SERVER, "Q0E=") == json.dumps(
        kubeconfig, indent=2, sort_keys=True
    )


def program_for(cfg: AckClusterConfig, endpoint: str = SERVER):
    """The kubeconfig of a bare cluster resource whose API server is at ``endpoint``, exported as ``kubeconfig``."""

    def program() -> None:
        parent = pulumi.ComponentResource("test:index:Cluster", "ack-demo")
        region = AlicloudProvider("region", region=cfg.region, opts=pulumi.ResourceOptions(parent=parent))
        cluster = cs.ManagedKubernetes("cluster", opts=pulumi.ResourceOptions(parent=parent, provider=region))
        kubeconfig = cluster_kubeconfig(
            cfg, cluster, pulumi.Output.from_input(endpoint), region, parent, AckReport(KEY)
        )
        pulumi.export("kubeconfig", kubeconfig)
        pulumi.export("clusterId", cluster.id)

    return program


def run(cfg: AckClusterConfig, endpoint: str = SERVER) -> Recording:
    return mock_runtime.run(program_for(cfg, endpoint), {})


def test_the_exec_kubeconfig_is_built_from_the_endpoint_and_the_cluster_ca():
    recording = run(cluster_config(network=EXISTING))
    [credential] = invokes(recording, CREDENTIAL_INVOKE)
    assert credential.args == {"clusterId": recording.outputs["clusterId"], "temporaryDurationMinutes": CA_ONLY_MINUTES}
    assert credential.provider.rsplit("::", 1)[0] == recording.one("pulumi:providers:alicloud").urn
    authority = mock_cloud.ack_cluster_credential(credential.args)["certificateAuthorities"][0]["clusterCert"]
    expected = exec_kubeconfig("demo", recording.outputs["clusterId"], "cn-hangzhou", SERVER, authority)
    assert recording.outputs["kubeconfig"] == expected
    assert "kubeconfig" in recording.secret_outputs


def test_the_exec_kubeconfig_is_identical_on_every_run():
    """The credential invoke mints a new certificate on every call; none of it reaches the kubeconfig."""
    cfg = cluster_config(network=EXISTING)
    assert run(cfg).outputs["kubeconfig"] == run(cfg).outputs["kubeconfig"]


def test_temporary_mode_hands_over_acks_kubeconfig_which_changes_every_run():
    """The documented limit of the opt-in mode: a fresh credential on every run, expiring after credentialMinutes."""
    cfg = cluster_config(network=EXISTING, kubeconfigMode="temporary", credentialMinutes=120)
    first, second = run(cfg), run(cfg)
    [call] = invokes(first, CREDENTIAL_INVOKE)
    assert call.args == {"clusterId": first.outputs["clusterId"], "temporaryDurationMinutes": 120}
    assert "client-certificate-data" in first.outputs["kubeconfig"]
    assert "kubeconfig" in first.secret_outputs
    assert first.outputs["kubeconfig"] != second.outputs["kubeconfig"]


@pytest.mark.parametrize("public", [True, False])
def test_no_endpoint_yet_fails_naming_the_endpoint_setting(monkeypatch, public: Any):
    cfg = cluster_config(network=EXISTING, slbInternetEnabled=public)
    error, _ = failed_run(monkeypatch, program_for(cfg, endpoint=""))
    assert error.keys == [f"{KEY}.slbInternetEnabled"]
    assert f"{public!r}: ACK reports no such API endpoint yet" in str(error)


def grants_program(cfg: AckClusterConfig):
    """The RBAC grants of ``cfg`` on a bare cluster resource, under a component as in the real program."""

    def program() -> None:
        parent = pulumi.ComponentResource("test:index:Cluster", "ack-demo")
        region = AlicloudProvider("region", region=cfg.region, opts=pulumi.ResourceOptions(parent=parent))
        child = pulumi.ResourceOptions(parent=parent, provider=region)
        cluster = cs.ManagedKubernetes("cluster", opts=child)
        rbac_grants("ack-demo", cluster, cfg.rbac, child)
        pulumi.export("clusterId", cluster.id)

    return program


def test_each_granted_identity_gets_its_roles_on_this_cluster_only():
    recording = mock_runtime.run(grants_program(cluster_config(network=EXISTING, rbac=GRANTS)), {})
    grants = {g.inputs["uid"]: g for g in recording.by_type(PERMISSION_TYPE)}
    cluster_id = recording.outputs["clusterId"]
    assert grants[CI_USER].inputs["permissions"] == [
        {"cluster": cluster_id, "roleType": "cluster", "roleName": "admin", "namespace": ""}
        | {"isCustom": False, "isRamRole": False}
    ]
    assert grants[OPS_ROLE].inputs["permissions"] == [
        {"cluster": cluster_id, "roleType": "namespace", "roleName": "dev", "namespace": "team-a"}
        | {"isCustom": False, "isRamRole": True},
        {"cluster": cluster_id, "roleType": "cluster", "roleName": "restricted", "namespace": ""}
        | {"isCustom": False, "isRamRole": True},
    ]
    component, cluster = recording.one("test:index:Cluster"), recording.one(CLUSTER_TYPE)
    for grant in grants.values():
        assert (grant.name, grant.id) == (f"ack-demo-rbac-{grant.inputs['uid']}", grant.inputs["uid"])
        assert grant.parent == component.urn and recording.provider_of(grant).name == "region"
        assert set(grant.property_dependencies["permissions"]) == {cluster.urn}


def test_no_identity_no_grant():
    assert mock_runtime.run(grants_program(cluster_config(network=EXISTING)), {}).by_type(PERMISSION_TYPE) == []
