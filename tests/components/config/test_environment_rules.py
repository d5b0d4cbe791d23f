"""What ``environment.kind`` allows of the other sections, and what it makes of them: every rule names its key."""

from __future__ import annotations

from typing import Any

import pytest

from components.config.environment_rules import EPHEMERAL_CREDENTIAL_MINUTES
from components.config.stack import StackConfig, load_stack_config
from tests.support import ack as ack_data
from tests.support.config import KUBECONFIG_SECRET, ON_EXISTING_CLUSTER, as_config, stack_error_keys

STACK = "pr-7"
SUFFIX = "-c1cec5"
"""What ``environment.kind: ephemeral`` derives from the stack name ``pr-7``."""


def load(kind: str, **sections: Any) -> StackConfig:
    return load_stack_config(as_config({"environment": {"kind": kind}, **sections}), stack=STACK)


def errors(kind: str, **sections: Any) -> list[str]:
    return stack_error_keys({"environment": {"kind": kind, "nameSuffix": SUFFIX}, **sections})


LONG_NAMESPACE = {
    "namespaces": ["n" * 60],
    "localQueues": [{"name": "q", "namespace": "n" * 60, "clusterQueue": "cas-cluster-queue"}],
}


def ack(**cluster: Any) -> dict[str, Any]:
    return ack_data.section([], clusters=[ack_data.cluster(**cluster)])


def test_the_derived_suffix_is_the_one_these_tests_expect():
    assert load("ephemeral").environment.name_suffix == SUFFIX


# --- what a kind refuses ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "sections", "key"),
    [
        ("production", {"aks": {}, "smokeJob": {"enabled": True}}, "smokeJob.enabled"),
        ("production", {"aks": {"deleteUnreachable": True}}, "aks.deleteUnreachable"),
        ("production", {"ack": ack(deletionProtection=False)}, "ack.clusters[0].deletionProtection"),
        ("ephemeral", {"aks": {"deleteUnreachable": False}}, "aks.deleteUnreachable"),
        ("ephemeral", {"ack": ack(deletionProtection=True)}, "ack.clusters[0].deletionProtection"),
        ("ephemeral", {"aks": {"clusterName": "c" * 50}}, "aks.clusterName"),
        ("ephemeral", {"aks": {"dnsPrefix": "d" * 50}}, "aks.dnsPrefix"),
        ("ephemeral", {"aks": {"resourceGroup": {"name": "g" * 85}}}, "aks.resourceGroup.name"),
        ("ephemeral", {"aks": {}, "queues": LONG_NAMESPACE}, "queues.namespaces[0]"),
        ("ephemeral", {"ack": ack(name="a" * 60)}, "ack.clusters[0].name"),
    ],
)
def test_a_kind_refuses_what_it_cannot_keep_naming_the_key(kind, sections, key):
    assert errors(kind, **sections) == [f"elastic-capacity:{key}"]


def test_the_production_error_says_what_to_do_instead():
    with pytest.raises(Exception, match=r"production refuses the smoke Job.*prove admission on a dev or ephemeral"):
        load("production", aks={}, smokeJob={"enabled": True})


def test_the_same_settings_are_fine_on_a_dev_stack():
    config = load("dev", aks={"deleteUnreachable": True}, smokeJob={"enabled": True}, ack=ack(deletionProtection=False))
    assert config.aks is not None and config.aks.delete_unreachable


def test_a_name_that_fits_without_the_suffix_is_fine_outside_ephemeral_stacks():
    assert load("production", aks={"clusterName": "c" * 50}).aks.cluster_name == "c" * 50


# --- what a kind sets -----------------------------------------------------------------------------------------------


def test_an_ephemeral_stack_suffixes_its_physical_names_and_references():
    config = load("ephemeral", aks={"resourceGroup": {"name": "rg"}, "clusterName": "c"}, smokeJob={"enabled": True})
    assert config.aks is not None
    assert (config.aks.resource_group.name, config.aks.cluster_name) == (f"rg{SUFFIX}", f"c{SUFFIX}")
    assert config.aks.effective_dns_prefix == f"c{SUFFIX}"
    assert config.queues.namespaces == [f"cas-kueue-demo{SUFFIX}"]
    assert (config.smoke_job.namespace, config.smoke_job.local_queue) == (
        f"cas-kueue-demo{SUFFIX}",
        f"cas-local-queue{SUFFIX}",
    )
    assert config.smoke_job.name == "kueue-cas-job", "the Job is alone in its namespace"


def test_an_ephemeral_stack_drops_objects_of_a_vanished_cluster_and_can_delete_its_ack_clusters():
    config = load("ephemeral", aks={}, ack=ack())
    assert config.aks is not None and config.aks.delete_unreachable
    assert config.ack is not None and config.ack.clusters[0].deletion_protection is False
    assert config.ack.clusters[0].name == "demo", "ACK names get their suffix in the component"


def test_an_ephemeral_temporary_kubeconfig_lives_an_hour_unless_set():
    temporary = load("ephemeral", ack=ack(kubeconfigMode="temporary"))
    assert temporary.ack is not None and temporary.ack.clusters[0].credential_minutes == EPHEMERAL_CREDENTIAL_MINUTES
    explicit = load("ephemeral", ack=ack(kubeconfigMode="temporary", credentialMinutes=120))
    assert explicit.ack is not None and explicit.ack.clusters[0].credential_minutes == 120
    assert load("dev", ack=ack(kubeconfigMode="temporary")).ack.clusters[0].credential_minutes == 1440


def test_an_existing_resource_group_keeps_its_name():
    config = load("ephemeral", aks={"resourceGroup": {"name": "shared-rg", "create": False}})
    assert config.aks is not None and config.aks.resource_group.name == "shared-rg"


@pytest.mark.parametrize("kind", ["dev", "production"])
def test_other_kinds_keep_every_name_and_default(kind):
    sections = {"aks": {"resourceGroup": {"name": "rg"}, "clusterName": "c"}, "ack": ack()}
    config = load(kind, **sections)
    assert config.aks is not None and (config.aks.resource_group.name, config.aks.cluster_name) == ("rg", "c")
    assert config.aks.dns_prefix is None and not config.aks.delete_unreachable
    assert config.queues.namespaces == ["cas-kueue-demo"]
    assert config.ack is not None and config.ack.clusters[0].deletion_protection is True


BY_NAME = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]}
TEAM_A = {
    "namespaces": ["team-a"],
    "localQueues": [{"name": "q", "namespace": "team-a", "clusterQueue": "cas-cluster-queue"}],
}


def test_the_stacks_own_kueue_keeps_managing_its_renamed_namespaces():
    config = load("ephemeral", aks={}, kueue={"managedJobsNamespaceSelector": BY_NAME}, queues=TEAM_A)
    assert config.kueue.manages_namespace(f"team-a{SUFFIX}") and not config.kueue.manages_namespace("team-a")


def test_a_shared_kueue_that_would_not_manage_the_renamed_namespaces_is_refused():
    """The cluster's own Kueue is not the stack's to reconfigure: its selector is what it is."""
    shared = {**ON_EXISTING_CLUSTER, "kueue": {"install": False, "managedJobsNamespaceSelector": BY_NAME}}
    sections = {"environment": {"kind": "ephemeral", "nameSuffix": SUFFIX}, **shared, "queues": TEAM_A}
    assert stack_error_keys(sections, KUBECONFIG_SECRET) == ["elastic-capacity:queues.localQueues[0].namespace"]
