"""The wording of deploy-time findings: each check names a field of its entry and a declared rule, fixes that name a
key name it under the entry, and a render refusal names the render key."""

from __future__ import annotations

import pytest

from components.config import rules_declared  # noqa: F401  (registers the deploy rules)
from components.config.aks.existing_cluster import ExistingClusterConfig
from components.config.base import ConfigError
from components.config.deploy import checks as deploy_checks
from components.config.deploy.checks import ACK_CHECKS, AckCheck, AckFinding, AckReport, secret_data_rendered
from components.config.rules import RULES

ENTRY = "elastic-capacity:ack.clusters[1]"
EXISTING_AKS = {"source": "aks", "resourceGroupName": "rg", "clusterName": "platform"}


def test_every_check_names_a_field_and_every_refusal_a_declared_deploy_rule():
    assert set(ACK_CHECKS) == set(AckCheck)
    refusing = {rule for _, rule in ACK_CHECKS.values() if rule is not None}
    assert refusing <= set(RULES) and all(rule.startswith("deploy.ack-") for rule in refusing)


def test_a_refusal_is_one_line_under_the_entrys_key_with_its_rule():
    error = AckReport(ENTRY).refusal(AckFinding(AckCheck.ENHANCED_NAT_ZONE, "'cn-a' offers no Enhanced NAT gateway"))
    assert isinstance(error, ConfigError) and error.keys == [f"{ENTRY}.network.zones[0].zoneId"]
    assert str(error) == (
        f"{ENTRY}.network.zones[0].zoneId: 'cn-a' offers no Enhanced NAT gateway [rule: deploy.ack-enhanced-nat-zone]"
    )


def test_a_scheduler_below_a_need_is_told_the_pin_under_its_entry():
    error = AckReport(ENTRY).refusal(AckFinding(AckCheck.SCHEDULER, "ACK runs kube-scheduler v1, but x needs v2"))
    assert error.keys == [f"{ENTRY}.scheduler"]
    assert f"or set {ENTRY}.scheduler.version to a newer build" in str(error)


def test_a_private_endpoint_names_the_worker_that_cannot_reach_it():
    report = AckReport("elastic-capacity:ack.existingClusters[0]", reached_by="multiKueue.workers[2]")
    error = report.refusal(AckFinding(AckCheck.PRIVATE_ENDPOINT, "https://10.0.0.1:6443"))
    assert error.keys == ["elastic-capacity:ack.existingClusters[0].clusterId"]
    assert "private API endpoint https://10.0.0.1:6443" in str(error) and "multiKueue.workers[2]" in str(error)


def test_a_warning_is_prefixed_by_its_key_and_an_entry_wide_one_by_the_entry():
    report = AckReport(ENTRY)
    assert report.warning(AckFinding(AckCheck.VSWITCHES_ADDED, "3 zones")) == f"{ENTRY}.network.vswitchIds: 3 zones"
    assert report.warning(AckFinding(AckCheck.EXISTING_VERSION_UNREAD, "cannot read")) == f"{ENTRY}: cannot read"


def test_a_rendered_secret_with_data_names_the_render_key_and_its_rule():
    error = secret_data_rendered("team/creds")
    assert error.keys == ["elastic-capacity:gitops.renderToDirectory"] and error.rules == [
        "deploy.render-no-secret-data"
    ]
    assert error.problems[0].message.startswith("Secret team/creds holds data, which a rendered directory would keep")


def test_an_existing_aks_cluster_below_the_provisioning_minimum_is_refused_naming_its_key():
    cluster = ExistingClusterConfig.model_validate(EXISTING_AKS)
    assert deploy_checks.require_provisioning_requests(cluster, "1.33.2") == "1.33.2"
    with pytest.raises(ConfigError) as refused:
        deploy_checks.require_provisioning_requests(cluster, "1.32.9")
    assert refused.value.keys == ["elastic-capacity:existingCluster.clusterName"]
    assert refused.value.rules == ["deploy.aks-provisioning-requests"]
    assert "AKS cluster rg/platform runs Kubernetes 1.32.9" in str(refused.value)


@pytest.mark.parametrize(
    ("location", "version", "rule"),
    [("westeurope", "1.35.1", "kueue-extension.region"), ("eastus", "1.33.4", "kueue-extension.kubernetes")],
)
def test_an_existing_cluster_the_extension_is_not_offered_on_is_refused_naming_its_key(location, version, rule):
    deploy_checks.require_extension_offered("East US", "1.34.0")
    with pytest.raises(ConfigError) as refused:
        deploy_checks.require_extension_offered(location, version)
    assert refused.value.keys == ["elastic-capacity:existingCluster.clusterName"] and refused.value.rules == [rule]
    assert str(refused.value).startswith("elastic-capacity:existingCluster.clusterName: the cluster's ")
