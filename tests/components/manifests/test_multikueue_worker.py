"""What a worker holds for the manager, as plain dicts: the least-privilege identity, the token anchor, the ACS
placement of burst pods, and the kubeconfig MultiKueue accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from components import yaml_text
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, WORKLOADS
from components.config.multikueue.multikueue import AcsPlacement, MultiKueueConfig
from components.manifests import multikueue_worker as worker_manifests
from tests.support.schemas import validate_core

ACK_VERSION = "1.35"
"""The minor the mocked ACK clusters run (``ACK_OFFERED_VERSIONS`` in tools/mock_cloud.py)."""
SERVER = "https://abc.cs.mock.invalid:6443"
BURST = MultiKueueConfig.model_validate({"workers": [{"cluster": "hz"}]})
RENAMED = MultiKueueConfig.model_validate(
    {"origin": "team-a", "tokenRotation": "2026-09", "workers": [{"cluster": "bj"}]}
)
JOBS = [MULTIKUEUE_ADAPTERS["batch/job"]]
RESOURCE_POLICY_SCHEMA = json.loads((Path(__file__).parents[2] / "support/resourcepolicy.schema.json").read_text())
WRITES = {"create", "delete", "patch", "update"}
SELECTOR = {"kueue.x-k8s.io/multikueue-worker-workload-pod": "true"}


def refusals(kubeconfig: str) -> list[str]:
    """What Kueue 0.17.8's ``validateKubeconfig`` refuses (multikueuecluster.go), checked on the YAML itself."""
    config = yaml_text.load(kubeconfig)
    found = []
    for user in config["users"]:
        found += [key for key in ("exec", "tokenFile", "auth-provider", "username", "password") if key in user["user"]]
    for cluster in config["clusters"]:
        found += [key for key in ("insecure-skip-tls-verify", "certificate-authority") if key in cluster["cluster"]]
        if not cluster["cluster"].get("server"):
            found.append("no server")
    return found


@pytest.mark.parametrize("burst", [BURST, RENAMED], ids=["default", "renamed"])
def test_the_manager_identity_is_named_after_the_origin_and_lives_in_kueues_namespace(burst):
    name = f"{burst.origin}-multikueue"
    account = worker_manifests.service_account(burst, "kueue-system")
    assert account == {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": name, "namespace": "kueue-system"},
        "automountServiceAccountToken": False,
    }
    binding = worker_manifests.cluster_role_binding(burst, "kueue-system")
    assert binding["metadata"] == {"name": name}
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": name, "namespace": "kueue-system"}]
    role_binding = worker_manifests.role_binding(burst, "burst", "kueue-system")
    assert role_binding["metadata"] == {"name": name, "namespace": "burst"}
    assert role_binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name}
    assert role_binding["subjects"] == binding["subjects"]
    for obj in (
        account,
        binding,
        role_binding,
        worker_manifests.cluster_role(burst, JOBS),
        worker_manifests.role(burst, "burst", JOBS),
        worker_manifests.token_anchor(burst, "kueue-system"),
    ):
        validate_core(obj, ACK_VERSION)


def test_cluster_wide_the_identity_may_only_list_and_watch_what_multikueue_watches():
    """MultiKueue's watches span every namespace; nothing else needs the cluster scope."""
    role = worker_manifests.cluster_role(BURST, JOBS)
    assert role["rules"] == [
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"], "verbs": ["list", "watch"]},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["list", "watch"]},
    ]
    assert not any(WRITES & set(rule["verbs"]) or "get" in rule["verbs"] for rule in role["rules"])


def test_every_write_is_namespaced_to_one_burst_namespace():
    role = worker_manifests.role(BURST, "burst", JOBS)
    assert role["metadata"] == {"name": "elastic-capacity-multikueue", "namespace": "burst"}
    assert role["rules"] == [
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create", "delete", "get", "patch", "update"]},
        {"apiGroups": ["batch"], "resources": ["jobs/status"], "verbs": ["get"]},
        {
            "apiGroups": ["kueue.x-k8s.io"],
            "resources": ["workloads"],
            "verbs": ["create", "delete", "get", "patch", "update"],
        },
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
    ]


def test_no_rule_grants_secrets_pods_or_anything_beyond_the_dispatched_kinds():
    granted = {
        resource
        for rule in [
            *worker_manifests.cluster_role(BURST, JOBS)["rules"],
            *worker_manifests.role(BURST, "b", JOBS)["rules"],
        ]
        for resource in rule["resources"]
    }
    assert granted == {"jobs", "jobs/status", "workloads", "workloads/status"}
    assert all("*" not in rule["verbs"] for rule in worker_manifests.role(BURST, "b", JOBS)["rules"])


def test_the_identity_gets_each_dispatched_kind_the_manager_enables():
    kinds = [MULTIKUEUE_ADAPTERS["batch/job"], MULTIKUEUE_ADAPTERS["jobset.x-k8s.io/jobset"]]
    watched = {(r["apiGroups"][0], r["resources"][0]) for r in worker_manifests.cluster_role(BURST, kinds)["rules"]}
    assert watched == {("batch", "jobs"), ("jobset.x-k8s.io", "jobsets"), (WORKLOADS.api_group, WORKLOADS.resource)}


def test_the_token_is_bound_to_an_empty_anchor_named_after_the_rotation():
    anchor = worker_manifests.token_anchor(BURST, "kueue-system")
    assert anchor == {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "Opaque",
        "metadata": {"name": "elastic-capacity-multikueue-anchor-1", "namespace": "kueue-system"},
    }
    rotated = worker_manifests.token_anchor(BURST.model_copy(update={"token_rotation": "2"}), "kueue-system")
    assert rotated["metadata"]["name"].endswith("-anchor-2")
    assert worker_manifests.service_account(BURST, "x") == worker_manifests.service_account(
        BURST.model_copy(update={"token_rotation": "2"}), "x"
    )


@pytest.mark.parametrize(
    "placement", [AcsPlacement(), AcsPlacement(compute_class="performance", compute_qos="best-effort")]
)
def test_every_pod_of_a_burst_namespace_goes_to_acs_with_the_workers_class_and_qos(placement):
    policy = worker_manifests.acs_resource_policy(BURST, "burst", placement, SELECTOR)
    jsonschema.validate(policy, RESOURCE_POLICY_SCHEMA)
    assert policy["metadata"] == {"name": "elastic-capacity-multikueue-acs", "namespace": "burst"}
    assert policy["spec"] == {
        "selector": SELECTOR,
        "units": [
            {
                "resource": "acs",
                "podLabels": {
                    "alibabacloud.com/compute-class": placement.compute_class,
                    "alibabacloud.com/compute-qos": placement.compute_qos,
                },
            }
        ],
    }


def test_the_token_kubeconfig_is_inline_token_and_ca_data_only():
    kubeconfig = worker_manifests.token_kubeconfig(SERVER, "Q0EgZGF0YQ==", "the-token", "elastic-capacity-hz")
    assert yaml_text.load(kubeconfig) == {
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


def test_the_managers_kubeconfig_reaches_the_worker_as_the_program_does():
    """The server and CA of the program's own (exec plugin) kubeconfig, and the token instead of the plugin."""
    program = yaml_text.dump(
        {
            "clusters": [{"name": "hz", "cluster": {"server": SERVER, "certificate-authority-data": "Q0E="}}],
            "contexts": [{"name": "hz", "context": {"cluster": "hz", "user": "hz"}}],
            "current-context": "hz",
            "users": [{"name": "hz", "user": {"exec": {"command": "ack-ram-tool"}}}],
        },
        sort_keys=True,
    )
    assert worker_manifests.cluster_endpoint(program) == (SERVER, "Q0E=")
    config = yaml_text.load(worker_manifests.manager_kubeconfig(program, "the-token", "elastic-capacity-hz"))
    assert config["clusters"][0]["cluster"] == {"server": SERVER, "certificate-authority-data": "Q0E="}
    assert config["users"][0]["user"] == {"token": "the-token"}
    assert refusals(yaml_text.dump(config, sort_keys=True)) == []


@pytest.mark.parametrize("server", ["http://abc.cs.mock.invalid:6443", "abc.cs.mock.invalid:6443", "https://", ""])
def test_the_kubeconfig_refuses_a_server_that_is_no_https_endpoint(server):
    with pytest.raises(ValueError, match="https://<host>"):
        worker_manifests.token_kubeconfig(server, "Q0E=", "the-token", "hz")


@pytest.mark.parametrize(
    ("ca_data", "token", "name"), [("", "tok-3c1f9", "hz"), ("Q0E=", "", "hz"), ("Q0E=", "tok-3c1f9", "")]
)
def test_the_kubeconfig_needs_a_ca_a_token_and_a_name_and_never_quotes_the_token(ca_data, token, name):
    with pytest.raises(ValueError, match="needs a CA, a token and a name") as caught:
        worker_manifests.token_kubeconfig(SERVER, ca_data, token, name)
    assert "tok-3c1f9" not in str(caught.value)


def test_a_resource_policy_with_an_empty_selector_is_never_built():
    """ACK documents no meaning for an empty selector: the builder refuses one rather than rely on it."""
    with pytest.raises(ValueError, match="selector must name a label"):
        worker_manifests.acs_resource_policy(BURST, "burst", AcsPlacement(), {})
