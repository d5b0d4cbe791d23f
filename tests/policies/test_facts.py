"""The facts every policy reads: properties in the SDK's shape, Kubernetes quantities, and production stacks, decided
from the config the CLI hands the pack for each shipped stack."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from elastic_capacity_policies.facts import (
    dig,
    environment_kind,
    mapping,
    number,
    production_reason,
    quantity,
    sequence,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi_policy.proxy import UnknownValueError, unknown_checking_proxy

from components.config import kube

KINDS = {
    "aks-kueue-dev": "dev",
    "aks-kueue-china": "dev",
    "ack-acs-dev": "dev",
    "multicloud": "production",
    "ephemeral": "ephemeral",
    "ephemeral-shared": "ephemeral",
}


@pytest.mark.parametrize(("stack", "kind"), KINDS.items())
def test_each_shipped_stacks_kind_comes_from_the_config_the_cli_passes(engine, stack, kind):
    config = engine.config(stack)
    assert environment_kind(config) == kind
    assert (production_reason({}, config) is not None) == (kind == "production")


def test_production_is_read_from_pulumi_config_as_the_cli_sets_it(engine, monkeypatch):
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps(engine.config("multicloud")))
    assert production_reason({}) == "its config sets elastic-capacity:environment.kind: production"
    monkeypatch.setenv("PULUMI_CONFIG", json.dumps(engine.config("ack-acs-dev")))
    assert production_reason({}) is None
    monkeypatch.delenv("PULUMI_CONFIG")
    assert production_reason({}) is None


def test_a_stack_tag_marks_production_too_and_either_spelling_of_the_key_counts():
    assert production_reason({"environment": "production"}, {}) == "its stack tag environment is production"
    assert production_reason({"environment": "dev"}, {}) is None
    assert environment_kind({"elastic-capacity:config:environment": '{"kind": "production"}'}) == "production"
    assert environment_kind({"elastic-capacity:environment": {"kind": "production"}}) == "production"
    assert environment_kind({"elastic-capacity:environment": "not json"}) == "dev"


def test_quantities_compare_by_value():
    assert quantity("1") == quantity("1000m") == quantity(1.0) == Decimal(1)
    assert quantity("1Gi") == quantity("1024Mi") == Decimal(2**30)
    assert quantity("8G") == Decimal(8 * 10**9)
    assert quantity("1e3") == quantity("1k") == Decimal(1000)
    assert quantity("1E") == Decimal(10**18)
    assert quantity("500m") == Decimal("0.5")
    for bad in ("", "1x", "Gi", None, True, "1.2.3"):
        assert quantity(bad) is None


def test_a_quantity_no_number_can_hold_is_no_quantity_rather_than_an_overflow():
    for huge in ("1e1000000", "9e999999999", "9e99999999999999999999"):
        assert quantity(huge) is None


def test_helpers_read_the_sdks_proxies_and_stop_only_at_an_unknown_they_are_asked_for():
    props = unknown_checking_proxy(
        {"a": {"b": [1.0, {"c": "x"}]}, "later": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"}  # rpc.UNKNOWN
    )
    assert dig(props, "a", "b", "missing") is None
    assert [mapping(item).get("c") for item in sequence(dig(props, "a", "b"))] == [None, "x"]
    assert sequence("text") == () and mapping([1]) == {}
    with pytest.raises(UnknownValueError):
        dig(props, "later")
    assert number(3.0) == "3" and number(2.5) == "2.5"


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.from_regex(kube._QUANTITY, fullmatch=True))  # the grammar the model enforces
def test_the_packs_quantity_and_the_config_models_agree_on_every_quantity_the_api_server_takes(text):
    """The pack cannot import the program (it ships alone), so it has its own parser; both must read a quantity the
    same, or a policy and the config model would judge one stack file differently."""
    try:
        expected = kube.quantity_value(text)
    except kube.QuantityOutOfRange:
        return  # refused by the model at load: the pack never sees it
    assert quantity(text) == expected
