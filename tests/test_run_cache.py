"""The session's one cache of program runs (tests/support/run_cache.py): a distinct run is made once, and a run made
while a test patches the mocks or the program is never served from it, nor kept in it."""

from __future__ import annotations

import pytest

from components.config.kueue import extension as kueue_extension
from components.config.stack import StackConfig
from tests.support import run_cache
from tests.support.stacks import SHARED_STACK, recorded
from tools import mock_cloud, mock_engine, mock_runtime
from tools.config_reference import describe
from tools.render import read_stack_file
from tools.render import run_main as run_afresh

PATCHES = {
    "mock data edited in place": lambda mp: mp.setitem(mock_cloud.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0"),
    "mock data replaced": lambda mp: mp.setattr(mock_cloud, "EXISTING_AKS_VERSION", "1.32.7"),
    "a stateful engine": lambda mp: mp.setattr(mock_engine, "VERSION_PIN_STATE", {}),
    "a mock's method": lambda mp: mp.setattr(mock_cloud.ProgramMocks, "_answer", lambda *_: {}),
    "the recording monitor": lambda mp: mp.setattr(mock_runtime, "RecordingMonitor", type("Kept", (), {})),
    "a program module's constant": lambda mp: mp.setattr(kueue_extension, "MIN_KUBERNETES", (1, 36)),
}


def test_a_run_is_made_once_and_leaves_the_state_the_cache_is_used_in():
    first = recorded(SHARED_STACK)
    made = run_cache.runs_made()
    assert recorded(SHARED_STACK) is first and run_cache.runs_made() == made
    assert recorded(SHARED_STACK, preview=True) is not first, "preview is part of the key"
    assert not run_cache.patched(), "no run changes the state: later runs are cached too"


@pytest.mark.parametrize("patch", PATCHES.values(), ids=PATCHES.keys())
def test_every_kind_of_patch_a_test_makes_changes_the_state(patch, monkeypatch):
    patch(monkeypatch)
    assert run_cache.patched()


def test_a_run_under_patched_mocks_is_made_afresh_and_not_kept(monkeypatch):
    cached = recorded(SHARED_STACK)
    monkeypatch.setitem(mock_cloud.ACK_CURRENT_ADDONS, "ack-virtual-node", "v2.14.0")
    made = run_cache.runs_made()
    patched = recorded(SHARED_STACK)
    assert patched is not cached and recorded(SHARED_STACK) is not patched
    assert run_cache.runs_made() == made
    monkeypatch.undo()
    assert recorded(SHARED_STACK) is cached


def test_the_config_tools_descriptions_leave_the_state_the_cache_is_used_in():
    """tools.config_reference and tools.stack_schema rebuild the config models with their descriptions, within the
    session: the rebuilt models are the program's as imported, so the runs cached before stay valid."""
    recorded(SHARED_STACK)
    describe(StackConfig)
    assert not run_cache.patched()


def test_the_workers_of_one_test_run_share_a_directory_and_a_single_process_keeps_its_runs_to_itself(
    worker_id, tmp_path_factory
):
    shared = run_cache.SHARED_DIRECTORY
    assert (shared is None) == (worker_id == "master"), "one process: its temp root holds earlier test runs too"
    if shared is not None:  # xdist gives each worker a base directory under the test run's own
        assert shared.is_dir() and shared.parent == tmp_path_factory.getbasetemp().parent, shared


def test_a_run_one_worker_made_is_read_back_by_another_not_made_again(tmp_path, monkeypatch):
    stack, config, secret_keys = read_stack_file(SHARED_STACK)
    key = (stack, tuple(sorted(config.items())), frozenset(secret_keys), False)
    made = []
    monkeypatch.setattr(run_cache, "run_afresh", lambda *a, **kw: made.append(a) or run_afresh(*a, **kw))
    first = run_cache.shared(tmp_path, *key)
    second = run_cache.shared(tmp_path, *key)
    assert len(made) == 1 and second is not first
    assert (second.registrations, second.outputs, second.secret_outputs) == (
        first.registrations,
        first.outputs,
        first.secret_outputs,
    )
    assert [vars(call) for call in second.invokes] == [vars(call) for call in first.invokes]
    assert run_cache.shared(tmp_path, *key[:3], True) is not None and len(made) == 2, "preview is part of the key"
    other = mock_cloud.Signer("12345678-0000-0000-0000-000000000000")
    assert run_cache.shared(tmp_path, *key, other) is not None and len(made) == 3, "so is who signs in"
