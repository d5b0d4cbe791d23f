"""Shared building blocks of the stack configuration model.

Every section of the stack file is a :class:`ConfigModel`: camelCase keys as Pulumi users write them, unknown keys
rejected (a typo must never be silently ignored), immutable once loaded. A cross-field rule raises
:class:`RuleViolation` with the key it is about, so the error names the exact key, not just the section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import Annotated, Any

import pulumi
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError
from pydantic.alias_generators import to_camel

PROJECT = "elastic-capacity"
"""The Pulumi project name: the namespace of every config key this program reads."""

DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"

DnsLabel = Annotated[str, StringConstraints(pattern=DNS1123_LABEL, max_length=63)]
"""A DNS-1123 label: the name of a namespace, or of any object whose name must be a label."""

DnsSubdomain = Annotated[str, StringConstraints(pattern=DNS1123_SUBDOMAIN, max_length=253)]
"""A DNS-1123 subdomain: the name of most Kubernetes objects (Kueue objects included)."""

Int32 = Annotated[int, Field(ge=-(2**31), le=2**31 - 1, strict=True)]
"""An integer the API server stores as ``format: int32``: anything outside overflows and is refused. Strict, so a
YAML string or float is named as such rather than silently converted."""


class ConfigModel(BaseModel):
    """Base of every configuration section: camelCase keys, no unknown keys, frozen.

    Attribute docstrings become field descriptions, which ``tools.config_reference`` turns into the README's tables.
    """

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
        use_attribute_docstrings=True,
    )


class RuleViolation(ValueError):
    """A cross-field rule broken inside one model.

    ``key`` is relative to the model that raises it (``"userPools[0].minCount"``); the loader prefixes the path of
    that model, so the final message names the full key as the user wrote it. ``problem`` is that message without
    the key: the offending value and what is allowed instead.
    """

    def __init__(self, key: str, value: Any, allowed: str) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        self.problem = f"{value!r} is not allowed; {allowed}"
        super().__init__(f"{key}: {self.problem}")


class MisplacedKey(RuleViolation):
    """A key that must not be set at all in this stack, whatever its value (a secret, or a whole section).

    The message says the key is set where it does not belong instead of quoting a value, so no secret and no
    placeholder such as ``'set'`` ever reaches the user.
    """

    def __init__(self, key: str, allowed: str) -> None:
        super().__init__(key, None, allowed)
        self.problem = f"it must not be set here; {allowed}"
        self.args = (f"{key}: {self.problem}",)


class ConfigError(pulumi.RunError):
    """Invalid stack configuration, reported before any resource is registered.

    ``problems`` holds one ``(key, message)`` pair per broken rule; ``str()`` is a single line. Being a
    ``RunError``, the Pulumi language host prints it as a plain message, never as a traceback.
    """

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{key}: {message}" for key, message in problems))

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self.problems]


_PATTERN_NAMES = {
    DNS1123_LABEL: "it must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending alphanumeric",
    DNS1123_SUBDOMAIN: "it must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', "
    "starting and ending alphanumeric",
}


def require_unique(values: Sequence[Hashable], key: Callable[[int], str], what: str) -> None:
    """Raise :class:`RuleViolation` at ``key(i)`` for the first value that repeats an earlier one.

    ``what`` names the collection in the message ("pool names", "each zone"), so every uniqueness rule reads alike
    and names the duplicate's own key, never just its list.
    """
    seen: set[Hashable] = set()
    for index, value in enumerate(values):
        if value in seen:
            raise RuleViolation(key(index), value, f"{what} must be unique; this one is already used")
        seen.add(value)


def refuse_renamed_keys(data: Any, renamed: dict[str, str]) -> Any:
    """Name the replacement of a key copied from an older API version (``renamed``: old key -> what to use)."""
    if isinstance(data, dict):
        for old, hint in renamed.items():
            if old in data:
                raise RuleViolation(old, data[old], hint)
    return data


def matching(pattern: str, allowed: str) -> AfterValidator:
    """A string check whose error says what is allowed, in words rather than as a regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(allowed)
        return value

    return AfterValidator(check)


def key_path(*parts: str | int) -> str:
    """Join path parts the way the user writes them: ``aks.userPools[0].minCount``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part:
            out += f".{part}" if out else part
    return out


def _loc_to_key(loc: tuple[str | int, ...]) -> str:
    # pydantic puts tagged-union discriminators and function validators in the location; drop them.
    return key_path(*(p for p in loc if isinstance(p, int) or not re.match(r"^(function-|tagged-union)", p)))


def problems_from(error: ValidationError, prefix: str) -> list[tuple[str, str]]:
    """Turn a pydantic error into ``(full key, message)`` pairs that name the key, the bad value and what is allowed."""
    problems = []
    for item in error.errors(include_url=False):
        cause = (item.get("ctx") or {}).get("error")
        loc = _loc_to_key(tuple(item["loc"]))
        if isinstance(cause, RuleViolation):
            key = key_path(prefix, loc, cause.key) if cause.key else key_path(prefix, loc)
            problems.append((key, cause.problem))
            continue
        key = key_path(prefix, loc)
        if item["type"] == "extra_forbidden":
            problems.append((key, "unknown key; check the spelling against the README's config reference"))
        elif item["type"] == "missing":
            problems.append((key, "required key is missing"))
        elif item["type"] == "string_pattern_mismatch" and item["ctx"]["pattern"] in _PATTERN_NAMES:
            problems.append((key, f"{item['input']!r} is not allowed; {_PATTERN_NAMES[item['ctx']['pattern']]}"))
        else:
            message = item["msg"].removeprefix("Value error, ")
            problems.append((key, f"{item['input']!r} is not allowed; {message}"))
    return problems
