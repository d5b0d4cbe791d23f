"""Read a ``Pulumi.<stack>.yaml`` stack file as the Pulumi engine would, refusing a malformed one with one line.

The render tool reads stack files itself (there is no engine offline), so every mistake the engine refuses, and
every one PyYAML would silently let through, is refused here with the file, the line and the key:

- YAML syntax errors, with line and column; more than one document; tags other than YAML's own types.
- A top level that is not a mapping of Pulumi's stack-file keys (``config``, ``secretsprovider``, ``encryptedkey``,
  ``encryptionsalt``, ``environment``: https://www.pulumi.com/docs/iac/concepts/projects/stack-settings-file/),
  or a ``config`` that is not a mapping; a misspelled key gets the closest valid one.
- Duplicate keys at any depth: PyYAML keeps the last one without a word, Pulumi refuses the file.
- Config keys without a namespace (Pulumi refuses them) or in a namespace nobody reads (a typo that would leave a
  whole section unset): :data:`~components.config.loader.CONFIG_NAMESPACES`, with the closest one suggested.
- Scalars YAML types against the writer's intent: PyYAML reads YAML 1.1, where ``2026-01-01`` is a date and
  ``yes``/``on`` are booleans, while Pulumi's Go reader follows YAML 1.2. No config key takes a date, so a date is
  refused with the quoted text to write; every other unquoted boolean or number is recorded in
  :attr:`StackFile.yaml_scalars`, so the config model, when it wanted a string, can say exactly what to quote.
- Numbers no config key can hold: infinity (``1e1000000``), NaN, integers beyond 64 bits.

Anchors, aliases and merge keys work as in YAML, within :data:`MAX_VALUES` values and :data:`MAX_DEPTH` levels, so
a small file cannot expand into a huge one.

What an offline read cannot know is said, never hidden (:attr:`StackFile.notes`): a ``secure:`` value becomes a
placeholder; the kubeconfig of ``existingCluster.source: kubeconfig``, a secret set per stack and so absent from a
template such as ``stacks/Pulumi.local.yaml``, becomes a stand-in; and the Pulumi ESC environments an
``environment:`` key imports are named, since their values only the Pulumi Cloud backend resolves.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from components.config import rules_declared
from components.config.base import PROJECT, ConfigError, closest, key_path, one_line
from components.config.loader import CONFIG_NAMESPACES, KUBECONFIG_SECRET_KEYS
from components.config.stack import KUBECONFIG_KEY
from tools import mock_cloud

STACK_FILE_KEYS = ("config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment")
"""The top-level keys of a Pulumi stack settings file; anything else is a typo the engine would not read."""
SECRET_PLACEHOLDER = "rendered-offline-secret"
"""Stands in for a ``secure:`` value: its ciphertext cannot be decrypted without the stack's secrets provider."""
MAX_DEPTH = 64
"""Nesting deeper than any config key needs; deeper input is refused before it can exhaust the stack."""
MAX_VALUES = 100_000
"""Values after alias expansion: far more than any stack needs, far fewer than a "billion laughs" file makes."""
INT64 = 2**63 - 1

_YAML = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_YAML}{name}" for name in ("str", "int", "float", "bool", "null", "timestamp")}
_KINDS = {bool: "the boolean", int: "the integer", float: "the number"}


class StackFileError(ConfigError):
    """A stack file the engine could not read as meant: ``file:line:column: key: what is wrong``, on one line.

    A :class:`ConfigError` like every other configuration mistake, so callers handle both alike.
    """

    def __init__(
        self, file: Path, key: str, message: str, *, node: Node | None = None, line: int | None = None, column: int = 0
    ) -> None:
        super().__init__([(key, message)], rule=rules_declared.STACK_FILE)
        if node is not None:
            line, column = node.start_mark.line + 1, node.start_mark.column + 1
        where = str(file) + (f":{line}" if line is not None else "") + (f":{column}" if column else "")
        self.file = file
        self.line = line
        problem = f"{key}: {message}" if key else message
        self.args = (one_line(f"{where}: {problem} [rule: {rules_declared.STACK_FILE}]"),)


class _StackLoader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml when present, for speed), reading ``1e3`` as a number as YAML 1.2 does."""


_StackLoader.add_implicit_resolver(
    f"{_YAML}float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
)


@dataclass(frozen=True)
class StackFile:
    """A stack file that passed every check above."""

    path: Path
    stack: str
    """The stack's name, from the file name ``Pulumi.<stack>.yaml``."""
    config: dict[str, Any]
    """``namespace:key`` -> the value as YAML typed it, ``secure:`` values replaced by placeholders."""
    secret_keys: frozenset[str]
    """The config keys holding a ``secure:`` value anywhere inside."""
    yaml_scalars: dict[str, str] = field(default_factory=dict)
    """Full key (``elastic-capacity:aks.kubernetesVersion``) -> the text of an unquoted scalar YAML typed as a
    boolean or a number there (``1.30``), for the config model's messages."""
    notes: tuple[str, ...] = ()
    """One line each for what the offline read stood in for or cannot see (a kubeconfig set per stack, Pulumi ESC
    imports): what a render prints, so it never looks more complete than it is."""
    root: Node | None = field(default=None, compare=False, repr=False)
    """The file's YAML node tree, which keeps every key's line and column: :mod:`tools.stack_locations` points a
    configuration error at its key with it. ``None`` for an empty file."""

    def engine_config(self) -> dict[str, str]:
        """The config as the engine hands it to the program: strings, structured values as JSON."""
        return {key: value if isinstance(value, str) else json.dumps(value) for key, value in self.config.items()}


def read(path: Path) -> StackFile:
    """Read and check the stack file at ``path``; raise :class:`StackFileError` naming the first mistake."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StackFileError(path, "", f"cannot read the stack file: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise StackFileError(path, "", f"not UTF-8 text: byte 0x{data[error.start]:02x}", line=line) from None
    return parse(text, path)


def parse(text: str, path: Path) -> StackFile:
    """Check the stack file text ``text`` (read from ``path``); raise :class:`StackFileError` on a mistake."""
    builder = _Builder(path)
    document = builder.document(text)
    if document is None:
        document = {}
    if not isinstance(document, dict):
        message = f"the top level must be a mapping of {', '.join(STACK_FILE_KEYS)}; found {_kind(document)}"
        raise StackFileError(path, "", message, node=builder.root)
    for key in document:
        if key not in STACK_FILE_KEYS:
            message = _unknown(f"unknown top-level key `{key}`", key, STACK_FILE_KEYS)
            if key.partition(":")[0] in CONFIG_NAMESPACES:
                message = f"`{key}` is a config key: indent it under `config:`"
            raise StackFileError(path, key, message, node=builder.keys.get((key,)))
    config = document.get("config")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        message = f"it must be a mapping of namespace:key entries; found {_kind(config)}"
        raise StackFileError(path, "config", message, node=builder.keys.get(("config",)))
    for key in config:
        _check_config_key(path, key, builder.keys.get(("config", key)))
    return _stack_file(path, config, builder, document.get("environment"))


def _stack_file(path: Path, config: dict[str, Any], builder: _Builder, environment: Any) -> StackFile:
    values: dict[str, Any] = {}
    secret_keys: set[str] = set()
    for key, value in config.items():
        values[key], secret = _decrypt_placeholder(key, value)
        if secret:
            secret_keys.add(key)
    notes = [_kubeconfig_stand_in(values, secret_keys), _esc_note(environment)]
    scalars = {key_path(*where[1:]): text for where, text in builder.scalars.items() if where[0] == "config"}
    stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    kept = tuple(note for note in notes if note)
    return StackFile(path, stack, values, frozenset(secret_keys), scalars, kept, builder.root)


def _kubeconfig_stand_in(values: dict[str, Any], secret_keys: set[str]) -> str | None:
    """Give a kubeconfig-sourced existing cluster without its kubeconfig a secret stand-in (in place); the note."""
    existing = values.get(f"{PROJECT}:existingCluster")
    key = f"{PROJECT}:{KUBECONFIG_KEY}"
    if not isinstance(existing, dict) or existing.get("source") != "kubeconfig" or key in values:
        return None
    values[key] = mock_cloud.FAKE_KUBECONFIG
    secret_keys.add(key)
    return (
        f"{key} is not in the file (a secret each stack sets: pulumi config set --secret {key} < kubeconfig); "
        "rendering with a stand-in kubeconfig"
    )


def _esc_note(environment: Any) -> str | None:
    """The line naming the Pulumi ESC environments a stack file's ``environment:`` imports (a list of names, or an
    inline definition with ``imports:``), whose values an offline read cannot resolve; ``None`` without one."""
    if not environment:
        return None
    imports = environment.get("imports") if isinstance(environment, dict) else environment
    names = [str(name) for name in imports] if isinstance(imports, list) else []
    what = f"imports the Pulumi ESC environments {', '.join(names)}" if names else "defines a Pulumi ESC environment"
    return (
        f"environment: the stack file {what}; their values are not read offline (only the Pulumi Cloud backend "
        "resolves them), so config and variables they provide are missing from this render"
    )


def _check_config_key(path: Path, key: str, node: Node | None) -> None:
    namespace, colon, name = key.partition(":")
    if not colon:
        message = f"a config key needs its namespace: write `{CONFIG_NAMESPACES[0]}:{key}`"
        raise StackFileError(path, key, message + " (Pulumi refuses keys without one)", node=node)
    if namespace not in CONFIG_NAMESPACES:
        message = _unknown(f"unknown namespace `{namespace}`", namespace, CONFIG_NAMESPACES)
        raise StackFileError(path, key, message, node=node)
    if not name:
        raise StackFileError(path, key, f"no key after the namespace; write e.g. `{namespace}:<key>`", node=node)


def _unknown(what: str, word: str, allowed: tuple[str, ...]) -> str:
    suggestion = closest(word, allowed)
    hint = f"; did you mean `{suggestion}`?" if suggestion else ""
    return f"{what}{hint} (allowed: {', '.join(allowed)})"


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"the scalar {value!r}"


def _decrypt_placeholder(key: str, value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict) and set(value) == {"secure"}:
        is_kubeconfig = key.removeprefix(f"{PROJECT}:") in KUBECONFIG_SECRET_KEYS
        return (mock_cloud.FAKE_KUBECONFIG if is_kubeconfig else SECRET_PLACEHOLDER), True
    if isinstance(value, dict):
        pairs = {k: _decrypt_placeholder(key, v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_decrypt_placeholder(key, v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


_Where = tuple[str | int, ...]


class _Builder:
    """Builds the document from YAML's node graph, checking as it goes; keeps each key's node (its line and column)
    and every YAML-typed scalar's text, by path from the document root."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.values = 0
        self.keys: dict[_Where, Node] = {}
        self.scalars: dict[_Where, str] = {}
        self.loader: Any = None
        self.text = ""
        self.root: Node | None = None

    def document(self, text: str) -> Any:
        self.text = text
        self.loader = _StackLoader(text)
        try:
            node = self.root = self.loader.get_single_node()
            return None if node is None else self.value(node, (), frozenset())
        except yaml.MarkedYAMLError as error:
            raise self._syntax(error) from None
        except yaml.YAMLError as error:  # a ReaderError: a character YAML does not allow
            line = text[: getattr(error, "position", 0)].count("\n") + 1
            raise StackFileError(self.file, "", f"YAML syntax error: {error}".split("\n")[0], line=line) from None
        except RecursionError:
            raise StackFileError(self.file, "", f"nested deeper than {MAX_DEPTH} levels") from None
        finally:
            self.loader.dispose()

    def _syntax(self, error: yaml.MarkedYAMLError) -> StackFileError:
        """libyaml's multi-line report as one line: the problem where it was found, and what it interrupted."""
        mark = error.problem_mark or error.context_mark
        context = ""
        if error.problem and error.context:
            context = f" ({error.context}" + (f" at line {error.context_mark.line + 1})" if error.context_mark else ")")
        message = f"YAML syntax error: {error.problem or error.context or 'malformed YAML'}{context}"
        if mark is not None and self.text[mark.index : mark.index + 1] == "\t":
            message += "; indent with spaces: YAML does not allow tabs there"
        if mark is None:
            return StackFileError(self.file, "", message)
        return StackFileError(self.file, "", message, line=mark.line + 1, column=mark.column + 1)

    def _fail(self, path: _Where, node: Node, message: str) -> StackFileError:
        return StackFileError(self.file, _key(path), message, node=node)

    def value(self, node: Node, path: _Where, active: frozenset[int]) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise self._fail(path, node, f"the file expands to more than {MAX_VALUES} values (through aliases)")
        if len(path) > MAX_DEPTH:
            raise self._fail(path, node, f"nested deeper than {MAX_DEPTH} levels")
        if id(node) in active:
            raise self._fail(path, node, "an alias refers to a value that contains it; write the value out")
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, SequenceNode) and node.tag == f"{_YAML}seq":
            inner = active | {id(node)}
            return [self.value(item, (*path, index), inner) for index, item in enumerate(node.value)]
        if isinstance(node, MappingNode) and node.tag == f"{_YAML}map":
            return self.mapping(node, path, active | {id(node)})
        raise self._fail(path, node, f"YAML tag {node.tag} is not allowed in a stack file; write a plain value")

    def mapping(self, node: MappingNode, path: _Where, active: frozenset[int]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        explicit: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == f"{_YAML}merge":
                for source in value_node.value if isinstance(value_node, SequenceNode) else [value_node]:
                    base = self.value(source, path, active)
                    if not isinstance(base, dict):
                        raise self._fail(path, source, "a merge key `<<` takes a mapping or a list of mappings")
                    merged = {**base, **merged}
                continue
            key = self.key(key_node, path)
            if key in explicit:
                first = self.keys[(*path, key)].start_mark.line + 1
                message = f"duplicate key `{key}` (first at line {first}): YAML keeps only the last; remove one"
                raise self._fail((*path, key), key_node, message)
            self.keys[(*path, key)] = key_node
            explicit[key] = self.value(value_node, (*path, key), active)
        return {**merged, **explicit}

    def key(self, node: Node, path: _Where) -> str:
        if not isinstance(node, ScalarNode):
            raise self._fail(path, node, "a key must be a plain string, not a list or a mapping")
        key = self.loader.construct_object(node)
        if not isinstance(key, str):
            raise self._fail((*path, node.value), node, f"a key must be a string; quote it: {json.dumps(node.value)}")
        return key

    def scalar(self, node: ScalarNode, path: _Where) -> Any:
        if node.tag not in _SCALAR_TAGS:
            raise self._fail(path, node, f"YAML tag {node.tag} is not allowed in a stack file; write a plain value")
        value = self.loader.construct_object(node)
        if isinstance(value, datetime.date):
            quoted = json.dumps(node.value)
            raise self._fail(path, node, f"YAML reads {node.value} as a date, which no key takes: quote it: {quoted}")
        if isinstance(value, float) and not math.isfinite(value):
            raise self._fail(
                path, node, f"{node.value} is out of range: YAML reads it as {value}; write a finite number"
            )
        if isinstance(value, int) and not -INT64 - 1 <= value <= INT64:
            raise self._fail(path, node, f"{node.value} is out of range: integers must fit in 64 bits")
        if type(value) in _KINDS and not node.style:
            self.scalars[path] = node.value
        return value


def _key(path: _Where) -> str:
    """The key as the user would name it: the config key and its path (``elastic-capacity:aks.userPools[0]``),
    or the top-level key."""
    return key_path(*path[1:]) if len(path) > 1 and path[0] == "config" else key_path(*path)
