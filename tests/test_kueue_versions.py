"""The test helper validates a Kueue object against the CRDs of the Kueue minor it is installed with; the stacks at each
verified version are validated in tests/test_kueue_chart.py."""

from __future__ import annotations

import jsonschema
import pytest

from tests.support.schemas import KUEUE_CRD_DIRS, validate_kueue


def test_each_minor_reads_its_own_crds():
    assert [folder.name for folder in KUEUE_CRD_DIRS.values()][1:] == ["kueue-0.18.6", "kueue-0.19.2"]
    assert len(set(KUEUE_CRD_DIRS.values())) == 3


def test_the_crds_follow_the_version_a_field_of_018_is_unknown_to_017():
    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {"concurrentAdmissionPolicy": {}},
    }
    for version in ("0.18.6", "0.19.2"):  # known there, so its own schema applies
        with pytest.raises(jsonschema.ValidationError, match="'migration' is a required property"):
            validate_kueue(queue, version)
    with pytest.raises(jsonschema.ValidationError, match="'concurrentAdmissionPolicy' was unexpected"):
        validate_kueue(queue, "0.17.8")
