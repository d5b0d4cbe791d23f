"""Every rule a stack's configuration must keep, by id: what docs/rules.md lists and every refusal names.

A check is a rule when it is decorated with :func:`rule`: the id is registered with the function that checks it,
what it refuses and why (the docstring's first sentence, which must be there) and the public source it follows (an
explicit ``source``, else the first URL of the docstring; a project policy with no upstream may name the section of
``docs/`` that states it, as ``docs/<file>.md#<section>``). A :class:`~components.config.base.RuleViolation`, or the
``ValueError`` of a field validator, raised inside the function carries the id unless a more specific rule inside
stamped it first; the loader turns both into :class:`~components.config.base.Problem` s that end in
``[rule: <id>]``. Refusals raised outside a decorated function (the loader's, the stack file's, deploy-time checks)
are :func:`declare` d here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from components.config.base import schema_rule

_F = TypeVar("_F", bound=Callable[..., Any])
_URL = re.compile(r"https://[^\s)>`'\"]+[^\s)>`'\".,;:]")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)+$")


@dataclass(frozen=True)
class Rule:
    """One registered rule, as docs/rules.md lists it."""

    id: str
    where: str
    """``module:function`` of the check."""
    checks: str
    """What it checks, in one sentence."""
    source: str | None = None
    """The public document the rule follows (a URL), or the ``docs/`` section stating a policy of the project's own."""
    key: str | None = None
    """The config key pattern it guards, where the check does not sit on a model (derived for those)."""
    function: Callable[..., Any] | None = None


RULES: dict[str, Rule] = {}
"""Every rule by id, in registration (import) order."""


def _register(entry: Rule) -> None:
    if not _ID.match(entry.id):
        raise ValueError(f"rule id {entry.id!r}: write <area>.<kebab-case-name>")
    if entry.id in RULES and RULES[entry.id].where != entry.where:
        raise ValueError(f"rule id {entry.id!r} is used by {RULES[entry.id].where} and {entry.where}")
    RULES[entry.id] = entry


def first_sentence(doc: str | None) -> str:
    """The docstring's first sentence on one line (up to a '. ' before a capital, or the first blank line)."""
    text = " ".join((doc or "").split("\n\n")[0].split())
    match = re.match(r"(.+?)\.(\s+(?=[A-Z`(])|$)", text)
    return match.group(1) if match else text


def rule(rule_id: str, *, source: str | None = None, key: str | None = None) -> Callable[[_F], _F]:
    """Register the decorated check as rule ``rule_id``; violations raised inside carry the id.

    Put it directly on the function, under ``@model_validator``, ``@field_validator`` and ``@classmethod``. The
    function's docstring must say, in its first sentence, what the rule refuses and why: docs/rules.md shows it.
    """

    def register(function: _F) -> _F:
        doc = function.__doc__
        found = _URL.search(doc or "")
        checks = first_sentence(doc)
        where = f"{function.__module__}:{function.__qualname__}"
        if not checks:
            raise ValueError(f"rule {rule_id!r} ({where}): give the check a docstring saying what it refuses and why")
        url = source or (found.group() if found else None)

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except ValueError as violation:
                if getattr(violation, "rule", None) is None:
                    violation.rule = rule_id  # type: ignore[attr-defined]
                raise

        _register(Rule(rule_id, where, checks, url, key, checked))
        return checked  # type: ignore[return-value]

    return register


def declare(rule_id: str, where: str, checks: str, *, source: str | None = None, key: str | None = None) -> str:
    """Register a rule whose refusal is raised outside a decorated check (it names the id itself); the id."""
    _register(Rule(rule_id, where, checks, source, key))
    return rule_id


PYDANTIC_ERRORS = "https://docs.pydantic.dev/latest/errors/validation_errors/"
SCHEMA_CHECKS = {
    "missing": "A required key is set",
    "extra_forbidden": "Every key is one the section has (a misspelled key is never silently ignored)",
    "string_type": "A string-typed key holds a string",
    "string_pattern_mismatch": "A name has the form Kubernetes or the cloud needs (the message says it in words)",
    "string_too_long": "A string fits its length limit",
    "string_too_short": "A string is not empty where it must not be",
    "int_type": "An integer-typed key holds a whole number",
    "int_from_float": "An integer-typed key holds a number without a fraction",
    "int_parsing": "An integer-typed key holds a whole number",
    "float_type": "A number-typed key holds a number",
    "bool_type": "A boolean-typed key holds true or false",
    "bool_parsing": "A boolean-typed key holds true or false",
    "literal_error": "A key limited to a few values holds one of them",
    "enum": "A key limited to a few values holds one of them",
    "greater_than": "A number is above its minimum",
    "greater_than_equal": "A number is at least its minimum",
    "less_than": "A number is below its maximum",
    "less_than_equal": "A number is at most its maximum",
    "too_short": "A list has at least its minimum number of items",
    "too_long": "A list has at most its maximum number of items",
    "list_type": "A list-typed key holds a list",
    "dict_type": "A mapping-typed key holds a mapping",
    "model_type": "A section holds a mapping of its keys",
    "model_attributes_type": "A section holds a mapping of its keys",
    "union_tag_invalid": "A tagged section names one of its known kinds",
    "union_tag_not_found": "A tagged section names its kind",
    "set_type": "A set-typed key holds a list of distinct items",
}
"""pydantic's own checks, registered as ``schema.<error type>``: the types and constraints the models declare."""
for _type, _checks in SCHEMA_CHECKS.items():
    declare(
        schema_rule(_type),
        f"pydantic:{_type}",
        _checks,
        source=f"{PYDANTIC_ERRORS}#{_type}",
        key="any key of that type",
    )
