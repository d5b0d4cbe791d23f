"""How the composition root hands the ``queues`` and ``kueue`` sections to Kueue, the queue objects and their
waiter."""

from __future__ import annotations

from components.fleet import deploy
from tests.support.config import load_on_existing_cluster
from tests.support.queues import EVERY_KIND, EVERY_KIND_MANAGER

WAITER = "pulumi-python:dynamic/kueue:QueuesActive"
OPT_IN = {"matchLabels": {"kueue-managed": "true"}}


def test_opt_in_labels_reach_the_namespaces_and_every_check_reaches_the_waiter(run_program):
    kueue = {**EVERY_KIND_MANAGER, "managedJobsNamespaceSelector": OPT_IN}
    config = load_on_existing_cluster(kueue=kueue, queues=EVERY_KIND)
    recording = run_program(lambda: deploy(config), {"kubeconfig": "k"}, ["elastic-capacity:kubeconfig"])
    namespaces = {
        r.inputs["metadata"]["name"]: r.inputs["metadata"] for r in recording.by_type("kubernetes:core/v1:Namespace")
    }
    assert namespaces["team-a"]["labels"] == {"kueue-managed": "true"}
    assert "labels" not in namespaces["kueue-system"], "Kueue's own namespace must stay unmanaged"
    checks = [o["name"] for o in recording.one(WAITER).inputs["objects"] if o["kind"] == "AdmissionCheck"]
    assert checks == ["cpu-provisioning", "gpu-provisioning", "capacity", "approval"]


def test_an_existing_namespace_is_not_second_guessed_by_an_opt_in_selector():
    """Only its name is known: whether it carries the opt-in label is the cluster's to say."""
    kueue = {**EVERY_KIND_MANAGER, "managedJobsNamespaceSelector": OPT_IN}
    config = load_on_existing_cluster(kueue=kueue, queues=EVERY_KIND)
    assert {q.namespace for q in config.queues.local_queues} == {"team-a", "team-b", "default"}


def test_kueue_on_a_cluster_given_by_kubeconfig_is_scheduled_on_any_node(run_program):
    """Neither the chart's manager nor the readiness gate's Jobs ask for AKS's system-pool label there."""
    config = load_on_existing_cluster()
    recording = run_program(lambda: deploy(config), {"kubeconfig": "k"}, ["elastic-capacity:kubeconfig"])
    assert recording.one("kubernetes:helm.sh/v4:Chart").inputs["values"]["controllerManager"]["nodeSelector"] == {}
    jobs = [r for r in recording.kubernetes_objects() if r.inputs["kind"] == "Job"]
    assert {r.name for r in jobs} == {"kueue-ready"}
    assert all("nodeSelector" not in job.inputs["spec"]["template"]["spec"] for job in jobs)
