"""Addon config JSON is byte for byte what the provider stores (Go's ``json.Marshal``), so it never diffs."""

from __future__ import annotations

import json

import pytest

from components.alicloud.ack_json import canonical_json


def test_compact_sorted_and_order_independent():
    first = canonical_json({"b": {"y": "1", "x": True}, "a": [2, 1]})
    second = canonical_json({"a": [2, 1], "b": {"x": True, "y": "1"}})
    assert first == second == '{"a":[2,1],"b":{"x":true,"y":"1"}}'
    assert json.loads(first) == {"a": [2, 1], "b": {"x": True, "y": "1"}}


@pytest.mark.parametrize(
    ("value", "go"),
    [
        # Go escapes HTML-significant characters and the two JavaScript line terminators...
        ({"rule": "a<b && c>d"}, '{"rule":"a\\u003cb \\u0026\\u0026 c\\u003ed"}'),
        ("line\u2028para\u2029", '"line\\u2028para\\u2029"'),
        # ...but keeps other non-ASCII text as UTF-8, and writes control characters as Python does.
        ("zone: 杭州 é", '"zone: 杭州 é"'),
        ("tab\tnew\nline\x01", '"tab\\tnew\\nline\\u0001"'),
        ({"k": None, "t": False}, '{"k":null,"t":false}'),
    ],
)
def test_strings_are_escaped_as_go_escapes_them(value, go):
    assert canonical_json(value) == go
    assert json.loads(canonical_json(value)) == value


@pytest.mark.parametrize(
    ("number", "go"),
    [
        (1.0, "1"),  # every JSON number is a float64 in Go: 1.0 is written as 1
        (10, "10"),
        (0.5, "0.5"),
        (1.5e-05, "0.000015"),  # Go uses an exponent only below 1e-6 ...
        (1e-06, "0.000001"),
        (1e-07, "1e-7"),  # ... and drops the exponent's leading zero
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),  # ... or from 1e21 on
        (-0.0, "-0"),
        # Integers are float64s too: rounded past 2**53, and an exponent from 1e21 on, as Go writes them back.
        (2**53 + 1, "9007199254740992"),
        (2**60, "1152921504606847000"),  # the shortest digits that read back, not the exact value
        (10**21, "1e+21"),
        (-(10**22), "-1e+22"),
    ],
)
def test_numbers_are_written_as_go_writes_float64(number, go):
    assert canonical_json(number) == go


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1, 2}])
def test_values_json_cannot_carry_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        canonical_json(bad)
