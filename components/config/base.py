"""Shared building blocks of the stack configuration model.

Every section of the stack file is a :class:`ConfigModel`: camelCase keys as Pulumi users write them, unknown keys
rejected (a typo must never be silently ignored), immutable once loaded. A cross-field rule raises
:class:`RuleViolation` with the key it is about, so the error names the exact key, not just the section.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import abc
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

import pulumi
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError

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


def camel_key(name: str) -> str:
    """The stack-file key of field ``name``: ``min_count`` -> ``minCount``. pydantic's own ``to_camel`` gives the same
    keys for every field here but runs two regular expressions per field, a few milliseconds of every start-up."""
    first, *rest = name.split("_")
    return first + "".join(word.capitalize() for word in rest)


class ConfigModel(BaseModel):
    """Base of every configuration section: camelCase keys, no unknown keys, frozen.

    Attribute docstrings become field descriptions only in the tools that show them (``tools.config_reference``,
    which turns them into the tables of docs/config-reference.md, and ``tools.stack_schema``).

    Each model's validator is built when first used (``defer_build``): a run validates one :class:`StackConfig`, whose
    validator holds every section's, so building some ninety validators of their own at import was a tenth of a
    second of start-up that no run used. A field whose default is a model takes it from a factory
    (``Field(default_factory=M)``): an instance as the default is made when Python defines the class, and building
    it builds ``M``'s validator there and then.
    """

    model_config = ConfigDict(
        alias_generator=camel_key,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
        defer_build=True,
        protected_namespaces=(),  # no field starts with ``model_``: skip pydantic's per-field check for it
    )


class RuleViolation(ValueError):
    """A cross-field rule broken inside one model.

    ``key`` is relative to the model that raises it (``"userPools[0].minCount"``); the loader prefixes the path of
    that model, so the final message names the full key as the user wrote it. ``problem`` is that message without
    the key: the offending value and what is allowed instead.
    """

    rule: str | None = None
    """The id of the rule broken (docs/rules.md): stamped by the :func:`components.config.rules.rule` the raise sits
    in, unless the raise names one itself."""

    def __init__(self, key: str, value: Any, allowed: str, *, rule: str | None = None) -> None:
        self.key = key
        self.value = value
        self.allowed = allowed
        self.rule = rule
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


class MissingKey(RuleViolation):
    """A key a stack must write (no default would be right for everyone): the message says it is unset and what
    to write, instead of quoting a ``None`` the user never wrote."""

    def __init__(self, key: str, allowed: str) -> None:
        super().__init__(key, None, allowed)
        self.problem = f"it is not set; {allowed}"
        self.args = (f"{key}: {self.problem}",)


class Problem(tuple[str, str]):
    """One broken rule: a ``(key, message)`` pair (the full key; the bad value and what is allowed) that carries the
    id of its rule as :attr:`rule`, so every caller that unpacks or compares the pair keeps working."""

    rule: str | None

    def __new__(cls, key: str, message: str, rule: str | None = None) -> Problem:
        problem = super().__new__(cls, (key, message))
        problem.rule = rule
        return problem

    @property
    def key(self) -> str:
        return self[0]

    @property
    def message(self) -> str:
        return self[1]

    def __str__(self) -> str:
        return f"{self.key}: {self.message}" + (f" [rule: {self.rule}]" if self.rule else "")


class ConfigError(pulumi.RunError):
    """Invalid stack configuration, reported before any resource is registered.

    ``problems`` holds one :class:`Problem` per broken rule; ``str()`` is a single line, each problem ending in the
    id of its rule (``[rule: stack.smoke-job-targets]``) so the reader can look it up in docs/rules.md. A problem
    given as a ``(key, message)`` pair takes ``rule``. Being a ``RunError``, the Pulumi language host prints it as a
    plain message, never as a traceback.
    """

    def __init__(self, problems: Sequence[tuple[str, str] | Problem], rule: str | None = None) -> None:
        self.problems = [p if isinstance(p, Problem) else Problem(*p, rule=rule) for p in problems]
        """One :class:`Problem` per broken rule."""
        super().__init__("; ".join(str(problem) for problem in self.problems))

    @property
    def keys(self) -> list[str]:
        return [problem.key for problem in self.problems]

    @property
    def rules(self) -> list[str | None]:
        return [problem.rule for problem in self.problems]


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


MATCHING_RULE = "schema.matching"
"""The rule id of every :func:`matching` check (registered in :mod:`components.config.rules_declared`)."""


def matching(pattern: str, allowed: str) -> AfterValidator:
    """A string check whose error says what is allowed, in words rather than as a regular expression."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            error = ValueError(allowed)
            error.rule = MATCHING_RULE  # type: ignore[attr-defined]
            raise error
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
    return key_path(*(p for p in loc if isinstance(p, int) or not _is_validator_step(p)))


def _is_validator_step(part: str) -> bool:
    return re.match(r"^(function-|tagged-union)", part) is not None


_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with control characters and line separators escaped (``\\n``): a key or value the user wrote may
    hold one, and a message must stay one line for ``pulumi up`` and the render tool to print it as one."""
    return _LINE_BREAKING.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice ``word`` most likely misspells (case ignored), or ``None`` when none is close enough."""
    by_lower = {choice.lower(): choice for choice in choices}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[match[0]] if match else None


def _unwrap(annotation: Any) -> list[Any]:
    """The types a value at ``annotation`` may take: ``Annotated`` metadata and ``None`` dropped, unions split."""
    if get_origin(annotation) is Annotated:
        return _unwrap(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        return [t for arg in get_args(annotation) if arg is not type(None) for t in _unwrap(arg)]
    return [annotation]


def _step(annotation: Any, part: str | int) -> Any:
    """The annotation one location step below ``annotation``, or ``None`` when the step leads nowhere known."""
    for candidate in _unwrap(annotation):
        origin = get_origin(candidate)
        if isinstance(candidate, type) and issubclass(candidate, BaseModel) and isinstance(part, str):
            if part == candidate.__name__:  # a union member's name in the location
                return candidate
            fields = {field.alias or name: field for name, field in candidate.model_fields.items()}
            field = fields.get(part) or candidate.model_fields.get(part)
            if field is not None:
                return field.annotation
        elif origin in (list, tuple, set, frozenset, abc.Sequence) and isinstance(part, int):
            return get_args(candidate)[0] if get_args(candidate) else None
        elif origin in (dict, abc.Mapping) and isinstance(part, str):
            return get_args(candidate)[1] if get_args(candidate) else None
    return None


def model_at(root: type[BaseModel], loc: Sequence[str | int]) -> type[BaseModel] | None:
    """The config model class at pydantic location ``loc`` below ``root`` (``StackConfig``, a section), following
    field annotations through ``Optional``, unions, lists and maps; ``None`` where no single model is found."""
    annotation: Any = root
    for part in loc:
        if isinstance(part, str) and _is_validator_step(part):
            continue
        annotation = _step(annotation, part)
        if annotation is None:
            return None
    models = [t for t in _unwrap(annotation) if isinstance(t, type) and issubclass(t, BaseModel)]
    return models[0] if len(models) == 1 else None


def _model_named(title: str) -> type[BaseModel] | None:
    """The config model a ``ValidationError`` is about, found by its class name when that name is unique."""
    found: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [ConfigModel]
    while pending:
        cls = pending.pop()
        found += [cls] if cls.__name__ == title else []
        pending += cls.__subclasses__()
    return found[0] if len(found) == 1 else None


def _suggestion(root: type[BaseModel] | None, loc: tuple[str | int, ...]) -> tuple[str | None, list[str]]:
    """The key an unknown key at ``loc`` most likely misspells, and every key allowed at that place."""
    model = model_at(root, loc[:-1]) if root is not None else None
    if model is None:
        return None, []
    aliases = [field.alias or name for name, field in model.model_fields.items()]
    return closest(str(loc[-1]), aliases), aliases


def _unknown_key(root: type[BaseModel] | None, loc: tuple[str | int, ...]) -> str:
    """ "unknown key `clustrName`; did you mean `clusterName`?", or the keys allowed at that place."""
    suggestion, aliases = _suggestion(root, loc)
    if suggestion is not None:
        return f"unknown key `{loc[-1]}`; did you mean `{suggestion}`?"
    if aliases:
        return f"unknown key `{loc[-1]}`; allowed here: {', '.join(aliases)}"
    return f"unknown key `{loc[-1]}`; check the spelling against docs/config-reference.md"


def _misspelled_required_keys(items: list[Any], root: type[BaseModel] | None) -> set[tuple[str | int, ...]]:
    """Locations of required keys reported missing only because the user misspelled them: the unknown key's own
    message already names them ("did you mean `region`?"), so the missing-key report would say it twice."""
    found = set()
    for item in items:
        if item["type"] == "extra_forbidden":
            suggestion, _ = _suggestion(root, tuple(item["loc"]))
            if suggestion is not None:
                found.add((*item["loc"][:-1], suggestion))
    return found


_YAML_KINDS = {
    bool: ("a boolean", "the boolean"),
    int: ("an integer", "the integer"),
    float: ("a number", "the number"),
}


_CLI_STRING_HINT = "; with `pulumi config set --path`, add `--type string`"
"""https://www.pulumi.com/docs/iac/cli/commands/pulumi_config_set/: with ``--path``, "true" and "false" are treated
as booleans and integers as numbers, so shell quotes cannot make a string; ``--type string`` does."""


def _as_yaml(value: bool | int | float) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _yaml_typed(item: Any, written: str | None) -> str | None:
    """The message for a scalar YAML typed as a boolean or number where the model wants something else, saying how
    to write it (``written``: the scalar as the stack file spells it, when the loader knows it); else ``None``."""
    value, kind = item["input"], item["type"]
    if not isinstance(value, bool | int | float):
        return None
    text = written if written is not None else _as_yaml(value)
    a_kind, the_kind = _YAML_KINDS[type(value)]
    reads = (
        f"YAML reads {text} as {a_kind}"
        if text == _as_yaml(value)
        else f"YAML reads {text} as {the_kind} {_as_yaml(value)}"
    )
    expected = str((item.get("ctx") or {}).get("expected", ""))
    if kind == "string_type" or (kind == "literal_error" and expected.startswith("'")):
        allowed = f" (allowed: {expected})" if expected else ""
        # `pulumi config set --path` stores integers and true/false typed, whatever the shell quoting: say the flag.
        return f"{text} is not allowed; {reads}, not a string: quote it: {json.dumps(text)}{allowed}{_CLI_STRING_HINT}"
    if kind in ("int_type", "int_from_float") and isinstance(value, bool):
        return f"{text} is not allowed; {reads}, not a whole number: write a number such as 3"
    if kind in ("int_type", "int_from_float") and isinstance(value, float):
        return f"{text} is not allowed; it must be a whole number without a fraction, such as 3"
    return None


def problems_from(
    error: ValidationError,
    prefix: str,
    *,
    root: type[BaseModel] | None = None,
    yaml_scalars: Mapping[str, str] | None = None,
) -> list[Problem]:
    """Turn a pydantic error into problems that name the full key, the bad value, what is allowed and the rule.

    ``root`` is the model that was validated (found by the error's title when not given): an unknown key is then
    answered with the closest key allowed at its place. ``yaml_scalars`` maps keys (as returned) to the text of
    unquoted scalars YAML typed as booleans or numbers, so a type error can say exactly what to quote. A rule of the
    project's own carries its id (:mod:`components.config.rules`); pydantic's own checks are ``schema.<error type>``.
    """
    root = root if root is not None else _model_named(error.title)
    items = error.errors(include_url=False)
    misspelled = _misspelled_required_keys(items, root)
    problems = []
    for item in items:
        if item["type"] == "missing" and tuple(item["loc"]) in misspelled:
            continue
        cause = (item.get("ctx") or {}).get("error")
        loc = _loc_to_key(tuple(item["loc"]))
        rule = getattr(cause, "rule", None) if cause is not None else schema_rule(item["type"])
        if isinstance(cause, RuleViolation):
            key = key_path(prefix, loc, cause.key) if cause.key else key_path(prefix, loc)
            problems.append(Problem(key, cause.problem, rule))
            continue
        key = key_path(prefix, loc)
        problems.append(Problem(key, _message(item, root, (yaml_scalars or {}).get(key)), rule))
    return [Problem(one_line(problem.key), one_line(problem.message), problem.rule) for problem in problems]


def schema_rule(error_type: str) -> str:
    """The rule id of pydantic's own check ``error_type`` (a type, a pattern, an unknown or missing key):
    ``schema.extra-forbidden`` for https://docs.pydantic.dev/latest/errors/validation_errors/#extra_forbidden."""
    return f"schema.{error_type.replace('_', '-')}"


def _message(item: Any, root: type[BaseModel] | None, written: str | None) -> str:
    if item["type"] == "extra_forbidden":
        return _unknown_key(root, tuple(item["loc"]))
    if item["type"] == "missing":
        return "required key is missing"
    if item["type"] == "string_pattern_mismatch" and item["ctx"]["pattern"] in _PATTERN_NAMES:
        return f"{item['input']!r} is not allowed; {_PATTERN_NAMES[item['ctx']['pattern']]}"
    typed = _yaml_typed(item, written)
    if typed is not None:
        return typed
    message = item["msg"].removeprefix("Value error, ")
    shown = written if written is not None else repr(item["input"])  # 1.30 as written, not the 1.3 YAML made of it
    return f"{shown} is not allowed; {message}"
