"""What every policy reads: resource properties as the policy SDK hands them over, Kubernetes quantities, and whether
the stack under analysis is a production stack.

The SDK passes properties as read-only mappings and sequences (proxies that raise ``UnknownValueError`` when a value
only ``pulumi up`` knows is read during preview, which the SDK reports as an advisory "can't run policy"), never as
plain dicts and lists, and every number as a float. The helpers here accept both, and read only the path they are
asked for, so an unknown value elsewhere in a resource never stops a policy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import pulumi.runtime

PROJECT = "elastic-capacity"
"""The Pulumi project (``Pulumi.yaml``): its stack config keys are ``elastic-capacity:<key>``."""

ENVIRONMENT_KEYS = (f"{PROJECT}:environment", f"{PROJECT}:config:environment")
"""The stack config key of ``environment`` (``kind: dev | ephemeral | production``), in both spellings the CLI has
used for ``PULUMI_CONFIG``."""

PRODUCTION = "production"
ENVIRONMENT_TAG = "environment"
"""A stack tag (``pulumi stack tag set environment production``) that marks a stack as production, too."""


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def sequence(value: Any) -> Sequence[Any]:
    """``value`` if it is a list (not a string), else an empty one."""
    return value if isinstance(value, Sequence) and not isinstance(value, str | bytes) else ()


def dig(value: Any, *path: str) -> Any:
    """The value at ``path`` under ``value``, or ``None`` where a step is missing or not a mapping."""
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def names_at(value: Any, path: str) -> list[Any]:
    """The values at a reference table path under ``value`` (``spec.resourceGroups[].flavors[].name``: ``[]`` steps
    into every item of a list); a missing step gives none."""
    values = [value]
    for step in path.split("."):
        values = [mapping(holder).get(step.removesuffix("[]")) for holder in values]
        if step.endswith("[]"):
            values = [item for items in values for item in sequence(items)]
    return [found for found in values if found is not None]


def number(value: Any) -> str:
    """A number as a person writes it: ``3``, not ``3.0`` (every number reaches a policy as a float)."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$")


def quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity (``"500m"``, ``"8Gi"``, ``2``, ``"1e3"``) as an exact number, ``None`` if it is not one.

    The serialization format of https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/, so
    ``"1"`` equals ``"1000m"`` and ``"1Gi"`` equals ``"1024Mi"``.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Decimal(str(value))
    match = _QUANTITY.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        return None
    suffix = match.group(3) or ""
    try:
        base = Decimal(match.group(1))
        if match.group(2):
            return base.scaleb(int(match.group(2)[1:]))
        return base * _BINARY[suffix] if suffix in _BINARY else base.scaleb(_DECIMAL[suffix])
    except ArithmeticError:  # an exponent beyond any quantity (1e1000000): nothing a policy can judge
        return None


def environment_kind(config: Mapping[str, Any]) -> str:
    """The stack's ``environment.kind`` in the config the CLI hands a policy pack (``dev`` when it sets none).

    The CLI passes the stack's config to the pack as ``PULUMI_CONFIG``, a JSON object of ``project:key`` to the value,
    an object value as its JSON text, as it does for the program.
    """
    for key in ENVIRONMENT_KEYS:
        raw = config.get(key)
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                continue
        kind = mapping(raw).get("kind")
        if isinstance(kind, str):
            return kind
    return "dev"


def production_reason(stack_tags: Mapping[str, str], config: Mapping[str, Any] | None = None) -> str | None:
    """Why the stack under analysis is a production stack, or ``None`` if it is not one.

    A production stack is one whose config says ``elastic-capacity:environment.kind: production`` (what the program
    itself reads, so the policy and the program never disagree), or one tagged ``environment: production`` in its
    backend. ``config`` defaults to what the CLI passed this process.
    """
    config = pulumi.runtime.get_config_env() if config is None else config
    if environment_kind(config) == PRODUCTION:
        return f"its config sets {ENVIRONMENT_KEYS[0]}.kind: {PRODUCTION}"
    if stack_tags.get(ENVIRONMENT_TAG) == PRODUCTION:
        return f"its stack tag {ENVIRONMENT_TAG} is {PRODUCTION}"
    return None
