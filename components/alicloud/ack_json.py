"""Addon configuration as JSON text, byte for byte as the Alibaba Cloud provider writes it back.

The provider stores a ``KubernetesAddon``'s ``config`` as Go's ``json.Marshal`` of the merged map
(https://github.com/aliyun/terraform-provider-alicloud/blob/master/alicloud/resource_alicloud_cs_kubernetes_addon.go),
and the field has no diff suppression: any byte that differs from what the program sends is a diff on every run.
Go sorts keys, writes no spaces, keeps non-ASCII text as UTF-8, escapes ``<``, ``>``, ``&``, U+2028 and U+2029 as
``\\u003c``-style escapes, and writes numbers (all ``float64`` after unmarshalling, integers included) in the
shortest form, using an exponent only below 1e-6 or from 1e21 (https://pkg.go.dev/encoding/json#Marshal).
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_GO_ESCAPED = re.compile("[<>&\u2028\u2029]")
_SHORT_NEGATIVE_EXPONENT = re.compile(r"e-0(\d)$")


def canonical_json(value: Any) -> str:
    """``value`` as Go's ``json.Marshal`` writes it after unmarshalling it into ``interface{}``."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: str(item[0]))
        return "{" + ",".join(f"{_string(str(key))}:{canonical_json(item)}" for key, item in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int | float):
        # Go reads every number into a float64: a large integer comes back rounded, and from 1e21 as an exponent.
        return _number(float(value))
    raise TypeError(f"{value!r} is not JSON")


def _string(text: str) -> str:
    return _GO_ESCAPED.sub(lambda match: _GO_ESCAPES[match.group()], json.dumps(text, ensure_ascii=False))


def _number(value: float) -> str:
    """Go's ``strconv.AppendFloat(f, 'f' or 'e', -1, 64)``: the shortest digits that read back as ``value`` (Python's
    ``repr`` finds the same ones), written out in full, so ``2.0**60`` is ``1152921504606847000``."""
    if not math.isfinite(value):
        raise ValueError(f"{value!r}: JSON has no NaN or infinity")
    if value == 0:
        return "-0" if math.copysign(1, value) < 0 else "0"
    if abs(value) < 1e-6 or abs(value) >= 1e21:
        return _SHORT_NEGATIVE_EXPONENT.sub(r"e-\1", repr(value))
    text = format(Decimal(repr(value)), "f")
    return text.removesuffix(".0")
