"""The loader: from the raw config values the engine hands the program to a valid :class:`StackConfig`.

What the model cannot see is checked here, on the raw values, before it is built: keys outside every namespace the
program and its providers read, numbers no key can hold, kubeconfigs not set as secrets, and the azure-native
provider's cloud (the model's context). :func:`load_stack_config` is the single entry point: it returns a valid
:class:`StackConfig` whose names are the physical ones (:func:`resolved`), or raises one
:class:`ConfigError` naming every bad key, before any resource is registered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from typing import Any

import pulumi
from pydantic import ValidationError

from components.config import environment_rules, pool_flavors, rules_declared
from components.config.base import (
    PROJECT,
    ConfigError,
    Problem,
    RuleViolation,
    closest,
    key_path,
    one_line,
    problems_from,
)
from components.config.environment import RESOLVED
from components.config.multikueue import rules as multikueue_rules
from components.config.stack import KUBECONFIG_KEY, AzureCloud, StackConfig, is_azure_china_region

KUBECONFIG_SECRET_KEYS = {
    KUBECONFIG_KEY: "pulumi config set --secret kubeconfig < kubeconfig",
    multikueue_rules.KUBECONFIGS_KEY: "pulumi config set --secret --path 'multiKueueKubeconfigs.<name>' < kubeconfig",
}
"""Config keys that hold kubeconfigs, and how to set each as a secret: a plain-text value is refused."""

AZURE_ENVIRONMENT_KEY = "azure-native:environment"
"""The azure-native provider's cloud: ``public`` (the default), ``usgovernment`` or ``china``."""
AZURE_LOCATION_KEY = "azure-native:location"
"""The azure-native provider's default region."""


def azure_provider_cloud(values: Mapping[str, Any]) -> AzureCloud | None:
    """The cloud the azure-native provider settings of the stack name; ``None`` when they name none.

    Raises :class:`ConfigError` on ``azure-native:location`` when it lies outside ``azure-native:environment``.
    """
    environment, location = values.get(AZURE_ENVIRONMENT_KEY), values.get(AZURE_LOCATION_KEY)
    clouds = []
    if environment:
        clouds.append(AzureCloud(environment.strip().lower() == "china", f"{AZURE_ENVIRONMENT_KEY} {environment!r}"))
    if location:
        clouds.append(AzureCloud(is_azure_china_region(location), f"{AZURE_LOCATION_KEY} {location!r}"))
    if len(clouds) == 2 and clouds[0].china != clouds[1].china:
        problem = f"{location!r} is not allowed; {clouds[0].regions_allowed()}"
        raise ConfigError([(AZURE_LOCATION_KEY, problem)], rule=rules_declared.PROVIDER_CLOUD)
    return clouds[0] if clouds else None


CONFIG_NAMESPACES = (PROJECT, "azure-native", "alicloud", "kubernetes", "pulumi")
"""The namespaces a stack's config keys may use: this project's, its providers' and Pulumi's own. A key in any
other namespace is read by nobody, so a misspelled one (``elastc-capacity:aks``) would leave its section unset."""
_INT64 = 2**63 - 1
NAMESPACE, FINITE_NUMBER = rules_declared.NAMESPACE, rules_declared.FINITE_NUMBER


def _parse_value(raw: Any) -> Any:
    """Structured config arrives as JSON strings; plain strings stay strings."""
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return raw


def _stray_key_problems(keys: Collection[str]) -> list[Problem]:
    """Keys without a namespace (the engine refuses them in a stack file) or in one nobody reads."""
    problems = []
    for key in keys:
        namespace, colon, _ = key.partition(":")
        if not colon:
            problems.append(Problem(key, f"a config key needs its namespace: write `{PROJECT}:{key}`", NAMESPACE))
        elif namespace not in CONFIG_NAMESPACES:
            suggestion = closest(namespace, CONFIG_NAMESPACES)
            hint = f"; did you mean `{suggestion}`?" if suggestion else ""
            allowed = ", ".join(CONFIG_NAMESPACES)
            problems.append(Problem(key, f"unknown namespace `{namespace}`{hint} (allowed: {allowed})", NAMESPACE))
    return problems


def _absurd_number_problems(value: Any, key: str) -> list[Problem]:
    """Infinity, NaN and integers beyond 64 bits: no key holds one, and JSON writers disagree on how to spell them."""
    if isinstance(value, dict):
        return [problem for k, v in value.items() for problem in _absurd_number_problems(v, key_path(key, str(k)))]
    if isinstance(value, list):
        return [problem for i, v in enumerate(value) for problem in _absurd_number_problems(v, key_path(key, i))]
    if isinstance(value, float) and not math.isfinite(value):
        return [Problem(key, f"{value!r} is out of range; write a finite number", FINITE_NUMBER)]
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 - 1 <= value <= _INT64:
        return [Problem(key, f"{value!r} is out of range; integers must fit in 64 bits", FINITE_NUMBER)]
    return []


def load_stack_config(
    values: Mapping[str, Any],
    secret_keys: Collection[str] = (),
    *,
    stack: str | None = None,
    yaml_scalars: Mapping[str, str] | None = None,
) -> StackConfig:
    """Validate the ``elastic-capacity:*`` config values of ``stack``; raise :class:`ConfigError` naming every bad key.

    The stack name is what unset names derive from (``aks`` names, an ephemeral ``environment.nameSuffix``); without
    one, the walkthrough's names are used and an ephemeral stack must set its suffix. ``yaml_scalars`` (full key ->
    text, from :mod:`tools.stack_file`) lets a type error quote the exact text of an unquoted YAML scalar.
    """
    prefix = f"{PROJECT}:"
    section_values = {key.removeprefix(prefix): _parse_value(v) for key, v in values.items() if key.startswith(prefix)}
    problems = _stray_key_problems(list(values))
    for section, value in section_values.items():
        problems += _absurd_number_problems(value, prefix + section)
    if problems:
        raise ConfigError([Problem(one_line(p.key), one_line(p.message), p.rule) for p in problems])
    for key, how in KUBECONFIG_SECRET_KEYS.items():
        if prefix + key in values and prefix + key not in secret_keys:
            raise ConfigError([(prefix + key, f"must be a secret: {how}")], rule=rules_declared.KUBECONFIG_SECRET)
    if KUBECONFIG_KEY in section_values:
        section_values[KUBECONFIG_KEY] = values[prefix + KUBECONFIG_KEY]
    context = {"azure_cloud": azure_provider_cloud(values), "stack": stack}
    try:
        return resolved(StackConfig.model_validate(section_values, context=context), context)
    except ValidationError as error:
        scalars = {k.removeprefix(prefix): text for k, text in (yaml_scalars or {}).items() if k.startswith(prefix)}
        found = problems_from(error, "", root=StackConfig, yaml_scalars=scalars)
        raise ConfigError([Problem(f"{PROJECT}:{p.key}", p.message, p.rule) for p in found]) from None


def resolved(given: StackConfig, context: Mapping[str, Any]) -> StackConfig:
    """``given`` as the components build it, validated again as a whole, so every rule holds for the names and
    values that reach the cloud too: the smoke Job given its LocalQueue and pool
    (:meth:`~components.config.stack.StackConfig.smoke_job_targeted`), then
    :func:`~components.config.environment_rules.resolve`, run once (physical names with ``environment.nameSuffix``,
    the environment's defaults), then :func:`~components.config.pool_flavors.resolve` (flavors given their pool's
    label and tolerations). Only the keys written or resolved are passed on: a rule that tells a written key from a
    default sees the same difference. A name too long for the suffix is a :class:`ConfigError` at its key."""
    try:
        job = given.smoke_job_targeted()
        targeted = given if job == given.smoke_job else given.model_copy(update={"smoke_job": job})
        tree = pool_flavors.resolve(environment_rules.resolve(targeted))
    except RuleViolation as violation:
        raise ConfigError([(f"{PROJECT}:{violation.key}", violation.problem)], rule=violation.rule) from None
    return StackConfig.model_validate(
        tree.model_dump(by_alias=True, exclude_unset=True), context={**context, RESOLVED: True}
    )


def read_stack_config() -> StackConfig:
    """Load the running program's configuration from the Pulumi runtime (real engine or mocks)."""
    from pulumi.runtime import config as runtime_config

    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    secret_keys = set(runtime_config.get_config_secret_keys_env())
    secret_keys.update(key for key in values if runtime_config.is_config_secret(key))
    return load_stack_config(values, secret_keys, stack=pulumi.get_stack())
