"""Which size ACS bills a CPU pod for: the normalisation of the ACS pod overview
(https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview).

ACS runs general-purpose and performance pods only in fixed vCPU/memory specs. It takes the larger of the pod's
summed requests and summed limits, rounds that UP to the nearest spec and adds the difference to the first
container (ACK's example: 2 vCPU + 3.5 GiB is billed as ``2-4Gi``). Knowing the billed spec before deploying avoids
paying for memory nobody asked for. GPU classes are sized per card and are not normalised here.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

from components.config.kube import quantity_value

_GIB = Decimal(1024) ** 3

DEFAULT_CPU = Decimal(2)
"""vCPU of a pod that requests none (no requests means 2 vCPU / 4 GiB)."""

DEFAULT_MEMORY_GIB = Decimal(4)
"""GiB of a pod that requests none. A pod giving only cpu gets this too: ACK's nginx (cpu 2 only) runs as 2-4Gi."""

_SMALL_STEP = Decimal("0.25")
_LARGE_STEPS = tuple(Decimal(c) for c in (24, 32, 48, 64))
CPU_STEPS: tuple[Decimal, ...] = (_SMALL_STEP, *(Decimal(k) / 2 for k in range(1, 33)), *_LARGE_STEPS)
"""vCPU steps: 0.25, then 0.5 to 16 by 0.5, then 24, 32, 48, 64."""


def memory_choices(cpu: Decimal) -> tuple[Decimal, ...]:
    """The memory sizes (GiB) ACS offers with ``cpu`` vCPU, smallest first.

    0.25 vCPU: 0.5, 1 or 2 GiB. 0.5 to 16 vCPU: whole GiB from 1x to 8x the vCPU (1.5 vCPU: 2..12 GiB, reading
    "1 GiB steps" as whole GiB). 24 to 64 vCPU: exactly 1x, 2x, 4x or 8x.
    """
    if cpu == _SMALL_STEP:
        return (Decimal("0.5"), Decimal(1), Decimal(2))
    if cpu in _LARGE_STEPS:
        return tuple(cpu * m for m in (1, 2, 4, 8))
    return tuple(Decimal(g) for g in range(math.ceil(cpu), int(cpu * 8) + 1))


@dataclasses.dataclass(frozen=True)
class BilledSpec:
    """The spec ACS runs and bills a CPU pod as, and whether that is more than the pod asked for."""

    cpu: Decimal
    memory_gib: Decimal
    rounded_up: bool
    """True when ACS raises an explicitly requested cpu or memory value (a missing value takes the default)."""

    @property
    def text(self) -> str:
        """The ``pod-use-spec`` form ACS annotates the pod with: ``2-4Gi``, ``0.25-0.5Gi``."""
        return f"{_plain(self.cpu)}-{_plain(self.memory_gib)}Gi"


def billed_spec(cpu: str | None, memory: str | None) -> BilledSpec:
    """Normalise a general-purpose/performance pod's cpu and memory (max of summed requests and limits) UP.

    The smallest vCPU step that holds ``cpu`` and offers a memory size that holds ``memory`` wins; memory below
    1x the vCPU rounds up to the smallest size, memory above 8x moves to the next vCPU step that can hold it (the
    documented "rounds up to the nearest supported spec"). ``cpu`` and ``memory`` are Kubernetes quantities the config
    has already checked. Raises ``ValueError`` above 64 vCPU / 512 GiB.
    """
    want_cpu: Decimal = quantity_value(cpu) if cpu is not None else DEFAULT_CPU
    want_memory: Decimal = quantity_value(memory) / _GIB if memory is not None else DEFAULT_MEMORY_GIB
    for step in CPU_STEPS:
        if step < want_cpu:
            continue
        fitting = [size for size in memory_choices(step) if size >= want_memory]
        if fitting:
            rounded = (cpu is not None and step > want_cpu) or (memory is not None and fitting[0] > want_memory)
            return BilledSpec(step, fitting[0], rounded)
    raise ValueError(f"cpu {cpu} / memory {memory}: ACS has no spec that large; the largest is 64 vCPU with 512 GiB")


def _plain(number: Decimal) -> str:
    """``2`` rather than ``2.0`` or ``2E+0``; ``0.25`` stays ``0.25``."""
    return format(number.normalize(), "f")
