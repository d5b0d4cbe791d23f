"""The create-time table: every weight within its range and explained; a Job pulumi-kubernetes does not await weighs
one API call."""

from __future__ import annotations

import pytest

from tools import bench_weights
from tools.bench_weights import WEIGHTS


def job(annotations=None):
    return {"type": "kubernetes:batch/v1:Job", "inputs": {"metadata": {"name": "j", "annotations": annotations or {}}}}


def test_a_job_with_skip_await_has_its_own_key_and_weighs_one_api_call():
    assert bench_weights.weight_key(job()) == "kubernetes:batch/v1:Job"
    skipped = job({"pulumi.com/skipAwait": "true"})
    assert bench_weights.weight_key(skipped) == "kubernetes:batch/v1:Job#skipAwait"
    assert bench_weights.seconds(skipped) < bench_weights.seconds(job())


def test_a_type_without_a_weight_is_named():
    unknown = {"type": "vendor:x:Unknown", "inputs": {}}
    with pytest.raises(KeyError, match="vendor:x:Unknown"):
        bench_weights.seconds(unknown)
    assert bench_weights.missing([unknown, job()]) == ["vendor:x:Unknown"]
    assert bench_weights.used_keys([job(), job(), unknown]) == ["kubernetes:batch/v1:Job", "vendor:x:Unknown"]


@pytest.mark.parametrize("key", sorted(WEIGHTS))
def test_every_weight_lies_in_its_range_and_says_what_it_rests_on(key):
    weight = WEIGHTS[key]
    assert 0 <= weight.low <= weight.seconds <= weight.high
    assert weight.basis in {"vendor", "estimate", "none"}
    assert weight.note
    assert (weight.basis == "none") == (weight.seconds == 0)
    if weight.basis == "vendor":
        assert weight.source and weight.source.startswith("https://") and '"' in weight.note
