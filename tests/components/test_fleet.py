"""The composition root's wiring: every Kubernetes object on its own cluster's provider, every documented output with
its secrecy, every ordering edge a real ``pulumi up`` relies on, for every shipped stack and for the options a stack
may set."""

from __future__ import annotations

import functools
import json
import logging
import re
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel

from components.config.base import ConfigError, ConfigModel
from components.config.loader import load_stack_config
from components.config.queues.presets import AKS_WALKTHROUGH
from components.fleet import deploy
from components.waiters.queue_wait import QueuesActiveProvider
from tests.support import PROJECT_ROOT
from tests.support import ack as ack_data
from tests.support.config import KUBECONFIG_SECRET, ON_EXISTING_CLUSTER, WALKTHROUGH, WALKTHROUGH_OBJECTS, as_config
from tests.support.stacks import STACK_IDS, STACKS, environment_kind, recorded
from tools import mock_cloud, mock_runtime, render
from tools.recording import Recording, Registration

ACK_STACK = PROJECT_ROOT / "stacks/Pulumi.ack-acs-dev.yaml"

WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
CRD_WAIT = "pulumi-python:dynamic/kueue:CrdEstablished"
SMOKE_WAITER = "pulumi-python:dynamic/kueue:JobCompletion"
AGENT_POOL = "azure-native:containerservice:AgentPool"
CHART = "kubernetes:helm.sh/v4:Chart"
GATE = "kubernetes:batch/v1:Job"
WITHOUT_PROVISIONING = {
    **WALKTHROUGH_OBJECTS,
    "provisioningChecks": [],
    "clusterQueues": [
        {
            "name": "plain",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "scalepool", "resources": [{"name": "cpu", "nominalQuota": 8}]}],
                }
            ],
        }
    ],
    "localQueues": [{"name": "plain", "namespace": "cas-kueue-demo", "clusterQueue": "plain"}],
}


def run_sections(run_program, sections: dict[str, Any]) -> Recording:
    config = load_stack_config(as_config(sections))
    return run_program(lambda: deploy(config))


@pytest.fixture(scope="module")
def aks_stack() -> Recording:
    config = load_stack_config(
        as_config({"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH, "smokeJob": {"enabled": True}})
    )
    return mock_runtime.run(lambda: deploy(config), {})


def test_the_smoke_job_waits_for_the_pools_it_targets_and_for_active_queues(aks_stack):
    pool = aks_stack.one(AGENT_POOL)
    waiter = aks_stack.one(WAITER)
    for part in (aks_stack.one(GATE, "smoke-job-job"), aks_stack.one(SMOKE_WAITER)):
        assert aks_stack.depends_on(part, pool)
        assert aks_stack.depends_on(part, waiter)


def test_kueue_waits_neither_for_pools_nor_for_the_crd_without_provisioning_checks(run_program):
    recording = run_sections(run_program, {"aks": {"preset": "aks-walkthrough"}, "queues": WITHOUT_PROVISIONING})
    assert not recording.depends_on(recording.one(CHART), recording.one(AGENT_POOL))
    assert [job.name for job in recording.by_type(GATE)] == ["kueue-ready"]


def test_the_activation_waiter_runs_after_what_it_watches_and_knows_the_kueue_revision(aks_stack):
    waiter = aks_stack.one(WAITER)
    watched = [
        r for r in aks_stack.registrations if r.type.endswith(("/v1beta2:AdmissionCheck", "/v1beta2:ClusterQueue"))
    ]
    assert len(watched) == 2 and all(aks_stack.depends_on(waiter, obj) for obj in watched)
    gate = next(r for r in aks_stack.by_type(GATE) if r.name == "kueue-ready")
    assert waiter.inputs["kueueRevision"] == gate.inputs["metadata"]["name"]
    assert waiter.inputs["objects"] == [
        {"kind": "AdmissionCheck", "name": "cas-provisioning"},
        {"kind": "ClusterQueue", "name": "cas-cluster-queue"},
    ]
    assert (waiter.inputs["timeoutSeconds"], waiter.inputs["onInactive"]) == (600, "fail")
    assert "https://github.com/Azure/AKS/pull/5867" in waiter.inputs["hint"]
    assert waiter.is_secret("kubeconfig")


def test_the_activation_waiter_ships_its_provider_by_value(aks_stack):
    from pulumi.dynamic.dynamic import serialize_provider

    assert aks_stack.one(WAITER).inputs["__provider"] == serialize_provider(QueuesActiveProvider())


def test_a_stack_may_accept_inactive_checks_with_a_warning(run_program):
    queues = {"preset": AKS_WALKTHROUGH, "waitUntilActive": {"onInactive": "warn", "timeoutSeconds": 60}}
    recording = run_sections(run_program, {"aks": {"preset": "aks-walkthrough"}, "queues": queues})
    waiter = recording.one(WAITER)
    assert (waiter.inputs["onInactive"], waiter.inputs["timeoutSeconds"]) == ("warn", 60)
    assert recording.by_type(CRD_WAIT) == [], "a missing CRD must warn, not hold Kueue back until a deadline"


def test_kueue_without_queue_objects_has_no_activation_waiter(run_program):
    """Nothing to prove Active: a waiter over no objects would only cost a cluster read on every up."""
    recording = run_sections(run_program, {"aks": {"preset": "aks-walkthrough"}})
    assert recording.by_type(WAITER) == []
    assert recording.by_type("kubernetes:helm.sh/v4:Chart"), "Kueue itself is installed"


def test_a_cluster_given_by_kubeconfig_gets_the_generic_hint(run_program):
    config = load_stack_config(as_config({**ON_EXISTING_CLUSTER, **WALKTHROUGH}), secret_keys=KUBECONFIG_SECRET)
    recording = run_program(lambda: deploy(config))
    hint = recording.one(WAITER).inputs["hint"]
    assert "AKS" not in hint and "cluster autoscaler that serves ProvisioningRequests" in hint


# --- the ACK half -----------------------------------------------------------------------------------------------

ADDON_TYPE = "alicloud:cs/kubernetesAddon:KubernetesAddon"
POOL = {"name": "system", "instanceTypes": ["ecs.g7.large"], "minSize": 2, "maxSize": 2}


def cluster(name: str, **fields) -> dict:
    network = {"vswitchIds": [f"vsw-{name}node"], "podVswitchIds": [f"vsw-{name}pod"]}
    return {"name": name, "region": "cn-hangzhou", "kubernetesVersion": "1.35", "network": network, **fields}


CPU = {"name": "web", "cluster": "cpu", "image": "nginx:1.27"}
HPN = {"name": "train", "cluster": "hpn", "image": "trainer:1", "computeClass": "gpu-hpn", "cpu": 1, "memory": "1Gi"}


def run_ack(run_program, clusters: list[dict], workloads: list[dict]) -> Recording:
    config = load_stack_config(as_config({"ack": {"clusters": clusters, "workloads": workloads}}))
    return run_program(lambda: deploy(config))


def test_each_cluster_is_checked_against_its_own_workloads_and_named_by_its_index(run_program, monkeypatch):
    """v2.14.0 serves the CPU cluster (ACS needs v2.13.0); the GPU-HPN cluster, the second, needs v2.15.0."""
    monkeypatch.setitem(mock_cloud.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0")
    clusters = [cluster("cpu", nodePool=POOL), cluster("hpn", nodePool=POOL)]
    run_ack(run_program, clusters[:1], [CPU])
    with pytest.raises(ConfigError) as caught:
        run_ack(run_program, clusters, [CPU, HPN])
    assert caught.value.keys == ["elastic-capacity:ack.clusters[1].virtualNode.version"]
    assert "ack.workloads[1] (train, gpu-hpn)" in str(caught.value)


def test_config_warnings_are_logged_with_their_full_keys(run_program, caplog):
    gpu = {**HPN, "cluster": "cpu", "computeClass": "gpu", "gpu": 1, "gpuModelSeries": "L20"}
    with caplog.at_level(logging.WARNING):
        run_ack(run_program, [cluster("cpu")], [gpu])
    messages = [record.getMessage() for record in caplog.records]
    assert any(m.startswith("elastic-capacity:ack.workloads[0].gpuModelSeries: 'L20'") for m in messages)
    assert any(m.startswith("elastic-capacity:ack.clusters[0].nodePool: no ECS node pool") for m in messages)


@pytest.fixture(scope="module")
def dev_stack() -> Recording:
    stack, config, secret_keys = render.read_stack_file(ACK_STACK)
    return mock_runtime.run(lambda: deploy(load_stack_config(config, secret_keys)), config, secret_keys, stack=stack)


def test_the_dev_stack_asks_for_a_supported_minor_and_gets_the_newest_patch(dev_stack):
    clusters = dev_stack.by_type("alicloud:cs/managedKubernetes:ManagedKubernetes")
    assert {c.inputs["version"] for c in clusters} == {"1.35.2-aliyun.1"}
    _, config, _ = render.read_stack_file(ACK_STACK)
    assert '"kubernetesVersion": "1.35"' in config["elastic-capacity:ack"]


def test_the_dev_stack_pins_no_addon_version(dev_stack):
    """No kube-scheduler resource (ACK's default install is checked instead) and an unpinned virtual node."""
    addons = dev_stack.by_type(ADDON_TYPE)
    assert sorted(a.name for a in addons) == [f"ack-acs-{c}-ack-virtual-node" for c in ("beijing", "hangzhou", "hpn")]
    assert all("version" not in a.inputs for a in addons)


def test_the_dev_stack_gives_every_cluster_ecs_nodes_and_documented_gpu_models(dev_stack, caplog):
    pools = dev_stack.by_type("alicloud:cs/nodePool:NodePool")
    assert len(pools) == 3 and {p.inputs["desiredSize"] for p in pools} == {"2"}
    models = {
        d.inputs["spec"]["template"]["metadata"]["labels"].get("alibabacloud.com/gpu-model-series")
        for d in dev_stack.by_type("kubernetes:apps/v1:Deployment")
    }
    assert models == {None, "GN8IS"}
    _, config, secret_keys = render.read_stack_file(ACK_STACK)
    warned = [key for key, _ in load_stack_config(config, secret_keys).ack.warnings()]
    assert not [key for key in warned if key.endswith(("gpuModelSeries", "nodePool", "spotStrategy"))]


# --- every shipped stack -----------------------------------------------------------------------------------------


@functools.cache
def shipped_config(stack_file: str) -> dict[str, str]:
    """A shipped stack file's config as the engine hands it to the program, read once (collection and the provider
    check of every Kubernetes object ask for it): read it, never change it."""
    _, config, _ = render.read_stack_file(PROJECT_ROOT / "stacks" / stack_file)
    return config


def sections(stack_file: str) -> set[str]:
    """The top-level keys a shipped stack file sets (``aks``, ``existingCluster``, ``ack`` ...)."""
    return {key.removeprefix("elastic-capacity:") for key in shipped_config(stack_file)}


AKS_STACKS = [s.name for s in STACKS if "aks" in sections(s.name)]
ACK_STACKS = [s.name for s in STACKS if "ack" in sections(s.name)]
KUEUE = "kubernetes:kueue.x-k8s.io"


@pytest.fixture(params=STACK_IDS)
def shipped(request) -> tuple[str, Recording]:
    return request.param, recorded(PROJECT_ROOT / "stacks" / request.param)


def top_component(recording: Recording, registration: Registration) -> str:
    """The name of the fleet-level component a resource belongs to: its ancestor whose parent is the stack."""
    urns = {r.urn for r in recording.registrations}
    while registration.parent in urns:
        registration = recording.by_urn(registration.parent)
    return registration.name


def expected_provider(stack_file: str, component: str) -> str:
    """Which cluster's Kubernetes provider a fleet component must use, from its name."""
    config = shipped_config(stack_file)
    ack = json.loads(config.get("elastic-capacity:ack", "{}"))
    clusters = ack.get("clusters", []) + ack.get("existingClusters", [])
    owners = [c["name"] for c in clusters if component.startswith((f"acs-{c['name']}-", f"ack-{c['name']}-"))]
    if owners:
        return f"ack-{max(owners, key=len)}-k8s"
    return "existing-k8s" if "elastic-capacity:existingCluster" in config else "aks-k8s"


def test_every_kubernetes_object_uses_its_own_clusters_provider(shipped):
    stack_file, recording = shipped
    objects = recording.kubernetes_objects()
    assert objects
    for obj in objects:
        provider = recording.provider_of(obj)
        assert provider is not None and provider.type == "pulumi:providers:kubernetes", f"{obj.name}: default provider"
        assert provider.name == expected_provider(stack_file, top_component(recording, obj)), obj.name


ACCESS_WAITER = "pulumi-python:dynamic/azure:ClusterAccess"


def test_every_waiter_reading_an_entra_id_cluster_waits_for_its_access_waiter(shipped):
    """A waiter that read before the access waiter met the role assignments' propagation as 403s (Azure B1 of the
    157fa20 review): the first ``up`` of aks-kueue-dev failed every time."""
    _, recording = shipped
    for access in recording.by_type(ACCESS_WAITER):
        readers = [
            r
            for r in recording.registrations
            if r.type.startswith("pulumi-python:dynamic/")
            and r is not access
            and r.inputs.get("kubeconfig") == access.inputs["kubeconfig"]
        ]
        assert readers, access.urn
        assert [r.name for r in readers if not recording.depends_on(r, access)] == []


OUTPUTS_TABLE = re.compile(r"^\| `(?P<name>\w+)` \| (?P<half>AKS|ACK) \| (?P<secret>yes|no) \|", re.M)


def documented_outputs() -> dict[str, tuple[str, bool]]:
    """The README's stack-output table: output name -> (half, secret)."""
    readme = (PROJECT_ROOT / "README.md").read_text()
    found = {m["name"]: (m["half"], m["secret"] == "yes") for m in OUTPUTS_TABLE.finditer(readme)}
    assert found, "the README lists the stack outputs in a table: | `name` | AKS/ACK | yes/no | meaning |"
    return found


def expected_outputs(stack_file: str) -> dict[str, bool]:
    """The documented outputs of each half the stack deploys (both, for a multicloud stack), with their secrecy; on a
    cluster the stack does not create, the AKS half has no ``aks*`` outputs (they describe a new cluster)."""
    deployed = sections(stack_file)
    expected = {}
    for name, (half, secret) in documented_outputs().items():
        kueue = "aks" in deployed or ("existingCluster" in deployed and not name.startswith("aks"))
        if (half == "AKS" and kueue) or (half == "ACK" and "ack" in deployed):
            expected[name] = secret
    return expected


def test_every_documented_output_exists_with_its_secrecy(shipped):
    stack_file, recording = shipped
    expected = expected_outputs(stack_file)
    assert set(recording.outputs) == set(expected), "an output is missing or undocumented"
    assert {name for name, secret in expected.items() if secret} == recording.secret_outputs & set(expected)


@pytest.mark.parametrize("stack_file", AKS_STACKS)
def test_kueue_orders_chart_gate_queues_proof_and_smoke_job(stack_file):
    """Every stack with a new AKS cluster; a production stack has no smoke Job (it refuses one)."""
    recording = recorded(PROJECT_ROOT / "stacks" / stack_file)
    chart, pools = recording.one(CHART, "kueue-chart"), recording.by_type(AGENT_POOL)
    waiter = recording.one(WAITER, "queues-active")
    gate = next(r for r in recording.by_type(GATE) if r.name == "kueue-ready")
    assert recording.depends_on(gate, chart)
    assert pools and all(recording.depends_on(chart, pool) for pool in pools), (
        "Kueue must start after the autoscaling pools (ProvisioningRequest CRD)"
    )
    wait = recording.one(CRD_WAIT, "kueue-crd-wait")
    assert recording.depends_on(chart, wait), "and after the CRD it serves"
    assert all(recording.depends_on(wait, pool) for pool in pools)
    queue_objects = [r for r in recording.registrations if r.name.startswith("queues-") and r.type.startswith(KUEUE)]
    assert queue_objects and all(recording.depends_on(obj, gate) for obj in queue_objects)
    watched = [r for r in queue_objects if r.type.endswith((":AdmissionCheck", ":ClusterQueue"))]
    assert watched and all(recording.depends_on(waiter, obj) for obj in watched)
    smoke_job = [r for r in recording.by_type(GATE) if r.name == "smoke-job-job"]
    assert len(smoke_job) == (0 if environment_kind(PROJECT_ROOT / "stacks" / stack_file) == "production" else 1)
    local_queues = [r for r in queue_objects if r.type.endswith(":LocalQueue")]
    for part in (*smoke_job, *recording.by_type(SMOKE_WAITER)):
        assert recording.depends_on(part, waiter) and all(recording.depends_on(part, pool) for pool in pools)
        assert any(recording.depends_on(part, queue) for queue in local_queues), "submitted to its LocalQueue"
    access = recording.one("pulumi-python:dynamic/azure:ClusterAccess")
    assert recording.depends_on(recording.one("pulumi:providers:kubernetes", "aks-k8s"), access)


@pytest.mark.parametrize("stack_file", ACK_STACKS)
def test_acs_workloads_wait_for_their_namespace_and_their_clusters_addons(stack_file):
    recording = recorded(PROJECT_ROOT / "stacks" / stack_file)
    deployments = recording.by_type("kubernetes:apps/v1:Deployment")
    vnodes = [a for a in recording.by_type(ADDON_TYPE) if a.inputs["name"] == "ack-virtual-node"]
    _, config, _ = render.read_stack_file(PROJECT_ROOT / "stacks" / stack_file)
    assert deployments or not json.loads(config["elastic-capacity:ack"]).get("workloads"), "burst takes Jobs only"
    for deployment in deployments:
        cluster = expected_provider(stack_file, top_component(recording, deployment)).removesuffix("-k8s")
        waited = [v.name for v in vnodes if recording.depends_on(deployment, v)]
        created = any(r.name == f"{cluster}-cluster" for r in recording.by_type(ack_data.CLUSTER_TYPE))
        assert waited == ([f"{cluster}-ack-virtual-node"] if created else []), deployment.name
        namespace = deployment.inputs["metadata"]["namespace"]
        created = [
            n
            for n in recording.by_type("kubernetes:core/v1:Namespace")
            if n.inputs["metadata"]["name"] == namespace and n.provider == deployment.provider
        ]
        assert all(recording.depends_on(deployment, n) for n in created)


def test_ack_clusters_output_says_what_each_cluster_runs_and_where_it_answers():
    recording = recorded(PROJECT_ROOT / "stacks/Pulumi.ack-acs-dev.yaml")
    clusters = recording.outputs["ackClusters"]
    assert sorted(clusters) == ["acs-beijing", "acs-hangzhou", "acs-hpn"]
    for name, cluster in clusters.items():
        registered = next(
            r for r in recording.by_type("alicloud:cs/managedKubernetes:ManagedKubernetes") if r.inputs["name"] == name
        )
        assert cluster["clusterId"] == registered.id
        assert cluster["kubernetesVersion"] == registered.inputs["version"]
        assert cluster["apiServerEndpoint"].startswith("https://")


def test_a_workload_in_its_own_namespace_waits_for_it_on_its_clusters_provider(run_program):
    recording = run_sections(
        run_program,
        {
            "ack": ack_data.section(
                [ack_data.workload("web", namespace="team-a"), ack_data.workload("api", namespace="team-a")],
                clusters=[ack_data.cluster(nodePool=ack_data.POOL)],
            )
        },
    )
    [namespace] = recording.by_type(ack_data.NAMESPACE_TYPE)
    assert namespace.inputs["metadata"]["name"] == "team-a", "one namespace per cluster, however many workloads"
    assert recording.provider_of(namespace).name == "ack-demo-k8s"
    for deployment in recording.by_type(ack_data.DEPLOYMENT_TYPE):
        assert recording.depends_on(deployment, namespace), deployment.name


def test_without_provisioning_checks_the_smoke_job_still_waits_for_its_pool(run_program):
    """Kueue then starts without waiting for the pools, so the Job needs its own edge to the pool it targets."""
    recording = run_sections(
        run_program,
        {
            "aks": {"preset": "aks-walkthrough"},
            "queues": WITHOUT_PROVISIONING,
            "smokeJob": {"enabled": True, "localQueue": "plain"},
        },
    )
    pool = recording.one(AGENT_POOL)
    assert not recording.depends_on(recording.one(CHART), pool)
    for part in (recording.one(GATE, "smoke-job-job"), recording.one(SMOKE_WAITER)):
        assert recording.depends_on(part, pool)


def test_render_to_directory_hands_every_kubernetes_object_to_a_rendering_provider(run_program):
    """Acceptance: the chart included, every object's provider renders, no provider holds a kubeconfig, and nothing
    waits for a cluster only the GitOps controller reaches."""
    ack = ack_data.section([ack_data.workload()], clusters=[ack_data.cluster(nodePool=ack_data.POOL)])
    sections = {
        "aks": {"preset": "aks-walkthrough", "entraId": {}},
        **WALKTHROUGH,
        "smokeJob": {"enabled": True},
        "ack": ack,
    }
    recording = run_sections(run_program, {**sections, "gitops": {"renderToDirectory": "gitops"}})
    providers = recording.by_type("pulumi:providers:kubernetes")
    rendering = {"alwaysRender": "true"}
    assert {p.name: p.inputs for p in providers} == {
        "aks-kueue-k8s": {"renderYamlToDirectory": "gitops/aks/10-kueue", **rendering},
        "aks-queues-k8s": {"renderYamlToDirectory": "gitops/aks/20-queues", **rendering},
        "aks-workloads-k8s": {"renderYamlToDirectory": "gitops/aks/30-workloads", **rendering},
        "aks-flux-k8s": {"renderYamlToDirectory": "gitops/flux/aks", **rendering},
        "ack-demo-workloads-k8s": {"renderYamlToDirectory": "gitops/ack-demo/30-workloads", **rendering},
        "ack-demo-flux-k8s": {"renderYamlToDirectory": "gitops/flux/ack-demo", **rendering},
    }
    chart = recording.one(CHART)
    assert chart.providers["kubernetes"].split("::")[-2] == "aks-kueue-k8s"
    for obj in recording.kubernetes_objects():
        assert recording.provider_of(obj) in providers, obj.name
    dynamic = [r.name for r in recording.registrations if r.type.startswith("pulumi-python:dynamic")]
    assert sorted(dynamic) == ["ack-demo-version", "aks-version", "kueue-version"], (  # registered as invokes answer
        "no waiter; the version pins wait for nothing"
    )
    assert [job.name for job in recording.by_type(GATE)] == ["smoke-job-job"], "no readiness gate"
    assert not recording.by_type("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole")
    applied = run_sections(run_program, sections)
    assert len(applied.by_type("azure-native:containerservice:ManagedCluster")) == 1
    cloud = [
        {r.type for r in run.registrations if not r.type.startswith(("kubernetes:", "pulumi"))}
        for run in (recording, applied)
    ]
    assert cloud[1] - cloud[0] == {"azure-native:authorization:RoleAssignment"}, (
        "cloud resources stay managed by Pulumi; only the deployer's cluster-admin role, which only Pulumi's own "
        "Kubernetes calls needed, goes"
    )


@functools.cache
def freshly_imported() -> dict[str, Any]:
    """What a fresh interpreter holds right after ``import components.fleet``, as ``pulumi up`` starts the program:
    the cloud SDKs loaded, the config sections whose validators are built, and whether the stack config's is built
    after a first validation."""
    probe = (
        "import json, sys, components.fleet; from components.config.stack import StackConfig; "
        "from components.config.base import ConfigModel; "
        "sdks = sorted(m for m in sys.modules if m.split('.')[0] in {'pulumi_azure_native', 'pulumi_alicloud'}); "
        "sections, built = [ConfigModel], []\n"
        "while sections:\n"
        "    section = sections.pop(); sections += section.__subclasses__()\n"
        "    built += [section.__name__] if section.__pydantic_complete__ else []\n"
        "StackConfig.model_validate({}); "
        "print(json.dumps({'sdks': sdks, 'validator': [sorted(built), StackConfig.__pydantic_complete__]}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_program_loads_a_cloud_sdk_only_for_the_section_that_needs_it():
    """An AKS-only stack never pays for pulumi-alicloud, an ACK-only one never for pulumi-azure-native."""
    assert freshly_imported()["sdks"] == []


def test_the_program_builds_the_stack_configs_validator_on_first_use_not_at_import():
    """No section's validator is built at import (a model instance made there, a default or a module constant, builds
    its own): the run builds them all once, inside the stack config's."""
    assert freshly_imported()["validator"] == [[], True]


def test_no_config_field_defaults_to_a_model_instance_which_would_build_its_validator_at_import():
    """``x: M = M()`` builds ``M``'s validator when Python defines the class, a third of the program's start-up for
    a default most stacks never take; ``Field(default_factory=M)`` builds it only when a stack leaves ``x`` out."""
    models, checked = [ConfigModel], 0
    while models:
        model = models.pop()
        models += model.__subclasses__()
        for name, field in model.model_fields.items():
            assert not isinstance(field.default, BaseModel), f"{model.__name__}.{name}: use Field(default_factory=...)"
            checked += 1
    assert checked > 300
