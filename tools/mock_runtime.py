"""Run the program under Pulumi's mock runtime and record everything it registers.

One mock layer serves the tests and ``tools.render``: no CLI, no credentials, no cluster. The clouds' answers are
:mod:`tools.mock_cloud`'s, the recording is :mod:`tools.recording`'s; ``run(..., preview=True)`` behaves like
``pulumi preview`` of a new stack.
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pulumi
from pulumi.runtime import resource, settings
from pulumi.runtime.proto import source_pb2
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from components.azure import aks_catalogue
from components.config.base import PROJECT
from tools.mock_cloud import DEPLOYER, ProgramMocks, Signer
from tools.mock_cloud import aks_catalogue as mock_aks_catalogue
from tools.recording import UNKNOWN, Recording, RecordingMonitor, engine_order


def run(
    program: Callable[[], None],
    config: Mapping[str, str],
    secret_keys: Iterable[str] = (),
    stack: str = "dev",
    preview: bool = False,
    signer: Signer = DEPLOYER,
) -> Recording:
    """Run ``program`` under the mock runtime with the given ``project:key`` config and return what it registered;
    the azure-native provider signs in as ``signer``.

    Each run starts from a fresh event loop, root stack and config, so runs never leak into each other.
    Exceptions raised by the program (a ``ConfigError`` above all) propagate unchanged.
    """
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    pickler = _PicklerPatch()
    live_catalogue, aks_catalogue.LOOKUP = aks_catalogue.LOOKUP, mock_aks_catalogue
    live_stack_trace, resource._get_stack_trace = resource._get_stack_trace, _no_stack_trace
    live_collapse = pulumi.resource.collapse_alias_to_urn
    pulumi.resource.collapse_alias_to_urn = _alias_urn_unread  # type: ignore[assignment]  # its result is never read
    try:
        settings.reset_options(project=PROJECT, stack=stack, preview=preview)
        mocks = ProgramMocks(preview=preview, signer=signer)
        monitor = RecordingMonitor(mocks)
        pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=preview, monitor=monitor)
        pulumi.runtime.set_all_config(dict(config), secret_keys=list(secret_keys))
        settings.SETTINGS.rpc_manager.clear()
        settings.SETTINGS.outputs.clear()
        _sync_await(run_pulumi_func(program))
        outputs, secret_outputs = _sync_await(_resolve_stack_outputs())
    except BaseException:
        loop.set_exception_handler(_abandoned_with_the_run)
        raise
    finally:
        aks_catalogue.LOOKUP = live_catalogue
        resource._get_stack_trace = live_stack_trace
        pulumi.resource.collapse_alias_to_urn = live_collapse
        pickler.restore()
        asyncio.set_event_loop(None)
        loop.close()
    return Recording(engine_order(monitor.registrations), outputs, secret_outputs, mocks.invokes)


ABANDONED = ("Future exception was never retrieved", "Task exception was never retrieved", "Task was destroyed")
"""How asyncio reports a future or task of the run's loop the collector frees unfinished or with its error unread."""


def _abandoned_with_the_run(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The SDK's futures and tasks of a run the program ended by raising: echoes of that raise, left behind with the
    run. asyncio logs each when the collector frees it, with its traceback formatted (some 1,700 in the test suite,
    a second and a half of its time); anything else still goes to asyncio's own handler."""
    if not str(context.get("message", "")).startswith(ABANDONED):
        loop.default_exception_handler(context)


def _no_stack_trace() -> source_pb2.StackTrace:
    """No call stack with a registration: the SDK walks and converts every frame of the stack for each resource
    (``_get_stack_trace`` in https://github.com/pulumi/pulumi/blob/v3.272.0/sdk/python/lib/pulumi/runtime/resource.py)
    to send the engine source positions, which a mock run never reads; that walk was a tenth of the test suite."""
    return source_pb2.StackTrace()


def _alias_urn_unread(*_: object) -> None:
    """No URN for each alias of a resource: ``Resource.__init__`` collapses every alias into a URN (``Output`` work on
    every alias: an azure-native resource carries one per API version, about a hundred), which only
    ``all_aliases`` reads, for an engine without alias specs
    (https://github.com/pulumi/pulumi/blob/v3.272.0/sdk/python/lib/pulumi/runtime/resource.py). The mock monitor
    supports alias specs as the engine does, so the engine's aliases come from the specs; those URNs were half of
    an AKS stack's run."""
    return None


class _PicklerPatch:
    """Undoes what the SDK's ``serialize_provider`` leaves on :class:`pickle._Pickler` after a run.

    Each dynamic resource's serialization wraps ``_Pickler._batch_setitems`` in a sorting wrapper, sets ``save_dict``
    and restores only ``pickle.Pickler`` (``serialize_provider`` in
    https://github.com/pulumi/pulumi/blob/v3.272.0/sdk/python/lib/pulumi/dynamic/dynamic.py), so the wrappers nest one
    level deeper per dynamic resource. A ``pulumi up`` serializes its few dozen once per process; one process running
    hundreds of programs (the tests, ``tools.render``, the bench) would reach Python's recursion limit.
    """

    def __init__(self) -> None:
        self._saved = {name: vars(pickle._Pickler)[name] for name in ("_batch_setitems", "save_dict")}

    def restore(self) -> None:
        for name, method in self._saved.items():
            setattr(pickle._Pickler, name, method)


async def _resolve_stack_outputs() -> tuple[dict[str, Any], set[str]]:
    """Each stack output's value, or :data:`UNKNOWN` if any part of it is unknown (as in preview)."""
    root = settings.get_root_resource()
    exported: dict[str, Any] = getattr(root, "outputs", {}) or {}
    values: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in exported.items():
        output = pulumi.Output.from_input(value)
        values[key] = await output.future() if await output.is_known() else UNKNOWN
        if await output.is_secret():
            secret.add(key)
    return values, secret
