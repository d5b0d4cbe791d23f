"""The ACS pod annotations a workload may set, the compute classes each applies to, and their limits.

From ACS's pod overview (https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview): an
annotation ACS ignores for a class, or a value it refuses, leaves the pod Pending or placed unlike the stack says, so
each is checked before anything registers.
"""

from __future__ import annotations

import re
from decimal import Decimal

from components.config.base import RuleViolation, key_path
from components.config.rules import rule

_ACS_POD_URL = "https://www.alibabacloud.com/help/en/cs/user-guide/acs-pod-instance-overview"

CPU_VENDORS = "alibabacloud.com/cpu-vendors"
"""Which CPU vendors the pod may run on: ``intel`` (ACS's default), ``amd`` (allow-listed accounts) or both."""
REQUIRED_SPEC = "alibabacloud.com/pod-required-spec"
"""The size a Burstable pod is billed and placed at, ``<cpu>-<memory>Gi``."""
USE_SPEC = "alibabacloud.com/pod-use-spec"
"""Written by ACS (the normalised spec it chose): a value set here would be overwritten or refused."""
CPU_ONLY_CLASSES = ("general-purpose", "performance")
"""The classes both annotations apply to."""
VENDOR_VALUES = ("intel", "amd", "intel,amd", "amd,intel")
MAX_SPEC_CPU, MAX_SPEC_MEMORY_GIB = Decimal(64), Decimal(512)
"""The largest ``pod-required-spec``: 64 vCPU and 512 GiB."""
_SPEC = re.compile(r"(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)Gi")


@rule("acs-annotations.accepted", source=_ACS_POD_URL)
def check(key: str, annotations: dict[str, str], compute_class: str) -> None:
    """Pod annotations ACS applies: never the spec ACS writes itself, the CPU vendor and required spec on the CPU
    classes only and in the forms and sizes ACS accepts, because ACS refuses or silently ignores any other.

    Raises :class:`RuleViolation` at ``key.<annotation>``.
    """
    if USE_SPEC in annotations:
        raise RuleViolation(key_path(key, USE_SPEC), annotations[USE_SPEC], "ACS writes it; set pod-required-spec")
    for name in (CPU_VENDORS, REQUIRED_SPEC):
        if name in annotations and compute_class not in CPU_ONLY_CLASSES:
            allowed = f"ACS applies it to the {' and '.join(CPU_ONLY_CLASSES)} classes only, not {compute_class}"
            raise RuleViolation(key_path(key, name), annotations[name], allowed)
    vendors = annotations.get(CPU_VENDORS)
    if vendors is not None and vendors.replace(" ", "") not in VENDOR_VALUES:
        raise RuleViolation(key_path(key, CPU_VENDORS), vendors, "intel, amd or intel,amd")
    spec = annotations.get(REQUIRED_SPEC)
    if spec is not None:
        match = _SPEC.fullmatch(spec)
        if match is None:
            raise RuleViolation(key_path(key, REQUIRED_SPEC), spec, "write <cpu>-<memory>Gi, e.g. 2-4Gi")
        cpu, memory = Decimal(match[1]), Decimal(match[2])
        if cpu > MAX_SPEC_CPU or memory > MAX_SPEC_MEMORY_GIB:
            allowed = f"at most {MAX_SPEC_CPU} vCPU and {MAX_SPEC_MEMORY_GIB} GiB"
            raise RuleViolation(key_path(key, REQUIRED_SPEC), spec, allowed)
