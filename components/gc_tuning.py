"""CPython's garbage collector, tuned for the one process the Pulumi language host starts per ``pulumi up``.

The SDK allocates a few hundred objects per resource and keeps nearly all of them to the end, so CPython's young
generation collections keep rescanning them: at 3,200 resources the collector doubles the time per resource
(BENCHMARKS.md). Freezing what the imports built and collecting less often keeps the cost per resource flat.

Only that process may be tuned: the tests, ``tools.render`` and ``tools.bench`` run the program in-process, many
times, under the mocks, and a freeze there would keep every earlier run's garbage for good.
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 100)
"""Young-generation threshold 50,000 allocations (CPython's default is 700); the older two as CPython's."""


def under_the_language_host() -> bool:
    """Whether the program talks to a real engine: the language host's ``pulumi-language-python-exec`` configures the
    runtime with the engine's resource monitor address, which the SDK connects as a gRPC ``ResourceMonitorStub``
    (https://github.com/pulumi/pulumi/blob/v3.272.0/sdk/python/cmd/pulumi-language-python-exec, ``Settings`` in
    https://github.com/pulumi/pulumi/blob/v3.272.0/sdk/python/lib/pulumi/runtime/settings.py); the mocks install a
    ``MockMonitor`` instead."""
    from pulumi.runtime import settings  # here, not above: the tests' xdist controller tunes without the SDK
    from pulumi.runtime.proto import resource_pb2_grpc

    return isinstance(settings.get_monitor(), resource_pb2_grpc.ResourceMonitorStub)


def collect_less_often() -> None:
    """Collect the young generation every :data:`THRESHOLDS` allocations instead of CPython's 700."""
    gc.set_threshold(*THRESHOLDS)


def tune() -> None:
    """Freeze every object alive now (the imports) and collect the young generation less often."""
    gc.freeze()
    collect_less_often()
