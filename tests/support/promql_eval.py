"""PromQL evaluated offline, on synthetic series, for exactly the constructs the alert rules and the dashboard's
variables use: enough to see a rule fire or stay silent, which parsing alone cannot show.

We found no package on PyPI or npm that ships ``promtool`` or a PromQL engine (npm has grammars only:
``@prometheus-io/lezer-promql``), so this follows Prometheus's own engine for what it covers and refuses the rest
with :class:`Unsupported`. The expression is parsed by the real parser (promql-parser, :mod:`tests.support.promql`);
the semantics are Prometheus's (https://github.com/prometheus/prometheus/tree/main/promql):

- an instant selector takes each series' newest sample in the lookback window ``(t - 5m, t]``; a staleness marker
  there (a series gone from its target, or a failed scrape) hides the series (``engine.go``);
- a range selector takes the samples in ``(t - range, t]``, staleness markers left out;
- ``increase`` is ``extrapolatedRate`` of ``functions.go``: at least two samples, counter resets added back, the
  result extrapolated towards the window's edges but never below a counter's zero;
- ``sum``/``max``/``min``/``count`` ``by``; ``absent``; comparisons filter (``bool`` gives 0/1); arithmetic matches
  one-to-one on all labels but the metric name, or ``on``/``ignoring`` them; ``and``/``or``/``unless`` match the same
  way, many-to-many (``VectorBinop`` and ``resultMetric`` of ``engine.go``);
- an alerting rule is pending from the first evaluation that returns a label set and fires once that set has been
  returned for its ``for`` (``rules/alerting.go``).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import promql_parser

from tests.support.promql import parse

LOOKBACK = 300.0
"""Prometheus's default ``--query.lookback-delta``, 5 minutes."""
STALE = None
"""A staleness marker, as a sample value."""
NAME = "__name__"

Labels = tuple[tuple[str, str], ...]
"""A label set as a sorted tuple: hashable, so a series' key."""


class Unsupported(NotImplementedError):
    """A construct this evaluator does not implement: never a guess at its meaning."""


def labels_of(mapping: Mapping[str, str]) -> Labels:
    return tuple(sorted((k, v) for k, v in mapping.items() if v != ""))


@dataclasses.dataclass(frozen=True)
class Sample:
    """One element of an instant vector."""

    labels: dict[str, str]
    value: float


class Storage:
    """Series by label set, each a time-ordered list of ``(seconds, value or STALE)``."""

    def __init__(self) -> None:
        self.series: dict[Labels, list[tuple[float, float | None]]] = {}

    def append(self, labels: Mapping[str, str], t: float, value: float | None) -> None:
        samples = self.series.setdefault(labels_of(labels), [])
        assert not samples or samples[-1][0] < t, "samples are appended in time order"
        samples.append((t, value))

    def label_values(self, selector: str, label: str, t: float) -> set[str]:
        """What Grafana's ``label_values(selector, label)`` lists: the label's values on the series the selector
        returns now (Grafana asks ``/api/v1/series`` over the dashboard's range; one instant is enough here)."""
        return {s.labels[label] for s in evaluate(selector, self, t) if label in s.labels}


def _matches(labels: Mapping[str, str], node: promql_parser.VectorSelector) -> bool:
    if node.name is not None and labels.get(NAME) != node.name:
        return False
    if node.matchers.or_matchers:
        raise Unsupported("or-matchers")
    for matcher in node.matchers.matchers:
        value, op = labels.get(matcher.name, ""), str(matcher.op).removeprefix("MatchOp.")
        ok = {
            "Equal": value == matcher.value,
            "NotEqual": value != matcher.value,
            "Re": re.fullmatch(matcher.value, value) is not None,
            "NotRe": re.fullmatch(matcher.value, value) is None,
        }[op]
        if not ok:
            return False
    return True


def _offset(node: promql_parser.VectorSelector) -> float:
    if node.at is not None:
        raise Unsupported("@ modifier")
    return node.offset.total_seconds() if node.offset is not None else 0.0


def _instant(node: promql_parser.VectorSelector, storage: Storage, t: float) -> list[Sample]:
    at = t - _offset(node)
    found = []
    for key, samples in storage.series.items():
        labels = dict(key)
        if not _matches(labels, node):
            continue
        recent = [value for ts, value in samples if at - LOOKBACK < ts <= at]
        if recent and recent[-1] is not STALE:
            found.append(Sample(labels, recent[-1]))
    return found


def _range(node: promql_parser.MatrixSelector, storage: Storage, t: float) -> list[tuple[dict[str, str], list]]:
    selector = node.vector_selector
    end = t - _offset(selector)
    start = end - node.range.total_seconds()
    found = []
    for key, samples in storage.series.items():
        labels = dict(key)
        if _matches(labels, selector):
            points = [(ts, value) for ts, value in samples if start < ts <= end and value is not STALE]
            if points:
                found.append((labels, points))
    return found


def _increase(points: list[tuple[float, float]], start: float, end: float) -> float | None:
    """``extrapolatedRate(isCounter=true, isRate=false)`` of Prometheus's ``functions.go``, for floats."""
    if len(points) < 2:
        return None
    (first_t, first), (last_t, last) = points[0], points[-1]
    result = last - first
    for (_, previous), (_, current) in itertools.pairwise(points):
        if current < previous:
            result += previous
    to_start, to_end = first_t - start, end - last_t
    sampled = last_t - first_t
    average = sampled / (len(points) - 1)
    threshold = average * 1.1
    if to_start >= threshold:
        to_start = average / 2
    if result > 0 and first >= 0:
        to_start = min(to_start, sampled * (first / result))
    if to_end >= threshold:
        to_end = average / 2
    return result * (sampled + to_start + to_end) / sampled


def _without_name(labels: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in labels.items() if k != NAME}


def _call(node: promql_parser.Call, storage: Storage, t: float) -> list[Sample]:
    name = node.func.name
    if name == "increase":
        (matrix,) = node.args
        end = t - _offset(matrix.vector_selector)
        start = end - matrix.range.total_seconds()
        out = []
        for labels, points in _range(matrix, storage, t):
            value = _increase(points, start, end)
            if value is not None:
                out.append(Sample(_without_name(labels), value))
        return out
    if name == "absent":
        (arg,) = node.args
        if _evaluate(arg, storage, t):
            return []
        labels: dict[str, str] = {}
        if isinstance(arg, promql_parser.VectorSelector):
            labels = {m.name: m.value for m in arg.matchers.matchers if str(m.op) == "MatchOp.Equal"}
        return [Sample(labels, 1.0)]
    raise Unsupported(f"function {name}")


_AGGREGATIONS: dict[str, Callable[[list[float]], float]] = {"sum": sum, "max": max, "min": min, "count": len}


def _aggregate(node: promql_parser.AggregateExpr, storage: Storage, t: float) -> list[Sample]:
    op = str(node.op)
    if op not in _AGGREGATIONS or node.param is not None:
        raise Unsupported(f"aggregation {op}")
    modifier = node.modifier
    if modifier is not None and modifier.type != promql_parser.AggModifierType.By:
        raise Unsupported("without")
    by = list(modifier.labels) if modifier is not None else []
    groups: dict[Labels, list[float]] = {}
    for sample in _vector(node.expr, storage, t):
        key = labels_of({label: sample.labels.get(label, "") for label in by})
        groups.setdefault(key, []).append(sample.value)
    return [Sample(dict(key), float(_AGGREGATIONS[op](values))) for key, values in groups.items()]


_COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    "<": operator.lt,
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
}
_ARITHMETIC: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": lambda a, b: a / b if b else (math.copysign(math.inf, a) if a else math.nan),
}


def _signature(labels: Mapping[str, str], modifier: Any) -> Labels:
    """The labels two elements are matched on: ``on (...)``, all but ``ignoring (...)``, or all; never the name."""
    matching = modifier.matching if modifier is not None else None
    if matching is None:
        return labels_of(_without_name(labels))
    names = set(matching.labels)
    if matching.type == promql_parser.LabelModifierType.Include:
        return labels_of({k: v for k, v in labels.items() if k in names})
    return labels_of({k: v for k, v in labels.items() if k not in names and k != NAME})


def _set_operation(op: str, lhs: list[Sample], rhs: list[Sample], modifier: Any) -> list[Sample]:
    right = {_signature(s.labels, modifier) for s in rhs}
    if op == "and":
        return [s for s in lhs if _signature(s.labels, modifier) in right]
    if op == "unless":
        return [s for s in lhs if _signature(s.labels, modifier) not in right]
    left = {_signature(s.labels, modifier) for s in lhs}
    return lhs + [s for s in rhs if _signature(s.labels, modifier) not in left]


def _binary(node: promql_parser.BinaryExpr, storage: Storage, t: float) -> list[Sample] | float:
    op, modifier = str(node.op), node.modifier
    return_bool = bool(modifier is not None and modifier.return_bool)
    lhs, rhs = _evaluate(node.lhs, storage, t), _evaluate(node.rhs, storage, t)
    if op in ("and", "or", "unless"):
        assert isinstance(lhs, list) and isinstance(rhs, list)
        return _set_operation(op, lhs, rhs, modifier)
    if modifier is not None and modifier.card not in (None, promql_parser.VectorMatchCardinality.OneToOne):
        raise Unsupported("group_left/group_right")
    if isinstance(lhs, float) and isinstance(rhs, float):
        if op in _COMPARISONS:
            raise Unsupported("scalar comparison")
        return _ARITHMETIC[op](lhs, rhs)
    pairs: list[tuple[dict[str, str], float, float]] = []
    if isinstance(rhs, float):
        assert isinstance(lhs, list)
        pairs = [(s.labels, s.value, rhs) for s in lhs]
    elif isinstance(lhs, float):
        pairs = [(s.labels, lhs, s.value) for s in rhs]
    else:
        right: dict[Labels, Sample] = {}
        for s in rhs:
            key = _signature(s.labels, modifier)
            if key in right:
                raise Unsupported("many-to-many matching in an arithmetic or comparison operation")
            right[key] = s
        on = modifier is not None and modifier.matching is not None
        for s in lhs:
            match = right.get(_signature(s.labels, modifier))
            if match is not None:
                labels = dict(_signature(s.labels, modifier)) if on else s.labels
                pairs.append((labels, s.value, match.value))
    out = []
    for labels, a, b in pairs:
        if op in _COMPARISONS:
            holds = _COMPARISONS[op](a, b)
            if return_bool:
                out.append(Sample(_without_name(labels), float(holds)))
            elif holds:
                out.append(Sample(dict(labels), a if not isinstance(lhs, float) else b))
        else:
            out.append(Sample(_without_name(labels), _ARITHMETIC[op](a, b)))
    return out


def _evaluate(node: Any, storage: Storage, t: float) -> list[Sample] | float:
    if isinstance(node, promql_parser.ParenExpr):
        return _evaluate(node.expr, storage, t)
    if isinstance(node, promql_parser.NumberLiteral):
        return float(node.val)
    if isinstance(node, promql_parser.VectorSelector):
        return _instant(node, storage, t)
    if isinstance(node, promql_parser.Call):
        return _call(node, storage, t)
    if isinstance(node, promql_parser.AggregateExpr):
        return _aggregate(node, storage, t)
    if isinstance(node, promql_parser.BinaryExpr):
        return _binary(node, storage, t)
    raise Unsupported(type(node).__name__)


def _vector(node: Any, storage: Storage, t: float) -> list[Sample]:
    value = _evaluate(node, storage, t)
    if not isinstance(value, list):
        raise Unsupported("a scalar where a vector is expected")
    return value


def evaluate(expr: str, storage: Storage, t: float) -> list[Sample]:
    """The instant vector ``expr`` gives at ``t`` seconds."""
    return _vector(parse(expr), storage, t)


TEMPLATE_LABEL = re.compile(r"\{\{\s*\$labels\.(\w+)\s*\}\}")


def render(text: str, labels: Mapping[str, str]) -> str:
    """An annotation with its ``{{ $labels.x }}`` filled in; a label the alert does not carry raises ``KeyError``
    (Prometheus would write ``<no value>``)."""
    return TEMPLATE_LABEL.sub(lambda m: labels[m.group(1)], text)


def _seconds(duration: str) -> float:
    return promql_parser.parse_duration(duration).total_seconds()


def firing(rule: Mapping[str, Any], storage: Storage, times: Iterable[float]) -> dict[float, list[dict[str, str]]]:
    """At each evaluation time, the label sets (the expression's, then the rule's labels) of the rule's firing
    alerts: each is pending from the first evaluation that returns it and fires once it has been returned for the
    rule's ``for``; a set no longer returned is resolved."""
    hold = _seconds(rule.get("for", "0s"))
    active: dict[Labels, float] = {}
    timeline: dict[float, list[dict[str, str]]] = {}
    for t in times:
        returned = evaluate(rule["expr"], storage, t)
        now = {labels_of({**_without_name(s.labels), **rule.get("labels", {})}) for s in returned}
        active = {key: active.get(key, t) for key in now}
        timeline[t] = [dict(key) for key, since in active.items() if t - since >= hold]
    return timeline
