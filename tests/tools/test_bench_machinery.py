"""The machinery benchmark's verdicts: the CPU a piece saves is a share of the suite's as it is."""

from __future__ import annotations

from tools.bench_machinery import Run, rows


def test_a_piece_saving_less_than_five_percent_of_the_suites_cpu_is_below_the_rule():
    runs = [Run("none", 50, 100, "ok"), Run("gc", 60, 120, "ok"), Run("yaml-text", 50, 102, "ok")]
    assert [row[:5] for row in rows(runs)] == [
        ["none", "50.0", "100.0", "+0.0%", "-"],
        ["gc", "60.0", "120.0", "+20.0%", "keeps"],
        ["yaml-text", "50.0", "102.0", "+2.0%", "below 5%"],
    ]
