"""The queue objects under a name suffix: every object and every reference renamed, so the result still resolves."""

from __future__ import annotations

import pytest

from components.config.base import RuleViolation
from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests, references
from tests.support.queues import EVERY_KIND, GENERAL, edited

SUFFIX = "-pr7"


@pytest.fixture(scope="module")
def general() -> QueuesConfig:
    return QueuesConfig.model_validate(GENERAL).named_with(SUFFIX)


def test_without_a_suffix_nothing_changes():
    config = QueuesConfig.model_validate(GENERAL)
    assert config.named_with("") is config


def test_every_object_gets_the_suffix(general):
    for manifest in queue_manifests(general):
        assert manifest["metadata"]["name"].endswith(SUFFIX), manifest
        namespace = manifest["metadata"].get("namespace")
        assert namespace is None or namespace.endswith(SUFFIX), manifest


def test_every_reference_points_at_an_object_of_the_renamed_stack(general):
    """Implicit Cohorts (named by a ClusterQueue, not configured) are renamed too: they are the stack's alone."""
    manifests = queue_manifests(general)
    created = {(m["kind"], m["metadata"]["name"]) for m in manifests}
    for manifest in manifests:
        for kind, name in references(manifest):
            assert name.endswith(SUFFIX), (manifest["metadata"]["name"], kind, name)
            assert (kind, name) in created or kind == "Cohort", (kind, name)
    strategy = general.cluster_queues[0].admission_checks_strategy
    assert strategy is not None
    assert [(c.name, c.on_flavors) for c in strategy.admission_checks] == [
        (f"cpu-provisioning{SUFFIX}", [f"scalepool{SUFFIX}"]),
        (f"gpu-provisioning{SUFFIX}", [f"gpu-a100{SUFFIX}"]),
    ]
    assert general.cohorts[1].parent_name == f"org{SUFFIX}"


def test_the_renamed_queues_pass_every_queue_rule_again(general):
    """The proof that references still resolve: validate the renamed section from scratch."""
    again = QueuesConfig.model_validate(general.model_dump(by_alias=True, exclude_unset=True, mode="json"))
    assert again.namespaces == [f"team-a{SUFFIX}", f"team-b{SUFFIX}"]


def test_what_is_not_a_name_stays_as_it_is(general):
    """Node labels select node pools, which live in the cluster, not in the stack."""
    assert general.resource_flavors[0].node_labels == {"agentpool": "scalepool"}
    assert general.provisioning_checks[1].parameters == {"maxRunDurationSeconds": "3600"}
    assert general.cluster_queues[1].namespace_selector.match_labels == {"team": "b"}


def test_a_namespace_selector_naming_a_stack_namespace_follows_it(general):
    [expression] = general.cluster_queues[1].namespace_selector.match_expressions or []
    assert (expression.key, expression.values) == ("kubernetes.io/metadata.name", [f"team-b{SUFFIX}"])
    by_label = edited(
        GENERAL,
        ("clusterQueues.1.namespaceSelector", {"matchLabels": {"kubernetes.io/metadata.name": "team-b"}}),
    )
    renamed = QueuesConfig.model_validate(by_label).named_with(SUFFIX)
    assert renamed.cluster_queues[1].namespace_selector.match_labels == {"kubernetes.io/metadata.name": "team-b-pr7"}
    assert renamed.cluster_queues[0].namespace_selector.model_dump(exclude_none=True) == {}, "{} stays every namespace"


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (("localQueues.0.name", "q" * 61), "localQueues[0].name"),
        (("provisioningChecks.0.configName", "c" * 61), "provisioningChecks[0].configName"),
        (("clusterQueues.0.cohortName", "k" * 251), "clusterQueues[0].cohortName"),
    ],
)
def test_a_name_without_room_for_the_suffix_is_named_by_its_key(change, key):
    """The cohort case is an implicit Cohort: only the ClusterQueue names it."""
    config = QueuesConfig.model_validate(edited(GENERAL, change))
    with pytest.raises(RuleViolation) as caught:
        config.named_with(SUFFIX)
    assert caught.value.key == key


def test_existing_namespaces_and_external_objects_keep_their_names():
    """They are not the stack's: a suffix would point the stack's queues at objects that do not exist."""
    config = QueuesConfig.model_validate(EVERY_KIND).named_with(SUFFIX)
    manifests = queue_manifests(config)
    created = {(m["kind"], m["metadata"]["name"]) for m in manifests}
    external = {
        ("ResourceFlavor", "shared-spot"),
        ("AdmissionCheck", "org-approval"),
        ("ClusterQueue", "org-cq"),
        ("Namespace", "default"),
    }
    for manifest in manifests:
        assert manifest["metadata"]["name"].endswith(SUFFIX), manifest["metadata"]
        for ref in references(manifest):
            assert ref in created | external or ref[0] == "Cohort", (manifest["metadata"]["name"], ref)
    assert config.existing_namespaces == ["default"]
    assert [(q.namespace, q.name, q.cluster_queue) for q in config.local_queues[3:5]] == [
        ("default", f"user-queue{SUFFIX}", f"tas-cq{SUFFIX}"),
        ("default", f"org{SUFFIX}", "org-cq"),
    ]
    tas = next(q for q in config.cluster_queues if q.name == f"tas-cq{SUFFIX}")
    assert tas.flavor_names == [f"tas-flavor{SUFFIX}", "shared-spot"]
    assert config.resource_flavors[-1].topology_name == f"gpu-topology{SUFFIX}"
    [capacity, _] = config.admission_checks
    assert capacity.parameters is not None and capacity.parameters.name == f"capacity-check{SUFFIX}"


def test_the_renamed_kinds_pass_every_queue_rule_again():
    renamed = QueuesConfig.model_validate(EVERY_KIND).named_with(SUFFIX)
    again = QueuesConfig.model_validate(renamed.model_dump(by_alias=True, exclude_unset=True, mode="json"))
    assert [c.name for c in again.workload_priority_classes] == [f"high{SUFFIX}"]
    assert [c.name for c in again.provisioning_request_configs] == [f"capacity-check{SUFFIX}"]


def _strings(value, path=""):
    """Every string leaf of a manifest with its path (``spec.resourceGroups[].flavors[].name``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, f"{path}[]")
    elif isinstance(value, str):
        yield path, value


NOT_NAMES = {("ResourceFlavor", "spec.nodeLabels."), ("ProvisioningRequestConfig", "spec.parameters.")}
"""Fields whose values may equal an object's name without naming it: node labels select pools, a
ProvisioningRequestConfig's parameters are its class's, labels are for metrics and selection."""


@pytest.mark.parametrize("section", [GENERAL, EVERY_KIND], ids=["general", "every-kind"])
def test_no_name_of_the_stacks_own_survives_the_suffix_in_any_field(section):
    """Independent of the reference table: every string of the renamed objects equal to one of the stack's original
    names is a reference the renaming missed, unless the field is not a name."""
    config = QueuesConfig.model_validate(section)
    own = {m["metadata"]["name"] for m in queue_manifests(config)} | set(config.namespaces)
    missed = [
        (m["kind"], path, value)
        for m in queue_manifests(config.named_with(SUFFIX))
        for path, value in _strings(m)
        if value in own
        and not path.startswith("metadata.labels.")
        and not any(m["kind"] == kind and path.startswith(prefix) for kind, prefix in NOT_NAMES)
    ]
    assert missed == []
