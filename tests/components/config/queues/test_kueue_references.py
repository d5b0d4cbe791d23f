"""The reference table against independent oracles: Kueue's CRDs (every field the table names exists, and every field
shaped like a reference is in the table), the config model (every path is a key of it), the loader (every reference
is resolved, naming its key) and the policy pack's copy."""

from __future__ import annotations

import copy
import re
import typing
from typing import Any

import pytest
from pydantic import BaseModel

from components.config.kueue.profiles import PROFILES
from components.config.queues.kueue_references import BY_KIND, KINDS, REFERENCES, config_names, config_path, replaced
from components.config.queues.queues import QueuesConfig
from components.manifests.queues import queue_manifests
from tests.support import policy_references
from tests.support.queues import (
    CONCURRENT_ADMISSION,
    EVERY_KIND,
    GENERAL,
    MULTIKUEUE_OBJECTS,
    edited,
    queues_error_keys,
)
from tests.support.schemas import kueue_schemas

VERSIONS = [profile.latest for profile in PROFILES.values()]
API_VERSION = "kueue.x-k8s.io/v1beta2"
NOT_REFERENCES = {
    ("AdmissionCheck", "spec.controllerName"): "the controller that runs the check, not an object",
    ("ProvisioningRequestConfig", "spec.provisioningClassName"): "a class the cluster autoscaler implements",
    ("ClusterQueue", "spec.resourceGroups[].flavors[].resources[].name"): "a resource (cpu, memory), not an object",
    ("Cohort", "spec.resourceGroups[].flavors[].resources[].name"): "a resource (cpu, memory), not an object",
    ("MultiKueueCluster", "spec.clusterSource.clusterProfileRef.name"): "a ClusterProfile of the Cluster Inventory "
    "API, which another controller makes",
}
"""Fields shaped like a reference that are not one, each with why."""
NOT_WRITTEN_KINDS = {"Workload": "Kueue creates one per submitted job"}
KIND_WORDS = ("flavor", "queue", "cohort", "check", "topology", "cluster", "config", "class")
"""The last words of Kueue's kinds: a field ending in one (``clusterQueue``, ``onFlavors``) names an object."""


def _reference_shaped(leaf: str) -> bool:
    word = leaf.removesuffix("s").lower()
    return leaf == "name" or leaf.endswith("Name") or word.endswith(KIND_WORDS)


def _string_fields(schema: dict[str, Any], path: str) -> typing.Iterator[str]:
    """Every string (or list of strings) field under ``schema`` but enums, as a table path."""
    if schema.get("type") == "object":
        for name, sub in (schema.get("properties") or {}).items():
            yield from _string_fields(sub, f"{path}.{name}" if path else name)
    elif schema.get("type") == "array":
        yield from _string_fields(schema.get("items") or {}, f"{path}[]")
    elif schema.get("type") == "string" and "enum" not in schema:
        yield path


def _written_fields(kind: str, version: str) -> list[str]:
    """What the stack may write of ``kind``: its spec (the top level of a kind without one), status left out."""
    schema = kueue_schemas(version)[(API_VERSION, kind)]
    top = {k: v for k, v in schema["properties"].items() if k not in ("apiVersion", "kind", "metadata", "status")}
    return list(_string_fields({"type": "object", "properties": top}, ""))


def _item_model(annotation: Any) -> type[BaseModel] | None:
    """The config model a field holds, through ``list[...]``, ``| None`` and ``Annotated``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for arg in typing.get_args(annotation) if (m := _item_model(arg)) is not None), None)


def _config_has(path: str, model: type[BaseModel] = QueuesConfig) -> bool:
    """Whether ``path`` (``clusterQueues[].cohortName``) is a key of the config model."""
    current: type[BaseModel] | None = model
    for step in path.split("."):
        if current is None:
            return False
        fields = {field.alias: field for field in current.model_fields.values()}
        field = fields.get(step.removesuffix("[]"))
        if field is None:
            return False
        current = _item_model(field.annotation)
    return True


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    return request.param


def test_every_kueue_kind_the_crds_serve_is_in_the_table_or_not_written(version):
    served = {kind for (api_version, kind) in kueue_schemas(version) if api_version == API_VERSION}
    assert served - set(NOT_WRITTEN_KINDS) == {k.kind for k in KINDS} - {"Namespace", "Secret"}


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda r: f"{r.kind}.{r.path}->{r.target}")
def test_every_reference_of_the_table_is_a_string_field_of_its_kinds_crd(reference, version):
    if reference.path.startswith("metadata."):
        assert reference.path in ("metadata.name", "metadata.namespace")
    elif reference.path not in _written_fields(reference.kind, version):
        # A field a later minor added (0.18's concurrentAdmissionPolicy): this minor's CRD has none of it.
        field = reference.path.split(".")[1]
        assert not any(path.startswith(f"spec.{field}") for path in _written_fields(reference.kind, version))
        assert reference.path in _written_fields(reference.kind, VERSIONS[-1])


def test_every_field_of_the_crds_shaped_like_a_reference_is_in_the_table(version):
    """A field a future Kueue adds that names an object (``…Name``, ``clusterQueue``, ``onFlavors``) fails here
    until it is a line of the table, a not-a-reference with its reason, or a field the config model has no key for."""
    table = {(r.kind, r.path) for r in REFERENCES}
    missing = []
    for kind in sorted({k.kind for k in KINDS} - {"Namespace", "Secret"}):
        section = BY_KIND[kind].section
        for path in _written_fields(kind, version):
            leaf = re.sub(r"\[\]", "", path).rsplit(".", 1)[-1]
            if not _reference_shaped(leaf) or (kind, path) in table or (kind, path) in NOT_REFERENCES:
                continue
            writable = section is None or _config_has(f"{section}.{path.split('.', 1)[1]}")
            if writable:
                missing.append((kind, path))
    assert missing == []


def test_the_not_references_are_fields_of_the_crds(version):
    for kind, path in NOT_REFERENCES:
        assert path in _written_fields(kind, version), (kind, path)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.kind)
def test_every_config_path_of_the_table_is_a_key_of_the_config_model(kind):
    for path in (*kind.names, *([kind.elsewhere] if kind.elsewhere else []), *([kind.section] if kind.section else [])):
        assert _config_has(path), path
    for reference in REFERENCES:
        path = config_path(reference)
        if reference.kind == kind.kind and path is not None and not reference.path.startswith("spec.parameters"):
            assert _config_has(path), path
    assert _config_has("admissionChecks[].parameters.name")


@pytest.mark.parametrize("path", sorted({p for r in REFERENCES if (p := config_path(r))}))
def test_a_rename_copies_only_the_models_along_a_name_it_changes(path):
    queues = QueuesConfig.model_validate(EVERY_KIND)
    assert replaced(queues, path, lambda _key, name: name) is queues
    renamed = replaced(queues, path, lambda _key, name: f"{name}-x")
    if not config_names(queues, path):
        assert renamed is queues
        return
    assert renamed is not queues
    assert [name for _, name in config_names(renamed, path)] == [f"{name}-x" for _, name in config_names(queues, path)]
    top = _attribute(path.split("[")[0].split(".")[0])
    assert all(getattr(renamed, field) is getattr(queues, field) for field in QueuesConfig.model_fields if field != top)


def _attribute(key: str) -> str:
    return next(name for name, field in QueuesConfig.model_fields.items() if (field.alias or name) == key)


SET_UPS = {
    "GENERAL": GENERAL,
    "EVERY_KIND": EVERY_KIND,
    "CONCURRENT_ADMISSION": CONCURRENT_ADMISSION,
    "MULTIKUEUE_OBJECTS": MULTIKUEUE_OBJECTS,
}


def _planted() -> list[tuple[str, str, str]]:
    """For each reference the ``queues`` section configures: its first key in GENERAL or EVERY_KIND, as an edit."""
    out = []
    for reference in REFERENCES:
        path = config_path(reference)
        target = BY_KIND[reference.target]
        if path is None or target.any_name or not (target.names or target.elsewhere):
            continue  # a name the stack never makes nor declares (a kubeconfig Secret the user provides)
        for name, base in SET_UPS.items():
            found = config_names(QueuesConfig.model_validate(base), path, reference)
            if found:
                out.append((name, found[0][0], reference.target))
                break
        else:
            out.append(("", path, reference.target))
    return out


def _declared(section: dict[str, Any], elsewhere: str, name: str) -> dict[str, Any]:
    out = copy.deepcopy(section)
    *parents, last = elsewhere.removesuffix("[]").split(".")
    holder = out
    for step in parents:
        holder = holder.setdefault(step, {})
    holder[last] = [*holder.get(last, []), name]
    return out


@pytest.mark.parametrize(("base", "key", "target"), _planted(), ids=[p[1] for p in _planted()])
def test_every_configured_reference_to_nothing_is_refused_at_its_key_and_accepted_once_declared(base, key, target):
    assert base, f"no set-up in tests/support/queues.py writes {key}: add one"
    section = SET_UPS[base]
    planted = edited(section, (re.sub(r"\[(\d+)\]", r".\1", key), "nowhere"))
    assert queues_error_keys(planted) == [f"queues.{key}"]
    elsewhere = BY_KIND[target].elsewhere
    if not re.search(r"\.onFlavors\[|lastAcceptableFlavorName", key):
        # a check gates, and a workload migrates to, only flavors of its own queue, made anywhere (the webhook's rule)
        assert elsewhere is not None
        QueuesConfig.model_validate(_declared(planted, elsewhere, "nowhere"))


def test_the_apply_order_puts_what_an_object_names_before_it():
    """Independent of the table: the kinds in the order Kueue's own examples apply them, Cohort parents first."""
    manifests = queue_manifests(QueuesConfig.model_validate(EVERY_KIND))
    kinds = list(dict.fromkeys(m["kind"] for m in manifests))
    assert kinds == [
        "Namespace",
        "Topology",
        "ResourceFlavor",
        "WorkloadPriorityClass",
        "ProvisioningRequestConfig",
        "AdmissionCheck",
        "Cohort",
        "ClusterQueue",
        "LocalQueue",
    ]
    cohorts = [m for m in manifests if m["kind"] == "Cohort"]
    seen: set[str] = set()
    for cohort in cohorts:
        parent = cohort.get("spec", {}).get("parentName")
        assert parent is None or parent in seen or parent not in {c["metadata"]["name"] for c in cohorts}
        seen.add(cohort["metadata"]["name"])


def test_the_policy_packs_copy_is_the_table():
    assert policy_references.PACK_COPY.read_text(encoding="utf-8") == policy_references.text(), (
        "the pack's kueue_references.py is stale: python -m tests.support.policy_references --write"
    )


def test_a_config_error_names_the_reference_and_what_resolves_it():
    made_elsewhere = r"made by the stack\) or queues\.external\.clusterQueues \[\] \(made elsewhere\)"
    with pytest.raises(ValueError, match=made_elsewhere):
        QueuesConfig.model_validate(edited(GENERAL, ("localQueues.0.clusterQueue", "nowhere")))
