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


def weight_problems(key: str) -> list[str]:
    """What is wrong with the weight of ``key``: a value outside its range, an unknown basis, no note, a zero that
    is not "none" (or the reverse), a vendor figure that does not quote its https source."""
    w = WEIGHTS[key]
    quoted = bool(w.source and w.source.startswith("https://") and '"' in w.note)
    checks = [
        (0 <= w.low <= w.seconds <= w.high, f"not 0 <= {w.low} <= {w.seconds} <= {w.high}"),
        (w.basis in {"vendor", "estimate", "none"}, f"basis {w.basis!r}"),
        (bool(w.note), "no note"),
        ((w.basis == "none") == (w.seconds == 0), f"{w.seconds} s with basis {w.basis!r}"),
        (w.basis != "vendor" or quoted, "a vendor weight without its https source quoted in the note"),
    ]
    return [f"{key}: {problem}" for holds, problem in checks if not holds]


def test_every_weight_lies_in_its_range_and_says_what_it_rests_on():
    assert [problem for key in sorted(WEIGHTS) for problem in weight_problems(key)] == []
