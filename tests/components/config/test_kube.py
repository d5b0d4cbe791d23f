"""The Kubernetes value types every config section shares: a good and a bad case for each rule, naming the key."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import TypeAdapter

from components.config.kube import (
    QUANTITY_MAX,
    LabelKey,
    Labels,
    LabelSelector,
    LabelSelectorRequirement,
    LabelValue,
    PositiveQuantity,
    Quantity,
    QuantityOutOfRange,
    Taint,
    Toleration,
    quantity_value,
)
from tests.support.config import model_error_keys

PREFIX_253 = ".".join(["a" * 63] * 3 + ["b" * 61])


# --- label keys, values and maps --------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["agentpool", "nvidia.com/gpu", "kubernetes.io/metadata.name", "A_b.c", "k" * 63])
def test_label_keys_are_qualified_names(key):
    assert TypeAdapter(LabelKey).validate_python(key) == key


def test_label_key_prefix_may_be_253_characters():
    assert len(PREFIX_253) == 253
    assert TypeAdapter(LabelKey).validate_python(f"{PREFIX_253}/x") == f"{PREFIX_253}/x"
    assert model_error_keys(TypeAdapter(LabelKey), f"c{PREFIX_253}/x", "x") == ["x"]


@pytest.mark.parametrize("key", ["", "agent pool", "-a", "a-", "k" * 64, "Example.com/a", "/a", "a/b/c", "a\n"])
def test_other_label_keys_are_refused(key):
    assert model_error_keys(TypeAdapter(LabelKey), key, "x") == ["x"]


@pytest.mark.parametrize("value", ["", "T4", "a.b_c-d", "v" * 63])
def test_label_values(value):
    assert TypeAdapter(LabelValue).validate_python(value) == value


@pytest.mark.parametrize("value", ["v" * 64, "-a", "a.", "scale pool", "a/b"])
def test_other_label_values_are_refused(value):
    assert model_error_keys(TypeAdapter(LabelValue), value, "x") == ["x"]


def test_label_map_errors_name_the_label():
    adapter = TypeAdapter(Labels)
    assert adapter.validate_python({"agentpool": "scalepool", "team": ""}) == {"agentpool": "scalepool", "team": ""}
    assert model_error_keys(adapter, {"agentpool": "a", "agent pool": "b"}, "x") == ["x.agent pool"]
    assert model_error_keys(adapter, {"agentpool": "scale pool"}, "x") == ["x.agentpool"]


# --- quantities --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", Decimal(2)),
        ("0.25", Decimal("0.25")),
        (".5", Decimal("0.5")),
        ("500m", Decimal("0.5")),
        ("1.5k", Decimal(1500)),
        ("2G", Decimal(2 * 10**9)),
        ("4E", Decimal(4 * 10**18)),
        ("1536Mi", Decimal(1536 * 2**20)),
        ("3.5Gi", Decimal("3.5") * 2**30),
        ("2e3", Decimal(2000)),
        ("1E-3", Decimal("0.001")),
        ("+1", Decimal(1)),
        ("-1", Decimal(-1)),
    ],
)
def test_quantity_value_in_cores_or_bytes(text, value):
    assert quantity_value(text) == value


@pytest.mark.parametrize("text", ["", "abc", "Gi", "1e", "1GiB", "1Gib", "2 Gi", "1.2.3", "1e1.5", "--1"])
def test_quantity_value_refuses_what_kubernetes_refuses(text):
    with pytest.raises(ValueError, match="not a Kubernetes quantity"):
        quantity_value(text)


HUGE_OR_TINY = [
    "1e1000000",
    "1e-1000000",
    "9e999999999",
    "9e99999999999999999999",
    "1e" + "9" * 5000,
    "1e19",
    "9223372036854775808",
    "8Ei",
    "1e-10",
    "0.5n",
    "-1e1000000",
]


@pytest.mark.parametrize("text", HUGE_OR_TINY)
def test_a_quantity_kubernetes_cannot_hold_is_out_of_range_not_an_overflow(text):
    """Kubernetes holds 1n to 2^63-1: it rounds smaller values up to 1n, overflows above, and wraps an exponent past
    32 bits; judged before any arithmetic, so no decimal overflow escapes."""
    with pytest.raises(QuantityOutOfRange, match="out of range; a quantity must be 0 or lie between 1n and"):
        quantity_value(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("0e1000000", Decimal(0)), ("1n", Decimal("1e-9")), ("9223372036854775807", QUANTITY_MAX), ("7Ei", 7 * 2**60)],
)
def test_the_ends_of_the_range_are_quantities(text, value):
    assert quantity_value(text) == value


@pytest.mark.parametrize("text", HUGE_OR_TINY[:4])
def test_a_stack_key_with_such_a_quantity_is_one_line_naming_the_key(text):
    assert model_error_keys(TypeAdapter(Quantity), text, "x") == ["x"]
    assert model_error_keys(TypeAdapter(PositiveQuantity), text, "x") == ["x"]


@pytest.mark.parametrize(
    ("written", "kept"),
    [(2, "2"), (0, "0"), (68719476736, "68719476736"), (0.5, "0.5"), (2.0, "2"), (1e3, "1000"), ("3.5Gi", "3.5Gi")],
)
def test_quantities_accept_numbers_and_keep_the_text(written, kept):
    assert TypeAdapter(Quantity).validate_python(written) == kept


@pytest.mark.parametrize("bad", ["-1", -1, -0.5, "64 GiB", True, None, [1]])
def test_quantities_refuse_negatives_booleans_and_non_quantities(bad):
    assert model_error_keys(TypeAdapter(Quantity), bad, "x") == ["x"]


def test_positive_quantities_refuse_zero():
    assert TypeAdapter(PositiveQuantity).validate_python("1m") == "1m"
    for zero in (0, "0m", "0Gi", "-1"):
        assert model_error_keys(TypeAdapter(PositiveQuantity), zero, "x") == ["x"]


# --- taints and tolerations --------------------------------------------------------------------------------------


def test_taint_fields():
    taint = Taint.model_validate({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"})
    assert (taint.key, taint.value, taint.effect) == ("nvidia.com/gpu", "present", "NoSchedule")
    adapter = TypeAdapter(Taint)
    assert model_error_keys(adapter, {"key": "gpu", "effect": "NoRun"}, "x") == ["x.effect"]
    assert model_error_keys(adapter, {"key": "nvidia gpu", "effect": "NoSchedule"}, "x") == ["x.key"]
    assert model_error_keys(adapter, {"key": "gpu", "value": "a b", "effect": "NoSchedule"}, "x") == ["x.value"]
    assert model_error_keys(adapter, {"key": "gpu"}, "x") == ["x.effect"]


@pytest.mark.parametrize(
    "toleration",
    [
        {"operator": "Exists"},
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"},
        {"key": "CriticalAddonsOnly", "operator": "Exists"},
        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "tolerationSeconds": 60},
    ],
)
def test_valid_tolerations(toleration):
    Toleration.model_validate(toleration)


@pytest.mark.parametrize(
    ("toleration", "key"),
    [
        ({"operator": "Equal", "value": "x"}, "x.operator"),
        ({}, "x.operator"),
        ({"key": "gpu", "operator": "Exists", "value": "present"}, "x.value"),
        ({"key": "gpu", "effect": "NoSchedule", "tolerationSeconds": 60}, "x.tolerationSeconds"),
        ({"key": "gpu", "operator": "In"}, "x.operator"),
    ],
)
def test_toleration_rules(toleration, key):
    assert model_error_keys(TypeAdapter(Toleration), toleration, "x") == [key]


# --- label selectors ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "requirement",
    [
        {"key": "team", "operator": "In", "values": ["a", "b"]},
        {"key": "team", "operator": "NotIn", "values": ["a"]},
        {"key": "team", "operator": "Exists"},
        {"key": "team", "operator": "DoesNotExist", "values": []},
    ],
)
def test_selector_operators_with_the_values_they_take(requirement):
    LabelSelectorRequirement.model_validate(requirement)


@pytest.mark.parametrize(
    ("requirement", "key"),
    [
        ({"key": "team", "operator": "In"}, "x.values"),
        ({"key": "team", "operator": "NotIn", "values": []}, "x.values"),
        ({"key": "team", "operator": "Exists", "values": ["a"]}, "x.values"),
        ({"key": "team", "operator": "DoesNotExist", "values": ["a"]}, "x.values"),
        ({"key": "team", "operator": "Equals", "values": ["a"]}, "x.operator"),
        ({"key": "team", "operator": "In", "values": ["not a value"]}, "x.values[0]"),
        ({"key": "a team", "operator": "Exists"}, "x.key"),
    ],
)
def test_selector_operator_rules(requirement, key):
    assert model_error_keys(TypeAdapter(LabelSelectorRequirement), requirement, "x") == [key]


@pytest.mark.parametrize(
    ("selector", "labels", "selected"),
    [
        ({}, {}, True),
        ({"matchLabels": {"team": "a"}}, {"team": "a", "env": "dev"}, True),
        ({"matchLabels": {"team": "a"}}, {"team": "b"}, False),
        ({"matchExpressions": [{"key": "team", "operator": "In", "values": ["a"]}]}, {}, False),
        ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}, {}, True),
        ({"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}, {"team": "a"}, False),
        ({"matchExpressions": [{"key": "team", "operator": "Exists"}]}, {"team": ""}, True),
        ({"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]}, {"team": "a"}, False),
    ],
)
def test_selectors_select_the_way_the_api_server_does(selector, labels, selected):
    assert LabelSelector.model_validate(selector).matches(labels) is selected


def test_unset_selector_parts_stay_out_of_manifests():
    selector = LabelSelector.model_validate({"matchExpressions": [{"key": "team", "operator": "Exists"}]})
    assert selector.model_dump(by_alias=True, exclude_none=True) == {
        "matchExpressions": [{"key": "team", "operator": "Exists"}]
    }
    assert model_error_keys(TypeAdapter(LabelSelector), {"matchLabels": {"team": "a b"}}, "x") == ["x.matchLabels.team"]
