"""The worker's objects as plain dicts: queues under the manager's names, the worker's Kueue, the manager's identity,
and the kubeconfig MultiKueue accepts."""

from __future__ import annotations

import base64
import urllib.parse
from typing import Any

import pytest
import yaml

from components.config.kueue import KueueConfig
from components.config.multikueue import MultiKueueConfig, WorkerConfig
from components.config.queues import QueuesConfig
from components.manifests import kueue_install
from components.manifests import multikueue_worker as worker_manifests
from components.manifests.queues import queue_manifests
from tests.support.schemas import validate_core, validate_kueue

ACK_VERSION = "1.35"
"""The minor the mocked ACK clusters run (``ACK_OFFERED_VERSIONS`` in tools/mock_cloud.py)."""
SERVER = "https://abc.cs.mock.invalid:6443"
BURST = MultiKueueConfig.model_validate({"workers": [{"cluster": "hz"}]})
RENAMED = MultiKueueConfig.model_validate(
    {
        "namespace": "ml-burst",
        "localQueue": "gpu-burst",
        "clusterQueue": "burst-cq",
        "origin": "team-a",
        "tokenRotation": "2026-09",
        "workers": [{"cluster": "bj", "quota": {"cpu": "16", "memory": "64Gi"}}],
    }
)
MANAGER = KueueConfig.model_validate(
    {
        "chartRepository": "https://kubernetes-sigs.github.io/kueue/charts",
        "chartVersion": "0.17.8",
        "imageRepository": "mcr.microsoft.com/oss/v2/kueue/kueue",
        "replicas": 2,
        "frameworks": ["batch/job", "ray.io/rayjob"],
        "featureGates": {"PartialAdmission": True},
        "fairSharing": {},
        "waitForPodsReady": {"timeout": "5m"},
        "readinessGate": {"probeImage": "registryk8s.azk8s.cn/kubectl:v1.33.4", "timeoutSeconds": 900},
        "managedJobsNamespaceSelector": {"matchLabels": {"team": "ml"}},
    }
)


def refusals(kubeconfig: str) -> list[str]:
    """What Kueue 0.17.8's ``validateKubeconfig`` refuses (multikueuecluster.go), checked on the YAML itself."""
    config = yaml.safe_load(kubeconfig)
    found = []
    for user in config["users"]:
        found += [key for key in ("exec", "tokenFile", "auth-provider", "username", "password") if key in user["user"]]
    for cluster in config["clusters"]:
        found += [key for key in ("insecure-skip-tls-verify", "certificate-authority") if key in cluster["cluster"]]
        if not cluster["cluster"].get("server"):
            found.append("no server")
    return found


def worker_objects(burst: MultiKueueConfig) -> list[dict[str, Any]]:
    queues = QueuesConfig.model_validate(worker_manifests.worker_queues(burst, burst.workers[0]))
    labels = worker_manifests.worker_kueue(KueueConfig()).managed_namespace_labels
    return queue_manifests(queues, labels)


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_worker_queues_use_the_managers_names_and_each_object_passes_its_schema(burst):
    objects = {(obj["kind"], obj["metadata"]["name"]): obj for obj in worker_objects(burst)}
    assert set(objects) == {
        ("Namespace", burst.namespace),
        ("ResourceFlavor", worker_manifests.ACS_FLAVOR),
        ("ClusterQueue", burst.cluster_queue),
        ("LocalQueue", burst.local_queue),
    }
    local = objects[("LocalQueue", burst.local_queue)]
    assert local["metadata"]["namespace"] == burst.namespace
    assert local["spec"]["clusterQueue"] == burst.cluster_queue
    for obj in objects.values():
        validate_core(obj, ACK_VERSION) if obj["apiVersion"] == "v1" else validate_kueue(obj)


def test_the_acs_flavor_selects_and_tolerates_the_virtual_node():
    flavor = next(obj for obj in worker_objects(BURST) if obj["kind"] == "ResourceFlavor")
    assert flavor["spec"] == {
        "nodeLabels": {"type": "virtual-kubelet"},
        "tolerations": [
            {"key": "virtual-kubelet.io/provider", "operator": "Equal", "value": "alibabacloud", "effect": "NoSchedule"}
        ],
    }


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_the_cluster_queue_holds_the_workers_quota_on_the_acs_flavor_for_every_namespace(burst):
    queue = next(obj for obj in worker_objects(burst) if obj["kind"] == "ClusterQueue")
    quota = burst.workers[0].quota
    assert queue["spec"]["namespaceSelector"] == {}
    assert queue["spec"]["resourceGroups"] == [
        {
            "coveredResources": ["cpu", "memory"],
            "flavors": [
                {
                    "name": worker_manifests.ACS_FLAVOR,
                    "resources": [
                        {"name": "cpu", "nominalQuota": quota.cpu},
                        {"name": "memory", "nominalQuota": quota.memory},
                    ],
                }
            ],
        }
    ]
    assert "admissionChecksStrategy" not in queue["spec"]


def test_worker_queues_have_no_provisioning_gate():
    queues = QueuesConfig.model_validate(worker_manifests.worker_queues(BURST, BURST.workers[0]))
    assert queues.all_admission_checks == [] and queues.all_provisioning_request_configs == []
    assert not queues.uses_provisioning_requests


@pytest.mark.parametrize("manager", [KueueConfig(), MANAGER], ids=["default", "customised"])
def test_worker_kueue_is_the_managers_release_from_the_same_sources(manager):
    worker = worker_manifests.worker_kueue(manager)
    for key in (
        "chart_repository",
        "chart_version",
        "image_repository",
        "namespace",
        "release_name",
        "readiness_gate",
        "managed_jobs_namespace_selector",
    ):
        assert getattr(worker, key) == getattr(manager, key), key
    assert worker.sources() == manager.sources()
    assert worker.managed_namespace_labels == manager.managed_namespace_labels


@pytest.mark.parametrize("manager", [KueueConfig(), MANAGER], ids=["default", "customised"])
def test_worker_kueue_is_a_plain_batch_job_kueue_off_the_virtual_node(manager):
    worker = worker_manifests.worker_kueue(manager)
    assert worker.frameworks == ["batch/job"]
    assert (worker.node_selector, worker.tolerations, worker.replicas) == ({}, [], 1)
    assert worker.feature_gates == {}
    for key in ("fair_sharing", "admission_fair_sharing", "resources", "wait_for_pods_ready", "multi_kueue"):
        assert getattr(worker, key) is None, key
    values = kueue_install.chart_values(worker)["controllerManager"]
    assert (values["nodeSelector"], values["tolerations"], values["replicas"]) == ({}, [], 1)


def test_worker_kueue_leaves_out_the_managers_multikueue_block():
    manager = KueueConfig().model_copy(update={"multi_kueue": BURST.manager_settings()})
    assert "multiKueue" in kueue_install.manager_config(manager)
    assert "multiKueue" not in kueue_install.manager_config(worker_manifests.worker_kueue(manager))


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_the_manager_identity_is_named_after_the_origin_and_lives_in_kueues_namespace(burst):
    name = f"{burst.origin}-multikueue"
    account = worker_manifests.service_account(burst, "kueue-system")
    assert account == {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": "kueue-system"},
    }
    binding = worker_manifests.cluster_role_binding(burst, "kueue-system")
    assert binding["metadata"] == {"name": name}
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": name, "namespace": "kueue-system"}]
    role = worker_manifests.cluster_role(burst)
    assert role["metadata"] == {"name": name}
    for obj in (account, binding, role, worker_manifests.token_secret(burst, "kueue-system")):
        validate_core(obj, ACK_VERSION)


def test_the_role_grants_exactly_what_multikueue_does_with_batch_jobs():
    assert worker_manifests.cluster_role(BURST)["rules"] == [
        {
            "apiGroups": ["batch"],
            "resources": ["jobs"],
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        },
        {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["get"]},
        {
            "apiGroups": ["kueue.x-k8s.io"],
            "resources": ["workloads"],
            "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
        },
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
    ]


def test_the_role_is_a_copy_callers_may_not_change_the_rules_through():
    worker_manifests.cluster_role(BURST)["rules"][0]["verbs"].append("escalate")
    assert "escalate" not in worker_manifests.cluster_role(BURST)["rules"][0]["verbs"]


def test_the_token_secret_is_a_long_lived_token_of_the_service_account():
    secret = worker_manifests.token_secret(BURST, "kueue-system")
    assert secret == {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/service-account-token",
        "metadata": {
            "name": "elastic-capacity-multikueue-token-1",
            "namespace": "kueue-system",
            "annotations": {"kubernetes.io/service-account.name": "elastic-capacity-multikueue"},
        },
    }
    assert "data" not in secret and "stringData" not in secret, "the token controller fills it"


def test_a_new_token_rotation_is_a_new_token_secret_of_the_same_account():
    rotated = BURST.model_copy(update={"token_rotation": "2"})
    old, new = (worker_manifests.token_secret(b, "kueue-system")["metadata"] for b in (BURST, rotated))
    assert old["name"] != new["name"] and new["name"].endswith("-2")
    assert old["annotations"] == new["annotations"]
    assert worker_manifests.service_account(BURST, "x") == worker_manifests.service_account(rotated, "x")


def test_the_token_kubeconfig_is_inline_token_and_ca_data_only():
    kubeconfig = worker_manifests.token_kubeconfig(SERVER, "Q0EgZGF0YQ==", "the-token", "elastic-capacity-hz")
    assert yaml.safe_load(kubeconfig) == {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "elastic-capacity-hz", "cluster": {"server": SERVER, "certificate-authority-data": "Q0EgZGF0YQ=="}}
        ],
        "users": [{"name": "elastic-capacity-hz", "user": {"token": "the-token"}}],
        "contexts": [
            {
                "name": "elastic-capacity-hz",
                "context": {"cluster": "elastic-capacity-hz", "user": "elastic-capacity-hz"},
            }
        ],
        "current-context": "elastic-capacity-hz",
    }
    assert refusals(kubeconfig) == []


@pytest.mark.parametrize("server", ["http://abc.cs.mock.invalid:6443", "abc.cs.mock.invalid:6443", "https://", ""])
def test_the_kubeconfig_refuses_a_server_that_is_no_https_endpoint(server):
    with pytest.raises(ValueError, match="https://<host>"):
        worker_manifests.token_kubeconfig(server, "Q0E=", "the-token", "hz")


@pytest.mark.parametrize(("ca_data", "token", "name"), [("", "t", "hz"), ("Q0E=", "", "hz"), ("Q0E=", "t", "")])
def test_the_kubeconfig_needs_a_ca_a_token_and_a_name(ca_data, token, name):
    with pytest.raises(ValueError, match="needs a CA, a token and a name"):
        worker_manifests.token_kubeconfig(SERVER, ca_data, token, name)


def test_the_secret_data_token_is_decoded_and_the_ca_passed_on_as_is():
    data = {"token": base64.b64encode(b"eyJhbGciOi.jwt").decode(), "ca.crt": "LS0tLS1CRUdJTg==", "namespace": "a3Vl"}
    config = yaml.safe_load(worker_manifests.kubeconfig_from_token_secret(SERVER, data, "hz"))
    assert config["users"][0]["user"] == {"token": "eyJhbGciOi.jwt"}
    assert config["clusters"][0]["cluster"]["certificate-authority-data"] == "LS0tLS1CRUdJTg=="
    assert urllib.parse.urlsplit(config["clusters"][0]["cluster"]["server"]).port == 6443


@pytest.mark.parametrize("data", [None, {}, {"token": "dG9r"}, {"ca.crt": "Q0E="}, {"token": "", "ca.crt": "Q0E="}])
def test_secret_data_without_a_token_or_ca_is_an_error(data):
    with pytest.raises(ValueError, match="no token was issued"):
        worker_manifests.kubeconfig_from_token_secret(SERVER, data, "hz")


def test_a_token_that_is_not_base64_is_an_error_that_does_not_repeat_it():
    with pytest.raises(ValueError, match=r"no base64 data\.token") as caught:
        worker_manifests.kubeconfig_from_token_secret(SERVER, {"token": "not base64!", "ca.crt": "Q0E="}, "hz")
    assert "not base64!" not in str(caught.value)


def test_a_worker_pulls_kueue_from_its_own_mirror_when_it_names_one():
    mirror = "registry.cn-hangzhou.aliyuncs.com/mine/kueue"
    worker = WorkerConfig.model_validate({"cluster": "hz", "imageRepository": mirror})
    kueue = worker_manifests.worker_kueue(KueueConfig(), worker)
    assert (kueue.image_repository, kueue.chart_repository) == (mirror, KueueConfig().chart_repository)
