"""The test helper validates a Kueue object against the CRDs of the Kueue minor it is installed with; the stacks at each
verified version are validated in tests/test_kueue_chart.py."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from components.config.kueue.kueue import KueueConfig
from components.config.kueue.profiles import PROFILES, profile_for
from tests.support.schemas import KUEUE_CRD_DIRS, kueue_schemas, tightened, validate_kueue
from tests.support.stacks import STACKS, kueue_version
from tools import render, stack_file


def test_each_minor_reads_its_own_crds():
    assert [folder.name for folder in KUEUE_CRD_DIRS.values()][1:] == ["kueue-0.18.6", "kueue-0.19.2"]
    assert len(set(KUEUE_CRD_DIRS.values())) == 3


@pytest.mark.parametrize("kueue_version", [profile.latest for profile in PROFILES.values()])
def test_each_crd_schema_tightened_for_the_tests_is_valid_json_schema(kueue_version):
    """Unknown fields made errors, integer ranges and set lists spelled out: still a valid schema, every pattern a
    valid regular expression. A CRD's structural schema uses only keywords draft 7 and 2020-12 share, so draft 7's
    metaschema checks them, five times faster than 2020-12's dynamic references."""
    for (api_version, kind), schema in kueue_schemas(kueue_version).items():
        if (message := metaschema_error(tightened(schema))) is not None:
            raise AssertionError(f"{api_version} {kind} of Kueue {kueue_version}: {message}")


def metaschema_error(schema: dict[str, Any]) -> str | None:
    """Why draft 7's metaschema refuses ``schema``, or ``None``: checked once per distinct schema (by its JSON), since
    most CRD versions are the same schema in the next minor (39 of the 66 checks repeat one)."""
    text = json.dumps(schema)
    if text not in _METASCHEMA_ERRORS:
        try:
            jsonschema.Draft7Validator.check_schema(schema)
            _METASCHEMA_ERRORS[text] = None
        except jsonschema.SchemaError as error:
            _METASCHEMA_ERRORS[text] = error.message
    return _METASCHEMA_ERRORS[text]


_METASCHEMA_ERRORS: dict[str, str | None] = {}
"""What :func:`metaschema_error` found for each schema, by its JSON."""


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


def test_the_default_and_every_shipped_stack_that_installs_kueue_run_the_newest_supported_minor():
    """The AKS walkthrough's 0.17.1 is the version of its day: the shipped stacks run a supported line
    (tests/test_kueue_chart.py still renders each of them, the walkthrough's included, at 0.17.1)."""
    newest = list(PROFILES.values())[-1]
    assert profile_for(KueueConfig().chart_version) is newest
    installing = [s for s in STACKS if (c := render.validate(stack_file.read(s))).kueue_target and c.kueue.install]
    assert len(installing) >= 5
    assert {s.name: profile_for(kueue_version(s)).minor for s in installing} == {
        s.name: newest.minor for s in installing
    }
