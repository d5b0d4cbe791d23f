"""The readiness gate's builders: the webhook probe's Job, ServiceAccount, RBAC and ConfigMap, valid as written, and
runnable on the official kubectl image, which has no shell."""

from __future__ import annotations

from components import yaml_text
from components.config.kueue.kueue import KueueConfig
from components.manifests import kueue_gate, kueue_install
from tests.support.schemas import validate_core, validate_kueue

DEFAULT = KueueConfig()
IMAGE = "registry.k8s.io/kubectl:v1.36.4"
"""The probe image the gate is handed: the kubectl of its cluster's minor."""


def gate_job(config: KueueConfig = DEFAULT) -> dict:
    return kueue_gate.gate_job(config, IMAGE)


def container(job: dict, name: str) -> dict:
    [found] = [c for c in job["spec"]["template"]["spec"]["containers"] if c["name"] == name]
    return found


# --- the readiness gate -------------------------------------------------------------------------------------------


def test_gate_pods_run_anywhere_when_kueue_has_no_node_selector():
    assert "nodeSelector" not in gate_job(config=KueueConfig(node_selector={}))["spec"]["template"]["spec"]


def test_gate_job_probes_the_webhooks_from_the_nodes_kueue_runs_on():
    job = gate_job()
    assert job["metadata"]["namespace"] == "kueue-system"
    assert (job["spec"]["backoffLimit"], job["spec"]["activeDeadlineSeconds"]) == (6, 600)
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    manager = kueue_install.chart_values(DEFAULT)["controllerManager"]
    assert (pod["tolerations"], pod["nodeSelector"]) == (manager["tolerations"], manager["nodeSelector"])
    probe = container(job, "webhook-probe")
    assert probe["image"] == IMAGE
    assert probe["command"][:3] == ["kubectl", "create", "--dry-run=server"]
    validate_core(gate_job(), "1.33")


def test_the_probe_reads_the_config_map_as_the_service_account_it_is_bound_to():
    job, config_map = gate_job(), kueue_gate.gate_config_map(DEFAULT)
    pod = job["spec"]["template"]["spec"]
    command = container(job, "webhook-probe")["command"]
    probe_file = command[command.index("-f") + 1]
    [mount] = [m for m in container(job, "webhook-probe")["volumeMounts"] if probe_file.startswith(m["mountPath"])]
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["configMap"]["name"] == config_map["metadata"]["name"]
    assert probe_file.rsplit("/", 1)[1] in config_map["data"]
    assert pod["serviceAccountName"] == kueue_gate.gate_service_account(DEFAULT)["metadata"]["name"]


def test_probe_manifests_are_a_valid_resource_flavor_and_cluster_queue():
    config_map = kueue_gate.gate_config_map(DEFAULT)
    probes = yaml_text.load_all(next(iter(config_map["data"].values())))
    assert [p["kind"] for p in probes] == ["ResourceFlavor", "ClusterQueue"]
    for probe in probes:
        assert probe["apiVersion"] == "kueue.x-k8s.io/v1beta2"
        assert "name" not in probe["metadata"], "generateName: a dry run never collides with a real object"
        validate_kueue(probe)
    validate_core(config_map, "1.33")


def test_gate_rbac_allows_only_what_the_probe_does():
    role = kueue_gate.gate_cluster_role(DEFAULT)
    verbs = {
        (group, resource, verb)
        for r in role["rules"]
        for group in r["apiGroups"]
        for resource in r["resources"]
        for verb in r["verbs"]
    }
    assert verbs == {("kueue.x-k8s.io", "resourceflavors", "create"), ("kueue.x-k8s.io", "clusterqueues", "create")}
    binding, account = kueue_gate.gate_cluster_role_binding(DEFAULT), kueue_gate.gate_service_account(DEFAULT)
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", **{k: account["metadata"][k] for k in ("name", "namespace")}}
    ]
    for obj in (account, role, binding):
        validate_core(obj, "1.33")


def test_a_failed_gate_is_replaced_on_the_next_up_instead_of_failing_it_for_good():
    """pulumi-kubernetes re-awaits an unready Job on the next update unless it carries replaceUnready."""
    assert gate_job()["metadata"]["annotations"] == {"pulumi.com/replaceUnready": "true"}
    assert gate_job()["metadata"] == kueue_gate.job_metadata(DEFAULT)


def test_the_gate_runs_kubectl_itself_as_the_official_image_has_no_shell():
    """registry.k8s.io/kubectl is distroless (kubernetes#120219 reverted the bash of #119592): no shell, no script."""
    pod = gate_job()["spec"]["template"]["spec"]
    assert [c["command"][0] for c in pod["containers"]] == ["kubectl"]
    assert "initContainers" not in pod
    assert "podFailurePolicy" not in gate_job()["spec"], "every failed probe is retried"


def test_the_gate_container_runs_non_root_on_a_read_only_root_filesystem():
    pod = gate_job()["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["securityContext"]["runAsUser"] != 0
    [c] = pod["containers"]
    assert c["securityContext"]["readOnlyRootFilesystem"]
    assert not c["securityContext"]["allowPrivilegeEscalation"]
    assert {"name": "tmp", "mountPath": "/tmp"} in c["volumeMounts"], "kubectl's cache dir must be writable"
    assert f"--cache-dir={kueue_gate.KUBECTL_CACHE}" in c["command"]
    assert c["terminationMessagePolicy"] == "FallbackToLogsOnError"


def test_gate_job_name_carries_the_chart_version_and_changes_with_the_install():
    name = kueue_gate.gate_job_name
    default = name(DEFAULT)
    assert "0-19-2" in default
    assert default == gate_job()["metadata"]["name"]
    assert name(KueueConfig()) == default, "stable while nothing changes"
    assert name(KueueConfig(chart_version="0.17.1")) != default
    assert name(KueueConfig(replicas=2)) != default
    assert len(name(KueueConfig(release_name="kueue-" + "x" * 57))) <= 63
