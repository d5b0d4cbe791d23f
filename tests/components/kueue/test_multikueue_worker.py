"""The MultiKueueWorker component: what it registers on a worker, in which order, and the kubeconfig it hands out.

The objects' content is tested in tests/components/manifests/test_multikueue_worker.py and what each worker gets in
tests/components/config/multikueue/test_workers.py. The token comes from the mocked TokenRequest API
(``service_account_token`` in tools/mock_cloud.py).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pulumi
import pulumi_kubernetes as kubernetes
from pulumi_kubernetes.core import v1 as core

from components import yaml_text
from components.config.deploy.checks import TOKEN_CAPPED_ADVICE
from components.config.kueue.kubectl_image import kubectl_tag
from components.config.loader import load_stack_config
from components.config.multikueue.workers import WorkerPlan, worker_plans
from components.config.stack import StackConfig
from components.kueue.multikueue_worker import MultiKueueWorker
from components.manifests import kueue_gate, kueue_install
from components.manifests import multikueue_worker as worker_manifests
from components.manifests.queues import queue_manifests
from tests.support import ack as ack_data
from tests.support.config import as_config
from tests.support.multikueue import MIRROR
from tests.support.schemas import validate_core, validate_kueue
from tests.support.targets import live_target
from tools import mock_cloud, mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG
from tools.recording import UNKNOWN, Recording

WORKER = "elastic-capacity:multikueue:Worker"
SECRET = "kubernetes:core/v1:Secret"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
CLUSTER_ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
CLUSTER_BINDING = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:Role"
ROLE_BINDING = "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding"
TOKEN = "pulumi-python:dynamic/multikueue:WorkerToken"
KUEUE_VERSION = "pulumi-python:dynamic/kueue:KueueVersion"
POLICY = "kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy"
KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:"
SERVER = "https://abc.cs.mock.invalid:6443"
CA_DATA = "bW9jay1jYQ=="
CLUSTER_KUBECONFIG = yaml_text.dump(
    {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "hz", "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA}}],
        "contexts": [{"name": "hz", "context": {"cluster": "hz", "user": "hz"}}],
        "current-context": "hz",
        "users": [{"name": "hz", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                   "command": "ack-ram-tool"}}}],
    },
    sort_keys=True,
)  # fmt: skip
"""The program's own kubeconfig of the worker: an exec plugin, the public endpoint, the cluster CA."""
WORKER_CONFIG = {"cluster": "hz", "quota": {"cpu": "32", "memory": "128Gi"}, **MIRROR}


def load(burst: dict[str, Any] | None = None, existing: bool = False, **sections: Any) -> StackConfig:
    """A burst stack with one worker: an ACK cluster of the stack, or an existing one."""
    ack = (
        {"clusters": [], "existingClusters": [ack_data.existing_cluster("hz")]}
        if existing
        else {"clusters": [ack_data.cluster("hz", nodePool=ack_data.POOL)]}
    )
    worker = {key: value for key, value in WORKER_CONFIG.items() if not existing or key not in MIRROR}
    return load_stack_config(
        as_config(
            {"aks": {"preset": "aks-walkthrough"}, "ack": ack, "multiKueue": burst or {"workers": [worker]}, **sections}
        )
    )


def plan(burst: dict[str, Any] | None = None, existing: bool = False, **sections: Any) -> WorkerPlan:
    """The plan of the one worker of :func:`load`."""
    [found] = worker_plans(load(burst, existing, **sections))
    return found


def record(burst: dict | None = None, *, existing: bool = False, preview: bool = False, **sections: Any) -> Recording:
    """Register a worker provider, the component and a manager Secret made of its kubeconfig; cached per settings."""
    return _record(json.dumps([burst, existing, sections], sort_keys=True), preview)


@functools.cache
def _record(settings: str, preview: bool) -> Recording:
    burst_dict, existing, sections = json.loads(settings)
    config = load(burst_dict, existing, **sections)
    [worker_plan] = worker_plans(config)
    burst = config.multi_kueue
    assert burst is not None

    def program() -> None:
        provider = kubernetes.Provider("worker", kubeconfig=FAKE_KUBECONFIG)
        addons = core.ConfigMap("addons", metadata={"name": "addons"}, opts=pulumi.ResourceOptions(provider=provider))
        nodes = core.ConfigMap("nodes", metadata={"name": "nodes"}, opts=pulumi.ResourceOptions(provider=provider))
        worker = MultiKueueWorker(
            "hz",
            burst,
            worker_plan,
            live_target(provider, CLUSTER_KUBECONFIG),
            kueue_waits_for=[nodes],
            placement_waits_for=pulumi.Output.from_input([addons]),
        )
        manager = kubernetes.Provider("manager", kubeconfig=FAKE_KUBECONFIG)
        core.Secret(
            "manager-kubeconfig",
            metadata={"name": "elastic-capacity-hz", "namespace": "kueue-system"},
            string_data={"kubeconfig": worker.kubeconfig},
            opts=pulumi.ResourceOptions(provider=manager, depends_on=worker.ready),
        )
        pulumi.export("kubeconfig", worker.kubeconfig)
        pulumi.export("expires", worker.token_expires_at)
        pulumi.export("ready", [resource.urn for resource in worker.ready])

    return mock_runtime.run(program, {}, preview=preview)


def worker_children(recording: Recording):
    """Everything registered under the component, however deep."""
    component = recording.one(WORKER, "hz")
    under, found = {component.urn}, []
    for registration in recording.registrations:
        if registration.parent in under:
            under.add(registration.urn)
            found.append(registration)
    return found


def test_every_child_is_on_the_workers_cluster():
    recording = record()
    children = worker_children(recording)
    assert {r.type for r in children} >= {SECRET, SERVICE_ACCOUNT, CLUSTER_ROLE, ROLE, TOKEN, POLICY}
    worker = recording.one("pulumi:providers:kubernetes", "worker")
    for child in children:
        if child.type == KUEUE_VERSION:
            continue  # state only: it reaches no cluster
        if child.type == TOKEN:
            continue  # a dynamic resource reaches the worker through its kubeconfig input
        if child.custom:
            assert recording.provider_of(child).name == "worker", child.name
        else:
            assert child.providers.get("kubernetes", "").startswith(worker.urn), child.name


def test_kueue_is_the_plans_release_from_the_workers_mirrors_without_the_provisioning_request_check():
    recording, worker = record(), plan()
    kueue = worker.kueue
    assert kueue is not None and worker.probe_image == f"{MIRROR['probeImage']}:{kubectl_tag((1, 35))}", (
        "its ACK cluster's 1.35"
    )
    chart = recording.one("kubernetes:helm.sh/v4:Chart", "hz-kueue-chart")
    assert chart.inputs["values"] == kueue_install.chart_values(kueue)
    assert chart.inputs["values"]["controllerManager"]["manager"]["image"]["repository"] == MIRROR["imageRepository"]
    gate = recording.one("kubernetes:batch/v1:Job", "hz-kueue-ready")
    assert gate.inputs["spec"] == kueue_gate.gate_job(kueue, worker.probe_image)["spec"]
    assert {c["image"] for c in gate.inputs["spec"]["template"]["spec"]["containers"]} == {worker.probe_image}
    assert recording.depends_on(chart, recording.named("nodes")), "Kueue's controller runs on the ECS nodes"
    assert recording.by_type("kubernetes:batch/v1:Job") == [gate]
    assert not recording.by_type("pulumi-python:dynamic/kueue:CrdEstablished"), (
        "no CRD wait: a worker has no autoscaler"
    )


def test_the_queue_objects_are_the_plans_and_pass_their_schemas():
    recording, worker_plan = record(), plan()
    assert worker_plan.queues is not None
    expected = queue_manifests(worker_plan.queues, worker_plan.namespace_labels)
    registered = [
        {key: r.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in r.inputs}
        for r in recording.registrations
        if r.type.startswith(KUEUE_TYPE) or r.name == "hz-queues-namespace-burst"
    ]
    assert sorted(registered, key=str) == sorted(expected, key=str)
    for obj in registered:
        validate_core(obj, "1.35") if obj["apiVersion"] == "v1" else validate_kueue(obj)


def test_the_burst_namespace_carries_the_workers_managed_namespace_labels():
    recording = record(kueue={"managedJobsNamespaceSelector": {"matchLabels": {"team": "ml"}}})
    assert record().named("hz-queues-namespace-burst").inputs["metadata"]["labels"] == {"managed-by-kueue": "true"}
    assert recording.named("hz-queues-namespace-burst").inputs["metadata"] == {
        "name": "burst",
        "labels": {"team": "ml"},
    }


def test_every_kueue_object_waits_for_the_workers_readiness_gate():
    recording = record()
    gate = recording.one("kubernetes:batch/v1:Job", "hz-kueue-ready")
    objects = [r for r in recording.registrations if r.type.startswith(KUEUE_TYPE)]
    assert len(objects) == 3
    for r in objects:
        assert gate.urn in r.dependencies, r.name


def test_the_identity_objects_are_the_builders():
    recording, burst = record(), load().multi_kueue
    assert burst is not None
    jobs = plan().watched
    assert recording.one(SERVICE_ACCOUNT, "hz-manager").inputs == worker_manifests.service_account(
        burst, "kueue-system"
    )
    assert recording.one(CLUSTER_ROLE, "hz-manager").inputs == worker_manifests.cluster_role(burst, jobs)
    assert recording.one(CLUSTER_BINDING, "hz-manager").inputs == worker_manifests.cluster_role_binding(
        burst, "kueue-system"
    )
    assert recording.one(ROLE, "hz-manager-burst").inputs == worker_manifests.role(burst, "burst", jobs)
    assert recording.one(ROLE_BINDING, "hz-manager-burst").inputs == worker_manifests.role_binding(
        burst, "burst", "kueue-system"
    )
    assert recording.one(SECRET, "hz-token-anchor").inputs == worker_manifests.token_anchor(burst, "kueue-system")


def test_with_quota_automation_on_the_manager_the_worker_identity_may_list_and_watch_the_queues():
    """MultiKueueManagerQuotaAutomation makes the manager list and watch ClusterQueues and LocalQueues on every
    worker (``newClientWithWatch`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/multikueue/multikueuecluster.go):
    the worker's ClusterRole grants that only while the gate is on."""
    queues = {"clusterqueues", "localqueues"}

    def queue_rules(recording: Recording) -> list[dict[str, Any]]:
        rules = recording.one(CLUSTER_ROLE, "hz-manager").inputs["rules"]
        return [rule for rule in rules if queues & set(rule["resources"])]

    gated = record(kueue={"featureGates": {"MultiKueueManagerQuotaAutomation": True}})
    assert queue_rules(gated) == [
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["clusterqueues"], "verbs": ["list", "watch"]},
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["localqueues"], "verbs": ["list", "watch"]},
    ]
    assert queue_rules(record()) == []
    assert queue_rules(record(kueue={"featureGates": {"MultiKueueManagerQuotaAutomation": False}})) == []


def test_namespaced_objects_wait_for_their_namespace_and_bindings_for_nothing():
    recording = record()
    kueue_namespace = recording.one("kubernetes:core/v1:Namespace", "hz-kueue-namespace")
    burst_namespace = recording.named("hz-queues-namespace-burst")
    for registration in (recording.one(SERVICE_ACCOUNT, "hz-manager"), recording.one(SECRET, "hz-token-anchor")):
        assert list(registration.dependencies) == [kueue_namespace.urn], registration.name
    for registration in (recording.one(ROLE, "hz-manager-burst"), recording.one(ROLE_BINDING, "hz-manager-burst")):
        assert list(registration.dependencies) == [burst_namespace.urn], registration.name
    assert list(recording.one(CLUSTER_BINDING, "hz-manager").dependencies) == []
    assert list(recording.one(CLUSTER_ROLE, "hz-manager").dependencies) == []


def test_the_token_is_requested_for_the_account_bound_to_the_anchor_and_kept_secret():
    recording = record({"workers": [WORKER_CONFIG], "tokenLifetimeDays": 30})
    token, anchor = recording.one(TOKEN, "hz-token"), recording.one(SECRET, "hz-token-anchor")
    assert {key: token.inputs[key] for key in ("namespace", "serviceAccount", "expirationSeconds", "cappedAdvice")} == {
        "namespace": "kueue-system",
        "serviceAccount": "elastic-capacity-multikueue",
        "expirationSeconds": 30 * 86_400,
        "cappedAdvice": TOKEN_CAPPED_ADVICE,
    }
    assert token.inputs["anchor"]["name"] == anchor.inputs["metadata"]["name"]
    assert anchor.urn in token.property_dependencies["anchor"], "bound to this anchor's uid"
    assert recording.depends_on(token, recording.one(SERVICE_ACCOUNT, "hz-manager"))
    assert token.is_secret("kubeconfig") and token.additional_secret_outputs == ("token",)
    assert not token.delete_before_replace, "a renewed token is issued before the old one is dropped"


def test_a_new_rotation_is_a_new_anchor_under_the_same_pulumi_name_replaced_create_first():
    old = record().one(SECRET, "hz-token-anchor")
    new = record({"workers": [WORKER_CONFIG], "tokenRotation": "2026-09"}).one(SECRET, "hz-token-anchor")
    assert old.inputs["metadata"]["name"] == "elastic-capacity-multikueue-anchor-1"
    assert new.inputs["metadata"]["name"] == "elastic-capacity-multikueue-anchor-2026-09"
    assert old.urn == new.urn and not new.delete_before_replace, "pulumi-kubernetes replaces it, new one first"


def test_the_kubeconfig_is_a_secret_of_the_token_at_the_programs_endpoint_and_ca():
    recording = record()
    assert "kubeconfig" in recording.secret_outputs
    config = yaml_text.load(recording.outputs["kubeconfig"])
    assert config["clusters"] == [
        {"name": "elastic-capacity-hz", "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA}}
    ]
    token = recording.one(TOKEN, "hz-token")
    issued = mock_cloud.service_account_token(token.inputs)["token"]
    assert config["users"] == [{"name": "elastic-capacity-hz", "user": {"token": issued}}]
    assert recording.outputs["expires"] == mock_cloud.service_account_token(token.inputs)["expiresAt"]


def test_the_manager_waits_for_kueue_serving_the_queues_the_placement_the_bindings_and_the_token():
    recording = record()
    expected = [
        recording.one("kubernetes:batch/v1:Job", "hz-kueue-ready"),
        recording.one("elastic-capacity:kueue:KueueQueues", "hz-queues"),
        recording.one(POLICY),
        recording.one(CLUSTER_ROLE, "hz-manager"),
        recording.one(CLUSTER_BINDING, "hz-manager"),
        recording.one(ROLE, "hz-manager-burst"),
        recording.one(ROLE_BINDING, "hz-manager-burst"),
        recording.one(TOKEN, "hz-token"),
    ]
    assert recording.outputs["ready"] == [r.urn for r in expected]
    manager_secret = recording.named("manager-kubeconfig")
    assert manager_secret.is_secret("stringData")
    assert recording.one(TOKEN, "hz-token").urn in manager_secret.property_dependencies["stringData"]


def test_burst_pods_go_to_acs_by_a_policy_made_after_the_addons_and_the_namespace():
    recording = record()
    policy = recording.one(POLICY)
    assert policy.inputs["metadata"] == {"name": "elastic-capacity-multikueue-acs", "namespace": "burst"}
    assert recording.depends_on(policy, recording.named("addons")), "the ACK scheduler and virtual node first"
    assert recording.depends_on(policy, recording.named("hz-queues-namespace-burst"))


def test_preview_leaves_the_kubeconfig_unknown_and_secret():
    recording = record(preview=True)
    assert recording.outputs["kubeconfig"] == UNKNOWN
    assert "kubeconfig" in recording.secret_outputs


def test_on_a_cluster_with_its_own_kueue_nothing_installs_kueue_or_waits_for_a_gate():
    recording = record(existing=True)
    assert recording.by_type("kubernetes:helm.sh/v4:Chart") == [] and recording.by_type("kubernetes:batch/v1:Job") == []
    assert all(not r.dependencies for r in recording.registrations if r.type.startswith(KUEUE_TYPE) and
               r.inputs["kind"] != "LocalQueue")  # fmt: skip
    assert list(recording.one(SERVICE_ACCOUNT, "hz-manager").dependencies) == []
    assert recording.outputs["ready"][0] == recording.one("elastic-capacity:kueue:KueueQueues", "hz-queues").urn
