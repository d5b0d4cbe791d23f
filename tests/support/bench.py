"""Benchmark test data: plan.json resources as tools.render writes them, and the rule a pair of them falls under."""

from __future__ import annotations

from typing import Any

from tools import bench_rules
from tools.bench_graph import Graph

K8S = "urn:pulumi:dev::elastic-capacity::pulumi:providers:kubernetes::k8s"
OTHER = "urn:pulumi:dev::elastic-capacity::pulumi:providers:kubernetes::other"


def res(type_: str, logical: str, *, parent=None, provider=K8S, **inputs: Any) -> dict[str, Any]:
    return {
        "urn": f"urn:pulumi:dev::elastic-capacity::{type_}::{logical}",
        "type": type_,
        "name": logical,
        "custom": True,
        "parent": parent,
        "provider": f"{provider}::id" if provider else None,
        "dependencies": [],
        "inputs": inputs,
    }


def rule_for(dependent: dict[str, Any], dependency: dict[str, Any], *others: dict[str, Any]) -> str | None:
    graph = Graph({"resources": [dependency, dependent, *others]})
    found = bench_rules.requirement(dependent, dependency, graph)
    return found.name if found else None
