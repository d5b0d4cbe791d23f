"""The config model agrees with Kueue in both directions: single-change probes on a set-up using every queue kind.

Each probe changes one field of one object. An accepted probe loads and every object it renders passes the CRDs
(OpenAPI and CEL). A refused probe is refused naming its key, and the probe says who refuses it in Kueue:

- ``crd``: the CRD (schema or CEL rule); checked here by applying the same change to the rendered object, which the
  CRD validator must then refuse;
- ``webhook``: Kueue's validating webhook (cited); the changed object must still pass the CRD, or the label is wrong;
- ``lint``: nobody in Kueue (it accepts the object and then admits nothing); the probe passes with that lint off;
- ``declare``: a reference to an object the stack does not make; it passes once the object is declared external or
  the namespace existing.

Every probe runs at the newest verified patch of each supported minor, against that version's CRDs: the rules the
model mirrors are the same in all of them (components/config/queues/objects.py says so), and these tests keep it so.
"""

from __future__ import annotations

import copy
import functools
import re
from typing import Any

import jsonschema
import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.kueue.profiles import PROFILES
from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests
from tests.support.cel import is_transition, schema_rules
from tests.support.config import load_on_existing_cluster
from tests.support.queues import DELETE, EVERY_KIND, EVERY_KIND_MANAGER, edited
from tests.support.schemas import kueue_schemas, validate_kueue
from tools import render

KINDS = {
    "resourceFlavors": "ResourceFlavor",
    "topologies": "Topology",
    "workloadPriorityClasses": "WorkloadPriorityClass",
    "cohorts": "Cohort",
    "clusterQueues": "ClusterQueue",
    "localQueues": "LocalQueue",
    "admissionChecks": "AdmissionCheck",
    "provisioningRequestConfigs": "ProvisioningRequestConfig",
}
ACCEPT = None
TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
LEVELS = "levels"
RES0 = "resourceGroups.0.flavors.0.resources.0"
RES0_KEY = "resourceGroups[0].flavors[0].resources[0]"
CHECKS = "admissionChecksStrategy.admissionChecks"
SELECTOR = "podSetUpdates.nodeSelector"
LONG = "x" * 2049
SWAPPED = [{"name": "memory", "nominalQuota": "768Gi"}, {"name": "cpu", "nominalQuota": "48", "lendingLimit": "16"}]
Probe = tuple[str, str, int, str, Any, str | None, str]
VERSIONS = [profile.latest for profile in PROFILES.values()]
"""The newest verified patch of each supported minor, whose CRDs the tests read."""
PROBES: list[Probe] = [
    # ResourceFlavor
    ("flavor without labels", "resourceFlavors", 0, "nodeLabels", {}, ACCEPT, ""),
    ("nine node labels", "resourceFlavors", 0, "nodeLabels", {f"l{i}": "x" for i in range(9)}, "nodeLabels", "crd"),
    ("topology flavor without labels", "resourceFlavors", 3, "nodeLabels", {}, "nodeLabels", "crd"),
    ("taint effect", "resourceFlavors", 1, "nodeTaints.0.effect", "NoRun", "nodeTaints[0].effect", "crd"),
    ("taint repeated", "resourceFlavors", 1, "nodeTaints.1", TAINT, "nodeTaints[1]", "webhook:validateNodeTaints"),
    ("taint, other effect", "resourceFlavors", 1, "nodeTaints.1", {**TAINT, "effect": "NoExecute"}, ACCEPT, ""),
    ("toleration Equal without key", "resourceFlavors", 1, "tolerations.0", {"operator": "Equal"},
     "tolerations[0].operator", "crd"),
    ("toleration Exists with value", "resourceFlavors", 1, "tolerations.0", {"key": "a", "operator": "Exists",
     "value": "b"}, "tolerations[0].value", "crd"),
    ("toleration operator", "resourceFlavors", 1, "tolerations.0.operator", "Contains", "tolerations[0].operator",
     "crd"),
    ("toleration effect", "resourceFlavors", 1, "tolerations.0.effect", "NoRun", "tolerations[0].effect", "crd"),
    ("toleration seconds on NoSchedule", "resourceFlavors", 1, "tolerations.0.tolerationSeconds", 30,
     "tolerations[0].tolerationSeconds", "crd"),
    ("topology name", "resourceFlavors", 3, "topologyName", "Gpu_Topology", "topologyName", "crd"),
    # Topology
    ("hostname not lowest", "topologies", 0, LEVELS, [{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "rack"}],
     "levels[0].nodeLabel", "crd"),
    ("level repeated", "topologies", 0, LEVELS, [{"nodeLabel": "rack"}] * 2, "levels[1].nodeLabel", "crd"),
    ("no level", "topologies", 0, LEVELS, [], "levels", "crd"),
    ("17 levels", "topologies", 0, LEVELS, [{"nodeLabel": f"l{i}"} for i in range(17)], "levels", "crd"),
    ("hostname alone", "topologies", 0, LEVELS, [{"nodeLabel": "kubernetes.io/hostname"}], ACCEPT, ""),
    # WorkloadPriorityClass
    ("priority past int32", "workloadPriorityClasses", 0, "value", 2**31, "value", "crd"),
    ("negative priority", "workloadPriorityClasses", 0, "value", -5, ACCEPT, ""),
    ("description too long", "workloadPriorityClasses", 0, "description", LONG, "description", "crd"),
    # Cohort
    ("cohort weight zero", "cohorts", 1, "fairSharing.weight", "0", ACCEPT, ""),
    ("cohort weight negative", "cohorts", 1, "fairSharing.weight", "-1", "fairSharing.weight",
     "webhook:validateFairSharing"),
    ("cohort weight collapsing", "cohorts", 1, "fairSharing.weight", "1n", "fairSharing.weight",
     "webhook:validateFairSharing"),
    ("cohort limit without parent", "cohorts", 1, "parentName", DELETE, f"{RES0_KEY}.borrowingLimit",
     "webhook:validateLimit"),
    ("cohort flavor short of a resource", "cohorts", 1, "resourceGroups.0.flavors.0.resources.1", DELETE,
     "resourceGroups[0].flavors[0].resources", "crd"),
    # ClusterQueue
    ("empty resource groups", "clusterQueues", 3, "resourceGroups", [], ACCEPT, ""),
    ("queue flavor short of a resource", "clusterQueues", 1, "resourceGroups.0.flavors.0.resources.1", DELETE,
     "resourceGroups[0].flavors[0].resources", "crd"),
    ("checks on flavors it lost", "clusterQueues", 2, "resourceGroups", DELETE,
     f"{CHECKS}[0].onFlavors[0]", "webhook:validateAdmissionCheckOnFlavors"),
    ("queueing strategy", "clusterQueues", 0, "queueingStrategy", "FIFO", "queueingStrategy", "crd"),
    ("stop policy", "clusterQueues", 0, "stopPolicy", "Stop", "stopPolicy", "crd"),
    ("held queue", "clusterQueues", 0, "stopPolicy", "Hold", ACCEPT, ""),
    ("admission mode", "clusterQueues", 1, "admissionScope.admissionMode", "Usage", "admissionScope.admissionMode",
     "crd"),
    ("borrowing preemption without reclaim", "clusterQueues", 0, "preemption.reclaimWithinCohort", "Never",
     "preemption.borrowWithinCohort.policy", "crd"),
    ("preference without TryNextFlavor", "clusterQueues", 0, "flavorFungibility.whenCanBorrow", "MayStopSearch",
     "flavorFungibility.preference", "crd"),
    ("limits without cohort", "clusterQueues", 0, "cohortName", DELETE, f"{RES0_KEY}.lendingLimit", "crd"),
    ("lending above nominal", "clusterQueues", 0, f"{RES0}.lendingLimit", "49", f"{RES0_KEY}.lendingLimit",
     "webhook:validateLendingLimit"),
    ("negative quota", "clusterQueues", 0, f"{RES0}.nominalQuota", "-1", f"{RES0_KEY}.nominalQuota",
     "webhook:validateResourceQuantity"),
    ("quota not a quantity", "clusterQueues", 0, f"{RES0}.nominalQuota", "lots", f"{RES0_KEY}.nominalQuota", "crd"),
    ("flavor in two groups", "clusterQueues", 0, "resourceGroups.1.flavors.0.name", "scalepool",
     "resourceGroups[1].flavors[0].name", "webhook:validateResourceGroups"),
    ("resources out of order", "clusterQueues", 0, "resourceGroups.0.flavors.0.resources", SWAPPED,
     "resourceGroups[0].flavors[0].resources[0].name", "webhook:validateFlavorQuotas"),
    ("check listed twice", "clusterQueues", 2, f"{CHECKS}.1", {"name": "capacity"}, f"{CHECKS}[1].name", "crd"),
    ("onFlavors repeated", "clusterQueues", 2, f"{CHECKS}.0.onFlavors", ["tas-flavor"] * 2,
     f"{CHECKS}[0].onFlavors[1]", "crd"),
    ("no check in the strategy", "clusterQueues", 2, CHECKS, [], CHECKS, "crd"),
    ("selector operator", "clusterQueues", 1, "namespaceSelector.matchExpressions.0.operator", "Equals",
     "namespaceSelector.matchExpressions[0].operator", "webhook:ValidateLabelSelector"),
    ("queue weight negative", "clusterQueues", 0, "fairSharing.weight", "-1", "fairSharing.weight",
     "webhook:validateFairSharing"),
    ("threshold past int32", "clusterQueues", 0, "preemption.borrowWithinCohort.maxPriorityThreshold", 2**31,
     "preemption.borrowWithinCohort.maxPriorityThreshold", "crd"),
    ("selector unset under local queues", "clusterQueues", 1, "namespaceSelector", None, "namespaceSelector",
     "lint:localQueueNamespaceSelected"),
    ("flavor not made here", "clusterQueues", 1, "resourceGroups.0.flavors.0.name", "spot",
     "resourceGroups[0].flavors[0].name", "declare:resourceFlavors"),
    ("check not made here", "clusterQueues", 1, f"{CHECKS}.0.name", "audit", f"{CHECKS}[0].name",
     "declare:admissionChecks"),
    # LocalQueue
    ("local stop policy", "localQueues", 0, "stopPolicy", "Drain", "stopPolicy", "crd"),
    ("local weight", "localQueues", 0, "fairSharing", {"weight": "3"}, ACCEPT, ""),
    ("cluster queue not made here", "localQueues", 0, "clusterQueue", "org-batch", "clusterQueue",
     "declare:clusterQueues"),
    ("namespace not made here", "localQueues", 0, "namespace", "team-c", "namespace", "declare:existingNamespaces"),
    # AdmissionCheck
    ("empty controller", "admissionChecks", 1, "controllerName", "", "controllerName", "crd"),
    ("any controller", "admissionChecks", 0, "controllerName", "ProvisioningRequestController", ACCEPT, ""),
    ("parameters kind", "admissionChecks", 0, "parameters.kind", "9Config", "parameters.kind", "crd"),
    ("parameters name", "admissionChecks", 0, "parameters.name", "capacity.check", "parameters.name", "crd"),
    ("config not made here", "admissionChecks", 0, "parameters.name", "shared-check", "parameters.name",
     "declare:provisioningRequestConfigs"),
    # ProvisioningRequestConfig
    ("retry at once", "provisioningRequestConfigs", 0, "retryStrategy.backoffBaseSeconds", 0, ACCEPT, ""),
    ("delay past int32", "provisioningRequestConfigs", 0, "retryStrategy.backoffMaxSeconds", 2**31,
     "retryStrategy.backoffMaxSeconds", "crd"),
    ("managed resource repeated", "provisioningRequestConfigs", 0, "managedResources", ["cpu", "cpu"],
     "managedResources[1]", "crd"),
    ("nine node selector updates", "provisioningRequestConfigs", 0, SELECTOR,
     [{"key": f"k{i}", "valueFromProvisioningClassDetail": "v"} for i in range(9)], SELECTOR, "crd"),
    ("node selector key repeated", "provisioningRequestConfigs", 0, SELECTOR,
     [{"key": "k", "valueFromProvisioningClassDetail": "v"}] * 2, f"{SELECTOR}[1].key", "crd"),
    ("merge policy", "provisioningRequestConfigs", 0, "podSetMergePolicy", "Identical", "podSetMergePolicy", "crd"),
    ("parameter too long", "provisioningRequestConfigs", 0, "parameters", {"p": "x" * 256}, "parameters.p", "crd"),
    ("class name", "provisioningRequestConfigs", 0, "provisioningClassName", "Check_Capacity",
     "provisioningClassName", "crd"),
    ("managed resource not gated", "provisioningRequestConfigs", 0, "managedResources", ["nvidia.com/gpu"],
     "managedResources[0]", "lint:managedResourcesCovered"),
    ("every resource managed", "provisioningRequestConfigs", 0, "managedResources", DELETE, ACCEPT, ""),
]  # fmt: skip


def queues_with(probe: Probe) -> dict[str, Any]:
    _, section, index, field, value, _, _ = probe
    return edited(EVERY_KIND, (f"{section}.{index}.{field}", value))


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    return request.param


def load(queues: dict[str, Any], version: str) -> QueuesConfig:
    return load_on_existing_cluster(queues=queues, kueue={**EVERY_KIND_MANAGER, "chartVersion": version}).queues


@functools.cache
def base_manifests(version: str) -> tuple[dict[str, Any], ...]:
    """The base set-up's rendered objects at ``version``, loaded and rendered once per version: read only
    (:func:`changed_object` changes a copy)."""
    return tuple(queue_manifests(load(EVERY_KIND, version)))


def changed_object(probe: Probe, version: str) -> dict[str, Any]:
    """The base set-up's rendered object with the probe's change made to it directly, bypassing the config model."""
    _, section, index, field, value, _, _ = probe
    name = EVERY_KIND[section][index]["name"]
    [manifest] = [
        copy.deepcopy(m)
        for m in base_manifests(version)
        if (m["kind"], m["metadata"]["name"]) == (KINDS[section], name)
    ]
    change = DELETE if value is None else value  # config null: the field left out
    if section == "workloadPriorityClasses":  # the one kind without a spec
        return edited(manifest, (field, change))
    return {**manifest, "spec": edited(manifest.get("spec", {}), (field, change))}


def ids(probes: list[Probe]) -> list[str]:
    return [probe[0] for probe in probes]


ACCEPTED = [p for p in PROBES if p[5] is ACCEPT]
REFUSED = [p for p in PROBES if p[5] is not ACCEPT]


@pytest.mark.parametrize("probe", ACCEPTED, ids=ids(ACCEPTED))
def test_what_kueue_accepts_renders_objects_the_crds_accept(probe, version):
    for manifest in queue_manifests(load(queues_with(probe), version)):
        if manifest["apiVersion"] != "v1":
            validate_kueue(manifest, version)


@pytest.mark.parametrize("probe", REFUSED, ids=ids(REFUSED))
def test_what_kueue_refuses_is_refused_naming_the_key(probe, version):
    _, section, index, _, _, key, source = probe
    with pytest.raises(ConfigError) as caught:
        load(queues_with(probe), version)
    assert caught.value.keys == [f"elastic-capacity:queues.{section}[{index}].{key}"]
    if source == "crd":
        with pytest.raises((AssertionError, jsonschema.ValidationError)):
            validate_kueue(changed_object(probe, version), version)
    elif source.startswith("webhook:"):
        validate_kueue(changed_object(probe, version), version)


LINTS = [p for p in REFUSED if p[6].startswith("lint:")]
DECLARED = [p for p in REFUSED if p[6].startswith("declare:")]


@pytest.mark.parametrize("probe", LINTS, ids=ids(LINTS))
def test_a_lint_refuses_what_kueue_accepts_and_opts_out(probe, version):
    lint = probe[6].removeprefix("lint:")
    queues = {**queues_with(probe), "lints": {lint: False}}
    for manifest in queue_manifests(load(queues, version)):
        if manifest["apiVersion"] != "v1":
            validate_kueue(manifest, version)


@pytest.mark.parametrize("probe", LINTS + DECLARED, ids=ids(LINTS + DECLARED))
def test_a_refusal_stricter_than_kueue_names_the_key_that_lifts_it(probe):
    """Issue 36: every over-strict refusal says how to lift it, by its full key."""
    how, target = probe[6].split(":", 1)
    if how == "lint":
        key = f"queues.lints.{target}"
    else:
        key = "queues.existingNamespaces" if target == "existingNamespaces" else f"queues.external.{target}"
    with pytest.raises(ConfigError, match=re.escape(key)):
        load(queues_with(probe), VERSIONS[-1])


@pytest.mark.parametrize("probe", DECLARED, ids=ids(DECLARED))
def test_a_reference_to_an_object_made_elsewhere_is_accepted_once_declared(probe, version):
    where, value = probe[6].removeprefix("declare:"), probe[4]
    queues = queues_with(probe)
    if where == "existingNamespaces":
        queues["existingNamespaces"] = [*queues["existingNamespaces"], value]
    else:
        queues["external"] = {**queues["external"], where: [*queues["external"].get(where, []), value]}
    load(queues, version)


@pytest.mark.parametrize("probe", [REFUSED[0], LINTS[0], DECLARED[0]], ids=ids([REFUSED[0], LINTS[0], DECLARED[0]]))
def test_the_render_tool_exits_2_naming_the_key(probe, tmp_path, capsys):
    _, section, index, _, _, key, _ = probe
    stack = tmp_path / "Pulumi.probe.yaml"
    config = {
        "elastic-capacity:existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
        "elastic-capacity:kueue": EVERY_KIND_MANAGER,
        "elastic-capacity:queues": queues_with(probe),
    }
    stack.write_text(yaml_text.dump({"config": config}, sort_keys=True))
    assert render.main([str(stack), "--out", str(tmp_path / "out")]) == 2
    assert f"queues.{section}[{index}].{key}" in capsys.readouterr().err


def test_every_create_time_cel_rule_of_the_queue_kinds_is_paired_with_a_config_rule(version):
    """For each CEL rule Kueue's CRDs check on create, some ``crd`` probe breaks exactly that rule: the CRD validator
    names the rule on the changed object, and the other test shows the config model refused the probe first."""
    rules = {
        rule["rule"]
        for kind in KINDS.values()
        for path, rule in schema_rules(kueue_schemas(version)[("kueue.x-k8s.io/v1beta2", kind)])
        if not is_transition(rule) and not path.startswith("status")
    }
    broken: set[str] = set()
    for probe in (p for p in REFUSED if p[6] == "crd"):
        try:
            validate_kueue(changed_object(probe, version), version)
        except AssertionError as error:
            broken |= set(re.findall(r"\(rule: (.*)\)$", str(error), re.M))
        except jsonschema.ValidationError:
            continue
    assert len(rules) == 13, (
        "ResourceFlavor 7, Topology 2, ClusterQueue 4 (its resource-group rule is also the Cohort's)"
    )
    assert rules - broken == set()
