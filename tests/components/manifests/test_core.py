"""The core objects both halves create."""

from __future__ import annotations

from components.manifests.core import namespace
from tests.support.schemas import validate_core


def test_a_namespace_is_a_name_and_nothing_else():
    manifest = namespace("team-a")
    assert manifest == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    validate_core(manifest, "1.33")
