"""The worker RBAC covers every call MultiKueue's manager makes on a worker, read from Kueue's source at each pinned
minor's newest patch, with and without each manager feature gate that adds calls.

The walk greps the remote client's call sites (``Get``/``List``/``Create``/``Delete``/``Patch``/``Update``, ``Status()``
writes, the informers ``AddCacheEventHandler`` starts, the watches ``establishWatch`` opens) in
https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/pkg/controller/admissionchecks/multikueue, the adapters'
``*_multikueue_adapter.go`` under https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/pkg/controller/jobs and
``ValidateRemoteObjectOwnership`` in ``pkg/controller/jobframework/utils.go``; every call site it cannot classify
fails the test, so a new kind of remote call in a later Kueue is noticed rather than missed. The source is a bare git
mirror of https://github.com/kubernetes-sigs/kueue (``KUEUE_GIT_DIR``, default ``../.mirror/kubernetes-sigs+kueue/repo``
beside the repository); without it the tests skip saying where they looked.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import pytest

from components.config.kueue.profiles import PROFILES
from components.config.multikueue.adapters import (
    CLUSTER_QUEUES,
    GATE_READS,
    LOCAL_QUEUES,
    MULTIKUEUE_ADAPTERS,
    WORKLOADS,
    WatchedKind,
    gate_reads,
)
from components.config.multikueue.multikueue import MultiKueueConfig
from components.config.multikueue.rules import MIN_KUEUE
from components.manifests import multikueue_worker as worker_manifests
from tests.support.kueue_sources import kueue_git

TAGS = [f"v{p.latest}" for p in PROFILES.values() if tuple(map(int, p.latest.split("."))) >= MIN_KUEUE.release]
"""The newest verified patch of every minor MultiKueue may run (``multikueue.burst-set-up`` needs 0.17.8 or later)."""
QUOTA_GATE = "MultiKueueManagerQuotaAutomation"
ADAPTER_KIND = WatchedKind("<adapter>", "<its kind>")
"""Stands for the kind of the adapter whose file makes the call: every kind the manager dispatches."""
BURST = MultiKueueConfig.model_validate({"workers": [{"cluster": "hz"}]})
NAMESPACE = "burst"

_REMOTE = r"(?:remoteCl|remoteClient|rc\.client|(?:[\w\[\]]+\.)*getClient\(\))"
_CALL = re.compile(
    _REMOTE + r"\.(?P<status>Status\(\)\.)?(?P<verb>Get|List|Create|Delete|Patch|Update|AddCacheEventHandler)"
    r"\(ctx, (?P<args>.*)"
)
_HELPERS = {
    re.compile(r"PatchAdmissionStatus\(ctx, remoteCl\b"): ("status", "patch"),
    re.compile(r"clientutil\.Patch\(ctx, remoteClient\b"): ("", "patch"),
}
"""Kueue helpers that write through the remote client they are given: ``patchStatus`` sends a status patch
(``pkg/workload/patching/patching.go``), ``clientutil.Patch`` a patch (``pkg/util/client/client.go``)."""
_FORWARDS = re.compile(
    r"\b(ValidateRemoteObjectOwnership|DeleteRemoteObjectIfOwned|DeleteRemoteObject|SyncJob|createRemoteObject"
    r"|syncElastic|syncElasticJob|syncRemoteSpec|syncLocalPodWithRemote|syncPodGroup)\(ctx, "
)
"""Functions the remote client is handed to whose bodies the walk reads itself (utils.go and the adapters)."""
_PASSES_REMOTE = re.compile(r"\(ctx, (?:[\w.]+, )?(?:remoteCl|remoteClient)\b")
_WORKLOAD_ARGS = {"wls", "&remoteWl", "remWl", "wl", "clone"}
_ARGS = {
    **dict.fromkeys(_WORKLOAD_ARGS, WORKLOADS),
    **dict.fromkeys(("&lqList", "remoteLQList", "&kueue.LocalQueue{}"), LOCAL_QUEUES),
    **dict.fromkeys(("remoteCQList", "&kueue.ClusterQueue{}"), CLUSTER_QUEUES),
}
"""How ``pkg/controller/admissionchecks/multikueue`` names what it reads and writes on a worker."""
_VERBS = {
    "Get": ("get",),
    "List": ("list",),
    "Create": ("create",),
    "Delete": ("delete",),
    "Patch": ("patch",),
    "Update": ("update",),
    "AddCacheEventHandler": ("list", "watch"),  # an informer: one list, then a watch
}
CLUSTER_WIDE = {"list", "watch"}
"""Verbs MultiKueue uses across namespaces (by the origin label); the others act on a copy in a burst namespace."""


@dataclasses.dataclass(frozen=True)
class Call:
    """One thing the manager does on a worker, and where Kueue does it."""

    kind: WatchedKind
    subresource: str
    verb: str
    where: str

    @property
    def gated(self) -> str | None:
        """The manager gate without which Kueue never makes the call."""
        return next((gate for gate, kinds in GATE_READS.items() if self.kind in kinds), None)


@functools.cache
def _sources(tag: str) -> dict[str, str]:
    paths = kueue_git("ls-tree", "-r", "--name-only", tag, "pkg/controller").split()
    wanted = [
        path
        for path in paths
        if path.endswith(".go")
        and not path.endswith("_test.go")
        and (
            path.startswith("pkg/controller/admissionchecks/multikueue/")
            or path.endswith("_multikueue_adapter.go")
            or path == "pkg/controller/jobframework/utils.go"
        )
    ]
    return {path: kueue_git("show", f"{tag}:{path}") for path in wanted}


def _object_argument(verb: str, args: str) -> str:
    """The object a client call acts on: its first argument after ``ctx``, the second for ``Get`` (after the key)."""
    depth, parts, current = 0, [], ""
    for char in args:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            if depth == 0:
                break
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        current += char
    parts.append(current.strip())
    return parts[1 if verb == "Get" else 0]


def _is_adapter(path: str) -> bool:
    return path.endswith(("_multikueue_adapter.go", "externalframeworks/adapter.go", "jobframework/utils.go"))


@functools.cache
def worker_calls(tag: str) -> tuple[list[Call], list[str]]:
    """Every call the manager makes on a worker at ``tag``, and the call sites the walk could not classify."""
    calls: list[Call] = []
    unknown: list[str] = []
    for path, text in _sources(tag).items():
        for number, line in enumerate(text.splitlines(), 1):
            where = f"https://github.com/kubernetes-sigs/kueue/blob/{tag}/{path}#L{number}"
            found = False
            for match in _CALL.finditer(line):
                found = True
                arg = _object_argument(match["verb"], match["args"])
                kind = ADAPTER_KIND if _is_adapter(path) else _ARGS.get(arg)
                if kind is None:
                    unknown.append(f"{where}: {line.strip()}")
                    continue
                sub = "status" if match["status"] else ""
                calls += [Call(kind, sub, verb, where) for verb in _VERBS[match["verb"]]]
            for helper, (sub, verb) in _HELPERS.items():
                if helper.search(line):
                    found = True
                    calls.append(Call(WORKLOADS if sub else ADAPTER_KIND, sub, verb, where))
            if "c.Watch(establishCtx, obj," in line:
                # establishWatch: one watch per MultiKueueWatcher, Workloads and every adapter's kind
                found = True
                calls += [Call(WORKLOADS, "", "watch", where), Call(ADAPTER_KIND, "", "watch", where)]
            if not found and _PASSES_REMOTE.search(line) and not _FORWARDS.search(line):
                unknown.append(f"{where}: {line.strip()}")
    return calls, unknown


def granted(gates: dict[str, bool]) -> tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """(resource, subresource, verb) the worker's ClusterRole grants, and what its Role grants in a burst namespace,
    built by the program's own builders for an identity that watches every adapter's kind."""
    watched = list(MULTIKUEUE_ADAPTERS.values())
    cluster = worker_manifests.cluster_role(BURST, watched, gate_reads(gates))
    namespaced = worker_manifests.role(BURST, NAMESPACE, watched)
    return _flatten(cluster["rules"]), _flatten(namespaced["rules"])


def _flatten(rules: list[dict]) -> set[tuple[str, str, str]]:
    out = set()
    for rule in rules:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                name, _, sub = resource.partition("/")
                out |= {(f"{group}/{name}", sub, verb) for verb in rule["verbs"]}
    return out


def missing(calls: list[Call], gates: dict[str, bool], cluster: set, namespaced: set) -> list[str]:
    """The calls ``gates`` lets Kueue make that the grants do not allow, each with where Kueue makes it."""
    kinds = list(MULTIKUEUE_ADAPTERS.values())
    problems = []
    for call in calls:
        if call.gated is not None and not gates.get(call.gated, False):
            continue
        for kind in kinds if call.kind == ADAPTER_KIND else [call.kind]:
            key = (f"{kind.api_group}/{kind.resource}", call.subresource, call.verb)
            allowed = key in cluster or (call.verb not in CLUSTER_WIDE and key in namespaced)
            if not allowed:
                problems.append(f"{key} ({call.where})")
    return sorted(set(problems))


def gate_states(tag: str) -> list[dict[str, bool]]:
    """Off, and on where the tag's minor knows the gate."""
    profile = PROFILES[tag[1:].rsplit(".", 1)[0]]
    return [{QUOTA_GATE: False}] + ([{QUOTA_GATE: True}] if QUOTA_GATE in profile.gates.known else [])


@pytest.mark.parametrize("tag", TAGS)
def test_every_remote_call_site_of_multikueue_is_classified(tag):
    calls, unknown = worker_calls(tag)
    assert not unknown, "remote calls the walk cannot classify: extend its tables\n" + "\n".join(unknown)
    verbs = {(call.kind, call.subresource, call.verb) for call in calls}
    # the calls every MultiKueue makes: the walk must keep finding them, or it reads the wrong files
    assert {(WORKLOADS, "", "create"), (WORKLOADS, "", "delete"), (WORKLOADS, "", "watch")} <= verbs
    assert {(WORKLOADS, "status", "update"), (ADAPTER_KIND, "", "create"), (ADAPTER_KIND, "", "get")} <= verbs


@pytest.mark.parametrize("tag", TAGS)
def test_the_queue_reads_of_quota_automation_happen_only_behind_its_gate(tag):
    """The walk treats ClusterQueue and LocalQueue calls as gated: true while Kueue builds their informers and the
    ClusterQueue reconciler only with the gate on (``newClientWithWatch``, ``updateConfigAndRefreshWatchers``,
    ``SetupControllers``)."""
    sources = _sources(tag)
    calls, _ = worker_calls(tag)
    queue_calls = [call for call in calls if call.kind in (CLUSTER_QUEUES, LOCAL_QUEUES)]
    if QUOTA_GATE not in PROFILES[tag[1:].rsplit(".", 1)[0]].gates.known:
        assert not queue_calls
        return
    assert queue_calls
    cluster = sources["pkg/controller/admissionchecks/multikueue/multikueuecluster.go"]
    guard = f"if !features.Enabled(features.{QUOTA_GATE}) {{\n\t\treturn NewNeverCachingClient(directClient), nil"
    assert guard in cluster
    assert re.search(rf"if features.Enabled\(features.{QUOTA_GATE}\) {{\n\t\tif err := rc.startQueueWatchers", cluster)
    controllers = sources["pkg/controller/admissionchecks/multikueue/controllers.go"]
    assert re.search(rf"if features.Enabled\(features.{QUOTA_GATE}\) {{\n\t\tcqRec := newCQReconciler", controllers)


@pytest.mark.parametrize("tag", TAGS)
def test_the_worker_rbac_covers_every_call_kueue_makes_on_a_worker_with_each_gate(tag):
    calls, _ = worker_calls(tag)
    for gates in gate_states(tag):
        cluster, namespaced = granted(gates)
        assert missing(calls, gates, cluster, namespaced) == [], f"{tag} with {gates}"


def test_without_the_gate_the_worker_identity_reads_no_queues():
    cluster, _ = granted({QUOTA_GATE: False})
    assert not {key for key in cluster if key[0] in ("kueue.x-k8s.io/clusterqueues", "kueue.x-k8s.io/localqueues")}


@pytest.mark.parametrize("tag", TAGS[-1:])
def test_the_walk_turns_red_when_the_worker_rbac_loses_a_verb(tag):
    """Dropping any one granted (resource, verb) that a call needs is reported: the walk is not vacuous."""
    calls, _ = worker_calls(tag)
    gates = gate_states(tag)[-1]
    cluster, namespaced = granted(gates)
    assert missing(calls, gates, cluster, namespaced) == []
    for entry in [("kueue.x-k8s.io/workloads", "", "create"), ("kueue.x-k8s.io/workloads", "status", "patch")]:
        assert missing(calls, gates, cluster, namespaced - {entry}), entry
    assert missing(calls, gates, cluster - {("kueue.x-k8s.io/workloads", "", "watch")}, namespaced)
    assert missing(calls, gates, cluster - {("kueue.x-k8s.io/localqueues", "", "watch")}, namespaced)
    assert missing(calls, gates, cluster, namespaced - {("batch/jobs", "", "patch")})
