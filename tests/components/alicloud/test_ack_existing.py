"""An existing ACK cluster under the mocks: only the stack's namespaces and workloads are registered there, the
provider holds the stable exec kubeconfig and waits for nothing, and ACK's answers are checked with their keys."""

from __future__ import annotations

import json
from typing import Any

import pytest

from components import yaml_text
from components.alicloud.ack_existing import kubeconfig_server
from components.config.base import ConfigError
from components.config.deploy.checks import AckReport
from components.config.loader import load_stack_config
from components.fleet import deploy
from tests.support import ack as ack_data
from tests.support.config import WALKTHROUGH, as_config
from tools import mock_cloud, mock_runtime
from tools.recording import Recording

KEY = "elastic-capacity:ack.existingClusters[0]"
WORKER = AckReport("k", reached_by="multiKueue.workers[0]")
K8S_PROVIDER = "pulumi:providers:kubernetes"


def shared(workloads: list[dict[str, Any]] | None = None, **cluster: Any) -> dict[str, Any]:
    web = ack_data.workload(cluster="shared", namespace="review", replicas=2)
    return {
        "environment": {"kind": "ephemeral"},
        "ack": {"existingClusters": [ack_data.existing_cluster(**cluster)], "workloads": workloads or [web]},
    }


def run(sections: dict[str, Any], stack: str = "pr-301") -> Recording:
    config = load_stack_config(as_config(sections), stack=stack)
    return mock_runtime.run(lambda: deploy(config), {}, stack=stack)


def objects(recording: Recording) -> set[tuple[str, str | None, str]]:
    return {
        (r.inputs["kind"], r.inputs["metadata"].get("namespace"), r.inputs["metadata"]["name"])
        for r in recording.kubernetes_objects()
    }


def test_two_pull_request_stacks_share_the_cluster_in_disjoint_namespaces_and_register_nothing_in_alicloud():
    runs = {stack: run(shared(), stack) for stack in ("pr-301", "pr-302")}
    found = {stack: objects(recording) for stack, recording in runs.items()}
    assert found["pr-301"].isdisjoint(found["pr-302"])
    for stack, recording in runs.items():
        [namespace] = [name for kind, _, name in found[stack] if kind == "Namespace"]
        assert namespace.startswith("review-") and namespace != "review-"
        assert {(kind, ns) for kind, ns, _ in found[stack]} == {("Namespace", None), ("Deployment", namespace)}
        assert [r.type for r in recording.registrations if r.type.startswith("alicloud:")] == []
        assert recording.one(K8S_PROVIDER).inputs["clusterIdentifier"] == ack_data.EXISTING_ID
    urns = [{r.urn for r in recording.kubernetes_objects()} for recording in runs.values()]
    assert urns[0].isdisjoint(urns[1]), "one stack's destroy never deletes the other's objects"


def test_an_ephemeral_stack_never_lets_the_shared_clusters_provider_forget_its_workloads():
    """A failed sign-in makes pulumi-kubernetes call the cluster unreachable: with ``deleteUnreachable`` a destroy
    would then drop the stack's namespace and workloads from the state and leave them running on the cluster."""
    assert "deleteUnreachable" not in run(shared()).one(K8S_PROVIDER).inputs


def test_the_provider_waits_for_nothing_and_gets_the_same_exec_kubeconfig_every_run():
    first, second = run(shared()), run(shared())
    provider = first.one(K8S_PROVIDER)
    assert provider.all_dependencies == set(), "no addon, cluster or check in its way"
    kubeconfigs = [recording.one(K8S_PROVIDER).inputs["kubeconfig"] for recording in (first, second)]
    assert kubeconfigs[0] == kubeconfigs[1]
    assert first.one(K8S_PROVIDER).is_secret("kubeconfig")
    document = json.loads(kubeconfigs[0])
    assert document["users"][0]["user"]["exec"]["command"] == "ack-ram-tool"
    assert ack_data.EXISTING_ID in document["users"][0]["user"]["exec"]["args"]
    cluster = document["clusters"][0]["cluster"]
    credential = mock_cloud.ack_cluster_credential({"clusterId": ack_data.EXISTING_ID})
    assert cluster["certificate-authority-data"] == credential["certificateAuthorities"][0]["clusterCert"]
    assert cluster["server"] == first.outputs["ackClusters"]["shared"]["apiServerEndpoint"]
    [call] = ack_data.invokes(first, ack_data.CREDENTIAL_INVOKE)
    assert call.args["temporaryDurationMinutes"] == 15


def test_the_workloads_wait_for_the_checks_and_the_output_says_what_ack_reports():
    recording = run(shared())
    assert recording.outputs["ackClusters"]["shared"] == {
        "clusterId": ack_data.EXISTING_ID,
        "region": "cn-hangzhou",
        "kubernetesVersion": mock_cloud.ACK_EXISTING_VERSION,
        "apiServerEndpoint": recording.outputs["ackClusters"]["shared"]["apiServerEndpoint"],
    }
    assert set(recording.outputs["ackKubeconfigs"]) == {"shared"}
    [addons] = ack_data.invokes(recording, ack_data.ADDONS_INVOKE)
    assert addons.args["clusterId"] == ack_data.EXISTING_ID
    [clusters] = ack_data.invokes(recording, ack_data.CLUSTERS_INVOKE)
    assert clusters.args["clusterId"] == ack_data.EXISTING_ID


@pytest.mark.parametrize(
    ("installed", "workload", "needle"),
    [
        ({"ack-virtual-node": ""}, {}, "ack-virtual-node is not installed"),
        ({"ack-virtual-node": "v2.12.0"}, {}, "needs v2.13.0 or later"),
        ({"ack-virtual-node": "v2.14.0"}, ack_data.GPU_HPN, "needs v2.15.0 or later"),
        ({"kube-scheduler": "v1.35.0-aliyun.6.8.0.1"}, ack_data.GPU_HPN, "ACK runs kube-scheduler"),
    ],
)
def test_installed_addons_below_the_workloads_needs_fail_naming_the_cluster(monkeypatch, installed, workload, needle):
    for name, version in installed.items():
        monkeypatch.setitem(mock_cloud.ACK_EXISTING_ADDONS, name, version)
    spec = ack_data.workload(cluster="shared", namespace="review", **workload)
    error, registered = ack_data.failed_run(
        monkeypatch, lambda: deploy(load_stack_config(as_config(shared([spec])), stack="pr-301"))
    )
    assert error.keys == [f"{KEY}.clusterId"] and needle in str(error)
    assert not [r for r in registered if r.type == ack_data.DEPLOYMENT_TYPE], "no pod before the checks pass"


@pytest.mark.parametrize(
    ("answer", "key", "needle"),
    [
        ({"currentVersion": "1.34.1-aliyun.1"}, "kubernetesVersion", "ACK reports 1.34.1-aliyun.1"),
        ({"clusterSpec": "ack.standard"}, "clusterId", "ACK managed Pro"),
        ({"clusterId": "c999999999"}, "clusterId", "no such cluster"),
    ],
)
def test_a_cluster_ack_does_not_report_as_configured_fails_naming_the_key(monkeypatch, answer, key, needle):
    answer_of = mock_cloud.ProgramMocks._answer

    def changed(self: Any, args: Any) -> dict[str, Any]:
        found = answer_of(self, args)
        if args.token == ack_data.CLUSTERS_INVOKE:
            found["clusters"] = [{**found["clusters"][0], **answer}]
        return found

    monkeypatch.setattr(mock_cloud.ProgramMocks, "_answer", changed)
    error, _ = ack_data.failed_run(monkeypatch, lambda: deploy(load_stack_config(as_config(shared()), stack="pr-301")))
    assert error.keys == [f"{KEY}.{key}"] and needle in str(error)


def test_the_api_endpoint_comes_from_the_credentials_kubeconfig():
    assert (
        kubeconfig_server(AckReport("k"), "clusters:\n- cluster: {server: 'https://1.2.3.4:6443'}\n")
        == "https://1.2.3.4:6443"
    )
    for broken in ("", "clusters: []", "clusters:\n- cluster: {server: 'http://x'}\n", ": :"):
        with pytest.raises(ConfigError) as caught:
            kubeconfig_server(AckReport("k"), broken)
        assert caught.value.keys == ["k.clusterId"]


def test_a_private_endpoint_is_refused_only_for_a_multikueue_worker():
    private = "clusters:\n- cluster: {server: 'https://192.168.0.10:6443'}\n"
    assert kubeconfig_server(AckReport("k"), private) == "https://192.168.0.10:6443", "a runner in the VPC may use it"
    for server in ("https://192.168.0.10:6443", "https://100.100.1.2:6443", "https://[fd00::1]:6443"):
        with pytest.raises(ConfigError) as caught:
            kubeconfig_server(WORKER, f"clusters:\n- cluster: {{server: '{server}'}}\n")
        assert caught.value.keys == ["k.clusterId"] and "multiKueue.workers[0]" in str(caught.value)
    for server in ("https://47.96.1.2:6443", "https://c1.cs.aliyuncs.com:6443"):
        text = f"clusters:\n- cluster: {{server: '{server}'}}\n"
        assert kubeconfig_server(WORKER, text) == server


def test_an_existing_ack_worker_whose_credential_names_a_private_endpoint_fails_naming_its_cluster_id(monkeypatch):
    answer_of = mock_cloud.ProgramMocks._answer

    def private(self: Any, args: Any) -> dict[str, Any]:
        found = answer_of(self, args)
        if args.token == ack_data.CREDENTIAL_INVOKE:
            document = yaml_text.load(found["kubeConfig"])
            document["clusters"][0]["cluster"]["server"] = "https://192.168.0.10:6443"
            found["kubeConfig"] = yaml_text.dump(document)
        return found

    monkeypatch.setattr(mock_cloud.ProgramMocks, "_answer", private)
    sections = {
        "aks": {"preset": "aks-walkthrough"},
        **WALKTHROUGH,
        "ack": {"existingClusters": [ack_data.existing_cluster("shared")]},
        "multiKueue": {"workers": [{"cluster": "shared"}]},
    }
    error, registered = ack_data.failed_run(monkeypatch, lambda: deploy(load_stack_config(as_config(sections))))
    assert error.keys == [f"{KEY}.clusterId"] and "multiKueue.workers[0]" in str(error) and "private" in str(error)
    assert not [r for r in registered if r.type == "kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster"]
