"""The two tiers of the suite: a matrix's covering cells run by default, the rest of its cross product only in the
``slow`` tier (``python -m pytest -m slow``, CI's own step in .ci/run; pyproject's addopts deselect it otherwise).

A covering subset keeps every value of each axis at least once (each stack, each Kueue version); only the
combinations beyond those wait for the slow tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

SLOW = pytest.mark.slow


def tiered(cases: Iterable[Sequence[Any]], covering: Callable[..., bool], name: Callable[..., str]) -> list[Any]:
    """``cases`` as ``pytest.param``\\ s named by ``name(*case)``: those ``covering(*case)`` keeps in the default tier,
    every other one marked :data:`SLOW`."""
    return [pytest.param(*case, id=name(*case), marks=() if covering(*case) else SLOW) for case in cases]
