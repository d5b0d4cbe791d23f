"""The Pulumi engine, rehearsed: a stack's plan (a :class:`~tools.recording.Recording` of the real program) run
against the simulated world the way ``pulumi up``, ``preview``, ``preview --refresh`` and ``destroy`` run it.

``up`` starts every resource once everything it depends on is done (its ``depends_on``, the resources its inputs come
from, its provider; a component stands for all of its children), and runs them side by side on the simulated clock;
each does what its provider does in the world (:mod:`tools.world.providers`). An invoke asks its cloud once the
resource it reads exists, and what signs in with its answer waits for it. The first failure ends the run: the engine
starts nothing more, lets what runs finish, and reports that failure.

``preview`` (``refresh``) and ``destroy`` run on the deployed state, at one moment, as the identity running them: a
preview makes the calls the command makes and plans a change wherever the program's inputs now differ outside
``ignore_changes`` (a dynamic resource: wherever its real provider's ``check`` and ``diff`` say so).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any

from tools.recording import Recording, Registration
from tools.world.clock import Process
from tools.world.kube import ApiError
from tools.world.providers import CHART, DYNAMIC, INVOKE_SECONDS, KUBERNETES_PROVIDER, Providers, StepFailed, urn_of
from tools.world.world import Refused, Request, World, clock


@dataclasses.dataclass
class Step:
    """One thing the engine does: a resource's create (read, delete), or an invoke."""

    key: str
    label: str
    registration: Registration | None = None
    invoke: Any = None
    needs: set[str] = dataclasses.field(default_factory=set)
    started: float | None = None
    finished: float | None = None
    error: BaseException | None = None
    outputs: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Outcome:
    """What a rehearsed operation did: its steps in the order they started, and the first failure."""

    operation: str
    identity: str
    steps: list[Step]
    failed: Step | None
    changes: list[str] = dataclasses.field(default_factory=list)
    """A preview's planned changes, ``<create|update|delete> <name>``; empty for an unchanged stack."""
    refusal: Request | None = None
    """The world's refusal behind the failure, when a cloud refused it: who asked, and what was missing."""


class Engine:
    """Rehearses one stack's operations in ``world`` (see the module docstring)."""

    def __init__(self, world: World, recording: Recording) -> None:
        self.world = world
        self.recording = recording
        self.providers = Providers(world, recording)
        self.by_urn = self.providers.by_urn
        self.deployed: dict[str, dict[str, Any]] = {}
        """Every resource created by ``up``, in order: its inputs and, for a dynamic one, its provider's outputs."""

    # --- up -------------------------------------------------------------------------------------------------------

    def up(self) -> Outcome:
        self.world.operation = "up"
        steps = self._steps()
        pending, done, failed = dict(steps), set[str](), list[Step]()

        def start_ready() -> None:
            for key, step in list(pending.items()):
                if not failed and step.needs <= done:
                    del pending[key]
                    self.world.conductor.start(key, functools.partial(self._run, step))

        def finished(process: Process) -> None:
            step = steps[process.name]
            step.started, step.finished, step.error = process.started_at, process.finished_at, process.error
            if step.error is None:
                done.add(step.key)
            elif not failed:
                failed.append(step)
            start_ready()

        with self.providers.in_the_world():
            start_ready()
            self.world.conductor.run(finished)
        if not failed and pending:
            stuck = next(iter(pending.values()))
            stuck.error = StepFailed(f"never started: it waits for {sorted(stuck.needs - done)}")
            failed.append(stuck)
        ordered = sorted((s for s in steps.values() if s.started is not None), key=lambda s: (s.started or 0, s.key))
        for step in ordered:
            if step.registration is not None and step.error is None:
                self.deployed[step.key] = {"inputs": step.registration.inputs, "outputs": step.outputs}
        first = failed[0] if failed else None
        return Outcome("up", self._who(), ordered, first, refusal=self._refusal(first))

    def _steps(self) -> dict[str, Step]:
        """Every custom resource, chart and invoke, with what each must wait for."""
        children: dict[str, list[str]] = {}
        for r in self.recording.registrations:
            if r.parent:
                children.setdefault(r.parent, []).append(r.urn)
        steps = {
            r.urn: Step(r.urn, f"{r.name} ({r.type.rsplit(':', 1)[-1]})", registration=r)
            for r in self.recording.registrations
            if r.custom or r.type == CHART
        }
        for step in steps.values():
            assert step.registration is not None
            r = step.registration
            wanted = set(r.all_dependencies) | {urn_of(ref) for ref in (r.provider, *r.providers.values()) if ref}
            step.needs = self._expand(wanted, children, steps) - {step.key}
        for index, invoke in enumerate(self.recording.invokes):
            key = f"invoke-{index}"
            steps[key] = Step(key, f"invoke {invoke.token.rsplit(':', 1)[-1]}", invoke=invoke)
            steps[key].needs = self._read_by(invoke, steps)
        self._credentials_first(steps)
        return steps

    def _expand(self, urns: set[str], children: dict[str, list[str]], steps: dict[str, Step]) -> set[str]:
        """The steps ``urns`` stand for: a component stands for every resource under it."""
        found: set[str] = set()
        queue = list(urns)
        while queue:
            urn = queue.pop()
            if urn in steps:
                found.add(urn)
            elif urn in self.by_urn:
                queue.extend(children.get(urn, []))
        return found

    @staticmethod
    def _read_by(invoke: Any, steps: Mapping[str, Step]) -> set[str]:
        """An invoke runs once what it reads exists: a cluster the stack creates, named by its args."""
        args = invoke.args or {}
        for key, step in steps.items():
            r = step.registration
            if r is None:
                continue
            if r.type == "azure-native:containerservice:ManagedCluster" and r.inputs.get("resourceName") == args.get(
                "resourceName"
            ):
                return {key}
            if r.type == "alicloud:cs/managedKubernetes:ManagedKubernetes" and r.id == args.get("clusterId"):
                return {key}
        return set()

    @staticmethod
    def _credentials_first(steps: dict[str, Step]) -> None:
        """What signs in to a cluster (a provider, a waiter) waits for the invoke that fetched its credentials."""
        fetched = {next(iter(s.needs)): key for key, s in steps.items() if s.invoke is not None and s.needs}
        for step in steps.values():
            r = step.registration
            if r is not None and ("kubeconfig" in r.inputs or r.type == KUBERNETES_PROVIDER):
                step.needs |= {invoke for cluster, invoke in fetched.items() if cluster in step.needs}

    def _run(self, step: Step) -> None:
        if step.invoke is not None:
            self.providers.invoke(step.invoke)
            self.world.conductor.sleep(INVOKE_SECONDS)
            return
        assert step.registration is not None
        step.outputs = self.providers.create(step.registration)

    # --- preview, refresh and destroy of the deployed stack -------------------------------------------------------

    def preview(self, recording: Recording, *, refresh: bool = False) -> Outcome:
        """``pulumi preview`` (``--refresh``) of the deployed stack with the program as it runs now (``recording``,
        made as the identity previewing): the calls it makes, and the changes it plans."""
        steps: list[Step] = []
        changes: list[str] = []
        self.world.operation = "refresh" if refresh else "preview"
        with self.providers.in_the_world():
            for index, invoke in enumerate(recording.invokes):
                step = Step(f"invoke-{index}", f"invoke {invoke.token.rsplit(':', 1)[-1]}")
                self._attempt(steps, step, functools.partial(self.providers.invoke, invoke))
            for r in recording.registrations:
                if r.custom or r.type == CHART:
                    step = Step(r.urn, f"{'refresh' if refresh else 'diff'} {r.name}", registration=r)
                    self._attempt(steps, step, functools.partial(self._preview_one, r, refresh, changes))
        now = {r.urn for r in recording.registrations}
        changes += [f"delete {self.by_urn[urn].name}" for urn in self.deployed if urn not in now]
        return self._outcome("refresh" if refresh else "preview", steps, changes)

    def _preview_one(self, r: Registration, refresh: bool, changes: list[str]) -> None:
        old = self.deployed.get(r.urn)
        if r.type == KUBERNETES_PROVIDER and "kubeconfig" in r.inputs:
            self.world.discover(str(r.inputs["kubeconfig"]))
        if refresh and old is not None:
            self.providers.read(r)
        if old is None:
            changes.append(f"create {r.name}")
        elif r.type.startswith(DYNAMIC):
            self.providers.catalogue(r)
            provider = self.providers.dynamic_provider(r)
            olds = {**old["inputs"], **old["outputs"]}
            checked = provider.check(olds, dict(r.inputs))
            if checked.failures:
                raise StepFailed("; ".join(failure.reason for failure in checked.failures))
            if provider.diff(r.id, olds, checked.inputs).changes:
                changes.append(f"update {r.name}")
        elif _changed(old["inputs"], r.inputs, r.ignore_changes):
            changes.append(f"update {r.name}")
            self.providers.dry_run(r)

    def destroy(self) -> Outcome:
        """``pulumi destroy``: every deployed resource deleted, dependents first."""
        steps: list[Step] = []
        self.world.operation = "destroy"
        with self.providers.in_the_world():
            for urn in reversed(list(self.deployed)):
                r = self.by_urn[urn]
                self._attempt(
                    steps, Step(urn, f"delete {r.name}", registration=r), functools.partial(self.providers.delete, r)
                )
        return self._outcome("destroy", steps)

    def _attempt(self, steps: list[Step], step: Step, work: Callable[[], None]) -> None:
        step.started = self.world.now
        self.world.step = step.key
        try:
            work()
        except (Refused, ApiError, StepFailed) as error:
            step.error = error
        finally:
            self.world.step = ""
        step.finished = self.world.now
        steps.append(step)

    def _outcome(self, operation: str, steps: list[Step], changes: list[str] | None = None) -> Outcome:
        failed = next((step for step in steps if step.error is not None), None)
        return Outcome(operation, self._who(), steps, failed, changes or [], self._refusal(failed))

    def _refusal(self, failed: Step | None) -> Request | None:
        return self.world.refusal(failed.key) if failed else None

    def _who(self) -> str:
        return self.world.runner.name if self.world.runner else "?"


def _changed(old: Mapping[str, Any], new: Mapping[str, Any], ignored: tuple[str, ...]) -> bool:
    """Whether the inputs differ outside ``ignore_changes``; the program ignores top-level fields and nested
    fields whose top-level parent otherwise stays, so a change there counts once the top field differs elsewhere."""

    def without(inputs: Mapping[str, Any]) -> dict[str, Any]:
        kept = copy.deepcopy({key: value for key, value in inputs.items() if key != "__provider"})
        for path in ignored:
            _drop(kept, path.replace("[", ".").replace("]", "").split("."))
        return kept

    return without(old) != without(new)


def _drop(value: Any, parts: list[str]) -> None:
    """Remove the field at ``parts`` (object keys, list indexes) from ``value`` in place, if it is there."""
    for part in parts[:-1]:
        value = (
            value[int(part)]
            if isinstance(value, list) and part.isdigit() and int(part) < len(value)
            else (value.get(part) if isinstance(value, dict) else None)
        )
        if value is None:
            return
    if isinstance(value, dict):
        value.pop(parts[-1], None)


def timeline(outcome: Outcome) -> str:
    """The rehearsal's timeline: one line a step, ``mm:ss-mm:ss label``, then the first failure with who ran it and
    what the cloud refused."""
    lines = [f"{outcome.operation} as {outcome.identity}:"]
    for step in outcome.steps:
        mark = "FAILED " if step.error is not None else ""
        lines.append(f"  {clock(step.started or 0)}-{clock(step.finished or 0)} {mark}{step.label}")
    failed = outcome.failed
    if failed is not None:
        lines.append(f"first failure: {failed.label} at {clock(failed.finished or 0)}, run by {outcome.identity}:")
        lines.append(f"  {failed.error}")
        refusal = outcome.refusal
        if refusal is not None:
            where = f" on {refusal.where}" if refusal.where else ""
            lines.append(
                f"  refused at {clock(refusal.at)}: {refusal.who} asked {refusal.cloud} for {refusal.action}{where}; "
                f"it lacked {refusal.lacks or refusal.action}"
            )
    return "\n".join(lines)
