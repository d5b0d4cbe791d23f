"""The config model's attribute docstrings as its fields' descriptions, for the tools that print them.

The models do not read their docstrings when Python builds them: pydantic's ``use_attribute_docstrings`` parses
each class's source again at import, which was a third of the program's start-up, and only
``python -m tools.config_reference`` and ``python -m tools.stack_schema`` show descriptions. They call
:func:`describe` first, which gives each field what that option would have given it: the string literal right
below its ``name: type`` line in the class that declares it, cleaned by :func:`inspect.cleandoc`, unless the field
has a ``Field(description=...)`` of its own.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel


def attribute_docstrings(cls: type) -> dict[str, str]:
    """Each ``name: type`` statement of the class body directly followed by a string literal: name -> the string."""
    (node,) = ast.parse(textwrap.dedent(inspect.getsource(cls))).body
    assert isinstance(node, ast.ClassDef)
    return {
        statement.target.id: inspect.cleandoc(following.value.value)
        for statement, following in itertools.pairwise(node.body)
        if isinstance(statement, ast.AnnAssign)
        and isinstance(statement.target, ast.Name)
        and isinstance(following, ast.Expr)
        and isinstance(following.value, ast.Constant)
        and isinstance(following.value.value, str)
    }


@functools.cache
def describe(root: type[BaseModel]) -> None:
    """Give every field of ``root`` and of the models below it its attribute docstring as its description, then
    rebuild each model, innermost first, so its JSON Schema carries them. Validation is unchanged."""
    for model in _innermost_first(root):
        for name, field in model.model_fields.items():
            if field.description is None:
                owner = next(c for c in model.__mro__ if name in vars(c).get("__annotations__", {}))
                field.description = attribute_docstrings(owner).get(name)
        model.model_rebuild(force=True)


def _innermost_first(root: type[BaseModel]) -> list[type[BaseModel]]:
    """``root`` and every model its fields reach, each after the models its own fields reach."""
    order: list[type[BaseModel]] = []

    def visit(model: type[BaseModel]) -> None:
        if model in order:
            return
        for field in model.model_fields.values():
            for child in _models_in(field.annotation):
                visit(child)
        order.append(model)

    visit(root)
    return order


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)
