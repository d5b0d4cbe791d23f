"""Who waits for whom in a plan.json, as Pulumi orders a ``pulumi up``, and the weighted critical path through it.

The graph's nodes are what takes time: custom resources and remote components (a Helm Chart v4, whose children the
provider creates). A local component creates nothing, but Pulumi still orders through it. A resource R starts once

- every resource in its ``dependencies`` is created (``depends_on`` and every resource an input is derived from; a
  local component in either is expanded by the SDK to the custom resources under it, so plan.json never names one);
- its provider is created (the SDK awaits a provider reference's URN and id before registering);
- its parent is registered: the SDK awaits the parent's URN, and a component's registration itself awaits the
  component's own ``depends_on`` and providers first. So a child waits for what each of its component ancestors
  waits for (an *inherited* wait), up to the first custom ancestor, which it waits for itself.

The critical path is the longest chain of these waits, each resource weighted by :mod:`tools.bench_weights`. The
minimal chain is the longest chain of the waits that are really needed (:mod:`tools.bench_rules`): for every pair
"R waits for D", directly or through other resources, that a rule says is needed, R waits for D directly. So a
needed ordering that today holds only through an unneeded wait is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from components.config.base import PROJECT
from tools import bench_rules
from tools.bench_plan import Resource, provider_urn

DEPENDENCY, PROVIDER, PARENT = "dependency", "provider", "parent"
INHERITED = "inherited from "
CONSUMED = "consumes an output"
PROVIDED = "its provider"


def is_node(r: Resource) -> bool:
    """Custom resources and remote components take time; the program's own (local) components do not."""
    return bool(r.get("custom")) or bool(r.get("remote", not str(r["type"]).startswith(f"{PROJECT}:")))


@dataclasses.dataclass(frozen=True)
class Path:
    """A chain of resources (URNs, first created first) and its total weight in seconds."""

    seconds: float
    chain: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Wait:
    """One edge of a plan: ``dependent`` starts after ``dependency``, and through what."""

    dependent: str
    dependency: str
    via: tuple[str, ...]
    needed_by: str | None
    """Why it is needed (:data:`PROVIDED`, :data:`CONSUMED` or a requirement's name), or ``None``."""
    implied: bool = False
    """For a wait that is not needed: whether the needed waits order the pair anyway (so it costs nothing)."""


class Graph:
    """The waits of one plan.json (see the module docstring), with reachability for the rules."""

    def __init__(self, plan: Mapping[str, Any]) -> None:
        self.resources: list[Resource] = list(plan["resources"])
        self.by_urn: dict[str, Resource] = {str(r["urn"]): r for r in self.resources}
        self.order = {urn: index for index, urn in enumerate(self.by_urn)}
        self.children: dict[str, list[str]] = {}
        for r in self.resources:
            if r.get("parent") in self.by_urn:
                self.children.setdefault(str(r["parent"]), []).append(str(r["urn"]))
        self.nodes = [str(r["urn"]) for r in self.resources if is_node(r)]
        self.waits: dict[str, dict[str, list[str]]] = {urn: self._waits_of(self.by_urn[urn]) for urn in self.nodes}
        self._reach: dict[str, frozenset[str]] = {}

    # the Context protocol of tools.bench_rules
    def resource(self, urn: str | None) -> Resource | None:
        return self.by_urn.get(urn) if urn else None

    def reaches(self, dependent: str, dependency: str) -> bool:
        return dependency in self.reach(dependent)

    def all_resources(self) -> list[Resource]:
        return self.resources

    def as_nodes(self, urn: str) -> list[str]:
        """A URN as the nodes it stands for: itself, or the nodes under a local component; none for the stack."""
        r = self.by_urn.get(urn)
        if r is None:
            return []
        if is_node(r):
            return [urn]
        return [node for child in self.children.get(urn, []) for node in self.as_nodes(child)]

    def _waits_of(self, r: Resource) -> dict[str, list[str]]:
        waits: dict[str, list[str]] = {}

        def add(urns: Iterable[str], via: str) -> None:
            for urn in urns:
                for node in self.as_nodes(urn):
                    if node != r["urn"]:
                        waits.setdefault(node, []).append(via)

        add(r.get("dependencies") or [], DEPENDENCY)
        add([u for u in [provider_urn(r)] if u], PROVIDER)
        parent = self.by_urn.get(r.get("parent") or "")
        while parent is not None:
            if is_node(parent):
                add([str(parent["urn"])], PARENT)
                break
            inherited = [
                *(parent.get("dependencies") or []),
                *(ref.rsplit("::", 1)[0] for ref in parent.get("providers") or []),
            ]
            add(inherited, INHERITED + str(parent["name"]))
            parent = self.by_urn.get(parent.get("parent") or "")
        return waits

    def reach(self, urn: str) -> frozenset[str]:
        """Every node ``urn`` waits for, directly or through others."""
        if urn not in self._reach:
            seen: set[str] = set()
            stack = list(self.waits.get(urn, {}))
            while stack:
                node = stack.pop()
                if node not in seen:
                    seen.add(node)
                    stack.extend(self.waits.get(node, {}))
            self._reach[urn] = frozenset(seen)
        return self._reach[urn]

    def consumed(self, r: Resource) -> set[str]:
        """The nodes an input of ``r`` is derived from (its ``propertyDependencies``, when the plan has them)."""
        urns = [u for deps in (r.get("propertyDependencies") or {}).values() for u in deps]
        return {node for urn in urns for node in self.as_nodes(urn)}


def why_needed(graph: Graph, dependent: str, dependency: str) -> str | None:
    """Why ``dependent`` really needs to wait for ``dependency`` (see :mod:`tools.bench_rules`), or ``None``."""
    r, d = graph.by_urn[dependent], graph.by_urn[dependency]
    if provider_urn(r) == dependency:
        return PROVIDED
    if dependency in graph.consumed(r):
        return CONSUMED
    rule = bench_rules.requirement(r, d, graph)
    return rule.name if rule else None


def minimal_waits(graph: Graph) -> dict[str, dict[str, str]]:
    """For each node, the nodes it really needs to wait for (direct or through others today), with why."""
    needed: dict[str, dict[str, str]] = {}
    for node in graph.nodes:
        reasons = {
            d: why
            for d in sorted(graph.reach(node), key=graph.order.__getitem__)
            if (why := why_needed(graph, node, d))
        }
        needed[node] = reasons
    return needed


def longest_path(
    nodes: list[str], preds: Callable[[str], Iterable[str]], weight: Callable[[str], float], order: Mapping[str, int]
) -> Path:
    """The heaviest chain through ``nodes`` where each node starts after its ``preds``; ties go to plan order."""
    finish: dict[str, float] = {}
    best: dict[str, str | None] = {}
    visiting: set[str] = set()

    def visit(node: str) -> float:
        if node in finish:
            return finish[node]
        if node in visiting:
            raise ValueError(f"dependency cycle through {node}")
        visiting.add(node)
        start, before = 0.0, None
        for pred in sorted(preds(node), key=order.__getitem__):
            if visit(pred) > start:
                start, before = finish[pred], pred
        visiting.discard(node)
        finish[node], best[node] = start + weight(node), before
        return finish[node]

    end = max(nodes, key=lambda n: (visit(n), -order[n]), default=None)
    chain: list[str] = []
    while end is not None:
        chain.append(end)
        end = best[end]
    return Path(finish[chain[0]] if chain else 0.0, tuple(reversed(chain)))


def critical_path(graph: Graph, weight: Callable[[Resource], float], within: set[str] | None = None) -> Path:
    """The critical path of every wait in the plan (restricted to the nodes ``within``, if given)."""
    nodes = [n for n in graph.nodes if within is None or n in within]
    keep = set(nodes)
    return longest_path(
        nodes, lambda n: [d for d in graph.waits[n] if d in keep], lambda n: weight(graph.by_urn[n]), graph.order
    )


def minimal_chain(
    graph: Graph, weight: Callable[[Resource], float], needed: dict[str, dict[str, str]] | None = None
) -> Path:
    """The longest chain of really needed waits."""
    needed = minimal_waits(graph) if needed is None else needed
    return longest_path(graph.nodes, lambda n: needed[n], lambda n: weight(graph.by_urn[n]), graph.order)


def audit(graph: Graph, needed: dict[str, dict[str, str]] | None = None) -> list[Wait]:
    """Every direct wait of the plan, with why it is needed or, if it is not, whether the needed waits imply it."""
    needed = minimal_waits(graph) if needed is None else needed
    minimal_reach = _closure(needed)
    return [
        Wait(node, dep, tuple(via), needed[node].get(dep), dep in minimal_reach[node])
        for node in graph.nodes
        for dep, via in sorted(graph.waits[node].items(), key=lambda item: graph.order[item[0]])
    ]


def _closure(direct: Mapping[str, Mapping[str, str]]) -> dict[str, set[str]]:
    reach: dict[str, set[str]] = {}

    def visit(node: str) -> set[str]:
        if node not in reach:
            reach[node] = set()
            for dep in direct.get(node, {}):
                reach[node] |= {dep, *visit(dep)}
        return reach[node]

    for node in direct:
        visit(node)
    return reach


def branch_of(graph: Graph, urn: str) -> str:
    """``ack`` for the Alibaba Cloud half (its resources, components and what runs on its clusters), else ``aks``."""
    seen: set[str] = set()
    todo = [urn]
    while todo:
        current = todo.pop()
        r = graph.by_urn.get(current)
        if r is None or current in seen:
            continue
        seen.add(current)
        if ":alicloud" in f":{r['type']}" or str(r["type"]).startswith("pulumi:providers:alicloud"):
            return "ack"
        todo.extend(u for u in [r.get("parent"), provider_urn(r)] if u)
    return "aks"


def branches(graph: Graph) -> dict[str, set[str]]:
    """The nodes of each half present in the plan."""
    halves: dict[str, set[str]] = {}
    for node in graph.nodes:
        halves.setdefault(branch_of(graph, node), set()).add(node)
    return halves


def chain_edges(path: Path) -> list[tuple[str, str]]:
    """The waits along a path, as (dependent, dependency)."""
    return [(later, earlier) for earlier, later in zip(path.chain, path.chain[1:], strict=False)]


def short(urn: str) -> str:
    """``Type::name`` of a URN, the type without its package: ``ManagedCluster::aks-cluster``."""
    type_, name = urn.split("::")[-2:]
    return f"{type_.split('$')[-1].split(':')[-1]}::{name}"
