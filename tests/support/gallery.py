"""Comparing what a stack renders with the objects an upstream example writes: the Kueue objects and namespaces, as
the API server keeps them (CRD defaults applied, quantities canonical)."""

from __future__ import annotations

from typing import Any

from components.config.kueue.kueue import OPT_IN_LABEL
from tests.support.schemas import validate_kueue, with_crd_defaults
from tests.support.stacks import of_type

QUANTITY_KEYS = {"nominalQuota", "borrowingLimit", "lendingLimit", "weight"}


def is_kueue(obj: dict[str, Any]) -> bool:
    return str(obj["apiVersion"]).startswith("kueue.x-k8s.io/")


def identity(obj: dict[str, Any]) -> tuple[str, str | None, str]:
    return obj["kind"], obj["metadata"].get("namespace"), obj["metadata"]["name"]


def _quantity(value: Any) -> Any:
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def canonical(value: Any, key: str | None = None) -> Any:
    """Quantities as text: upstream writes ``nominalQuota: 9`` where the program writes ``"9"``, one quantity to the
    API server. Transformation ``outputs`` are quantities too."""
    if isinstance(value, dict):
        if key == "outputs":
            return {name: _quantity(amount) for name, amount in value.items()}
        return {name: canonical(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [canonical(item, key) for item in value]
    return _quantity(value) if key in QUANTITY_KEYS else value


def normalized(obj: dict[str, Any]) -> dict[str, Any]:
    """The object as the API server keeps it: CRD defaults applied, quantities canonical. A namespace's opt-in label
    for Kueue's Job webhook is the program's secure default, not part of the upstream set-up (its own test below)."""
    if obj["kind"] == "Namespace":
        labels = {k: v for k, v in obj["metadata"].get("labels", {}).items() if (k, v) != OPT_IN_LABEL}
        metadata = {k: v for k, v in obj["metadata"].items() if k != "labels"} | ({"labels": labels} if labels else {})
        return {**obj, "metadata": metadata}
    return canonical(with_crd_defaults(obj) if is_kueue(obj) else obj)


def label_patches(plan: dict[str, Any]) -> set[str]:
    """The existing namespaces whose opt-in label the stack patches on: named by the set-up, not made by it."""
    return {r["inputs"]["metadata"]["name"] for r in of_type(plan, "kubernetes:core/v1:NamespacePatch")}


def queue_objects(
    manifests: dict[str, dict[str, Any]], patched: set[str]
) -> dict[tuple[str, str | None, str], dict[str, Any]]:
    """The rendered Kueue objects and the namespaces made for them (not Kueue's own ``kueue-system``)."""
    return {
        identity(obj): obj
        for obj in manifests.values()
        if is_kueue(obj) or (obj["kind"] == "Namespace" and obj["metadata"]["name"] not in {"kueue-system", *patched})
    }


def assert_renders_the_upstream_objects(
    plan: dict[str, Any], manifests: dict[str, dict[str, Any]], upstream: list[dict[str, Any]]
) -> None:
    """The rendered Kueue objects and namespaces are exactly ``upstream``, each valid for Kueue's CRDs and equal to
    its upstream twin as the API server keeps them."""
    actual = queue_objects(manifests, label_patches(plan))
    expected = {identity(obj): obj for obj in upstream}
    assert sorted(actual, key=str) == sorted(expected, key=str)
    for key, obj in actual.items():
        if is_kueue(obj):
            validate_kueue(obj)
            validate_kueue(expected[key])
        assert normalized(obj) == normalized(expected[key]), key
