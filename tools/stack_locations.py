"""Point a configuration error at its key in the stack file: ``stacks/Pulumi.<stack>.yaml:12:7: <key>: <message>``.

The config model names a key by its path (``elastic-capacity:aks.userPools[0].minCount``, ``azure-native:location``),
as the engine hands the values over, with no idea of the file. The stack file's YAML node tree
(:attr:`tools.stack_file.StackFile.root`) still knows where each key was written, so an offline read can say the line
and column the way YAML syntax errors already do, and an editor jumps there.

A path is followed from the file's ``config:`` mapping: a mapping entry's place is its key, a list item's place is
the item. Where the path ends early (a required key that is missing, a section only its defaults fill) the deepest
part that exists is named, so a missing key points at the mapping that lacks it. Keys of no config namespace (a
command-line flag such as ``--kueue-chart``) are not in the file and stay as they are.
"""

from __future__ import annotations

import re

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from components.config.base import ConfigError, Problem
from components.config.loader import CONFIG_NAMESPACES
from tools.stack_file import StackFile, StackFileError

_INDEX = re.compile(r"^\[(\d+)\]")
_MERGE = "tag:yaml.org,2002:merge"


class LocatedConfigError(ConfigError):
    """A :class:`ConfigError` whose message puts ``file:line:column`` before each key found in the stack file; still
    one line, the problems (and so :attr:`keys`) unchanged."""

    def __init__(self, error: ConfigError, source: StackFile) -> None:
        super().__init__(error.problems)
        self.places = [place(source, problem.key) for problem in error.problems]
        """``(line, column)``, 1-based, of each problem's key; ``None`` for a key the file cannot hold."""
        pairs = zip(self.places, self.problems, strict=True)
        self.args = ("; ".join(_line(source, where, problem) for where, problem in pairs),)


def locate(error: ConfigError, source: StackFile) -> ConfigError:
    """``error`` with each key's place in ``source``; a stack-file error, which names its place already, as it is."""
    if isinstance(error, StackFileError | LocatedConfigError):
        return error
    return LocatedConfigError(error, source)


def place(source: StackFile, key: str) -> tuple[int, int] | None:
    """The 1-based line and column of config ``key`` in ``source`` (or of the deepest part of its path the file
    has); ``None`` when ``key`` is in no config namespace or the file has no node to point at."""
    if key.partition(":")[0] not in CONFIG_NAMESPACES or not key.partition(":")[2]:
        return None
    node = _deepest(source.root, f"config.{key}")
    return None if node is None else (node.start_mark.line + 1, node.start_mark.column + 1)


def _line(source: StackFile, where: tuple[int, int] | None, problem: Problem) -> str:
    prefix = f"{source.path}:{where[0]}:{where[1]}: " if where is not None else ""
    return f"{prefix}{problem}"


def _deepest(root: Node | None, path: str) -> Node | None:
    """The node of ``path`` below ``root``, or of its longest prefix that exists (``root`` for none)."""
    found, node, rest = root, root, path
    while rest and node is not None:
        step = _step(node, rest)
        if step is None:
            break
        found, node, rest = step
    return found


def _step(node: Node, rest: str) -> tuple[Node, Node, str] | None:
    """One step down: (the node to point at, the node to continue in, the path left), or ``None``."""
    if isinstance(node, SequenceNode):
        index = _INDEX.match(rest)
        if index is None or int(index.group(1)) >= len(node.value):
            return None
        item = node.value[int(index.group(1))]
        return item, item, rest[index.end() :].removeprefix(".")
    if isinstance(node, MappingNode) and rest.startswith("[") and (close := rest.find("]")) > 0:
        # A map key as Kueue's field paths write it: `resourceWeights[nvidia.com/gpu]`.
        name, after = rest[1:close], rest[close + 1 :].removeprefix(".")
        return next(((k, v, after) for k, v in _entries(node) if k.value == name), None)
    if isinstance(node, MappingNode):
        # The longest key that starts the path: a map key may hold dots (`kubernetes.azure.com/agentpool`).
        for key_node, value_node in sorted(_entries(node), key=lambda entry: -len(entry[0].value)):
            name = key_node.value
            if rest == name or rest.startswith((f"{name}.", f"{name}[")):
                return key_node, value_node, rest[len(name) :].removeprefix(".")
    return None


def _entries(node: MappingNode) -> list[tuple[ScalarNode, Node]]:
    """The mapping's entries with string keys, its own before those a merge key ``<<`` brings in (they lose)."""
    own = [(k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.tag != _MERGE]
    merged: list[tuple[ScalarNode, Node]] = []
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE:
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            merged += [entry for source in sources if isinstance(source, MappingNode) for entry in _entries(source)]
    names = {k.value for k, _ in own}
    return own + [(k, v) for k, v in merged if k.value not in names]
