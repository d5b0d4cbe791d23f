"""Kueue's feature-gate rules, applied to the installed minor's gate table (:mod:`components.config.kueue.profiles`).

The manager exits at start-up on an unknown gate (``unrecognized feature gate``), on a locked gate set against its
lock (``locked to true``/``false``) and on a gate whose dependency is off (``validateFeatureGateDependency``): a
crash-looping manager after ``helm upgrade`` rather than an error at apply time, so the same rules are checked here
(``LoadAndValidateFeatureGates`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go).
"""

from __future__ import annotations

from components.config.base import RuleViolation, key_path
from components.config.kueue.profiles import KueueProfile
from components.config.rules import rule

_VALIDATION_GATES_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/config/validation.go#L641"


def effective(gates: dict[str, bool], profile: KueueProfile) -> dict[str, bool]:
    """Every known gate's value once ``gates`` are applied over the minor's defaults."""
    return profile.gates.defaults() | gates


@rule("kueue-gates.known-and-settable", source=_VALIDATION_GATES_URL)
def require_valid(gates: dict[str, bool], profile: KueueProfile) -> None:
    """Feature gates the minor knows, not removed, not set against a lock and with the gates they need on, because
    the manager exits at start on any other. Raises at ``featureGates.<name>``."""
    table, kueue = profile.gates, f"Kueue {profile.minor}"
    for name, on in gates.items():
        key = key_path("featureGates", name)
        if name in table.removed:
            raise RuleViolation(key, on, table.removed[name])
        if name not in table.known:
            raise RuleViolation(key, on, f"{kueue} knows no such gate (https://kueue.sigs.k8s.io/docs/installation/)")
        if name in table.locked_on and not on:
            raise RuleViolation(key, on, f"the gate is GA and locked to true in {kueue}")
        if name in table.locked_off and on:
            raise RuleViolation(key, on, f"the gate is deprecated and locked to false in {kueue}")
    values = effective(gates, profile)
    for name, needs in table.requires.items():
        for need in needs:
            if values[name] and not values[need]:
                culprit = need if need in gates else name
                default = "" if name in gates else " by default"
                allowed = f"{name} is on{default} and requires {need}: turn {name} off as well, or {need} on"
                raise RuleViolation(key_path("featureGates", culprit), gates.get(culprit, True), allowed)
