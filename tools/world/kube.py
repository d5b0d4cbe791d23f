"""A Kubernetes API server whose state follows the simulated clock: what the program's waiters read, and what the
objects the engine applies turn into.

Each :class:`Cluster` keeps its objects by REST path and answers the reads the waiters make
(:class:`components.waiters.kube_wait.Cluster`: ``get``, ``list``, ``post``) the way the real API server and controllers
would at that moment:

- a CRD exists once created and is Established from its time on; a kind without its CRD is a 404, and an object of it
  cannot be created ("no matches for kind");
- Kueue, once its chart is applied, starts its controller; its webhooks serve 10-30 s later
  (https://github.com/kubernetes-sigs/kueue/issues/13036), and until then every Kueue object's create fails as a
  webhook call does; it sets up its ProvisioningRequest controller only if that CRD is Established when it starts
  (``ServerSupportsProvisioningRequest`` in https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/cmd/kueue/main.go);
- AdmissionChecks, ClusterQueues and MultiKueueClusters are Active as Kueue would set them, from their inputs' times;
- a Job submitted to a LocalQueue gets its Workload; a provisioning check files a ProvisioningRequest, which the
  cluster autoscaler provisions 3-8 minutes later with a node (AKS's scale-up of a pool from zero); the Job then
  runs and completes;
- a TokenRequest issues a token of the asked lifetime, bound to its anchor Secret;
- reads are answered 429 or 503 now and then, as a throttled or restarting API server does.

Who may do what is the world's business (:mod:`tools.world.world`): every request goes through
``authorize(cluster, who, verb, group, resource, namespace)``, which raises :class:`ApiError` 403 the way the API
server refuses it.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import random
import re
from collections.abc import Callable, Mapping
from typing import Any

WALL_CLOCK_START = datetime.datetime(2026, 12, 3, 8, 0, tzinfo=datetime.UTC)
"""The wall-clock time simulated second 0 stands for (timestamps the API writes)."""
PROVISIONING_CRD = "provisioningrequests.autoscaling.x-k8s.io"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
MULTIKUEUE_CONTROLLER = "kueue.x-k8s.io/multikueue"
KUEUE_GROUP = "kueue.x-k8s.io"
JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"

CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "ResourceFlavor",
        "ClusterQueue",
        "AdmissionCheck",
        "ProvisioningRequestConfig",
        "MultiKueueCluster",
        "MultiKueueConfig",
        "Cohort",
        "Topology",
        "WorkloadPriorityClass",
        "PriorityClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "Node",
    }
)
"""Kinds without a namespace (the Kubernetes API reference and Kueue's v1beta2 CRDs)."""
_IRREGULAR_PLURALS = {"Topology": "topologies", "ResourcePolicy": "resourcepolicies", "Endpoints": "endpoints"}
KUEUE_CRDS = tuple(
    f"{resource}.{KUEUE_GROUP}"
    for resource in (
        "admissionchecks",
        "clusterqueues",
        "cohorts",
        "localqueues",
        "multikueueclusters",
        "multikueueconfigs",
        "provisioningrequestconfigs",
        "resourceflavors",
        "topologies",
        "workloadpriorityclasses",
        "workloads",
    )
)
"""The CRDs Kueue's chart installs (its ``templates/crd``)."""
BUILT_IN_GROUPS = frozenset({"", "apps", "batch", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "policy"})


class ApiError(Exception):
    """An answer of the API server other than success, shaped like the client's ``ApiException``: ``status``, and a
    Status object as ``body``."""

    def __init__(self, status: int, reason: str, message: str, lacks: str = "") -> None:
        super().__init__(f"({status}) {reason}: {message}")
        self.status, self.reason = status, reason
        self.lacks = lacks
        """What a refused identity lacked, for the rehearsal's report."""
        self.body = json.dumps({"kind": "Status", "status": "Failure", "message": message, "reason": reason})


def plural(kind: str) -> str:
    """The resource name of a kind, as its API serves it."""
    if kind in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[kind]
    lower = kind.lower()
    if lower.endswith("s"):
        return lower + "es"
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    return lower + "s"


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0] if "/" in api_version else ""


def namespace_of(obj: Mapping[str, Any]) -> str | None:
    """The namespace an object lives in: its own, ``default`` when it names none, ``None`` for a cluster-scoped
    kind."""
    if obj.get("kind") in CLUSTER_SCOPED:
        return None
    return str((obj.get("metadata") or {}).get("namespace") or "default")


def object_path(obj: Mapping[str, Any]) -> str:
    """The REST path of an object, by its apiVersion, kind, namespace and name."""
    api_version, namespace = str(obj["apiVersion"]), namespace_of(obj)
    base = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
    scope = f"/namespaces/{namespace}" if namespace else ""
    return f"{base}{scope}/{plural(str(obj['kind']))}/{obj['metadata']['name']}"


@dataclasses.dataclass(frozen=True)
class Target:
    """What a REST path names: group, resource (with a subresource), namespace and name."""

    group: str
    resource: str
    namespace: str | None
    name: str | None
    collection: str
    """The path of the collection the object is in (``/api/v1/namespaces/ns/pods``)."""


_PATH = re.compile(
    r"^/(?:api/(?P<core>v1)|apis/(?P<group>[^/]+)/(?P<version>[^/]+))"
    r"(?:/namespaces/(?P<namespace>[^/]+))?/(?P<resource>[^/]+)(?:/(?P<name>[^/]+)(?:/(?P<sub>[^/]+))?)?$"
)


def parse_path(path: str) -> Target:
    match = _PATH.match(path)
    if not match:
        raise ApiError(404, "NotFound", f"the server could not find the requested resource ({path})")
    group = match["group"] or ""
    resource = match["resource"] + (f"/{match['sub']}" if match["sub"] else "")
    if match["namespace"] and not match["resource"] and not match["name"]:
        resource = "namespaces"
    collection = path.rsplit(f"/{match['name']}", 1)[0] if match["name"] else path
    return Target(group, resource, match["namespace"], match["name"], collection)


Authorize = Callable[["Cluster", str, str, str, str, "str | None"], None]
"""``authorize(cluster, who, verb, group, resource, namespace)``: returns, or raises a 403 :class:`ApiError`."""


@dataclasses.dataclass
class Kueue:
    """Kueue's controller on the cluster: when it started, when its webhooks serve, whether it runs its
    ProvisioningRequest controller."""

    started_at: float
    webhooks_at: float
    provisioning: bool


@dataclasses.dataclass
class Stored:
    """One object as the API server keeps it, with the simulated second it was created."""

    obj: dict[str, Any]
    created_at: float


class Cluster:
    """One cluster's API server (see the module docstring); ``clock()`` is the simulated second now."""

    def __init__(
        self,
        name: str,
        server: str,
        kind: str,
        clock: Callable[[], float],
        rng: random.Random,
        authorize: Authorize,
        *,
        transient_rate: float = 0.0,
    ) -> None:
        self.name, self.server, self.kind = name, server, kind
        self.clock, self.rng, self.authorize = clock, rng, authorize
        self.transient_rate = transient_rate
        self.objects: dict[str, Stored] = {}
        self.crds: dict[str, float] = {}
        self.kueue: Kueue | None = None
        self.autoscaled_pools: dict[str, float] = {}
        """Autoscaling pool -> when it exists (AKS user pools and the like): what a ProvisioningRequest grows."""
        self.tokens: dict[str, tuple[str, str, float]] = {}
        """Issued token -> (namespace, service account, expiry second)."""
        self.connect_worker: Callable[[str], float | None] | None = None
        """Set by the world: when the worker a MultiKueue kubeconfig names serves Kueue to it, or ``None``."""
        self._delays: dict[str, float] = {}
        self._uids = 0
        self.store({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system"}})
        self.store({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})

    # --- what the engine does to the cluster ------------------------------------------------------------------------

    def delay(self, key: str, low: float, high: float) -> float:
        """A random delay for ``key``, drawn once (the same key always has the same delay)."""
        if key not in self._delays:
            self._delays[key] = self.rng.uniform(low, high)
        return self._delays[key]

    def store(self, obj: Mapping[str, Any], at: float | None = None, uid: str | None = None) -> dict[str, Any]:
        """Keep ``obj`` as created now (or ``at``), with a creation timestamp and a uid (``uid``, or one of its
        own)."""
        when = self.clock() if at is None else at
        self._uids += 1
        meta = {
            **(obj.get("metadata") or {}),
            "uid": uid or f"uid-{self.name}-{self._uids}",
            "creationTimestamp": stamp(when),
        }
        if obj.get("kind") not in CLUSTER_SCOPED:
            meta.setdefault("namespace", "default")
        kept = {**obj, "metadata": meta}
        self.objects[object_path(kept)] = Stored(kept, when)
        if kept.get("kind") == "CustomResourceDefinition":
            self.crds.setdefault(str(meta["name"]), when)
        return kept

    def serve_crd(self, name: str, at: float) -> None:
        """A CRD created (and Established) at ``at`` by something other than the program (AKS, an add-on)."""
        self.crds[name] = min(self.crds.get(name, at), at)

    def install_kueue(self, at: float) -> None:
        """Kueue's chart applied at ``at``: its CRDs, and its controller started then."""
        for crd in KUEUE_CRDS:
            self.serve_crd(crd, at)
        webhooks = at + self.delay("kueue-webhooks", 10, 30)
        self.kueue = Kueue(at, webhooks, self.established(PROVISIONING_CRD, at))
        self.store({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kueue-system"}}, at)

    def established(self, crd: str, at: float | None = None) -> bool:
        when = self.crds.get(crd)
        return when is not None and when <= (self.clock() if at is None else at)

    def kind_served(self, api_version: str, kind: str) -> bool:
        group = group_of(api_version)
        return group in BUILT_IN_GROUPS or self.established(f"{plural(kind)}.{group}")

    def webhooks_serve(self) -> bool:
        return self.kueue is not None and self.clock() >= self.kueue.webhooks_at

    # --- the API the waiters read ------------------------------------------------------------------------------------

    def get(self, who: str, path: str) -> dict[str, Any]:
        target = parse_path(path)
        self._answer(who, "get", target)
        if target.group == "apiextensions.k8s.io" and target.resource == "customresourcedefinitions":
            return self._crd(str(target.name))
        found = self._view().get(path)
        if found is None:
            raise ApiError(404, "NotFound", f'{target.resource} "{target.name}" not found')
        return found

    def list(self, who: str, path: str, label_selector: str | None = None) -> list[dict[str, Any]]:
        target = parse_path(path)
        self._answer(who, "list", target)
        if target.group not in BUILT_IN_GROUPS and not self.established(f"{target.resource}.{target.group}"):
            raise ApiError(404, "NotFound", f"the server could not find the requested resource ({path})")
        wanted = dict(part.split("=", 1) for part in label_selector.split(",")) if label_selector else {}
        items = [obj for p, obj in self._view().items() if p.rsplit("/", 1)[0] == path]
        return [obj for obj in items if _labelled(obj, wanted)]

    def post(self, who: str, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        target = parse_path(path)
        self._answer(who, "create", target)
        if target.resource != "serviceaccounts/token":
            raise ApiError(405, "MethodNotAllowed", f"the simulated API creates only tokens, not {target.resource}")
        account = f"/api/v1/namespaces/{target.namespace}/serviceaccounts/{target.name}"
        if account not in self.objects:
            raise ApiError(404, "NotFound", f'serviceaccounts "{target.name}" not found')
        spec = body.get("spec") or {}
        bound = spec.get("boundObjectRef") or {}
        anchor = self.objects.get(f"/api/v1/namespaces/{target.namespace}/secrets/{bound.get('name')}")
        if anchor is None or anchor.obj["metadata"]["uid"] != bound.get("uid"):
            raise ApiError(404, "NotFound", f'secrets "{bound.get("name")}" with that uid not found')
        expires = self.clock() + float(spec["expirationSeconds"])
        token = f"token-{self.name}-{len(self.tokens) + 1}"
        self.tokens[token] = (str(target.namespace), str(target.name), expires)
        return {"status": {"token": token, "expirationTimestamp": stamp(expires)}}

    def _answer(self, who: str, verb: str, target: Target) -> None:
        """Refuse what ``who`` may not do; now and then answer as a throttled or restarting server does."""
        self.authorize(self, who, verb, target.group, target.resource, target.namespace)
        if self.transient_rate and self.rng.random() < self.transient_rate:
            status, reason = self.rng.choice([(429, "TooManyRequests"), (503, "ServiceUnavailable")])
            raise ApiError(status, reason, "the server is currently unable to handle the request")

    def _crd(self, name: str) -> dict[str, Any]:
        if name not in self.crds or not self.established(name):
            raise ApiError(404, "NotFound", f'customresourcedefinitions.apiextensions.k8s.io "{name}" not found')
        conditions = [_condition("NamesAccepted"), _condition("Established")]
        return {"metadata": {"name": name}, "status": {"conditions": conditions}}

    # --- what the controllers have made of the objects by now -------------------------------------------------------

    def _view(self) -> dict[str, dict[str, Any]]:
        """Every object with the status its controller gives it now, and the objects controllers made."""
        view = {path: dict(stored.obj) for path, stored in self.objects.items()}
        for path, stored in self.objects.items():
            kind = stored.obj.get("kind")
            if kind in ("AdmissionCheck", "ClusterQueue", "MultiKueueCluster"):
                since = self.active_since(stored.obj)
                active = since is not None and since <= self.clock()
                if since is not None or kind != "AdmissionCheck" or self._has_controller(stored.obj):
                    view[path] = {**stored.obj, "status": {"conditions": [_active(active)]}}
            elif kind == "Job" and QUEUE_NAME_LABEL in (stored.obj["metadata"].get("labels") or {}):
                view.update(self._job_timeline(path, stored))
        return view

    def _has_controller(self, check: Mapping[str, Any]) -> bool:
        controller = (check.get("spec") or {}).get("controllerName")
        return self.kueue is not None and (controller != PROVISIONING_CONTROLLER or self.kueue.provisioning)

    def _created(self, kind: str, name: str, namespace: str | None = None) -> float | None:
        for stored in self.objects.values():
            meta = stored.obj["metadata"]
            same = stored.obj.get("kind") == kind and meta.get("name") == name
            if same and (namespace is None or meta.get("namespace") == namespace):
                return stored.created_at
        return None

    def active_since(self, obj: Mapping[str, Any]) -> float | None:
        """When Kueue marks this AdmissionCheck, ClusterQueue or MultiKueueCluster Active; ``None`` while nothing
        will (a missing flavor, a check without its controller, a worker it cannot reach)."""
        if self.kueue is None:
            return None
        kind, spec = obj.get("kind"), obj.get("spec") or {}
        created = self._created(str(kind), obj["metadata"]["name"])
        if created is None:
            return None
        reconciled = max(created, self.kueue.started_at) + 2
        if kind == "AdmissionCheck":
            return self._check_active_since(spec, reconciled)
        if kind == "ClusterQueue":
            return self._queue_active_since(spec, reconciled)
        return self._worker_active_since(spec, reconciled)

    def _check_active_since(self, spec: Mapping[str, Any], reconciled: float) -> float | None:
        controller = spec.get("controllerName")
        parameters = (spec.get("parameters") or {}).get("name")
        if controller == PROVISIONING_CONTROLLER:
            if self.kueue is None or not self.kueue.provisioning:
                return None
            created = self._created("ProvisioningRequestConfig", str(parameters)) if parameters else reconciled
            return None if created is None else max(reconciled, created + 2)
        if controller == MULTIKUEUE_CONTROLLER:
            config = self._find("MultiKueueConfig", str(parameters))
            clusters = ((config or {}).get("spec") or {}).get("clusters") or []
            times = [self._worker_since(name) for name in clusters]
            known = [t for t in times if t is not None]
            return max(reconciled, min(known)) if known else None
        return reconciled

    def _worker_since(self, name: str) -> float | None:
        found = self._find("MultiKueueCluster", name)
        return None if found is None else self.active_since(found)

    def _queue_active_since(self, spec: Mapping[str, Any], reconciled: float) -> float | None:
        times = [reconciled]
        for group in spec.get("resourceGroups") or []:
            for flavor in group.get("flavors") or []:
                created = self._created("ResourceFlavor", flavor["name"])
                if created is None:
                    return None
                times.append(created + 2)
        strategy = (spec.get("admissionChecksStrategy") or {}).get("admissionChecks") or []
        names = [c["name"] for c in strategy] + list(spec.get("admissionChecks") or [])
        for name in names:
            check = self._find("AdmissionCheck", name)
            since = None if check is None else self.active_since(check)
            if since is None:
                return None
            times.append(since)
        return max(times)

    def _worker_active_since(self, spec: Mapping[str, Any], reconciled: float) -> float | None:
        """A MultiKueueCluster connects once its kubeconfig Secret holds a token its worker issued and the worker's
        Kueue serves; the world resolves the worker (``connect_worker``)."""
        source = spec.get("clusterSource") or {}
        secret_name = (source.get("kubeConfig") or {}).get("location")
        if self.kueue is None or secret_name is None:
            return None
        path = f"/api/v1/namespaces/kueue-system/secrets/{secret_name}"
        stored = self.objects.get(path)
        if stored is None or self.connect_worker is None:
            return None
        kubeconfig = (stored.obj.get("stringData") or {}).get("kubeconfig")
        since = self.connect_worker(str(kubeconfig)) if kubeconfig else None
        return None if since is None else max(reconciled, stored.created_at + 2, since)

    def _find(self, kind: str, name: str) -> dict[str, Any] | None:
        return next(
            (s.obj for s in self.objects.values() if s.obj.get("kind") == kind and s.obj["metadata"]["name"] == name),
            None,
        )

    def _job_timeline(self, path: str, stored: Stored) -> dict[str, dict[str, Any]]:
        """A Job submitted to a LocalQueue, and its Workload, ProvisioningRequest and pods, as they stand now."""
        job, now = stored.obj, self.clock()
        meta = job["metadata"]
        namespace, uid = meta["namespace"], meta["uid"]
        local = self._find_in("LocalQueue", str(meta["labels"][QUEUE_NAME_LABEL]), namespace)
        if self.kueue is None or local is None:
            return {path: {**job, "status": {}}}
        submitted = max(stored.created_at, self.kueue.started_at, self._created_in(local)) + 1
        if now < submitted:
            return {path: {**job, "status": {}}}
        queue = self._find("ClusterQueue", str((local.get("spec") or {}).get("clusterQueue")))
        quota_at = None if queue is None else self.active_since(queue)
        owner = [{"kind": "Job", "uid": uid, "name": meta["name"]}]
        workload_meta = {
            "name": f"job-{meta['name']}-{uid[-5:]}",
            "namespace": namespace,
            "uid": f"{uid}-workload",
            "labels": {JOB_UID_LABEL: uid},
            "ownerReferences": owner,
            "creationTimestamp": stamp(submitted),
        }
        workload: dict[str, Any] = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload"}
        made = {f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{namespace}/workloads/{workload_meta['name']}": workload}
        if quota_at is None or now < max(submitted, quota_at):
            workload |= {"metadata": workload_meta, "status": {"conditions": [_condition("QuotaReserved", False)]}}
            return {path: {**job, "status": {}}, **made}
        reserved = max(submitted, quota_at) + 1
        admitted, request = self._provisioned(queue or {}, reserved, workload_meta, namespace)
        made |= request
        conditions = [_condition("QuotaReserved"), _condition("Admitted", admitted is not None and now >= admitted)]
        workload |= {"metadata": workload_meta, "status": {"conditions": conditions}}
        if admitted is None or now < admitted:
            return {path: {**job, "status": {}}, **made}
        completes = admitted + self.delay(f"run-{uid}", 20, 90)
        status: dict[str, Any] = {"active": int((job.get("spec") or {}).get("parallelism") or 1)}
        if now >= completes:
            succeeded = int((job.get("spec") or {}).get("completions") or 1)
            status = {"succeeded": succeeded, "conditions": [_condition("Complete")]}
        running = {**job, "spec": {**(job.get("spec") or {}), "suspend": False}, "status": status}
        return {path: running, **made, **self._pods(job, admitted, now >= completes)}

    def _provisioned(
        self, queue: Mapping[str, Any], reserved: float, workload_meta: Mapping[str, Any], namespace: str
    ) -> tuple[float | None, dict[str, dict[str, Any]]]:
        """When the workload's provisioning check passes (its ProvisioningRequest Provisioned), and that request."""
        strategy = ((queue.get("spec") or {}).get("admissionChecksStrategy") or {}).get("admissionChecks") or []
        checks = [self._find("AdmissionCheck", c["name"]) for c in strategy]
        if not any((c or {}).get("spec", {}).get("controllerName") == PROVISIONING_CONTROLLER for c in checks):
            return reserved + 1, {}
        filed = reserved + 1
        name = f"{workload_meta['name']}-provisioning-1"
        request: dict[str, Any] = {
            "apiVersion": "autoscaling.x-k8s.io/v1",
            "kind": "ProvisioningRequest",
            "metadata": {
                "name": name,
                "namespace": namespace,
                "ownerReferences": [{"kind": "Workload", "uid": workload_meta["uid"]}],
                "creationTimestamp": stamp(filed),
            },
        }
        path = f"/apis/autoscaling.x-k8s.io/v1/namespaces/{namespace}/provisioningrequests/{name}"
        pools = [at for at in self.autoscaled_pools.values()]
        if not self.established(PROVISIONING_CRD) or not pools:
            request["status"] = {"conditions": [_condition("Provisioned", False)]}
            return None, {path: request}
        provisioned = max(filed, min(pools)) + self.delay(f"scale-up-{name}", 180, 480)
        done = self.clock() >= provisioned
        request["status"] = {"conditions": [_condition("Accepted"), _condition("Provisioned", done)]}
        return provisioned, {path: request}

    def _pods(self, job: Mapping[str, Any], admitted: float, complete: bool) -> dict[str, dict[str, Any]]:
        meta = job["metadata"]
        count = int((job.get("spec") or {}).get("parallelism") or 1)
        pods = {}
        for index in range(count):
            name = f"{meta['name']}-{index}"
            pods[f"/api/v1/namespaces/{meta['namespace']}/pods/{name}"] = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": name,
                    "namespace": meta["namespace"],
                    "labels": {"batch.kubernetes.io/job-name": meta["name"]},
                    "creationTimestamp": stamp(admitted),
                },
                "status": {"phase": "Succeeded" if complete else "Running"},
            }
        return pods

    def _find_in(self, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
        return next(
            (
                s.obj
                for s in self.objects.values()
                if s.obj.get("kind") == kind
                and s.obj["metadata"]["name"] == name
                and s.obj["metadata"].get("namespace") == namespace
            ),
            None,
        )

    def _created_in(self, obj: Mapping[str, Any]) -> float:
        return self.objects[object_path(obj)].created_at


def stamp(second: float) -> str:
    """The RFC 3339 time the API writes for simulated ``second``."""
    return (WALL_CLOCK_START + datetime.timedelta(seconds=second)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _condition(type_: str, status: bool = True) -> dict[str, str]:
    return {"type": type_, "status": "True" if status else "False", "reason": type_ if status else "Pending"}


def _active(active: bool) -> dict[str, str]:
    if active:
        return {"type": "Active", "status": "True", "reason": "Active", "message": "Can admit new workloads"}
    return {"type": "Active", "status": "False", "reason": "Inactive", "message": "not ready yet"}


def _labelled(obj: Mapping[str, Any], wanted: Mapping[str, str]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return all(labels.get(key) == value for key, value in wanted.items())
