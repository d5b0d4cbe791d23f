"""The MultiKueueWorker component: what it registers on the worker, in which order, and the kubeconfig it hands out.

The objects' content is tested in tests/components/manifests/test_multikueue_worker.py.

pulumi-kubernetes returns a service-account-token Secret only once the token controller filled ``data``;
:class:`TokenMocks` answers with a known token and CA there, whatever ``tools.mock_cloud.ProgramMocks`` answers, and
:class:`NoTokenMocks` without any, as a Secret the token controller never filled.
"""

from __future__ import annotations

import base64
import functools
import json

import pulumi
import pulumi_kubernetes as kubernetes
import pytest
import yaml
from pulumi_kubernetes.core import v1 as core

from components.config.kueue import KueueConfig
from components.config.multikueue import MultiKueueConfig
from components.config.queues import QueuesConfig
from components.manifests import kueue_gate, kueue_install
from components.manifests import multikueue_worker as worker_manifests
from components.manifests.queues import queue_manifests
from components.multikueue_worker import MultiKueueWorker
from tests.support.schemas import validate_core, validate_kueue
from tools import mock_runtime
from tools.mock_cloud import FAKE_KUBECONFIG, ProgramMocks
from tools.recording import UNKNOWN, Recording

WORKER = "elastic-capacity:multikueue:Worker"
SECRET = "kubernetes:core/v1:Secret"
SERVICE_ACCOUNT = "kubernetes:core/v1:ServiceAccount"
ROLE = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole"
BINDING = "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding"
KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/v1beta2:"
SERVER = "https://abc.cs.mock.invalid:6443"
TOKEN = "eyJhbGciOiJSUzI1NiJ9.mock-token"
CA_DATA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nmock\n-----END CERTIFICATE-----\n").decode()
BURST = {"workers": [{"cluster": "hz", "quota": {"cpu": "32", "memory": "128Gi"}}]}


class TokenMocks(ProgramMocks):
    """The program's mocks, plus what the token controller writes into a service-account-token Secret."""

    def new_resource(self, args):
        resource_id, outputs = super().new_resource(args)
        if args.typ == SECRET and args.inputs.get("type") == worker_manifests.TOKEN_SECRET_TYPE and resource_id:
            data = {"token": base64.b64encode(TOKEN.encode()).decode(), "ca.crt": CA_DATA, "namespace": "a3VldWU="}
            outputs = {**outputs, "data": data}
        return resource_id, outputs


class NoTokenMocks(ProgramMocks):
    """The program's mocks, with a token Secret's ``data`` left empty."""

    def new_resource(self, args):
        resource_id, outputs = super().new_resource(args)
        if args.typ == SECRET and args.inputs.get("type") == worker_manifests.TOKEN_SECRET_TYPE:
            outputs = {key: value for key, value in outputs.items() if key != "data"}
        return resource_id, outputs


def record(burst: dict | None = None, manager: dict | None = None, *, token_data=True, preview=False) -> Recording:
    """Register a worker provider, the component and a manager Secret made of its kubeconfig; cached per settings."""
    settings = json.dumps([burst or BURST, manager or {}], sort_keys=True)
    return _record(settings, token_data, preview)


@functools.cache
def _record(settings: str, token_data: bool, preview: bool) -> Recording:
    burst_dict, manager_dict = json.loads(settings)
    burst = MultiKueueConfig.model_validate(burst_dict)

    def program() -> None:
        provider = kubernetes.Provider("worker", kubeconfig=FAKE_KUBECONFIG)
        worker = MultiKueueWorker(
            "hz",
            burst,
            burst.workers[0],
            KueueConfig.model_validate(manager_dict),
            SERVER,
            opts=pulumi.ResourceOptions(provider=provider),
        )
        manager = kubernetes.Provider("manager", kubeconfig=FAKE_KUBECONFIG)
        core.Secret(
            "manager-kubeconfig",
            metadata={"name": "elastic-capacity-hz", "namespace": "kueue-system"},
            string_data={"kubeconfig": worker.kubeconfig},
            opts=pulumi.ResourceOptions(provider=manager, depends_on=worker.ready),
        )
        pulumi.export("kubeconfig", worker.kubeconfig)
        pulumi.export("ready", [resource.urn for resource in worker.ready])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mock_runtime, "ProgramMocks", TokenMocks if token_data else NoTokenMocks)
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
    assert {r.type for r in children} >= {SECRET, SERVICE_ACCOUNT, ROLE, BINDING, "kubernetes:helm.sh/v4:Chart"}
    worker = recording.one("pulumi:providers:kubernetes", "worker")
    for child in children:
        if child.custom:
            assert recording.provider_of(child).name == "worker", child.name
        else:
            assert child.providers.get("kubernetes", "").startswith(worker.urn), child.name


def test_kueue_is_the_workers_release_without_the_provisioning_request_check():
    recording, config = record(), worker_manifests.worker_kueue(KueueConfig())
    chart = recording.one("kubernetes:helm.sh/v4:Chart", "hz-kueue-chart")
    assert chart.inputs["values"] == kueue_install.chart_values(config)
    assert chart.inputs["version"] == KueueConfig().chart_version
    gate = recording.one("kubernetes:batch/v1:Job", "hz-kueue-ready")
    assert gate.inputs["spec"] == kueue_gate.gate_job(config, check_provisioning_request_crd=False)["spec"]


def test_the_queue_objects_are_the_builders_and_pass_their_schemas():
    recording = record()
    burst = MultiKueueConfig.model_validate(BURST)
    labels = worker_manifests.worker_kueue(KueueConfig()).managed_namespace_labels
    expected = queue_manifests(
        QueuesConfig.model_validate(worker_manifests.worker_queues(burst, burst.workers[0])), labels
    )
    registered = [
        {key: r.inputs[key] for key in ("apiVersion", "kind", "metadata", "spec") if key in r.inputs}
        for r in recording.registrations
        if r.type.startswith(KUEUE_TYPE) or r.name == "hz-queues-namespace-burst"
    ]
    assert sorted(registered, key=str) == sorted(expected, key=str)
    for obj in registered:
        validate_core(obj, "1.35") if obj["apiVersion"] == "v1" else validate_kueue(obj)


def test_the_burst_namespace_carries_the_workers_managed_namespace_labels():
    recording = record(manager={"managedJobsNamespaceSelector": {"matchLabels": {"team": "ml"}}})
    namespace = recording.named("hz-queues-namespace-burst")
    assert namespace.inputs["metadata"] == {"name": "burst", "labels": {"team": "ml"}}


def test_the_local_queue_has_the_managers_namespace_and_name():
    burst = {**BURST, "namespace": "ml-burst", "localQueue": "gpu-burst", "clusterQueue": "burst-cq"}
    local = record(burst).one(KUEUE_TYPE + "LocalQueue")
    assert (local.inputs["metadata"]["namespace"], local.inputs["metadata"]["name"]) == ("ml-burst", "gpu-burst")
    assert local.inputs["spec"]["clusterQueue"] == "burst-cq"


def test_every_kueue_object_waits_for_the_workers_readiness_gate():
    recording = record()
    gate = recording.one("kubernetes:batch/v1:Job", "hz-kueue-ready")
    objects = [r for r in recording.registrations if r.type.startswith(KUEUE_TYPE)]
    assert len(objects) == 3
    for r in objects:
        assert gate.urn in r.dependencies, r.name


def test_the_rbac_objects_are_the_builders():
    recording, burst = record(), MultiKueueConfig.model_validate(BURST)
    assert recording.one(SERVICE_ACCOUNT, "hz-manager").inputs == worker_manifests.service_account(
        burst, "kueue-system"
    )
    assert recording.one(ROLE, "hz-manager").inputs == worker_manifests.cluster_role(burst)
    assert recording.one(BINDING, "hz-manager").inputs == worker_manifests.cluster_role_binding(burst, "kueue-system")
    assert recording.one(SECRET, "hz-token").inputs == worker_manifests.token_secret(burst, "kueue-system")


def test_the_service_account_waits_for_kueues_namespace():
    recording = record()
    account, namespace = recording.one(SERVICE_ACCOUNT, "hz-manager"), recording.named("hz-kueue-namespace")
    assert namespace.urn in account.dependencies


def test_the_binding_waits_for_nothing_and_the_account_only_for_kueues_namespace():
    """A binding only names its role and account; the manager needs all three, through ``ready``."""
    recording = record()
    assert list(recording.one(BINDING, "hz-manager").dependencies) == []
    account = recording.one(SERVICE_ACCOUNT, "hz-manager")
    assert list(account.dependencies) == [recording.one("kubernetes:core/v1:Namespace", "hz-kueue-namespace").urn]


def test_the_token_secret_waits_for_its_service_account_and_is_replaced_create_first():
    recording = record()
    token = recording.one(SECRET, "hz-token")
    assert recording.one(SERVICE_ACCOUNT, "hz-manager").urn in token.dependencies
    assert not token.delete_before_replace, "the old token must outlive the manager's switch to the new one"


def test_a_new_token_rotation_renames_the_secret_under_the_same_pulumi_name():
    old = record().one(SECRET, "hz-token")
    new = record({**BURST, "tokenRotation": "2026-09"}).one(SECRET, "hz-token")
    assert old.inputs["metadata"]["name"] == "elastic-capacity-multikueue-token-1"
    assert new.inputs["metadata"]["name"] == "elastic-capacity-multikueue-token-2026-09"
    assert old.urn == new.urn, "same resource, new metadata.name: pulumi-kubernetes replaces it"


def test_the_kubeconfig_is_a_secret_built_from_the_token_and_the_endpoint():
    recording = record()
    assert "kubeconfig" in recording.secret_outputs
    config = yaml.safe_load(recording.outputs["kubeconfig"])
    assert config["clusters"] == [
        {"name": "elastic-capacity-hz", "cluster": {"server": SERVER, "certificate-authority-data": CA_DATA}}
    ]
    assert config["users"] == [{"name": "elastic-capacity-hz", "user": {"token": TOKEN}}]
    assert "exec" not in config["users"][0]["user"] and "tokenFile" not in config["users"][0]["user"]
    assert "insecure-skip-tls-verify" not in config["clusters"][0]["cluster"]


def test_what_uses_the_kubeconfig_waits_for_the_token_and_the_ready_list():
    recording = record()
    manager_secret = recording.named("manager-kubeconfig")
    assert manager_secret.is_secret("stringData")
    assert recording.one(SECRET, "hz-token").urn in manager_secret.property_dependencies["stringData"]
    component = recording.one(WORKER, "hz")
    queues = recording.one("elastic-capacity:kueue:KueueQueues", "hz-queues")
    assert queues.parent == component.urn
    assert recording.outputs["ready"] == [
        recording.one(ROLE, "hz-manager").urn,
        recording.one(BINDING, "hz-manager").urn,
        recording.one(SECRET, "hz-token").urn,
    ]
    for kind in ("LocalQueue", "ClusterQueue"):
        queue = recording.one(KUEUE_TYPE + kind)
        assert queue.parent == queues.urn
        assert not recording.depends_on(manager_secret, queue), "a copy waits in the worker's queue until it exists"


def test_preview_leaves_the_kubeconfig_unknown_and_secret():
    recording = record(preview=True)
    assert recording.outputs["kubeconfig"] == UNKNOWN
    assert "kubeconfig" in recording.secret_outputs


def test_a_token_secret_without_data_fails_the_run_rather_than_hand_out_a_broken_kubeconfig():
    with pytest.raises(Exception, match="no token was issued"):
        record(token_data=False)
