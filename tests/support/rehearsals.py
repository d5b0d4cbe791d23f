"""The shipped stacks rehearsed (:mod:`tools.rehearse`), each once per worker: read the results, never change them.
Their plans come from the test run's run cache, which the workers share."""

from __future__ import annotations

import functools
from pathlib import Path

from tests.support import run_cache
from tools import mock_cloud, rehearse
from tools.recording import Recording
from tools.world.world import World

LONGEST_PROPAGATION = (300.0, 300.0)
"""Every role assignment the stacks make taking the longest AKS documents: what a waiter reading too early meets."""


def cached_plan(stack: str, config: dict[str, str], secret_keys: set[str], signer: mock_cloud.Signer) -> Recording:
    """A :data:`tools.rehearse.Plan` made once per test run (:mod:`tests.support.run_cache`)."""
    return run_cache.run_main(stack, config, secret_keys, signer=signer)


@functools.cache
def rehearsed(stack_file: Path, seed: int = 0) -> tuple[rehearse.Rehearsal, World]:
    """``stack_file`` rehearsed at the longest propagation, with the world it ran in."""
    world = World(seed, role_propagation=LONGEST_PROPAGATION)
    return rehearse.rehearse(stack_file, world=world, plan=cached_plan), world
