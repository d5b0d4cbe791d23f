"""The Pulumi engine, rehearsed: a stack's plan (a :class:`~tools.recording.Recording` of the real program) run
against the simulated world the way ``pulumi up``, ``preview``, ``preview --refresh`` and ``destroy`` run it.

``up`` starts every resource once everything it depends on is done (its ``depends_on``, the resources its inputs come
from, its provider; a component stands for all of its children), and runs them side by side on the simulated clock:

- a resource of azure-native, alicloud or pulumi-kubernetes asks its cloud for what its provider's create asks
  (:mod:`tools.world.actions`), takes its create time from the benchmark's weights (:mod:`tools.bench_weights`,
  drawn between their low and high from the world's seed) and then changes the world (a cluster appears, a role
  assignment starts its propagation, Kueue's chart starts Kueue);
- an object the API server cannot take yet fails as it would: a kind whose CRD is not served, a Kueue object before
  Kueue's webhooks serve;
- a dynamic resource runs its real provider, unpickled from its inputs as Pulumi's dynamic-provider host does: its
  ``check``, then its ``create``, reading the simulated API servers (``components.kube_wait.RestCluster`` is the
  world's for the run) on the simulated clock;
- an invoke asks its cloud once the resource it reads exists, and what signs in with its answer waits for it.

The first failure ends the run: the engine starts nothing more, lets what runs finish, and reports that failure.
``preview`` (``refresh``) and ``destroy`` run on the deployed state and make the calls those commands make, as the
identity running them, at one moment.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import datetime
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import dill

from components import kube_wait, yaml_text
from tools import bench_weights, mock_cloud
from tools.recording import Recording, Registration
from tools.world import actions
from tools.world.clock import Process
from tools.world.kube import PROVISIONING_CRD, WALL_CLOCK_START, ApiError, Cluster, group_of, namespace_of, plural
from tools.world.roles import azure_role_by_id
from tools.world.world import SUBSCRIPTION, Refused, Request, World, clock

CHART = "kubernetes:helm.sh/v4:Chart"
KUBERNETES_PROVIDER = "pulumi:providers:kubernetes"
DYNAMIC = "pulumi-python:dynamic/"
AZURE_MONITOR_CRD = "servicemonitors.azmonitoring.coreos.com"
ACK_RESOURCE_POLICY_CRD = "resourcepolicies.scheduling.alibabacloud.com"
"""Served by an ACK Pro cluster's scheduler from its creation: the CRD of ACS's ResourcePolicies
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/configure-priority-based-resource-scheduling)."""
METRICS_ADDON_DELAY = (60.0, 300.0)
"""Seconds from a cluster with managed Prometheus on until its add-on serves the ServiceMonitor CRD (no published
figure: the ama-metrics pods start and install it)."""
PROVISIONING_CRD_DELAY = (10.0, 120.0)
"""Seconds from AKS's first autoscaling pool until the managed cluster autoscaler serves the ProvisioningRequest CRD
(no published figure)."""
INVOKE_SECONDS = 1.0
AKS_VERSION_PIN = "pulumi-python:dynamic/clusters:ClusterVersion"
AKS_VERSION_KEY = "elastic-capacity:aks.kubernetesVersion"
KUEUE_CHART_OBJECTS = (
    ("apiextensions.k8s.io", "customresourcedefinitions"),
    ("rbac.authorization.k8s.io", "clusterroles"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"),
    ("rbac.authorization.k8s.io", "roles"),
    ("rbac.authorization.k8s.io", "rolebindings"),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"),
    ("apps", "deployments"),
    ("", "services"),
    ("", "serviceaccounts"),
    ("", "secrets"),
    ("", "configmaps"),
)
"""The kinds a Kueue chart creates (its ``templates/``): what its install, refresh and removal ask of the API."""
NVIDIA_CHART_OBJECTS = (
    ("apps", "daemonsets"),
    ("apps", "deployments"),
    ("", "serviceaccounts"),
    ("", "configmaps"),
    ("rbac.authorization.k8s.io", "clusterroles"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"),
)
"""The kinds NVIDIA's device plugin chart (with node feature discovery) creates."""


class StepFailed(Exception):
    """A step the engine itself fails (a CRD not served, a webhook not serving, a check's failures)."""


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


@dataclasses.dataclass(frozen=True)
class Placed:
    """Where a Kubernetes object goes: its cluster, who signs in there, and its group, resource and namespace."""

    cluster: Cluster
    who: str
    group: str
    resource: str
    namespace: str | None

    def ask(self, *verbs: str) -> None:
        for verb in verbs:
            self.cluster.authorize(self.cluster, self.who, verb, self.group, self.resource, self.namespace)


class Engine:
    """Rehearses one stack's operations in ``world`` (see the module docstring)."""

    def __init__(self, world: World, recording: Recording) -> None:
        self.world = world
        self.recording = recording
        self.by_urn = {r.urn: r for r in recording.registrations}
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

        with self._providers_in_the_world():
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
            wanted = set(r.all_dependencies) | {_urn_of(ref) for ref in (r.provider, *r.providers.values()) if ref}
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
            self._invoke(step.invoke)
            self.world.conductor.sleep(INVOKE_SECONDS)
            return
        r = step.registration
        assert r is not None
        if r.type.startswith(DYNAMIC):
            step.outputs = self._dynamic_create(r)
        elif r.type.startswith("azure-native:"):
            self._arm(r, "create")
            self._take(r)
            self._azure_effect(r)
        elif r.type.startswith("alicloud:"):
            self._ram(r, "create")
            self._take(r)
            self._alicloud_effect(r)
        elif r.type == CHART:
            self._chart(r)
        elif r.type.startswith("kubernetes:"):
            self._kube_object(r)
        elif r.type == KUBERNETES_PROVIDER and "kubeconfig" in r.inputs:
            self.world.discover(str(r.inputs["kubeconfig"]))

    def _take(self, r: Registration) -> None:
        """Sleep the resource's create time: its weight, drawn between its low and high."""
        weight = bench_weights.WEIGHTS.get(bench_weights.weight_key({"type": r.type, "inputs": r.inputs}))
        if weight is not None and weight.high > 0:
            self.world.conductor.sleep(self.world.rng.uniform(weight.low, weight.high))

    # --- what each cloud is asked -----------------------------------------------------------------------------------

    def _arm(self, r: Registration, operation: str) -> None:
        group = r.inputs.get("resourceGroupName")
        scope = f"{SUBSCRIPTION}/resourceGroups/{group}" if group else SUBSCRIPTION
        if r.type == "azure-native:authorization:RoleAssignment":
            scope = str(r.inputs["scope"])
        for action in actions.arm_actions(r.type, operation):
            self.world.check_arm(action, scope, f"{operation} {r.name}")

    def _ram(self, r: Registration, operation: str) -> None:
        self.world.check_ram(actions.ALICLOUD_RESOURCE_ACTIONS[r.type][operation], f"{operation} {r.name}")
        service = actions.ALICLOUD_SERVICE_LINKED_ROLES.get(r.type)
        if service and operation == "create":
            context = {"ram:ServiceName": service}
            self.world.check_ram(["ram:CreateServiceLinkedRole"], f"create {r.name}", context)

    def _invoke(self, invoke: Any) -> None:
        token, args = invoke.token, invoke.args or {}
        what = f"invoke {token.rsplit(':', 1)[-1]}"
        if token in actions.ARM_INVOKES:
            scope = SUBSCRIPTION
            if args.get("resourceGroupName"):
                scope = f"{SUBSCRIPTION}/resourceGroups/{args['resourceGroupName']}"
            if args.get("resourceName"):
                scope += f"/providers/Microsoft.ContainerService/managedClusters/{args['resourceName']}"
            for action in actions.ARM_INVOKES[token]:
                self.world.check_arm(action, scope, what)
        elif token in actions.ALICLOUD_INVOKES:
            self.world.check_ram(actions.ALICLOUD_INVOKES[token], what)

    # --- what each create changes in the world ----------------------------------------------------------------------

    def _azure_effect(self, r: Registration) -> None:
        world = self.world
        if r.type == "azure-native:containerservice:ManagedCluster":
            group, name = r.inputs.get("resourceGroupName"), r.inputs.get("resourceName")
            answer = mock_cloud.aks_user_credentials({"resourceGroupName": group, "resourceName": name})
            server = server_of(base64.b64decode(answer["kubeconfigs"][0]["value"]).decode())
            profile = r.inputs.get("aadProfile") or {}
            world.aks[r.id.lower()] = {"server": server, "admin_groups": list(profile.get("adminGroupObjectIDs") or [])}
            cluster = world.add_cluster(str(name), server, "aks")
            if ((r.inputs.get("azureMonitorProfile") or {}).get("metrics") or {}).get("enabled"):
                cluster.serve_crd(AZURE_MONITOR_CRD, world.now + cluster.delay("metrics-addon", *METRICS_ADDON_DELAY))
        elif r.type == "azure-native:containerservice:AgentPool" and r.inputs.get("enableAutoScaling"):
            cluster = next(c for c in world.clusters.values() if c.kind == "aks" and c.name == r.inputs["resourceName"])
            cluster.autoscaled_pools[str(r.inputs.get("agentPoolName"))] = world.now
            if PROVISIONING_CRD not in cluster.crds:
                cluster.serve_crd(PROVISIONING_CRD, world.now + cluster.delay("provisioning", *PROVISIONING_CRD_DELAY))
        elif r.type == "azure-native:authorization:RoleAssignment":
            role = azure_role_by_id(str(r.inputs["roleDefinitionId"]))
            arrives = world.now + world.rng.uniform(*world.role_propagation)
            world.assign(str(r.inputs["principalId"]), role, str(r.inputs["scope"]), arrives, r.name)

    def _alicloud_effect(self, r: Registration) -> None:
        world = self.world
        if r.type == "alicloud:cs/managedKubernetes:ManagedKubernetes":
            assert world.runner is not None
            server = server_of(mock_cloud.ack_cluster_credential({"clusterId": r.id})["kubeConfig"])
            world.ack[r.id] = {"server": server, "creator": world.runner.ram_uid, "grants": []}
            world.add_cluster(r.name, server, "ack").serve_crd(ACK_RESOURCE_POLICY_CRD, world.now)
        elif r.type == "alicloud:cs/kubernetesPermission:KubernetesPermission":
            cluster = world.ack[str(r.inputs.get("clusterId"))]
            for permission in r.inputs.get("permissions") or []:
                cluster["grants"].append((str(r.inputs["uid"]), permission["roleName"], permission.get("namespace")))

    def _placed(
        self, r: Registration, group: str = "", resource: str = "", namespace: str | None = None
    ) -> Placed | None:
        """Where ``r`` goes on its provider's cluster; ``None`` when the provider renders to a directory."""
        ref = r.provider or r.providers.get("kubernetes")
        provider = self.by_urn.get(_urn_of(ref)) if ref else None
        if provider is None or "kubeconfig" not in provider.inputs:
            return None
        client = self.world.connect(str(provider.inputs["kubeconfig"]))
        if not resource and "kind" in r.inputs:
            group, resource = group_of(str(r.inputs["apiVersion"])), plural(str(r.inputs["kind"]))
            namespace = namespace_of(r.inputs)
        return Placed(client.cluster, client.who, group, resource, namespace)

    def _kube_object(self, r: Registration) -> None:
        placed = self._placed(r)
        if placed is None:
            return
        cluster, api_version, kind = placed.cluster, str(r.inputs["apiVersion"]), str(r.inputs["kind"])
        name = (r.inputs.get("metadata") or {}).get("name")
        placed.ask("create", "patch", "get")  # a server-side apply, read back
        if not cluster.kind_served(api_version, kind):
            raise StepFailed(
                f"no matches for kind {kind!r} in version {api_version!r} on {cluster.name}: its CRD is not served "
                "(ensure CRDs are installed first)"
            )
        if placed.group == "kueue.x-k8s.io" and not cluster.webhooks_serve():
            raise StepFailed(
                f"Internal error occurred: failed calling webhook for {kind} {name}: Post "
                '"https://kueue-webhook-service.kueue-system.svc:443": connect: connection refused'
            )
        self._await_object(r, cluster)
        uid = mock_cloud.secret_uid(r.name, r.inputs["metadata"]) if kind == "Secret" else None
        cluster.store(r.inputs, uid=uid)

    def _await_object(self, r: Registration, cluster: Cluster) -> None:
        """What pulumi-kubernetes awaits, for its create time: a Job's completion (the readiness gate's dry-runs
        pass once Kueue's webhooks serve, within its custom timeout); anything else is its weight."""
        meta = r.inputs.get("metadata") or {}
        skip = str((meta.get("annotations") or {}).get(bench_weights.SKIP_AWAIT, "")).lower() == "true"
        if r.type == "kubernetes:batch/v1:Job" and not skip:
            limit, started = _seconds(r.custom_timeouts.get("create", "10m")), self.world.now
            while not cluster.webhooks_serve():
                if self.world.now - started >= limit:
                    raise StepFailed(f"Job {meta.get('name')} did not complete within {limit:.0f}s")
                self.world.conductor.sleep(5)
        self._take(r)

    def _chart_objects(self, r: Registration) -> list[Placed]:
        """What a chart puts on its cluster, one :class:`Placed` per kind."""
        kinds = KUEUE_CHART_OBJECTS if r.name.endswith("kueue-chart") else NVIDIA_CHART_OBJECTS
        namespace = str(r.inputs.get("namespace") or "default")
        placed = [self._placed(r, group, resource, namespace) for group, resource in kinds]
        return [p for p in placed if p is not None]

    def _chart(self, r: Registration) -> None:
        objects = self._chart_objects(r)
        for placed in objects:
            placed.ask("create", "patch", "get")
        self._take(r)
        if objects and r.name.endswith("kueue-chart"):
            objects[0].cluster.install_kueue(self.world.now)

    # --- dynamic resources: their real providers ------------------------------------------------------------------

    def _catalogue(self, r: Registration) -> None:
        """A new AKS cluster's version pin is offered what AKS's catalogue lists, read by the program with the
        runner's ARM token on every run (a refusal falls back to the dated table, with a warning)."""
        if r.type == AKS_VERSION_PIN and r.inputs.get("key") == AKS_VERSION_KEY:
            for action in actions.ARM_OTHER[actions.AKS_VERSIONS_REQUEST]:
                self.world.ask_arm(action, SUBSCRIPTION)

    def _dynamic_create(self, r: Registration) -> dict[str, Any]:
        self._catalogue(r)
        provider = self.dynamic_provider(r)
        checked = provider.check({}, dict(r.inputs))
        if checked.failures:
            raise StepFailed("; ".join(failure.reason for failure in checked.failures))
        return dict(provider.create(checked.inputs).outs or {})

    def dynamic_provider(self, r: Registration) -> Any:
        """The provider of a dynamic resource, unpickled from its inputs as Pulumi's dynamic-provider host does, with
        its module's clock (``now``, where it has one) the world's."""
        provider = dill.loads(base64.b64decode(str(r.inputs["__provider"])))
        module_globals = type(provider).create.__globals__
        if callable(module_globals.get("now")):
            module_globals["now"] = lambda: WALL_CLOCK_START + datetime.timedelta(seconds=self.world.now)
        return provider

    @contextlib.contextmanager
    def _providers_in_the_world(self) -> Iterator[None]:
        """``components.kube_wait.RestCluster`` is the world's while the engine runs: every waiter reads the simulated
        API servers (the providers' own copies of their modules import it when they are unpickled)."""
        saved = kube_wait.RestCluster
        kube_wait.RestCluster = self.world.connect  # type: ignore[misc,assignment]
        try:
            yield
        finally:
            kube_wait.RestCluster = saved  # type: ignore[misc]

    # --- preview, refresh and destroy of the deployed stack -------------------------------------------------------

    def preview(self, recording: Recording, *, refresh: bool = False) -> Outcome:
        """``pulumi preview`` (``--refresh``) of the deployed stack with the program as it runs now (``recording``,
        made as the identity previewing): the calls it makes, and the changes it plans."""
        steps: list[Step] = []
        changes: list[str] = []
        self.world.operation = "refresh" if refresh else "preview"
        with self._providers_in_the_world():
            for index, invoke in enumerate(recording.invokes):
                step = Step(f"invoke-{index}", f"invoke {invoke.token.rsplit(':', 1)[-1]}")
                self._attempt(steps, step, functools.partial(self._invoke, invoke))
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
            self._read(r)
        if old is None:
            changes.append(f"create {r.name}")
        elif r.type.startswith(DYNAMIC):
            self._catalogue(r)
            provider = self.dynamic_provider(r)
            olds = {**old["inputs"], **old["outputs"]}
            checked = provider.check(olds, dict(r.inputs))
            if checked.failures:
                raise StepFailed("; ".join(failure.reason for failure in checked.failures))
            if provider.diff(r.id, olds, checked.inputs).changes:
                changes.append(f"update {r.name}")
        elif _changed(old["inputs"], r.inputs, r.ignore_changes):
            changes.append(f"update {r.name}")
            self._dry_run(r)

    def _dry_run(self, r: Registration) -> None:
        """A changed object's server-side dry-run; a refusal falls back to a client-side diff, as pulumi-kubernetes
        does (https://github.com/pulumi/pulumi-kubernetes/pull/2419), so it never fails the preview."""
        placed = self._placed(r) if r.type.startswith("kubernetes:") and r.type != CHART else None
        if placed is not None:
            with contextlib.suppress(ApiError):
                placed.ask("patch")

    def _read(self, r: Registration) -> None:
        """A refresh's read of one resource (a dynamic one reads nothing: its provider has no ``read``)."""
        if r.type.startswith("azure-native:"):
            self._arm(r, "read")
        elif r.type.startswith("alicloud:"):
            self._ram(r, "read")
        elif r.type.startswith("kubernetes:"):
            for placed in self._chart_objects(r) if r.type == CHART else filter(None, [self._placed(r)]):
                placed.ask("get")

    def destroy(self) -> Outcome:
        """``pulumi destroy``: every deployed resource deleted, dependents first."""
        steps: list[Step] = []
        self.world.operation = "destroy"
        with self._providers_in_the_world():
            for urn in reversed(list(self.deployed)):
                r = self.by_urn[urn]
                self._attempt(steps, Step(urn, f"delete {r.name}", registration=r), functools.partial(self._delete, r))
        return self._outcome("destroy", steps)

    def _delete(self, r: Registration) -> None:
        if r.type.startswith("azure-native:"):
            self._arm(r, "delete")
        elif r.type.startswith("alicloud:"):
            self._ram(r, "delete")
        elif r.type.startswith("kubernetes:"):
            for placed in self._chart_objects(r) if r.type == CHART else filter(None, [self._placed(r)]):
                placed.ask("delete", "get")  # deleted, then awaited until gone

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


def server_of(kubeconfig: str) -> str:
    """The API server a kubeconfig's first cluster names."""
    return str(yaml_text.load(kubeconfig)["clusters"][0]["cluster"]["server"])


def _urn_of(ref: str) -> str:
    """A provider reference (``urn::id``) without its id."""
    return ref.rsplit("::", 1)[0]


def _seconds(text: str) -> float:
    """A custom timeout (``90s``, ``10m``, ``1h``) in seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]] if text[-1:] in units else float(text)


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
