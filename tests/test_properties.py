"""Property: whatever a stack file says, the render tool's reading of it either accepts it or refuses it with the
project's one-line ``ConfigError``, never with another exception.

Each example starts from a shipped stack file, applies one to three random mutations (a key deleted, a value
replaced by one of the wrong type, an unknown key added, a key misspelled, an unquoted YAML scalar such as a date or
``yes``, a line duplicated, dropped or replaced by garbage) and feeds the text through the render tool's path up to
and including ``load_stack_config`` (:func:`tools.stack_file.parse`, :func:`tools.render.validate`). The mock
program run is left out: it only starts after validation succeeded, and would make each example a thousand times
slower. ``derandomize`` makes the run the same on every machine, so CI never fails on a new random draw.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components import yaml_text
from components.config.base import ConfigError
from tests.support.stacks import STACKS
from tools import render, stack_file

SHIPPED = {path.name: yaml_text.load(path.read_text()) for path in STACKS}
DUMPER = yaml_text.FAST_DUMPER

RAW_SCALARS = [
    "2026-01-01", "2026-01-01T10:00:00Z", "yes", "no", "on", "off", "Y", "1.30", "1.3", "010", "0x1F", "0o17",
    "1:30", "1e1000000", "-1e1000000", ".nan", ".inf", "-.inf", "~", "null", "99999999999999999999", "-1", "0",
    "1_000", "!!binary aGVsbG8=", "!custom x", "!!python/object:os.system x", "&a [*a]", "*undefined", "{", "[",
    "- a", "'unterminated", '"bad \\q escape"', "@at", "`tick", "%percent", "|", "<<: {a: 1}", "{a: 1, a: 2}",
    "[1, [2, [3, [4]]]]", "{? [a]: b}", "{1: a}", "{null: a}", "{2026-01-01: a}", "\t", "\x00", "\u2028x",
]  # fmt: skip
"""Unquoted scalars and fragments YAML reads as something other than a string, or cannot read at all."""

_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["", "x" * 5000, "a\nb", "-1", "1.35", "Standard_D4s_v3", "scalepool", "cas-kueue-demo"])
)
VALUES = st.recursive(
    _LEAVES,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)
"""Values of every YAML type, nested garbage included: negative and huge numbers, empty and very long strings."""
KEYS = st.text(min_size=1, max_size=20) | st.sampled_from(["clustrName", "maxcount", "nme", "Name", "enabled "])
Where = tuple[str | int, ...]


def paths(value: Any, prefix: Where = ()) -> list[Where]:
    """Every place in a document: each mapping value and list item, with the document itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def parent_of(document: Any, where: Where) -> Any:
    for part in where[:-1]:
        document = document[part]
    return document


def mutate(data: st.DataObject, document: Any, raws: list[str]) -> Any:
    """One random mutation of ``document``; an unquoted YAML scalar goes in as a placeholder listed in ``raws``."""
    where = data.draw(st.sampled_from(paths(document)))
    kind = data.draw(st.sampled_from(["delete", "replace", "raw", "add key", "rename key"]))
    if not where:
        return data.draw(VALUES) if kind == "replace" else document
    parent, last = parent_of(document, where), where[-1]
    if kind == "delete":
        del parent[last]
    elif kind == "replace":
        parent[last] = data.draw(VALUES)
    elif kind == "raw":
        raws.append(data.draw(st.sampled_from(RAW_SCALARS)))
        parent[last] = f"__RAW_{len(raws) - 1}__"
    elif isinstance(parent[last], dict) and kind == "add key":
        parent[last][data.draw(KEYS)] = data.draw(VALUES)
    elif isinstance(parent, dict) and kind == "rename key":
        parent[data.draw(KEYS)] = parent.pop(last)
    return document


def mutate_lines(data: st.DataObject, text: str) -> str:
    """Duplicate, drop or replace one line: duplicate keys, broken indentation, syntax errors."""
    lines = text.splitlines()
    if not lines:
        return text
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    kind = data.draw(st.sampled_from(["duplicate", "drop", "garbage"]))
    if kind == "duplicate":
        lines.insert(index, lines[index])
    elif kind == "drop":
        del lines[index]
    else:
        lines[index] = data.draw(st.text(max_size=30))
    return "\n".join(lines) + "\n"


def mutated_stack(data: st.DataObject) -> tuple[str, str]:
    """A shipped stack file's name and a mutated text of it."""
    name = data.draw(st.sampled_from(sorted(SHIPPED)))
    document, raws = copy.deepcopy(SHIPPED[name]), []
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        document = mutate(data, document, raws)
    text = yaml.dump(document, Dumper=DUMPER, sort_keys=False, allow_unicode=True)
    for index, raw in enumerate(raws):
        text = text.replace(f"__RAW_{index}__", raw)
    if data.draw(st.booleans()):
        text = mutate_lines(data, text)
    return name, text


def test_the_stack_file_error_is_the_projects_config_error():
    assert issubclass(stack_file.StackFileError, ConfigError)


@settings(
    max_examples=500, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.data())
def test_any_stack_file_is_accepted_or_refused_with_one_line(data):
    name, text = mutated_stack(data)
    try:
        render.validate(stack_file.parse(text, Path(name)))
    except ConfigError as error:
        message = str(error)
        assert message.strip(), "a refusal says what is wrong"
        assert len(message.splitlines()) == 1, message
