"""ACS CPU-pod spec normalisation (the ACS docs' ``pod-use-spec: 2-4Gi`` example)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from components.config.ack.acs_sizing import CPU_STEPS, billed_spec, memory_choices


def test_cpu_steps_follow_the_reference():
    assert CPU_STEPS[:4] == (Decimal("0.25"), Decimal("0.5"), Decimal(1), Decimal("1.5"))
    assert Decimal(16) in CPU_STEPS
    assert Decimal("16.5") not in CPU_STEPS
    assert CPU_STEPS[-5:] == (Decimal(16), Decimal(24), Decimal(32), Decimal(48), Decimal(64))


@pytest.mark.parametrize(
    ("cpu", "choices"),
    [
        ("0.25", ("0.5", "1", "2")),
        ("0.5", ("1", "2", "3", "4")),
        ("2", tuple(str(g) for g in range(2, 17))),
        ("24", ("24", "48", "96", "192")),
        ("64", ("64", "128", "256", "512")),
    ],
)
def test_memory_choices_per_step(cpu, choices):
    assert memory_choices(Decimal(cpu)) == tuple(Decimal(c) for c in choices)


def test_the_acs_guide_example_rounds_memory_up():
    spec = billed_spec("2", "3.5Gi")
    assert (spec.text, spec.rounded_up) == ("2-4Gi", True)


def test_the_acs_guides_nginx_with_cpu_only_runs_as_2_4gi():
    """Alibaba Cloud's ACS guide's nginx asks for cpu 2 only and its pod is annotated ``pod-use-spec: 2-4Gi``."""
    spec = billed_spec("2", None)
    assert (spec.text, spec.rounded_up) == ("2-4Gi", False)


def test_no_requests_get_the_default_spec():
    spec = billed_spec(None, None)
    assert (spec.cpu, spec.memory_gib, spec.rounded_up) == (Decimal(2), Decimal(4), False)


@pytest.mark.parametrize(
    ("cpu", "memory", "text", "rounded"),
    [
        ("2", "4Gi", "2-4Gi", False),  # an exact spec stays
        ("0.25", "512Mi", "0.25-0.5Gi", False),
        ("100m", "100Mi", "0.25-0.5Gi", True),  # below the smallest spec
        ("0.25", "1536Mi", "0.25-2Gi", True),
        ("1200m", "2Gi", "1.5-2Gi", True),  # cpu to the next 0.5 step
        ("1.5", "1Gi", "1.5-2Gi", True),  # below 1x vCPU: 1.5 vCPU offers whole GiB from 2
        ("4", "1Gi", "4-4Gi", True),  # below 1x vCPU rounds up to 1x
        ("2", "2.5Gi", "2-3Gi", True),  # whole GiB steps
        ("16", "128Gi", "16-128Gi", False),  # the last 0.5 step at 8x
        ("1", "9Gi", "1.5-9Gi", True),  # above 8x moves to the next vCPU step that holds it
        ("0.25", "3Gi", "0.5-3Gi", True),
        ("16", "129Gi", "24-192Gi", True),
        ("16.5", "20Gi", "24-24Gi", True),  # past 16 vCPU only 24/32/48/64
        ("20", "50Gi", "24-96Gi", True),  # 24 vCPU offers exactly 1x/2x/4x/8x
        ("64", "512Gi", "64-512Gi", False),  # the largest spec
    ],
)
def test_rounds_up_to_the_nearest_spec(cpu, memory, text, rounded):
    spec = billed_spec(cpu, memory)
    assert (spec.text, spec.rounded_up) == (text, rounded)


@pytest.mark.parametrize(("cpu", "memory"), [("65", None), ("64", "513Gi"), ("2", "1Ti")])
def test_larger_than_the_largest_spec_is_an_error(cpu, memory):
    with pytest.raises(ValueError, match="64 vCPU with 512 GiB"):
        billed_spec(cpu, memory)
