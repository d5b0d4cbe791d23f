"""One cache for the session's full program runs: each distinct run of ``__main__.py`` is made once per test run.

Under pytest-xdist the workers share it: the first worker to ask for a run makes it and leaves it pickled in
:data:`SHARED_DIRECTORY`; another worker asking for it waits for that one and reads it instead of making it again.

A run depends on its stack name, config, secret keys and mode, and on the state of the code and the mocks. The key
holds the first four; the cache is used only while the mocks and the program's modules are as imported
(:func:`patched`), so a test that patches either gets a run of its own. A stateful engine
(``mock_engine.VERSION_PIN_STATE`` set) is patched state too: its runs read and write that state, so they are never
cached. A cached :class:`~tools.recording.Recording` is shared by every test that asks for it: read it, never change it.
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import components.fleet  # noqa: F401 - the program's modules (config included), imported before their state is first seen
from tools import mock_cloud, mock_engine, mock_runtime, recording
from tools.recording import Recording
from tools.render import run_main as run_afresh

MOCKS: tuple[ModuleType, ...] = (mock_cloud, mock_engine, mock_runtime, recording)
"""The modules whose data the program's run reads; their containers are compared by value (``monkeypatch.setitem``)."""
_FIRST_SEEN: dict[str, tuple[Any, ...]] = {}
"""Each module's state when first seen: at import, during collection, before any test has patched anything, or
when the program first imports it (lazily)."""
SHARED_DIRECTORY: Path | None = None
"""The directory this test run's xdist workers share their runs in (tests/conftest.py sets it in each worker); in one
process, ``None``."""


def patched() -> bool:
    """Whether a test has patched the mocks or the program: any of their modules differs from its state when first
    seen (:data:`_FIRST_SEEN`)."""
    modules = [sys.modules[name] for name in sorted(n for n in sys.modules if n.split(".")[0] == "components")]
    for module in [*MOCKS, *modules]:
        state = module_state(module)
        if _FIRST_SEEN.setdefault(module.__name__, state) != state:
            return True
    return False


def module_state(module: ModuleType) -> tuple[Any, ...]:
    """What a run reads of a module: the mocks' containers by value, every other global and each class attribute by
    identity, which is what ``monkeypatch.setattr`` replaces."""
    state: list[Any] = []
    for name, value in sorted(vars(module).items()):
        if name.startswith("__") or isinstance(value, ModuleType):
            continue
        if isinstance(value, type) and value.__module__ == module.__name__:
            attributes = tuple((k, id(v)) for k, v in vars(value).items() if not k.startswith("__"))
            state.append((name, attributes))
        elif module in MOCKS and isinstance(value, dict | list | set | tuple):
            state.append((name, repr(value)))
        else:
            state.append((name, id(value)))
    return tuple(state)


def run_main(
    stack: str,
    config: dict[str, str],
    secret_keys: set[str],
    *,
    preview: bool = False,
    signer: mock_cloud.Signer = mock_cloud.DEPLOYER,
) -> Recording:
    """:func:`tools.render.run_main` (``run_afresh``), made once per distinct run while nothing is :func:`patched`."""
    if patched():
        return run_afresh(stack, config, secret_keys, preview=preview, signer=signer)
    return _cached(stack, tuple(sorted(config.items())), frozenset(secret_keys), preview, signer)


@functools.cache
def _cached(
    stack: str,
    config: tuple[tuple[str, str], ...],
    secret_keys: frozenset[str],
    preview: bool,
    signer: mock_cloud.Signer,
) -> Recording:
    if SHARED_DIRECTORY is None:
        return run_afresh(stack, dict(config), set(secret_keys), preview=preview, signer=signer)
    return shared(SHARED_DIRECTORY, stack, config, secret_keys, preview, signer)


def shared(
    directory: Path,
    stack: str,
    config: tuple[tuple[str, str], ...],
    secret_keys: frozenset[str],
    preview: bool,
    signer: mock_cloud.Signer = mock_cloud.DEPLOYER,
) -> Recording:
    """The run as the first process to ask for it in ``directory`` made it: made here if none has, else read back."""
    import fcntl  # POSIX (Linux, macOS), as .ci/run is; a single process never gets this far

    digest = hashlib.sha256(repr((stack, config, sorted(secret_keys), preview, signer)).encode()).hexdigest()
    made = directory / f"{digest}.pickle"
    with open(directory / f"{digest}.lock", "wb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until the file closes: a run is read only once it is whole
        if made.exists():
            recording: Recording = pickle.loads(made.read_bytes())  # written by this test run's own workers
            return recording
        recording = run_afresh(stack, dict(config), set(secret_keys), preview=preview, signer=signer)
        partial = made.with_suffix(".partial")  # a worker that dies while writing leaves no half a run behind
        partial.write_bytes(pickle.dumps(recording))
        partial.replace(made)
        return recording


patched()  # the state at import


def runs_made() -> int:
    """How many runs this process's cache has made or read from another worker: a test can tell a hit from a miss."""
    return _cached.cache_info().misses
