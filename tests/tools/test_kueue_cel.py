"""The CEL half of validate_kueue: every rule of the Kueue CRDs runs, each real rule refuses what the API server
refuses (with its own message, at the node's path), and CRD defaults are applied first, as the API server does."""

from __future__ import annotations

import copy
import re
from typing import Any

import celpy
import jsonschema
import pytest

from tests.support.cel import KNOWN_FUNCTIONS, check_rules, is_transition, program, rule_functions, schema_rules
from tests.support.kueue_sources import FETCH_HINT
from tests.support.schemas import KUEUE_CRD_DIR, kueue_schemas, validate_kueue, with_crd_defaults

V1B2, V1B1 = "kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1"


def kueue(kind: str, spec: dict[str, Any] | None, api: str = V1B2, **top: Any) -> dict[str, Any]:
    obj = {"apiVersion": api, "kind": kind, "metadata": {"name": "x"}, **top}
    return obj if spec is None else {**obj, "spec": spec}


def cluster_queue(api: str = V1B2) -> dict[str, Any]:
    resources = [{"name": "cpu", "nominalQuota": "8", "borrowingLimit": "2"}, {"name": "memory", "nominalQuota": 64}]
    return kueue(
        "ClusterQueue",
        {
            "cohortName" if api == V1B2 else "cohort": "team",
            "resourceGroups": [
                {"coveredResources": ["cpu", "memory"], "flavors": [{"name": "f", "resources": resources}]}
            ],
            "preemption": {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "LowerPriority"}},
            "flavorFungibility": {"preference": "BorrowingOverPreemption", "whenCanBorrow": "TryNextFlavor"},
        },
        api,
    )


def resource_flavor() -> dict[str, Any]:
    return kueue(
        "ResourceFlavor",
        {
            "nodeLabels": {"pool": "gpu"},
            "topologyName": "dc",
            "nodeTaints": [{"key": "gpu", "value": "a100", "effect": "NoSchedule", "timeAdded": AT}],
            "tolerations": [
                {"key": "gpu", "operator": "Equal", "value": "a100", "effect": "NoSchedule"},
                {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
            ],
        },
    )


def topology() -> dict[str, Any]:
    return kueue("Topology", {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"}, {"nodeLabel": HOSTNAME}]})


HOSTNAME = "kubernetes.io/hostname"
AT = "2026-01-02T03:04:05Z"


def workload(api: str = V1B2) -> dict[str, Any]:
    """A Workload; in v1beta2 with quota reserved and a topology assignment, so the rules on status run too."""
    pod_set = {"minCount": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}
    if api == V1B1:  # its only own rule is on spec.priorityClassName; the others read as in v1beta2
        return kueue("Workload", {"podSets": [pod_set], "priority": 100, "priorityClassName": "high"}, api)
    ref = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"}
    slice_ = {
        "domainCount": 2,
        "podCounts": {"individual": [1, 1]},
        "valuesPerLevel": [{"individual": {"roots": ["a", "b"]}}],
    }
    assignment = {"topologyAssignment": {"levels": [HOSTNAME], "slices": [slice_]}}
    toleration = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    check = {"name": "ac", "state": "Ready", "message": "", "lastTransitionTime": AT}
    status = {
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "R", "message": "", "lastTransitionTime": AT}
        ],
        "admission": {"clusterQueue": "cq", "podSetAssignments": [assignment]},
        "admissionChecks": [{**check, "podSetUpdates": [{"name": "main", "tolerations": [toleration]}]}],
        "clusterName": "worker",
    }
    return kueue("Workload", {"podSets": [pod_set], "priority": 100, "priorityClassRef": ref}, api, status=status)


VALID = {
    "ClusterQueue": cluster_queue,
    "ClusterQueue.v1beta1": lambda: cluster_queue(V1B1),
    "Cohort": lambda: kueue("Cohort", {"resourceGroups": cluster_queue()["spec"]["resourceGroups"]}),
    "ResourceFlavor": resource_flavor,
    "Topology": topology,
    "MultiKueueCluster": lambda: kueue("MultiKueueCluster", {"clusterSource": {"kubeConfig": {"location": "s"}}}),
    "Workload": workload,
    "Workload.v1beta1": lambda: workload(V1B1),
    "LocalQueue": lambda: kueue("LocalQueue", {"clusterQueue": "cq"}, metadata={"name": "lq", "namespace": "team"}),
    "AdmissionCheck": lambda: kueue("AdmissionCheck", {"controllerName": "kueue.x-k8s.io/provisioning-request"}),
    "ProvisioningRequestConfig": lambda: kueue("ProvisioningRequestConfig", {"provisioningClassName": "queued"}),
    "WorkloadPriorityClass": lambda: kueue("WorkloadPriorityClass", None, value=1),
}


def test_every_rule_of_every_crd_compiles_and_calls_only_functions_celpy_provides():
    """Each rule of every served version of every CRD; the failures listed by kind, version, path and index."""
    if not KUEUE_CRD_DIR.is_dir():
        where = "set KUEUE_CRD_DIR to the folder of kueue.x-k8s.io_*.yaml"
        pytest.skip(f"Kueue CRDs not found at {KUEUE_CRD_DIR}: {where}, or {FETCH_HINT}")
    failures, checked = {}, 0
    for (api, kind), schema in kueue_schemas().items():
        for n, (path, rule) in enumerate(schema_rules(schema)):
            checked += 1
            where = f"{kind}.{api.rsplit('/', 1)[1]}:{path or '<root>'}:{n}"
            for text in filter(None, [rule["rule"], rule.get("messageExpression")]):
                try:
                    program(text)
                except celpy.CELParseError as error:
                    failures[where] = f"does not compile: {error}"
                    continue
                if unknown := rule_functions(text) - KNOWN_FUNCTIONS:
                    failures[where] = f"implement {unknown} in cel.py"
    assert checked > 50 and failures == {}


def test_every_create_time_rule_passes_a_valid_object_and_every_transition_rule_is_skipped():
    evaluated, skipped = set(), set()
    for make in VALID.values():
        checked = validate_kueue(make())
        evaluated |= set(checked.evaluated)
        skipped |= set(checked.skipped)
    every = [rule for schema in kueue_schemas().values() for _, rule in schema_rules(schema)]
    assert {r["rule"] for r in every if not is_transition(r)} <= evaluated
    assert skipped <= {r["rule"] for r in every if is_transition(r)}
    assert validate_kueue(VALID["LocalQueue"]()).skipped == ["self == oldSelf"]  # spec.clusterQueue is immutable


def test_a_pass_is_remembered_by_the_objects_content_and_a_failure_is_found_every_time():
    queue = VALID["LocalQueue"]()
    checked = validate_kueue(queue)
    checked.evaluated.append("a caller's own change")
    assert validate_kueue(copy.deepcopy(queue)) == validate_kueue(queue) != checked, "each caller gets its own copy"
    named = {**queue, "spec": {"clusterQueue": "1"}}
    validate_kueue(named)
    for _ in range(2):  # the same fields with a number where the CRD wants a string
        with pytest.raises(jsonschema.ValidationError):
            validate_kueue({**queue, "spec": {"clusterQueue": 1}})


def set_in(obj: Any, path: str, value: Any) -> None:
    """Set (or, for ``None``, delete) the field at a dotted path whose numeric parts index lists."""
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
    for part in parents:
        obj = obj[part]
    if value is None:
        del obj[last]
    else:
        obj[last] = value


TOL, PSA = "spec.tolerations.0", "status.admission.podSetAssignments"
TA = "status.admission.podSetAssignments[0].topologyAssignment"
FLAVORS = "flavors must have the same number of resources as the coveredResources"
FUNGIBILITY = "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor"
EFFECTS = "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"
EXISTS = "a value must be empty when 'operator' is 'Exists'"
ONE_OF = "exactly one of the fields in [{}] must be set"
VIOLATIONS = [  # (a VALID object, changes to it, the path of the node whose rule fails, the rule's message)
    ("ClusterQueue", {"spec.preemption.reclaimWithinCohort": "Never"}, "spec.preemption",
     "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"),
    ("ClusterQueue", {"spec.resourceGroups.0.coveredResources": ["cpu", "memory", "gpu"]}, "spec.resourceGroups[0]",
     FLAVORS),
    ("ClusterQueue", {"spec.cohortName": None}, "spec", "borrowingLimit must be nil when cohort is empty"),
    ("ClusterQueue.v1beta1", {"spec.cohort": None}, "spec", "borrowingLimit must be nil when cohort is empty"),
    ("ClusterQueue", {"spec.flavorFungibility.whenCanPreempt": "MayStopSearch"}, "spec.flavorFungibility", FUNGIBILITY),
    ("ClusterQueue", {"spec.flavorFungibility.whenCanBorrow": None}, "spec.flavorFungibility", FUNGIBILITY),  # default
    ("Cohort", {"spec.resourceGroups.0.flavors.0.resources": [{"name": "cpu", "nominalQuota": 1}]},
     "spec.resourceGroups[0]", FLAVORS),
    ("ResourceFlavor", {"spec.nodeLabels": None}, "spec", "at least one nodeLabel is required when topology is set"),
    ("ResourceFlavor", {"spec.nodeTaints.0.effect": "Evict"}, "spec.nodeTaints", EFFECTS),
    ("ResourceFlavor", {f"{TOL}.key": None, f"{TOL}.value": None}, "spec.tolerations",
     "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"),
    ("ResourceFlavor", {f"{TOL}.tolerationSeconds": 5}, "spec.tolerations",
     "effect must be 'NoExecute' when 'tolerationSeconds' is set"),
    ("ResourceFlavor", {f"{TOL}.operator": "In"}, "spec.tolerations",
     "supported toleration values: 'Equal'(default), 'Exists'"),
    ("ResourceFlavor", {f"{TOL}.operator": "Exists"}, "spec.tolerations", EXISTS),
    ("ResourceFlavor", {f"{TOL}.effect": "Evict"}, "spec.tolerations", EFFECTS),
    ("Topology", {"spec.levels": [{"nodeLabel": HOSTNAME}, {"nodeLabel": "rack"}]}, "spec.levels",
     "the kubernetes.io/hostname label can only be used at the lowest level of topology"),
    ("Topology", {"spec.levels": [{"nodeLabel": "rack"}, {"nodeLabel": "rack"}]}, "spec.levels", "must be unique"),
    ("MultiKueueCluster", {"spec.clusterSource.clusterProfileRef": {"name": "p"}}, "spec.clusterSource",
     ONE_OF.format("kubeConfig clusterProfileRef")),
    ("Workload", {"spec.podSets.0.minCount": 2}, "spec.podSets[0]",  # count defaults to 1
     "minCount should be positive and less or equal to count"),
    ("Workload", {"spec.priority": None}, "spec", "priority should not be nil when priorityClassRef is set"),
    ("Workload.v1beta1", {"spec.priority": None}, "spec", "priority should not be nil when priorityClassName is set"),
    ("Workload", {"spec.priorityClassRef.group": "scheduling.k8s.io"}, "spec.priorityClassRef",
     "only the PriorityClass kind is allowed for the scheduling.k8s.io group"),
    ("Workload", {"status.nominatedClusterNames": ["a"]}, "status",
     "clusterName and nominatedClusterNames are mutually exclusive"),
    ("Workload", {PSA: []}, "<root>", "podSetAssignments must have the same number of podSets as the spec"),
    ("Workload", {f"{PSA}.0.topologyAssignment.levels": ["zone", HOSTNAME]}, TA,
     "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment"),
    ("Workload", {f"{PSA}.0.topologyAssignment.slices.0.podCounts.universal": 1}, f"{TA}.slices[0].podCounts",
     ONE_OF.format("universal individual")),
    ("Workload", {"status.admissionChecks.0.podSetUpdates.0.tolerations.0.value": "v"},
     "status.admissionChecks[0].podSetUpdates[0].tolerations", EXISTS),
]  # fmt: skip


@pytest.mark.parametrize(
    ("valid", "changes", "path", "message"), VIOLATIONS, ids=[f"{v[0]}:{v[2]}:{v[3][:40]}" for v in VIOLATIONS]
)
def test_an_object_breaking_one_rule_fails_with_that_rules_message_at_its_path(valid, changes, path, message):
    obj = VALID[valid]()
    validate_kueue(obj)
    for field, value in changes.items():
        set_in(obj, field, value)
    with pytest.raises(AssertionError) as failed:
        validate_kueue(obj)
    [failure] = str(failed.value).splitlines()[1:]  # exactly one rule fails
    assert failure.startswith(f"{path}: {message} (rule: ")


def test_defaults_fill_absent_fields_of_present_objects_and_leave_set_fields_alone():
    obj = kueue("ClusterQueue", {"preemption": {"withinClusterQueue": "LowerPriority"}, "fairSharing": {}})
    before = copy.deepcopy(obj)
    assert with_crd_defaults(obj)["spec"] == {
        "preemption": {
            "withinClusterQueue": "LowerPriority",
            "reclaimWithinCohort": "Never",
            "borrowWithinCohort": {"policy": "Never"},
        },
        "fairSharing": {"weight": 1},
        "flavorFungibility": {"whenCanBorrow": "MayStopSearch", "whenCanPreempt": "TryNextFlavor"},
        "queueingStrategy": "BestEffortFIFO",
        "stopPolicy": "None",
    }
    assert obj == before
    strict = kueue("ClusterQueue", {"queueingStrategy": "StrictFIFO", "stopPolicy": "Hold"})
    assert with_crd_defaults(strict)["spec"]["queueingStrategy"] == "StrictFIFO"
    assert with_crd_defaults(strict)["spec"]["stopPolicy"] == "Hold"
    assert "namespaceSelector" not in with_crd_defaults(strict)["spec"]  # no default: stays absent
    [pod_set] = with_crd_defaults(workload())["spec"]["podSets"]
    assert (pod_set["name"], pod_set["count"]) == ("main", 1)  # list items are defaulted too


SCHEMA = {
    "type": "object",
    "properties": {
        "x-y": {"type": "integer"},
        "namespace": {"type": "string"},
        "ratio": {"type": "number"},
        "at": {"type": "string", "format": "date-time"},
        "metadata": {"type": "object"},
    },
}


def rule(text: str, **more: str) -> dict[str, Any]:
    return {**SCHEMA, "x-kubernetes-validations": [{"rule": text, **more}]}


@pytest.mark.parametrize(
    "text",
    [
        "self.x__dash__y == 1 && self.__namespace__ == 'n'",  # Kubernetes' escaping of property names
        "self.ratio == 2.0",  # a number is a double even when written as an integer
        "self.at < timestamp('2027-01-01T00:00:00Z')",  # a date-time string is a timestamp
        "has(self.metadata.name) && !has(self.metadata.labels)",  # only name and generateName of the root metadata
    ],
)
def test_values_reach_cel_typed_as_kubernetes_types_them(text):
    obj = {
        "x-y": 1,
        "namespace": "n",
        "ratio": 2,
        "at": "2026-05-01T00:00:00Z",
        "metadata": {"name": "a", "labels": {}},
    }
    assert check_rules(obj, rule(text)).evaluated == [text]


def test_integers_are_int64_and_an_evaluation_error_fails_the_rule():
    with pytest.raises(AssertionError, match=re.escape("<root>: failed rule: self.x__dash__y + 1 > 0")):
        check_rules({"x-y": 2**63 - 1}, rule("self.x__dash__y + 1 > 0"))
    with pytest.raises(AssertionError, match="<root>: too big: 7"):
        check_rules({"x-y": 7}, rule("self.x__dash__y < 5", messageExpression="'too big: ' + string(self.x__dash__y)"))
