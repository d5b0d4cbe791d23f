"""Ship a dynamic provider to Pulumi's provider process by value: the source of its modules, not an import path.

Why: docs/decisions/0003-waiters-as-dynamic-resources.md. In short, dill pickles a class of an importable module as
a bare import path, which fails in an Automation API program, from another directory, or after a rename.

:func:`reduce_by_value` makes a provider pickle as a call of the built-in ``eval`` on a small loader plus the source
text of the modules it needs, so unpickling needs nothing but Python and the packages those modules import. The same
source gives the same pickle, so an unchanged program never diffs; a changed waiter shows up as a changed input.
:class:`WaitProvider` is the base of the project's waiters. This module is itself shipped that way: it must import
nothing from this project.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

import pulumi
from pulumi.dynamic import DiffResult, ResourceProvider

_LOADER = """
import sys, types
modules = {}
for name, source in sources:
    module = types.ModuleType(name)
    module.__file__ = "<shipped by value: " + name + ">"
    sys.modules.setdefault(name, module)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    modules[name] = module
provider = object.__new__(getattr(modules[class_module], class_name))
provider.__dict__.update(state)
"""
"""Runs in the provider process: each module is executed once, in order, and registered under its own name unless
a module of that name is already loaded, so ``from components.x import y`` inside a shipped module finds its
shipped dependency."""

_EVALUATE = "exec(loader, scope) or scope['provider']"


def reduce_by_value(provider: object, modules: Sequence[str]) -> tuple[Any, tuple[str, dict[str, Any]]]:
    """A ``__reduce__`` result that rebuilds ``provider`` from the source of ``modules`` (dependencies first).

    ``modules`` must end with the provider class's own module; the provider's ``__dict__`` must hold only plain,
    picklable data.
    """
    cls = type(provider)
    if not modules or modules[-1] != cls.__module__:
        raise ValueError(f"modules must end with {cls.__module__}, the module of {cls.__qualname__}")
    scope = {
        "sources": [(name, inspect.getsource(sys.modules[name])) for name in modules],
        "class_module": cls.__module__,
        "class_name": cls.__qualname__,
        "state": dict(vars(provider)),
    }
    return eval, (_EVALUATE, {"scope": scope, "loader": _LOADER})


class WaitProvider(ResourceProvider):
    """A dynamic provider whose ``create`` waits for something in the cluster and ``delete`` deletes nothing.

    It is shipped by value (``shipped_modules``, dependencies first, its own module last) and replaced, which waits
    again, only when one of ``watched_inputs`` changes: a rotated kubeconfig is not a new thing to wait for.
    """

    shipped_modules: tuple[str, ...]
    watched_inputs: tuple[str, ...]

    def __reduce__(self) -> Any:
        return reduce_by_value(self, self.shipped_modules)

    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        replaces = [key for key in self.watched_inputs if _olds.get(key) != _news.get(key)]
        return DiffResult(changes=bool(replaces), replaces=replaces, delete_before_replace=True)


def reading(reader: Any, opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions:
    """``opts`` of a waiter that reads a cluster through ``reader`` (a
    :class:`~components.waiters.kube_wait.ClusterReader`), depending also on what grants it access there, so no waiter
    can read before its identity may."""
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=list(reader.after)))
