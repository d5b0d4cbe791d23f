"""The label keys the builders write and the waiters read: Kueue's own, and importable with nothing else."""

from __future__ import annotations

import ast
import inspect

from components.manifests import labels


def test_the_queue_name_label_is_the_one_kueue_routes_jobs_by():
    assert labels.QUEUE_NAME_LABEL == "kueue.x-k8s.io/queue-name"


def test_the_module_imports_nothing_so_a_waiter_can_ship_it_by_value():
    tree = ast.parse(inspect.getsource(labels))
    assert not [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
