"""PromQL read with a real parser: promql-parser (https://github.com/messense/py-promql-parser), the Python bindings of
GreptimeTeam's Rust parser, which follows the grammar of Prometheus 2.45. Grafana's variables are replaced first."""

from __future__ import annotations

import dataclasses
import re

import promql_parser

GRAFANA_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
RATE_INTERVAL = "__rate_interval"
"""Grafana's built-in range for ``rate()``: at least four scrape intervals."""
LABEL_VALUES = re.compile(r"^label_values\((?P<selector>.+),\s*(?P<label>\w+)\)$")
"""A Prometheus query variable of Grafana: ``label_values(<series selector>, <label>)``."""


@dataclasses.dataclass(frozen=True)
class Selector:
    """One vector selector: the series it names and its label matchers (label -> operator and value)."""

    series: str
    matchers: dict[str, tuple[str, str]]


def variables(expr: str) -> set[str]:
    return {braced or bare for braced, bare in GRAFANA_VARIABLE.findall(expr)}


def parse(expr: str) -> promql_parser.Expr:
    """Parse ``expr`` with a range for ``$__rate_interval``; other variables stand in label values, where they are
    strings PromQL accepts as they are (one anywhere else fails to parse)."""
    text = GRAFANA_VARIABLE.sub(lambda m: "5m" if RATE_INTERVAL in m.groups() else m.group(0), expr)
    return promql_parser.parse(text)


def _nodes(expr: promql_parser.Expr) -> list[promql_parser.Expr]:
    found: list[promql_parser.Expr] = []
    promql_parser.walk(expr, found.append)
    return found


def selectors(expr: str | promql_parser.Expr) -> list[Selector]:
    tree = parse(expr) if isinstance(expr, str) else expr
    return [
        Selector(node.name, {m.name: (str(m.op).removeprefix("MatchOp."), m.value) for m in node.matchers.matchers})
        for node in _nodes(tree)
        if isinstance(node, promql_parser.VectorSelector)
    ]


def groupings(expr: str) -> list[tuple[list[str], list[str]]]:
    """Each ``by (...)`` aggregation: its labels and the series under it."""
    return [
        (list(node.modifier.labels), [s.series for s in selectors(node.expr)])
        for node in _nodes(parse(expr))
        if isinstance(node, promql_parser.AggregateExpr)
        and node.modifier is not None
        and node.modifier.type == promql_parser.AggModifierType.By
    ]


def label_values(query: str) -> tuple[str, str]:
    """The series selector and label of a ``label_values`` variable query."""
    match = LABEL_VALUES.match(query)
    assert match is not None, f"not a label_values query: {query}"
    return match.group("selector"), match.group("label")
