"""Evaluate a CRD's ``x-kubernetes-validations`` (CEL) rules on an object, as the API server does on create.

The OpenAPI part of a CRD schema says little about how fields relate (e.g. a ClusterQueue's borrowingLimit needs a
cohort); those checks are CEL rules, and without them a test passes objects the cluster would refuse. The rules run
on cel-python, fed values typed the way Kubernetes types them (int64 integers, doubles for ``number``, timestamps
for ``date-time`` strings, escaped property names, only name and generateName of the root metadata).

Transition rules (those that read ``oldSelf``) only run on update, so they are skipped here and counted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import celpy
from celpy import celtypes
from celpy.adapter import json_to_cel
from celpy.evaluation import CELEvalError, base_functions

_ENV = celpy.Environment()
_MACROS = {"has", "dyn", "all", "exists", "exists_one", "map", "filter"}
KNOWN_FUNCTIONS = frozenset(base_functions) | _MACROS
"""What a rule may call: CEL's standard functions and macros that celpy provides. The Kueue CRDs use nothing from
Kubernetes' CEL libraries (no quantity, lists, optional or regex extensions), so none is implemented; a CRD update
that starts using one fails ``rule_functions`` in the tests rather than failing every object at evaluation."""
_RESERVED = {"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if"}
_RESERVED |= {"import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
_OLD_SELF = re.compile(r"\boldSelf\b")


def is_transition(rule: dict[str, Any]) -> bool:
    """A rule that compares with the stored object; Kubernetes evaluates it only on update."""
    return bool(_OLD_SELF.search(rule["rule"]))


@functools.cache
def program(text: str) -> celpy.Runner:
    """Compile once per rule text: the same few rules run thousands of times in a test run."""
    return _ENV.program(_ENV.compile(text))


def rule_functions(text: str) -> set[str]:
    """The functions and macros a rule calls, by name, read from its parse tree."""
    names = set()
    for node in _ENV.compile(text).iter_subtrees():
        if node.data == "ident_arg":
            names.add(str(node.children[0]))
        elif node.data == "member_dot_arg":
            names.add(str(node.children[1]))
    return names


def schema_rules(schema: dict[str, Any], path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every rule of a structural schema with the schema path it sits at (``[*]`` for list items and map values)."""
    for rule in schema.get("x-kubernetes-validations", []):
        yield path, rule
    for name, sub in schema.get("properties", {}).items():
        yield from schema_rules(sub, f"{path}.{name}" if path else name)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            yield from schema_rules(schema[key], f"{path}[*]")


@dataclass
class Checked:
    """What ``check_rules`` did, one rule text per node and rule: the rules evaluated, the transition rules skipped."""

    evaluated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def check_rules(obj: dict[str, Any], schema: dict[str, Any]) -> Checked:
    """Evaluate every create-time rule on the node of ``obj`` its schema node describes; raise listing failures."""
    nodes: list[tuple[str, list[dict[str, Any]], Any]] = []
    _to_cel(obj, schema, "", nodes, root=True)
    checked, failures = Checked(), []
    for path, rules, value in nodes:
        for rule in rules:
            if is_transition(rule):
                checked.skipped.append(rule["rule"])
                continue
            checked.evaluated.append(rule["rule"])
            result = _evaluate(rule["rule"], value)
            if not (isinstance(result, celtypes.BoolType) and result):
                where = f"{path or '<root>'}{rule.get('fieldPath', '')}"
                failures.append(f"{where}: {_message(rule, value)} (rule: {rule['rule']})")
    if failures:
        raise AssertionError("CEL validation failed:\n" + "\n".join(failures))
    return checked


def _evaluate(text: str, value: Any) -> Any:
    """The rule's result, or the error: Kubernetes counts an evaluation error (e.g. a missing field) as a failure."""
    try:
        return program(text).evaluate({"self": value})
    except CELEvalError as error:
        return error


def _message(rule: dict[str, Any], value: Any) -> str:
    """The rule's messageExpression if it yields a non-blank string, else its message, else Kubernetes' default."""
    if "messageExpression" in rule:
        message = _evaluate(rule["messageExpression"], value)
        if isinstance(message, str) and message.strip():  # celpy gives str for a concatenation
            return str(message)
    return str(rule.get("message") or f"failed rule: {rule['rule']}")


def _escape(name: str) -> str:
    """A property name as CEL sees it (Kubernetes' escaping: ``x-y`` is ``x__dash__y``, ``namespace`` is
    ``__namespace__``)."""
    if name in _RESERVED:
        return f"__{name}__"
    return re.sub(r"__|[./-]", lambda m: _ESCAPES[m.group()], name)


def _to_cel(value: Any, schema: dict[str, Any], path: str, nodes: list[Any], root: bool = False) -> Any:
    """Convert ``value`` to CEL types by its schema, noting each node that carries rules (parents before children)."""
    if rules := schema.get("x-kubernetes-validations"):
        nodes.append((path, rules, None))
        slot = len(nodes) - 1
    properties, extra, items = schema.get("properties"), schema.get("additionalProperties"), schema.get("items")
    if isinstance(value, dict) and properties is not None:
        if root and isinstance(value.get("metadata"), dict):
            value = {**value, "metadata": {k: v for k, v in value["metadata"].items() if k in ("name", "generateName")}}
        fields = {k: (properties[k], f"{path}.{k}" if path else k) for k in value if k in properties}
        result: Any = celtypes.MapType(
            {celtypes.StringType(_escape(k)): _to_cel(value[k], sub, p, nodes) for k, (sub, p) in fields.items()}
        )
    elif isinstance(value, dict) and isinstance(extra, dict):
        result = celtypes.MapType(
            {celtypes.StringType(k): _to_cel(v, extra, f"{path}[{k}]", nodes) for k, v in value.items()}
        )
    elif isinstance(value, list) and isinstance(items, dict):
        result = celtypes.ListType([_to_cel(v, items, f"{path}[{i}]", nodes) for i, v in enumerate(value)])
    else:
        result = _scalar(value, schema)
    if rules:
        nodes[slot] = (path, rules, result)
    return result


def _scalar(value: Any, schema: dict[str, Any]) -> Any:
    """A leaf (or schemaless subtree) typed as Kubernetes types it: ``number`` is double even when written ``1``."""
    if type(value) is int and schema.get("type") == "number":
        return celtypes.DoubleType(value)
    if isinstance(value, str) and schema.get("format") == "date-time":
        return celtypes.TimestampType(value)
    return json_to_cel(value)
