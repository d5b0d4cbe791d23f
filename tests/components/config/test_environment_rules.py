"""What ``environment.kind`` allows of the other sections, and what it makes of them: every rule names its key."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from components.config import environment_rules
from components.config.aks.aks import AksConfig
from components.config.aks.entra_id import EntraIdConfig
from components.config.base import ConfigError
from components.config.environment_rules import (
    EPHEMERAL_CREDENTIAL_MINUTES,
    PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS,
    aks_production_warnings,
)
from components.config.loader import load_stack_config
from components.config.stack import StackConfig
from tests.support import ack as ack_data
from tests.support.config import (
    KUBECONFIG_SECRET,
    ON_EXISTING_CLUSTER,
    WALKTHROUGH,
    WALKTHROUGH_OBJECTS,
    as_config,
    stack_error_keys,
)
from tests.support.multikueue import MIRROR
from tests.support.stacks import MULTICLOUD_STACK
from tools import render

STACK = "pr-7"
SUFFIX = "-c1cec5"
"""What ``environment.kind: ephemeral`` derives from the stack name ``pr-7``."""


def load(kind: str, **sections: Any) -> StackConfig:
    """The stack; an ``aks`` section that writes no pools gets the walkthrough's (``aks.preset``)."""
    if "aks" in sections and "userPools" not in sections["aks"]:
        sections["aks"] = {"preset": "aks-walkthrough", **sections["aks"]}
    return load_stack_config(as_config({"environment": {"kind": kind}, **sections}), stack=STACK)


def errors(kind: str, **sections: Any) -> list[str]:
    return stack_error_keys({"environment": {"kind": kind, "nameSuffix": SUFFIX}, **sections})


LONG_NAMESPACE = {
    **WALKTHROUGH_OBJECTS,
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
        ("production", {"aks": {"preset": "aks-walkthrough"}, "smokeJob": {"enabled": True}}, "smokeJob.enabled"),
        ("production", {"aks": {"preset": "aks-walkthrough", "deleteUnreachable": True}}, "aks.deleteUnreachable"),
        ("production", {"ack": ack(deletionProtection=False)}, "ack.clusters[0].deletionProtection"),
        ("ephemeral", {"aks": {"preset": "aks-walkthrough", "deleteUnreachable": False}}, "aks.deleteUnreachable"),
        ("ephemeral", {"ack": ack(deletionProtection=True)}, "ack.clusters[0].deletionProtection"),
        ("ephemeral", {"aks": {"preset": "aks-walkthrough", "clusterName": "c" * 50}}, "aks.clusterName"),
        ("ephemeral", {"aks": {"preset": "aks-walkthrough", "dnsPrefix": "d" * 50}}, "aks.dnsPrefix"),
        (
            "ephemeral",
            {"aks": {"preset": "aks-walkthrough", "resourceGroup": {"name": "g" * 85}}},
            "aks.resourceGroup.name",
        ),
        ("ephemeral", {"aks": {"preset": "aks-walkthrough"}, "queues": LONG_NAMESPACE}, "queues.namespaces[0]"),
        ("ephemeral", {"ack": ack(name="a" * 60)}, "ack.clusters[0].name"),
    ],
)
def test_a_kind_refuses_what_it_cannot_keep_naming_the_key(kind, sections, key):
    assert errors(kind, **sections) == [f"elastic-capacity:{key}"]


def test_the_production_error_says_what_to_do_instead():
    with pytest.raises(Exception, match=r"production refuses the smoke Job.*prove admission on a dev or ephemeral"):
        load("production", aks={}, smokeJob={"enabled": True})


def test_the_same_settings_are_fine_on_a_dev_stack():
    sections = {
        "aks": {"preset": "aks-walkthrough", "deleteUnreachable": True},
        **WALKTHROUGH,
        "smokeJob": {"enabled": True},
    }
    config = load("dev", **sections, ack=ack(deletionProtection=False))
    assert config.aks is not None and config.aks.delete_unreachable


def test_a_name_that_fits_without_the_suffix_is_fine_outside_ephemeral_stacks():
    assert load("production", aks={"clusterName": "c" * 50}).aks.cluster_name == "c" * 50


# --- what a kind sets -----------------------------------------------------------------------------------------------


def test_an_ephemeral_stack_suffixes_its_physical_names_and_references():
    aks = {"resourceGroup": {"name": "rg"}, "clusterName": "c"}
    config = load("ephemeral", aks=aks, **WALKTHROUGH, smokeJob={"enabled": True})
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
    sections = {
        "aks": {"preset": "aks-walkthrough", "resourceGroup": {"name": "rg"}, "clusterName": "c"},
        **WALKTHROUGH,
        "ack": ack(),
    }
    config = load(kind, **sections)
    assert config.aks is not None and (config.aks.resource_group.name, config.aks.cluster_name) == ("rg", "c")
    assert config.aks.dns_prefix is None and not config.aks.delete_unreachable
    assert config.queues.namespaces == ["cas-kueue-demo"]


@pytest.mark.parametrize(("kind", "protected"), [("dev", False), ("ephemeral", False), ("production", True)])
def test_only_production_defaults_to_deletion_protection(kind, protected):
    """A dev stack left at its defaults can be destroyed; production cannot lose its clusters to a stray destroy."""
    config = load(kind, ack=ack())
    assert config.ack is not None and config.ack.clusters[0].deletion_protection is protected


@pytest.mark.parametrize("kind", ["dev", "production"])
def test_a_written_deletion_protection_is_kept(kind):
    config = load(kind, ack=ack(deletionProtection=True))
    assert config.ack is not None and config.ack.clusters[0].deletion_protection is True


BY_NAME = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]}
TEAM_A = {
    **WALKTHROUGH_OBJECTS,
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


# --- production's secure defaults: unset keys get them, a written key is the opt-out -------------------------------

STACK_GROUP = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


def test_production_defaults_unset_keys_to_their_secure_values():
    config = load("production", aks={}, ack=ack())
    assert config.aks is not None and config.ack is not None
    assert (config.aks.sku_tier, config.aks.entra_id) == ("Standard", EntraIdConfig())
    assert config.aks.entra_id.disable_local_accounts
    [cluster] = config.ack.clusters
    assert cluster.control_plane_logs is not None and cluster.audit_log is not None
    assert cluster.control_plane_logs.components == list(PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS)
    assert PRODUCTION_CONTROL_PLANE_LOG_COMPONENTS == ("apiserver", "kcm", "scheduler", "ccm")
    assert (cluster.audit_log.enabled, cluster.audit_log.sls_project_name) == (True, None)


def test_production_keeps_every_key_the_stack_file_writes_including_the_opt_outs():
    aks = {"skuTier": "Free", "entraId": None}
    opted_out = {**ack_data.cluster(auditLog={"enabled": False}), "controlPlaneLogs": None}  # null, written out
    config = load("production", aks=aks, ack=ack_data.section([], clusters=[opted_out]))
    assert config.aks is not None and config.ack is not None
    assert (config.aks.sku_tier, config.aks.entra_id) == ("Free", None)
    [cluster] = config.ack.clusters
    assert cluster.control_plane_logs is None and cluster.audit_log is not None and not cluster.audit_log.enabled
    premium = load("production", aks={"skuTier": "Premium", "entraId": {"adminGroupObjectIds": [STACK_GROUP]}})
    assert premium.aks is not None and premium.aks.sku_tier == "Premium"
    assert premium.aks.entra_id is not None and [str(g) for g in premium.aks.entra_id.admin_group_object_ids] == [
        STACK_GROUP
    ]


@pytest.mark.parametrize("kind", ["dev", "ephemeral"])
def test_other_kinds_leave_those_keys_at_their_plain_defaults(kind):
    config = load(kind, aks={}, ack=ack())
    assert config.aks is not None and config.ack is not None
    assert (config.aks.sku_tier, config.aks.entra_id) == ("Free", None)
    assert (config.ack.clusters[0].control_plane_logs, config.ack.clusters[0].audit_log) == (None, None)


@pytest.mark.parametrize(
    ("access", "warned"),
    [
        ({}, True),
        ({"authorizedIpRanges": ["20.30.40.0/24"]}, False),
        ({"allowUnrestricted": True}, False),  # the opt-out
    ],
)
def test_production_warns_about_an_api_server_open_to_every_address(access, warned):
    """The fix it names is one that works: privateCluster is refused, so it is not offered."""
    warnings = aks_production_warnings(AksConfig.model_validate({"apiServerAccess": access}))
    assert [key for key, _ in warnings] == (["apiServerAccess"] if warned else [])
    for _, message in warnings:
        assert "pulumi config set --path 'aks.apiServerAccess.authorizedIpRanges[0]' <CIDR>" in message
        assert "apiServerAccess.allowUnrestricted: true" in message and "\n" not in message
        assert "privateCluster" not in message


def test_the_production_stack_ships_no_api_server_range_and_its_comment_names_the_command_that_sets_one():
    """No range suits every user (a documentation range is refused): the file says how to add the runner's egress,
    and the stack warns of an open API server until it has."""
    assert "pulumi config set --stack multicloud --path 'aks.apiServerAccess.authorizedIpRanges[0]' <runner egress" in (
        MULTICLOUD_STACK.read_text()
    )
    _, config, secret_keys = render.read_stack_file(MULTICLOUD_STACK)
    shipped = load_stack_config(config, secret_keys, stack="multicloud").aks
    assert shipped is not None and [key for key, _ in aks_production_warnings(shipped)] == ["apiServerAccess"]
    aks = json.loads(config["elastic-capacity:aks"])
    aks["apiServerAccess"]["authorizedIpRanges"].insert(0, "20.30.40.0/24")  # what the command does
    configured = load_stack_config({**config, "elastic-capacity:aks": json.dumps(aks)}, secret_keys).aks
    assert configured is not None and aks_production_warnings(configured) == []


@pytest.mark.parametrize(("kueue", "replicas"), [({}, 2), ({"replicas": 1}, 1), ({"replicas": 3}, 3)])
def test_a_production_kueue_runs_two_replicas_unless_the_stack_file_says_otherwise(kueue, replicas):
    sections = {**ON_EXISTING_CLUSTER, "environment": {"kind": "production"}, "kueue": kueue}
    config = load_stack_config(as_config(sections), KUBECONFIG_SECRET)
    assert config.kueue.replicas == replicas
    dev = load_stack_config(as_config({**ON_EXISTING_CLUSTER, "kueue": kueue}), KUBECONFIG_SECRET)
    assert dev.kueue.replicas == kueue.get("replicas", 1)


def test_an_ephemeral_burst_set_up_gets_the_suffix_on_its_objects_and_its_origin():
    worker = ack_data.cluster("worker", nodePool=ack_data.POOL, deletionProtection=False)
    sections = {
        "environment": {"kind": "ephemeral", "nameSuffix": "-pr7"},
        "aks": {"preset": "aks-walkthrough"},
        "ack": {"clusters": [worker]},
        "multiKueue": {"workers": [{"cluster": "worker", **MIRROR}]},
    }
    config = load_stack_config(as_config(sections), stack="pr-7")
    assert config.multi_kueue is not None and config.kueue.multi_kueue is not None
    assert (config.multi_kueue.namespace, config.multi_kueue.cluster_queue) == ("burst-pr7", "burst-pr7")
    assert config.kueue.multi_kueue.origin == "elastic-capacity-pr7"


AKS_SYSTEM_POOL = {"kubernetes.azure.com/mode": "system"}
EXISTING_AKS = {"existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}}


@pytest.mark.parametrize(
    ("target", "kueue", "selector"),
    [
        ({"aks": {"preset": "aks-walkthrough"}}, {}, AKS_SYSTEM_POOL),
        (EXISTING_AKS, {}, AKS_SYSTEM_POOL),
        (ON_EXISTING_CLUSTER, {}, {}),
        (ON_EXISTING_CLUSTER, {"nodeSelector": AKS_SYSTEM_POOL}, AKS_SYSTEM_POOL),
        (ON_EXISTING_CLUSTER, {"nodeSelector": {"pool": "infra"}}, {"pool": "infra"}),
    ],
)
def test_only_aks_targets_default_kueue_to_the_system_pool_and_a_written_selector_stays(target, kueue, selector):
    """A cluster given by kubeconfig may be any cluster, where no node may carry AKS's system-pool label."""
    config = load_stack_config(as_config({**target, "kueue": kueue}), KUBECONFIG_SECRET)
    assert config.kueue.node_selector == selector


@pytest.mark.parametrize(
    ("kind", "access", "warned"),
    [
        ("production", {}, True),
        ("production", {"authorizedIpRanges": ["20.30.40.0/24"]}, False),
        ("production", {"allowUnrestricted": True}, False),
        ("dev", {}, False),  # only production stacks are held to it
    ],
)
def test_a_production_cluster_with_an_open_api_server_is_a_config_warning(kind, access, warned) -> None:
    """The one channel the fleet logs (test_config_warnings_are_logged_with_their_full_keys)."""
    config = load(kind, aks={"apiServerAccess": access})
    keys = [key for key, _ in config.warnings() if key.startswith("aks.apiServerAccess")]
    assert keys == (["aks.apiServerAccess"] if warned else [])


def test_the_resolution_runs_once_per_load_and_its_tree_is_validated_again_as_a_whole(monkeypatch):
    """No hand-called rules on a copy: whatever the resolution produces meets every rule, or the load names the key."""
    calls = []
    real = environment_rules.resolve

    def counted(config: StackConfig) -> StackConfig:
        calls.append(config)
        return real(config)

    monkeypatch.setattr(environment_rules, "resolve", counted)
    loaded = load("ephemeral", aks={}, ack=ack())
    assert len(calls) == 1 and loaded.aks is not None and loaded.aks.cluster_name.endswith(SUFFIX)

    def breaks_a_rule(config: StackConfig) -> StackConfig:
        assert config.ack is not None
        [cluster] = config.ack.clusters
        wrong = cluster.model_copy(update={"credential_minutes": 60})  # only kubeconfigMode temporary reads it
        return real(config).model_copy(update={"ack": config.ack.model_copy(update={"clusters": [wrong]})})

    monkeypatch.setattr(environment_rules, "resolve", breaks_a_rule)
    with pytest.raises(ConfigError, match=re.escape("ack.clusters[0].credentialMinutes")):
        load("ephemeral", aks={}, ack=ack())
