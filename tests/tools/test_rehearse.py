"""The rehearsal: every shipped stack's ``up``, previews and ``destroy`` succeed in a world with a clock and
identities, at every propagation delay AKS documents, and each defect the 157fa20 reviews found fails it again when
brought back."""

from __future__ import annotations

import dataclasses

import pulumi
import pytest

from components.azure import aks
from components.waiters import dynamic_by_value, kube_wait
from tests.support.rehearsals import LONGEST_PROPAGATION, cached_plan, rehearsed
from tests.support.stacks import AKS_STACK, CHINA_STACK, SHARED_STACK, STACKS
from tools import rehearse
from tools.world import identities
from tools.world.world import World


@pytest.mark.parametrize("stack_file", STACKS, ids=lambda path: path.stem.removeprefix("Pulumi."))
def test_every_shipped_stack_deploys_previews_unchanged_refreshes_and_destroys(stack_file):
    """At the longest propagation AKS documents, with the API throttling now and then (seed 0)."""
    rehearsal, _ = rehearsed(stack_file)
    assert rehearsal.ok, rehearsal.report()
    operations = [outcome.operation for outcome in rehearsal.outcomes]
    assert operations[0] == "up" and operations[-1] == "destroy" and "preview" in operations


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("stack_file", STACKS, ids=lambda path: path.stem.removeprefix("Pulumi."))
def test_every_shipped_stack_rehearses_at_other_delays(stack_file, seed):
    """The seeds draw every delay anew: each role assignment's propagation within 0-5 minutes, the webhooks'
    10-30 s, each scale-up's 3-8 minutes, the create times and which reads are throttled."""
    rehearsal = rehearse.rehearse(stack_file, seed=seed, plan=cached_plan)
    assert rehearsal.ok, rehearsal.report()


@pytest.mark.slow
@pytest.mark.parametrize("stack_file", STACKS, ids=lambda path: path.stem.removeprefix("Pulumi."))
def test_every_shipped_stack_rehearses_when_every_grant_arrives_at_once(stack_file):
    rehearsal = rehearse.rehearse(stack_file, role_propagation=(0.0, 0.0), plan=cached_plan)
    assert rehearsal.ok, rehearsal.report()


def as_at_157fa20(monkeypatch: pytest.MonkeyPatch) -> None:
    """The waiters wired as at 157fa20: none waits for the access waiter, and a 403 ends a wait at once."""
    monkeypatch.setattr(dynamic_by_value, "reading", lambda reader, opts: opts or pulumi.ResourceOptions())
    for module in ("crd_wait", "queue_wait", "job_wait", "worker_token"):
        monkeypatch.setattr(f"components.waiters.{module}.reading", dynamic_by_value.reading)
    monkeypatch.setattr(kube_wait, "not_yet", lambda error, waited: getattr(error, "status", None) in (429, 503))


def test_at_157fa20_the_first_up_of_aks_kueue_dev_fails_at_a_crd_waiter_with_the_deployers_403(monkeypatch, capsys):
    """Azure B1 of the 157fa20 review: the CRD waiter of the metrics add-on reads the cluster as soon as it has
    credentials, while the deployer's cluster-admin assignment is still on its way."""
    as_at_157fa20(monkeypatch)
    assert rehearse.main([str(AKS_STACK)]) == 1
    report = capsys.readouterr().out
    assert "FAILED monitoring-crd-wait (MetricsAddonCrd)" in report
    assert "first failure: monitoring-crd-wait (MetricsAddonCrd) at 08:57, run by deployer:" in report
    assert '403 Forbidden: customresourcedefinitions is forbidden: User "deployer" cannot get' in report
    assert (
        "deployer asked kubernetes for get apiextensions.k8s.io/customresourcedefinitions on kueue-cas; it lacked "
        "Microsoft.ContainerService/managedClusters/apiextensions.k8s.io/customresourcedefinitions/read"
    ) in report
    assert report.rstrip().endswith("aks-kueue-dev: FAILED")


def test_a_deployer_assignment_that_follows_the_runner_shows_a_change_in_every_preview(monkeypatch):
    """Azure W2 and delivery B1: the preview identity's object id would become the cluster admin's."""
    monkeypatch.setattr(aks, "FIRST_DEPLOYER", [])
    preview = rehearse.rehearse(AKS_STACK).outcomes[1]
    assert (preview.operation, preview.identity, preview.changes) == (
        "preview",
        "preview",
        ["update aks-deployer-cluster-admin"],
    )


def test_a_preview_identity_with_reader_alone_cannot_list_the_clusters_credentials(monkeypatch):
    """Azure B2: the docs of 157fa20 gave the preview identity Reader, which lacks listClusterUserCredential."""
    reader = dataclasses.replace(identities.IDENTITIES["preview"], azure=(("Reader", "subscription"),))
    monkeypatch.setitem(identities.IDENTITIES, "preview", reader)
    preview = rehearse.rehearse(AKS_STACK, plan=cached_plan).outcomes[1]
    assert preview.failed is not None and preview.refusal is not None
    assert preview.refusal.action == "Microsoft.ContainerService/managedClusters/listClusterUserCredential/action"


def test_the_shared_template_needs_its_grants_on_the_shared_clusters(monkeypatch):
    """Delivery W2: without them the sandbox identity may fetch the shared clusters' credentials (Contributor covers
    that in one subscription) but not write its objects there."""
    bare = dataclasses.replace(identities.IDENTITIES["shared-ephemeral"], azure=identities.DEPLOYER_AZURE, ack=())
    monkeypatch.setitem(identities.IDENTITIES, "shared-ephemeral", bare)
    up = rehearse.rehearse(SHARED_STACK, plan=cached_plan).outcomes[0]
    assert up.failed is not None and up.refusal is not None
    assert (up.refusal.who, up.refusal.cloud, up.refusal.action) == (
        "shared-ephemeral",
        "kubernetes",
        "create core/namespaces",
    )


def test_a_china_job_whose_cached_token_expires_mid_run_fails_naming_the_expiry(monkeypatch):
    """Azure R7 at 157fa20: CI's kubelogin read az's cached token in Azure China (azurecli), and nothing renewed it."""
    monkeypatch.setattr(rehearse, "kubelogin_login", lambda azure: "azurecli")
    monkeypatch.setattr(rehearse, "CACHED_AZ_TOKEN_SECONDS", 600.0)
    up = rehearse.rehearse(CHINA_STACK, plan=cached_plan).outcomes[0]
    assert up.failed is not None and "expired at 10:00" in str(up.failed.error)


def test_ci_signs_in_to_azure_china_with_a_login_that_renews_so_no_china_job_runs_out_of_credential():
    assert rehearse.kubelogin_login("china") == "spn" and rehearse.kubelogin_login("global") == "workloadidentity"
    world = World(0)
    rehearse._sign_in(world, "deployer", {"azure": "china"})
    assert world.credential_expires is None


def test_a_stack_whose_waiters_give_up_at_the_first_throttled_read_fails_the_rehearsal(monkeypatch):
    """The API answers 429 and 503 now and then; a wait must read again (kube_wait.TRANSIENT_STATUSES)."""
    monkeypatch.setattr(kube_wait, "not_yet", lambda error, waited: False)
    world = World(0, role_propagation=LONGEST_PROPAGATION, transient_rate=0.5)
    up = rehearse.rehearse(AKS_STACK, world=world, plan=cached_plan).outcomes[0]
    assert up.failed is not None and "unable to handle the request" in str(up.failed.error)


def test_the_timeline_shows_each_step_when_it_ran_and_the_cluster_before_what_reads_it():
    rehearsal, _ = rehearsed(AKS_STACK)
    up = rehearsal.outcomes[0]
    started = {step.label: step.started for step in up.steps}
    finished = {step.label: step.finished for step in up.steps}
    assert finished["aks-cluster (ManagedCluster)"] <= started["aks-deployer-access (ClusterAccess)"]
    assert finished["aks-deployer-access (ClusterAccess)"] <= started["monitoring-crd-wait (MetricsAddonCrd)"]
    assert finished["aks-deployer-access (ClusterAccess)"] >= finished["aks-deployer-cluster-admin (RoleAssignment)"]
    assert rehearsal.report().splitlines()[0] == "up as deployer:"


def test_a_stack_file_that_cannot_be_read_is_one_line_and_exit_code_2(tmp_path, capsys):
    broken = tmp_path / "Pulumi.broken.yaml"
    broken.write_text("config: [\n")
    assert rehearse.main([str(broken)]) == 2
    assert capsys.readouterr().err.startswith(f"{broken}:")


def test_a_first_deployer_assignment_sent_as_the_sdks_default_user_is_refused_for_an_application(monkeypatch):
    """azure-native sends principalType User when none is given; ARM refuses that for CI's service principal."""
    monkeypatch.setattr(aks, "principal_type_of", lambda token: "User")
    up = rehearse.rehearse(AKS_STACK).outcomes[0]
    assert up.failed is not None and up.failed.label == "aks-deployer-cluster-admin (RoleAssignment)"
    assert "UnmatchedPrincipalType: The PrincipalId '00000000-0000-0000-0000-0000000000bb' has type" in str(
        up.failed.error
    )
