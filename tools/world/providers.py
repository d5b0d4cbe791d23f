"""What each provider does in the rehearsed world: the calls its create, read and delete make to its cloud, how long
they take, and what they change there (:mod:`tools.world.engine` runs them in the engine's order).

- azure-native and alicloud resources ask for their providers' ARM and RAM actions (:mod:`tools.world.actions`); a
  ManagedCluster or an ACK cluster brings up an API server, an autoscaling AgentPool has AKS serve the
  ProvisioningRequest CRD, a role assignment starts its propagation, and ARM refuses an assignment whose
  ``principalType`` is not its principal's kind;
- a pulumi-kubernetes object is server-side applied by the identity its provider's kubeconfig signs in as, fails as
  the API server would (a kind whose CRD is not served, a Kueue object before Kueue's webhooks serve) and is awaited as
  pulumi-kubernetes awaits it; Kueue's chart starts Kueue;
- a dynamic resource runs its real provider, unpickled from its inputs as Pulumi's dynamic-provider host does, with
  ``components.waiters.kube_wait.RestCluster`` the world's (:meth:`Providers.in_the_world`).

Create times are the benchmark's weights (:mod:`tools.bench_weights`), drawn between their low and high from the
world's seed.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
from collections.abc import Iterator
from typing import Any

import dill

from components import yaml_text
from components.waiters import kube_wait
from tools import bench_weights, mock_cloud
from tools.recording import Recording, Registration
from tools.world import actions
from tools.world.identities import IDENTITIES
from tools.world.kube import PROVISIONING_CRD, WALL_CLOCK_START, ApiError, Cluster, group_of, namespace_of, plural
from tools.world.roles import azure_role_by_id
from tools.world.world import SUBSCRIPTION, World

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
CLUSTER_OPERATIONS = frozenset(
    {"azure-native:containerservice:AgentPool", "azure-native:containerservice:MaintenanceConfiguration"}
)
"""What AKS runs one at a time per cluster."""
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


class Providers:
    """The providers of one stack's plan, acting in ``world``."""

    def __init__(self, world: World, recording: Recording) -> None:
        self.world = world
        self.by_urn = {r.urn: r for r in recording.registrations}

    def create(self, r: Registration) -> dict[str, Any]:
        """Create ``r``; a dynamic resource's outputs, or nothing."""
        if r.type.startswith(DYNAMIC):
            return self.dynamic_create(r)
        if r.type.startswith("azure-native:"):
            self._arm(r, "create")
            self._principal_type_matches(r)
            with self._one_operation_per_cluster(r):
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
        return {}

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

    def invoke(self, invoke: Any) -> None:
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

    @contextlib.contextmanager
    def _one_operation_per_cluster(self, r: Registration) -> Iterator[None]:
        """AKS runs one pool or maintenance operation of a cluster at a time and refuses another meanwhile
        (``OperationNotAllowed``: https://github.com/cilium/cilium/issues/25944 shows the message)."""
        if r.type not in CLUSTER_OPERATIONS:
            yield
            return
        cluster = str(r.inputs.get("resourceName"))
        running = self.world.cluster_operations.get(cluster)
        if running is not None:
            raise StepFailed(
                f"OperationNotAllowed: Another agentpool operation ({running} - Creating) is in progress, please wait "
                "for it to finish before starting a new operation"
            )
        self.world.cluster_operations[cluster] = r.name
        try:
            yield
        finally:
            del self.world.cluster_operations[cluster]

    def _principal_type_matches(self, r: Registration) -> None:
        """ARM refuses a role assignment whose ``principalType`` is not the principal's kind
        (``UnmatchedPrincipalType``): an application named a ``User``, as the SDK's default would name it."""
        if r.type != "azure-native:authorization:RoleAssignment" or "principalType" not in r.inputs:
            return
        principal, sent = str(r.inputs["principalId"]), str(r.inputs["principalType"])
        known = next((i for i in IDENTITIES.values() if i.object_id == principal), None)
        if known is not None and sent != known.kind:
            raise StepFailed(
                f"UnmatchedPrincipalType: The PrincipalId '{principal}' has type '{known.kind}', which is different "
                f"from specified PrincipalType '{sent}'."
            )

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
        provider = self.by_urn.get(urn_of(ref)) if ref else None
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

    def catalogue(self, r: Registration) -> None:
        """A new AKS cluster's version pin is offered what AKS's catalogue lists, read by the program with the
        runner's ARM token on every run (a refusal falls back to the dated table, with a warning)."""
        if r.type == AKS_VERSION_PIN and r.inputs.get("key") == AKS_VERSION_KEY:
            for action in actions.ARM_OTHER[actions.AKS_VERSIONS_REQUEST]:
                self.world.ask_arm(action, SUBSCRIPTION)

    def dynamic_create(self, r: Registration) -> dict[str, Any]:
        self.catalogue(r)
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
    def in_the_world(self) -> Iterator[None]:
        """``components.waiters.kube_wait.RestCluster`` is the world's while the engine runs: every waiter reads the
        simulated API servers (the providers' own copies of their modules import it when they are unpickled)."""
        saved = kube_wait.RestCluster
        kube_wait.RestCluster = self.world.connect  # type: ignore[misc,assignment]
        try:
            yield
        finally:
            kube_wait.RestCluster = saved  # type: ignore[misc]

    def dry_run(self, r: Registration) -> None:
        """A changed object's server-side dry-run; a refusal falls back to a client-side diff, as pulumi-kubernetes
        does (https://github.com/pulumi/pulumi-kubernetes/pull/2419), so it never fails the preview."""
        placed = self._placed(r) if r.type.startswith("kubernetes:") and r.type != CHART else None
        if placed is not None:
            with contextlib.suppress(ApiError):
                placed.ask("patch")

    def read(self, r: Registration) -> None:
        """A refresh's read of one resource (a dynamic one reads nothing: its provider has no ``read``)."""
        self._operate(r, "read", ("get",))

    def delete(self, r: Registration) -> None:
        """A destroy's delete of one resource: deleted, then (in Kubernetes) awaited until gone."""
        self._operate(r, "delete", ("delete", "get"))

    def _operate(self, r: Registration, operation: str, verbs: tuple[str, ...]) -> None:
        """What ``operation`` (read or delete) of ``r`` asks of its cloud: its ARM or RAM actions, or ``verbs`` on
        its Kubernetes object (every kind a chart created)."""
        if r.type.startswith("azure-native:"):
            self._arm(r, operation)
        elif r.type.startswith("alicloud:"):
            self._ram(r, operation)
        elif r.type.startswith("kubernetes:"):
            for placed in self._chart_objects(r) if r.type == CHART else filter(None, [self._placed(r)]):
                placed.ask(*verbs)


def server_of(kubeconfig: str) -> str:
    """The API server a kubeconfig's first cluster names."""
    return str(yaml_text.load(kubeconfig)["clusters"][0]["cluster"]["server"])


def urn_of(ref: str) -> str:
    """A provider reference (``urn::id``) without its id."""
    return ref.rsplit("::", 1)[0]


def _seconds(text: str) -> float:
    """A custom timeout (``90s``, ``10m``, ``1h``) in seconds."""
    units = {"s": 1, "m": 60, "h": 3600}
    return float(text[:-1]) * units[text[-1]] if text[-1:] in units else float(text)
