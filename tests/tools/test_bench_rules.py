"""The documented ordering requirements: each holds for the pair it names and not for a near miss."""

from __future__ import annotations

import re
from typing import Any

from tests.support import PROJECT_ROOT
from tests.support.bench import OTHER, res, rule_for
from tools import bench_rules


def test_an_object_waits_for_the_namespace_it_is_in_on_its_own_cluster_only():
    namespace = res("kubernetes:core/v1:Namespace", "ns", metadata={"name": "team"})
    queue = res("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "lq", metadata={"name": "q", "namespace": "team"})
    assert rule_for(queue, namespace) == "namespace"
    elsewhere = res("kubernetes:core/v1:Namespace", "ns2", metadata={"name": "team"}, provider=OTHER)
    assert rule_for(queue, elsewhere) is None


def kueue_install() -> tuple[dict[str, Any], ...]:
    kueue = res("elastic-capacity:kueue:Kueue", "kueue", provider=None)
    kueue["custom"] = False
    chart = res("kubernetes:helm.sh/v4:Chart", "chart", parent=kueue["urn"], namespace="kueue-system")
    chart["custom"] = False
    gate = res(
        "kubernetes:batch/v1:Job", "gate", parent=kueue["urn"], metadata={"name": "g", "namespace": "kueue-system"}
    )
    return kueue, chart, gate


def test_kueue_objects_and_queued_jobs_wait_for_the_readiness_gate_and_the_gate_for_the_chart():
    kueue, chart, gate = kueue_install()
    flavor = res("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "rf", metadata={"name": "rf"})
    labels = {"kueue.x-k8s.io/queue-name": "lq"}
    job = res("kubernetes:batch/v1:Job", "job", metadata={"name": "j", "namespace": "team", "labels": labels})
    assert rule_for(flavor, gate, kueue, chart) == "kueue-gate"
    assert rule_for(job, gate, kueue, chart) == "kueue-gate"
    assert rule_for(gate, chart, kueue) == "gate-after-chart"
    unlabelled = res("kubernetes:batch/v1:Job", "plain", metadata={"name": "p", "namespace": "team"})
    assert rule_for(unlabelled, gate, kueue, chart) is None
    config = res("kubernetes:kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig", "prc", metadata={"name": "prc"})
    check = res("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck", "ac", metadata={"name": "ac"})
    assert rule_for(check, config) is None, "a Kueue object does not wait for the objects it names"


def crd_wait(kueue: dict[str, Any]) -> dict[str, Any]:
    return res(bench_rules.CRD_WAIT, "wait", parent=kueue["urn"], provider=None)


def test_the_chart_waits_for_its_crd_wait_and_both_for_autoscaling_pools_only_when_a_check_provisions():
    kueue, chart, gate = kueue_install()
    wait = crd_wait(kueue)
    pool = res("azure-native:containerservice:AgentPool", "pool", provider=None, enableAutoScaling=True)
    spec = {"controllerName": "kueue.x-k8s.io/provisioning-request"}
    check = res("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck", "ac", metadata={"name": "ac"}, spec=spec)
    for starts_kueue in (chart, wait):
        assert rule_for(starts_kueue, pool, kueue, check) == "provisioning-crd"
    assert rule_for(chart, pool, kueue) is None
    assert rule_for(wait, pool, kueue) == "provisioning-crd", "the wait exists only for a provisioning check"
    fixed = res("azure-native:containerservice:AgentPool", "fixed", provider=None, enableAutoScaling=False)
    for starts_kueue in (chart, wait):
        assert rule_for(starts_kueue, fixed, kueue, check) is None
    assert rule_for(chart, wait, kueue) == "provisioning-crd", "the chart waits for its CRD wait"
    assert rule_for(wait, chart, kueue) is None, "the wait runs before the chart, not after it"
    flavor = res("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "rf", metadata={"name": "rf"})
    assert rule_for(flavor, wait, kueue) is None, "Kueue objects wait for the gate, not for the CRD wait"
    assert rule_for(chart, gate, kueue) is None, "the CRD wait is no readiness gate"


def test_a_binding_needs_neither_its_role_nor_its_account_but_the_pod_that_uses_them_does():
    account = res("kubernetes:core/v1:ServiceAccount", "sa", metadata={"name": "probe", "namespace": "kueue-system"})
    role = res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "role", metadata={"name": "probe"})
    subjects = [{"kind": "ServiceAccount", "name": "probe", "namespace": "kueue-system"}]
    binding = res(
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "b", metadata={"name": "b"}, subjects=subjects
    )
    config_map = res("kubernetes:core/v1:ConfigMap", "cm", metadata={"name": "probe", "namespace": "kueue-system"})
    pod = {"serviceAccountName": "probe", "volumes": [{"name": "v", "configMap": {"name": "probe"}}]}
    job = res(
        "kubernetes:batch/v1:Job",
        "job",
        metadata={"name": "j", "namespace": "kueue-system"},
        spec={"template": {"spec": pod}},
    )
    assert rule_for(binding, role) is None
    assert rule_for(binding, account) is None
    assert rule_for(job, account) == "service-account"
    assert rule_for(job, config_map) == "config-map"
    assert rule_for(job, binding) == "rbac"
    # and for the role its account's binding names, not for another one
    bound = res("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "r", metadata={"name": "probe-role"})
    binding["inputs"]["roleRef"] = {"kind": "ClusterRole", "name": "probe-role"}
    assert rule_for(job, bound, binding) == "rbac"
    assert rule_for(job, role, binding) is None


def test_the_activation_waiter_waits_for_the_objects_it_watches_only():
    check = res(
        "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck", "ac", kind="AdmissionCheck", metadata={"name": "ac"}
    )
    local = res("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "lq", kind="LocalQueue", metadata={"name": "lq"})
    waiter = res(
        "pulumi-python:dynamic/kueue:QueuesActive",
        "active",
        provider=None,
        objects=[{"kind": "AdmissionCheck", "name": "ac"}],
    )
    assert rule_for(waiter, check) == "waiter"
    assert rule_for(waiter, local) is None


def test_a_multikueue_cluster_waits_for_what_its_worker_hands_over_and_nothing_else_there():
    worker = "urn:pulumi:dev::elastic-capacity::elastic-capacity:multikueue:Worker::w"
    kueue = res("elastic-capacity:kueue:Kueue", "w-kueue", parent=worker, provider=None)
    gate = res("kubernetes:batch/v1:Job", "w-kueue-ready", parent=kueue["urn"], provider=OTHER)
    policy = res("kubernetes:scheduling.alibabacloud.com/v1alpha1:ResourcePolicy", "p", parent=worker, provider=OTHER)
    token = res("pulumi-python:dynamic/multikueue:WorkerToken", "w-token", parent=worker, provider=None)
    account = res("kubernetes:core/v1:ServiceAccount", "w-manager", parent=worker, provider=OTHER)
    elsewhere = res("kubernetes:batch/v1:Job", "other", provider=OTHER)
    cluster = res("kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster", "c", metadata={"name": "c"})
    for dependency in (gate, policy, token):
        assert rule_for(cluster, dependency, worker_component(worker), kueue) == "multikueue-worker"
    assert rule_for(cluster, account, worker_component(worker), kueue) is None, "the token waits for it"
    assert rule_for(cluster, elsewhere) is None


def test_a_worker_token_waits_for_its_account_and_a_cluster_for_the_secret_it_names():
    worker = "urn:pulumi:dev::elastic-capacity::elastic-capacity:multikueue:Worker::w"
    meta = {"name": "mk", "namespace": "kueue-system"}
    token = res("pulumi-python:dynamic/multikueue:WorkerToken", "t", parent=worker, provider=None,
                serviceAccount="mk", namespace="kueue-system")  # fmt: skip
    account = res("kubernetes:core/v1:ServiceAccount", "a", parent=worker, provider=OTHER, metadata=meta)
    other = res("kubernetes:core/v1:ServiceAccount", "b", parent=worker, provider=OTHER, metadata={**meta, "name": "x"})
    assert rule_for(token, account) == "token-request" and rule_for(token, other) is None
    source = {"clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "w1-secret"}}}
    cluster = res("kubernetes:kueue.x-k8s.io/v1beta2:MultiKueueCluster", "c", metadata={"name": "w1"}, spec=source)
    secret = res("kubernetes:core/v1:Secret", "s", metadata={"name": "w1-secret", "namespace": "kueue-system"})
    wrong = res("kubernetes:core/v1:Secret", "s2", metadata={"name": "w2-secret", "namespace": "kueue-system"})
    assert rule_for(cluster, secret) == "multikueue-secret" and rule_for(cluster, wrong) is None


def worker_component(urn: str) -> dict:
    return {**res("elastic-capacity:multikueue:Worker", "w", provider=None), "urn": urn, "custom": False}


def test_every_requirement_is_named_once_and_cites_a_source_that_exists():
    names = [r.name for r in bench_rules.REQUIREMENTS]
    assert len(names) == len(set(names))
    for requirement in bench_rules.REQUIREMENTS:
        assert requirement.what and requirement.reason
        assert re.search(r"https://|docs/", requirement.source), requirement.name
        for path in re.findall(r"(docs/[\w./-]+\.md)", requirement.source):
            assert (PROJECT_ROOT / path).is_file(), path


def test_what_installs_kueue_and_its_crd_wait_wait_for_their_own_version_pin_only():
    kueue, chart, gate = kueue_install()
    pin = res(bench_rules.KUEUE_VERSION_PIN, "pin", parent=kueue["urn"], provider=None)
    extension = res(bench_rules.KUEUE_EXTENSION, "ext", parent=kueue["urn"], provider=None)
    for installs in (chart, crd_wait(kueue), extension):
        assert rule_for(installs, pin, kueue) == "version-pin"
    assert rule_for(gate, pin, kueue) is None, "the gate follows the chart, not the pin"
    other = res("elastic-capacity:kueue:Kueue", "worker-kueue", provider=None)
    other["custom"] = False
    foreign_pin = res(bench_rules.KUEUE_VERSION_PIN, "other-pin", parent=other["urn"], provider=None)
    assert rule_for(chart, foreign_pin, kueue, other) is None, "another Kueue's pin"
