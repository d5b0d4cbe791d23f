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
``preview``/``refresh``/``destroy`` run on a deployed state and make the calls those commands make, as the identity
running them.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
from collections.abc import Iterator, Mapping
from typing import Any

import dill

from components import kube_wait
from tools import bench_weights, mock_cloud
from tools.recording import Recording, Registration
from tools.world import actions
from tools.world.kube import PROVISIONING_CRD, WALL_CLOCK_START, ApiError, Cluster, group_of, plural
from tools.world.world import ROLE_PROPAGATION, SUBSCRIPTION, Refused, Request, World, clock

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
    """A step of the rehearsal failed; ``cause`` is what the cloud or the provider raised."""


@dataclasses.dataclass
class Step:
    """One thing the engine does: a resource's create, or an invoke."""

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
    """What a rehearsed operation did: its steps in order of their start, and the first failure."""

    operation: str
    identity: str
    steps: list[Step]
    failed: Step | None
    changes: list[str] = dataclasses.field(default_factory=list)
    """A preview's planned changes, ``<op> <name>``; empty for an unchanged stack."""
    refusal: Request | None = None
    """The world's refusal behind the failure, when a cloud refused it: who asked, and what was missing."""


class Engine:
    """Rehearses one stack's operations in ``world`` (see the module docstring)."""

    def __init__(self, world: World, recording: Recording) -> None:
        self.world = world
        self.recording = recording
        self.by_urn = {r.urn: r for r in recording.registrations}
        self.deployed: dict[str, dict[str, Any]] = {}
        """Every resource's state after ``up``: its inputs and, for a dynamic one, its provider's outputs."""

    # --- up -------------------------------------------------------------------------------------------------------

    def up(self) -> Outcome:
        steps = self._steps()
        pending = dict(steps)
        running: set[str] = set()
        failed: list[Step] = []
        conductor = self.world.conductor

        def start_ready() -> None:
            if failed:
                return
            for key, step in list(pending.items()):
                if step.needs <= {k for k, s in steps.items() if s.finished is not None and s.error is None}:
                    del pending[key]
                    running.add(key)
                    conductor.start(key, lambda step=step: self._run(step))

        def finished(process: Any) -> None:
            step = steps[process.name]
            step.started, step.finished, step.error = process.started_at, process.finished_at, process.error
            if step.error is not None and not failed:
                failed.append(step)
            start_ready()

        with self._world_for_providers():
            start_ready()
            conductor.run(finished)
        ordered = sorted((s for s in steps.values() if s.started is not None), key=lambda s: (s.started, s.key))
        if not failed and pending:
            stuck = next(iter(pending.values()))
            stuck.error = StepFailed(f"never started: waits for {sorted(stuck.needs - set(steps))}")
            failed.append(stuck)
        for step in ordered:
            if step.registration is not None and step.error is None:
                self.deployed[step.key] = {"inputs": step.registration.inputs, "outputs": step.outputs}
        first = failed[0] if failed else None
        return Outcome("up", self._who(), ordered, first, refusal=self.world.refusal(first.key) if first else None)

    def _steps(self) -> dict[str, Step]:
        """Every custom resource and invoke, with what each must wait for."""
        children: dict[str, list[str]] = {}
        for r in self.recording.registrations:
            if r.parent:
                children.setdefault(r.parent, []).append(r.urn)
        steps: dict[str, Step] = {}
        for r in self.recording.registrations:
            if r.custom or r.type == CHART:
                steps[r.urn] = Step(r.urn, f"{r.name} ({r.type.rsplit(':', 1)[-1]})", registration=r)
        for step in steps.values():
            r = step.registration
            assert r is not None
            wanted = set(r.all_dependencies) | ({_urn_of(r.provider)} if r.provider else set())
            wanted |= {_urn_of(ref) for ref in r.providers.values()}
            step.needs = self._expand(wanted, children, steps) - {step.key}
        for index, invoke in enumerate(self.recording.invokes):
            key = f"invoke-{index}"
            steps[key] = Step(key, f"invoke {invoke.token.rsplit(':', 1)[-1]}", invoke=invoke)
            steps[key].needs = self._invoke_needs(invoke, steps)
        self._credentials_first(steps)
        return steps

    def _expand(self, urns: set[str], children: dict[str, list[str]], steps: dict[str, Step]) -> set[str]:
        """The steps ``urns`` stand for: a component stands for every custom resource under it."""
        found: set[str] = set()
        queue = list(urns)
        while queue:
            urn = queue.pop()
            if urn in steps:
                found.add(urn)
            elif urn in self.by_urn:
                queue.extend(children.get(urn, []))
        return found

    def _invoke_needs(self, invoke: Any, steps: dict[str, Step]) -> set[str]:
        """An invoke runs once what it reads exists: a cluster the stack creates, by its name or id."""
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

    def _credentials_first(self, steps: dict[str, Step]) -> None:
        """What signs in to a cluster waits for the invoke that fetched its credentials."""
        fetched: dict[str, str] = {}
        for key, step in steps.items():
            if step.invoke is not None and step.needs:
                fetched[next(iter(step.needs))] = key
        for step in steps.values():
            r = step.registration
            if r is None:
                continue
            for cluster_step, invoke_key in fetched.items():
                if cluster_step in step.needs and ("kubeconfig" in r.inputs or r.type == KUBERNETES_PROVIDER):
                    step.needs.add(invoke_key)

    def _run(self, step: Step) -> None:
        try:
            if step.invoke is not None:
                self._invoke(step.invoke)
            else:
                assert step.registration is not None
                self._create(step, step.registration)
        except (Refused, ApiError) as error:
            raise StepFailed(str(error)) from error

    # --- creating each kind of resource ---------------------------------------------------------------------------

    def _create(self, step: Step, r: Registration) -> None:
        type_ = r.type
        if type_.startswith(DYNAMIC):
            step.outputs = self._dynamic_create(r)
        elif type_.startswith("azure-native:"):
            self._arm(r, "create")
            self._take(r)
            self._azure_effect(r)
        elif type_.startswith("alicloud:"):
            self.world.check_ram(actions.ALICLOUD_RESOURCE_ACTIONS[type_]["create"], f"create {r.name}")
            service = actions.ALICLOUD_SERVICE_LINKED_ROLES.get(type_)
            if service:
                self.world.check_ram(["ram:CreateServiceLinkedRole"], f"create {r.name}", {"ram:ServiceName": service})
            self._take(r)
            self._alicloud_effect(r)
        elif type_ == CHART:
            self._chart(r)
        elif type_.startswith("kubernetes:"):
            self._kube_object(r)

    def _take(self, r: Registration) -> None:
        """Sleep the resource's create time: its weight, drawn between low and high."""
        key = bench_weights.weight_key({"type": r.type, "inputs": r.inputs})
        weight = bench_weights.WEIGHTS.get(key)
        if weight is not None and weight.high > 0:
            self.world.conductor.sleep(self.world.rng.uniform(weight.low, weight.high))

    def _arm(self, r: Registration, operation: str) -> None:
        scope = str(r.inputs.get("scope")) if r.type.endswith(":RoleAssignment") else self._arm_scope(r)
        for action in actions.arm_actions(r.type, operation):
            self.world.check_arm(action, scope, f"{operation} {r.name}")
        if r.type.endswith(":RoleAssignment") and operation == "create":
            self.world.check_arm("Microsoft.Authorization/roleAssignments/write", scope, f"create {r.name}")

    @staticmethod
    def _arm_scope(r: Registration) -> str:
        group = r.inputs.get("resourceGroupName")
        return f"{SUBSCRIPTION}/resourceGroups/{group}" if group else SUBSCRIPTION

    def _azure_effect(self, r: Registration) -> None:
        world = self.world
        if r.type == "azure-native:containerservice:ManagedCluster":
            group, name = r.inputs.get("resourceGroupName"), r.inputs.get("resourceName")
            answer = mock_cloud.aks_user_credentials({"resourceGroupName": group, "resourceName": name})
            server = _server(base64.b64decode(answer["kubeconfigs"][0]["value"]).decode())
            profile = r.inputs.get("aadProfile") or {}
            world.aks[r.id.lower()] = {
                "server": server,
                "azure_rbac": bool(profile.get("enableAzureRBAC")),
                "admin_groups": list(profile.get("adminGroupObjectIDs") or []),
            }
            cluster = world.add_cluster(str(name), server, "aks")
            metrics = ((r.inputs.get("azureMonitorProfile") or {}).get("metrics") or {}).get("enabled")
            if metrics:
                cluster.serve_crd(AZURE_MONITOR_CRD, world.now + cluster.delay("metrics-addon", *METRICS_ADDON_DELAY))
        elif r.type == "azure-native:containerservice:AgentPool" and r.inputs.get("enableAutoScaling"):
            cluster = self._aks_cluster(str(r.inputs.get("resourceName")))
            cluster.autoscaled_pools[str(r.inputs.get("agentPoolName"))] = world.now
            if PROVISIONING_CRD not in cluster.crds:
                cluster.serve_crd(PROVISIONING_CRD, world.now + cluster.delay("provisioning", *PROVISIONING_CRD_DELAY))
        elif r.type == "azure-native:authorization:RoleAssignment":
            role = roles_by_id(str(r.inputs["roleDefinitionId"]))
            delay = world.rng.uniform(*ROLE_PROPAGATION)
            world.assign(str(r.inputs["principalId"]), role, str(r.inputs["scope"]), world.now + delay, r.name)

    def _aks_cluster(self, name: str) -> Cluster:
        return next(c for c in self.world.clusters.values() if c.kind == "aks" and c.name == name)

    def _alicloud_effect(self, r: Registration) -> None:
        world = self.world
        if r.type == "alicloud:cs/managedKubernetes:ManagedKubernetes":
            runner = world.runner
            assert runner is not None
            server = _server(mock_cloud.ack_cluster_credential({"clusterId": r.id})["kubeConfig"])
            world.ack[r.id] = {"server": server, "creator": runner.ram_uid, "grants": []}
            world.add_cluster(r.name, server, "ack").serve_crd(ACK_RESOURCE_POLICY_CRD, world.now)
        elif r.type == "alicloud:cs/kubernetesPermission:KubernetesPermission":
            cluster = world.ack.get(str(r.inputs.get("clusterId")))
            for permission in r.inputs.get("permissions") or []:
                if cluster is not None:
                    cluster["grants"].append(
                        (str(r.inputs.get("uid")), permission["roleName"], permission.get("namespace"))
                    )

    def _provider_cluster(self, r: Registration) -> tuple[Cluster, str] | None:
        """The cluster a Kubernetes object or chart goes to, and who signs in there; ``None`` when its provider
        renders to a directory instead."""
        ref = r.provider or r.providers.get("kubernetes")
        provider = self.by_urn.get(_urn_of(ref)) if ref else None
        if provider is None or "kubeconfig" not in provider.inputs:
            return None
        client = self.world.connect(str(provider.inputs["kubeconfig"]))
        return client.cluster, client.who

    def _kube_object(self, r: Registration) -> None:
        placed = self._provider_cluster(r)
        if placed is None:
            return
        cluster, who = placed
        obj = dict(r.inputs)
        api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
        group, resource = group_of(api_version), plural(kind)
        meta = dict(obj.get("metadata") or {})
        namespace = None if kind in _cluster_scoped() else meta.get("namespace") or "default"
        for verb in ("create", "patch", "get"):
            cluster.authorize(cluster, who, verb, group, resource, namespace)
        if not cluster.kind_served(api_version, kind):
            raise StepFailed(
                f"no matches for kind {kind!r} in version {api_version!r}: the CRD is not served on {cluster.name} "
                "(ensure CRDs are installed first)"
            )
        if group == "kueue.x-k8s.io" and not cluster.webhooks_serve():
            raise StepFailed(
                f"Internal error occurred: failed calling webhook for {kind} {meta.get('name')}: Post "
                '"https://kueue-webhook-service.kueue-system.svc:443": connect: connection refused'
            )
        if kind == "Secret" and r.type == "kubernetes:core/v1:Secret":
            meta["uid"] = mock_cloud.secret_uid(r.name, meta)
        self._await_object(r, cluster)
        stored = cluster.store({**obj, "metadata": meta})
        if kind == "Secret":
            stored["metadata"]["uid"] = meta.get("uid", stored["metadata"]["uid"])

    def _await_object(self, r: Registration, cluster: Cluster) -> None:
        """What pulumi-kubernetes awaits: a Job's completion (the readiness gate passes once Kueue's webhooks
        serve), a Deployment's rollout; anything else is one request."""
        meta = r.inputs.get("metadata") or {}
        skip = str((meta.get("annotations") or {}).get(bench_weights.SKIP_AWAIT, "")).lower() == "true"
        if r.type == "kubernetes:batch/v1:Job" and not skip:
            limit = _seconds(r.custom_timeouts.get("create", "10m"))
            started = self.world.now
            while not cluster.webhooks_serve():
                if self.world.now - started >= limit:
                    raise StepFailed(f"Job {meta.get('name')} did not complete within {limit:.0f}s")
                self.world.conductor.sleep(5)
        self._take(r)

    def _chart(self, r: Registration) -> None:
        placed = self._provider_cluster(r)
        if placed is None:
            return
        cluster, who = placed
        kinds = KUEUE_CHART_OBJECTS if r.name.endswith("kueue-chart") else NVIDIA_CHART_OBJECTS
        namespace = str(r.inputs.get("namespace") or "default")
        for group, resource in kinds:
            for verb in ("create", "patch", "get"):
                cluster.authorize(cluster, who, verb, group, resource, namespace)
        self._take(r)
        if kinds is KUEUE_CHART_OBJECTS:
            cluster.install_kueue(self.world.now)

    def _invoke(self, invoke: Any) -> None:
        token = invoke.token
        if token in actions.ARM_INVOKES:
            args = invoke.args or {}
            scope = SUBSCRIPTION
            if args.get("resourceGroupName"):
                scope = f"{SUBSCRIPTION}/resourceGroups/{args['resourceGroupName']}"
                if args.get("resourceName"):
                    scope += f"/providers/Microsoft.ContainerService/managedClusters/{args['resourceName']}"
            for action in actions.ARM_INVOKES[token]:
                self.world.check_arm(action, scope, f"invoke {token.rsplit(':', 1)[-1]}")
        elif token in actions.ALICLOUD_INVOKES:
            self.world.check_ram(actions.ALICLOUD_INVOKES[token], f"invoke {token.rsplit(':', 1)[-1]}")
        self.world.conductor.sleep(1)

    # --- dynamic resources: their real providers ------------------------------------------------------------------

    def _dynamic_create(self, r: Registration) -> dict[str, Any]:
        provider = self.dynamic_provider(r)
        news = _plain(r.inputs)
        checked = provider.check({}, news)
        if checked.failures:
            raise StepFailed("; ".join(f.reason for f in checked.failures))
        result = provider.create(checked.inputs)
        return dict(result.outs or {})

    def dynamic_provider(self, r: Registration) -> Any:
        """The provider of a dynamic resource, unpickled from its inputs as Pulumi's dynamic-provider host does,
        with its clock the world's."""
        provider = dill.loads(base64.b64decode(str(r.inputs["__provider"])))
        module_globals = type(provider).create.__globals__
        if callable(module_globals.get("now")):
            module_globals["now"] = lambda: WALL_CLOCK_START + datetime.timedelta(seconds=self.world.now)
        return provider

    @contextlib.contextmanager
    def _world_for_providers(self) -> Iterator[None]:
        """``components.kube_wait.RestCluster`` is the world's while the rehearsal runs: every waiter reads the
        simulated API servers (the providers' own copies of their modules import it when they are unpickled)."""
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
        failed: Step | None = None
        with self._world_for_providers():
            for index, invoke in enumerate(recording.invokes):
                failed = failed or self._attempt(
                    steps, Step(f"invoke-{index}", f"invoke {invoke.token}"), lambda i=invoke: self._invoke_now(i)
                )
            for r in recording.registrations:
                if not (r.custom or r.type == CHART):
                    continue
                old = self.deployed.get(r.urn)
                step = Step(r.urn, f"{'refresh' if refresh else 'diff'} {r.name}", registration=r)
                failed = failed or self._attempt(
                    steps, step, lambda r=r, old=old: self._preview_one(r, old, refresh, changes)
                )
        for urn in self.deployed:
            if urn not in {r.urn for r in recording.registrations}:
                changes.append(f"delete {urn.rsplit('::', 1)[-1]}")
        operation = "refresh" if refresh else "preview"
        return Outcome(operation, self._who(), steps, failed, changes, self._refusal(failed))

    def _refusal(self, failed: Step | None) -> Request | None:
        return self.world.refusal(failed.key) if failed else None

    def _attempt(self, steps: list[Step], step: Step, work: Any) -> Step | None:
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
        return step if step.error is not None else None

    def _invoke_now(self, invoke: Any) -> None:
        with self._conductor_free():
            self._invoke(invoke)

    @contextlib.contextmanager
    def _conductor_free(self) -> Iterator[None]:
        """Outside ``up`` nothing waits: a sleep is a no-op."""
        saved = self.world.conductor.sleep
        self.world.conductor.sleep = lambda seconds: None  # type: ignore[method-assign]
        try:
            yield
        finally:
            self.world.conductor.sleep = saved  # type: ignore[method-assign]

    def _preview_one(self, r: Registration, old: dict[str, Any] | None, refresh: bool, changes: list[str]) -> None:
        if refresh and old is not None:
            self._read(r)
        if r.type.startswith(DYNAMIC):
            provider = self.dynamic_provider(r)
            news = _plain(r.inputs)
            olds = {**(old or {}).get("inputs", {}), **(old or {}).get("outputs", {})}
            checked = provider.check(olds if old else {}, news)
            if checked.failures:
                raise StepFailed("; ".join(f.reason for f in checked.failures))
            if old is None:
                changes.append(f"create {r.name}")
            elif provider.diff(r.id, olds, checked.inputs).changes:
                changes.append(f"update {r.name}")
            return
        if old is None:
            changes.append(f"create {r.name}")
        elif _changed(old["inputs"], r.inputs, r.ignore_changes):
            changes.append(f"update {r.name}")
            if r.type.startswith("kubernetes:") and r.type != CHART:
                self._dry_run(r)

    def _dry_run(self, r: Registration) -> None:
        """A server-side dry-run of a changed object; a refusal falls back to a client-side diff, as
        pulumi-kubernetes does (https://github.com/pulumi/pulumi-kubernetes/pull/2419)."""
        placed = self._provider_cluster(r)
        if placed is None:
            return
        cluster, who = placed
        with contextlib.suppress(ApiError):
            cluster.authorize(
                cluster, who, "patch", group_of(str(r.inputs["apiVersion"])), plural(str(r.inputs["kind"])), None
            )

    def _read(self, r: Registration) -> None:
        """A refresh's read of one resource."""
        if r.type.startswith("azure-native:"):
            self._arm(r, "read")
        elif r.type.startswith("alicloud:"):
            self.world.check_ram(actions.ALICLOUD_RESOURCE_ACTIONS[r.type]["read"], f"read {r.name}")
        elif r.type == CHART:
            placed = self._provider_cluster(r)
            if placed:
                cluster, who = placed
                for group, resource in KUEUE_CHART_OBJECTS if r.name.endswith("kueue-chart") else NVIDIA_CHART_OBJECTS:
                    cluster.authorize(cluster, who, "get", group, resource, str(r.inputs.get("namespace") or "default"))
        elif r.type.startswith("kubernetes:"):
            placed = self._provider_cluster(r)
            if placed:
                cluster, who = placed
                kind = str(r.inputs["kind"])
                namespace = None if kind in _cluster_scoped() else (r.inputs.get("metadata") or {}).get("namespace")
                cluster.authorize(cluster, who, "get", group_of(str(r.inputs["apiVersion"])), plural(kind), namespace)

    def destroy(self) -> Outcome:
        """``pulumi destroy``: every deployed resource deleted, dependents first."""
        steps: list[Step] = []
        failed: Step | None = None
        with self._world_for_providers():
            for urn in reversed(list(self.deployed)):
                r = self.by_urn[urn]
                failed = failed or self._attempt(
                    steps, Step(urn, f"delete {r.name}", registration=r), lambda r=r: self._delete(r)
                )
        return Outcome("destroy", self._who(), steps, failed, refusal=self._refusal(failed))

    def _delete(self, r: Registration) -> None:
        if r.type.startswith("azure-native:"):
            self._arm(r, "delete")
        elif r.type.startswith("alicloud:"):
            self.world.check_ram(actions.ALICLOUD_RESOURCE_ACTIONS[r.type]["delete"], f"delete {r.name}")
        elif r.type.startswith("kubernetes:"):
            placed = self._provider_cluster(r)
            if placed is None:
                return
            cluster, who = placed
            pairs = (
                (KUEUE_CHART_OBJECTS if r.name.endswith("kueue-chart") else NVIDIA_CHART_OBJECTS)
                if r.type == CHART
                else ((group_of(str(r.inputs["apiVersion"])), plural(str(r.inputs["kind"]))),)
            )
            for group, resource in pairs:
                for verb in ("delete", "get"):
                    cluster.authorize(cluster, who, verb, group, resource, None)

    def _who(self) -> str:
        return self.world.runner.name if self.world.runner else "?"


def roles_by_id(role_definition_id: str) -> Any:
    from tools.world.roles import azure_role_by_id

    return azure_role_by_id(role_definition_id)


def _urn_of(ref: str) -> str:
    return ref.rsplit("::", 1)[0]


def _server(kubeconfig: str) -> str:
    from components import yaml_text

    return str(yaml_text.load(kubeconfig)["clusters"][0]["cluster"]["server"])


def _cluster_scoped() -> frozenset[str]:
    from tools.world.kube import CLUSTER_SCOPED

    return CLUSTER_SCOPED


def _seconds(text: str) -> float:
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]] if text and text[-1] in units else float(text)


def _plain(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A dynamic resource's inputs as its provider receives them (no secret wrappers)."""
    return dict(inputs)


def _changed(old: Mapping[str, Any], new: Mapping[str, Any], ignored: tuple[str, ...]) -> bool:
    """Whether the inputs differ outside ``ignore_changes`` (top-level paths, the ones the program uses)."""
    top = {path.split(".")[0].split("[")[0] for path in ignored}
    keys = (set(old) | set(new)) - top - {"__provider"}
    return any(old.get(key) != new.get(key) for key in keys)


def timeline(outcome: Outcome) -> str:
    """The rehearsal's timeline: one line a step, ``mm:ss-mm:ss label``, then the outcome."""
    lines = [f"{outcome.operation} as {outcome.identity}:"]
    for step in outcome.steps:
        start, end = clock(step.started or 0), clock(step.finished or 0)
        mark = "FAILED " if step.error is not None else ""
        lines.append(f"  {start}-{end} {mark}{step.label}")
    if outcome.failed is not None:
        failed = outcome.failed
        lines.append(f"first failure: {failed.label} at {clock(failed.finished or 0)}, run by {outcome.identity}:")
        lines.append(f"  {failed.error}")
        refusal = outcome.refusal
        if refusal is not None:
            lines.append(
                f"  refused at {clock(refusal.at)}: {refusal.who} asked {refusal.cloud} for {refusal.action}"
                f"{' on ' + refusal.where if refusal.where else ''}; it lacked {refusal.lacks or refusal.action}"
            )
    return "\n".join(lines)
