"""The end-to-end test on a real cluster, as the e2e workflow runs it: the ``local`` template deployed to a fresh
kind cluster, checked, previewed again, destroyed, and the cluster searched for anything left behind.

    python -m tools.e2e run [--id ID] [--template stacks/Pulumi.local.yaml]

The steps, each reporting one line (``ok      <step>: ...`` or ``FAILED  <step>: ...``); the first failure stops the
run, and the clean-up below still runs:

1. ``plan``: the template rendered offline as the run's stack ``e2e-<id>`` (:mod:`tools.render`): every object the
   program creates, under its physical name, and the node label the smoke Job selects.
2. ``cluster``: ``kind create cluster`` from :data:`KIND_NODE_IMAGE`, its node carrying that label, its kubeconfig in
   the run's directory (``~/.kube/config`` is left alone).
3. ``baseline``: every cluster-scoped object the API server lists (found by discovery, not from a list of kinds).
4. ``up``: ``python -m tools.ephemeral up`` with the kubeconfig as the secret ``elastic-capacity:kubeconfig``, read
   from the environment variable :data:`KUBECONFIG_VARIABLE`.
5. ``check``: ``python -m tools.ephemeral check --timeout 300``.
6. ``preview``: ``pulumi preview --expect-no-changes``: the unchanged stack must show no diff, for real.

Clean-up, once ``up`` has started: ``inventory`` (``pulumi stack export``: every Kubernetes object the stack holds,
the Kueue chart's CRDs, webhooks and RBAC included), ``down`` (``python -m tools.ephemeral down``), ``leftovers``
(no object of the plan or the inventory remains, and no cluster-scoped object beyond the baseline, polled for
:data:`LEFTOVER_TIMEOUT_SECONDS` while the API server finishes deleting); and ``delete`` (``kind delete cluster``)
whenever step 2 ran.

Pulumi's state lives in the run's directory: ``PULUMI_BACKEND_URL=file://<dir>`` is the local backend ``pulumi login
--local`` selects, without rewriting the user's login or sharing ``~/.pulumi`` between runs. The passphrase is made
for the run. Both, and the kubeconfig, reach only the commands that need them, by environment, never on a command
line.

Exit codes: 0 every step passed; 1 a step failed (after the clean-up); 2 nothing was done (bad arguments, or a
template that does not render).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from components import yaml_text
from components.config.aks.pools import POOL_LABEL
from components.config.base import PROJECT, ConfigError
from components.config.stack import KUBECONFIG_KEY
from components.waiters.kube_wait import Cluster, RestCluster, is_not_found, poll
from tools import render, stack_file

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TEMPLATE = Path("stacks/Pulumi.local.yaml")
KIND_VERSION = "v0.31.0"
"""The kind release the workflow installs (.github/workflows/e2e.yml pins its binary by checksum)."""
KIND_NODE_IMAGE = "kindest/node:v1.35.0@sha256:452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f"
"""The node image kind v0.31.0 was released with, by digest
(https://github.com/kubernetes-sigs/kind/blob/v0.31.0/pkg/apis/config/defaults/image.go): Kubernetes 1.35, the
version the AKS stacks run."""
KUBECONFIG_VARIABLE = "E2E_KUBECONFIG"
"""The environment variable ``up`` reads the kind cluster's kubeconfig from (``--secret KEY=VARIABLE``)."""
SECRET_KEY = f"{PROJECT}:{KUBECONFIG_KEY}"
RUN_ID = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,18}[a-z0-9])?$")
"""Lowercase letters, digits and inner dashes, at most 20: the run's stack and kind cluster are ``e2e-<id>``."""
LEFTOVER_TIMEOUT_SECONDS = 120.0
"""How long the leftover check waits for deletions the API server finishes after ``down`` (an APIService Kubernetes
registered for a CRD's group, the IP address of a deleted Service)."""
CHECK_TIMEOUT = "300"
"""Seconds ``check`` may wait: ``up`` has already waited for the queues and the smoke Job, so the conditions hold at
once or something is wrong; the default 900 s would spend a third of the workflow's budget on saying so."""
OK, FAILED, USAGE = 0, 1, 2
Say = Callable[[str], None]


class Runner(Protocol):
    """Runs one command in ``cwd`` with ``env`` added to the inherited environment; returns its exit code."""

    def __call__(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> int: ...


def run_command(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> int:
    """The real :class:`Runner`: the command's output goes to the console as it comes."""
    try:
        return subprocess.run(list(argv), env={**os.environ, **env}, cwd=cwd, check=False).returncode
    except FileNotFoundError:
        print(f"{argv[0]}: command not found", flush=True)
        return 127


@dataclasses.dataclass(frozen=True, order=True)
class ObjectRef:
    """One Kubernetes object, as its manifest names it."""

    api_version: str
    kind: str
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


def object_ref(manifest: Any) -> ObjectRef | None:
    """The object a manifest (or a resource's state) names; ``None`` for anything that is not one."""
    metadata = manifest.get("metadata") if isinstance(manifest, dict) else None
    if not isinstance(metadata, dict):
        return None
    api_version, kind, name = manifest.get("apiVersion"), manifest.get("kind"), metadata.get("name")
    if not (isinstance(api_version, str) and isinstance(kind, str) and isinstance(name, str) and kind and name):
        return None
    namespace = metadata.get("namespace")
    return ObjectRef(api_version, kind, name, namespace if isinstance(namespace, str) and namespace else None)


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the template creates as the run's stack, known before any cluster exists."""

    objects: list[ObjectRef]
    node_labels: dict[str, str]
    """The labels the kind node needs: the pool label the smoke Job's pods select."""


def plan_stack(template: Path, stack: str) -> Plan:
    """Render ``template`` as ``stack`` under the mocks; raises ``ConfigError`` when it is not a valid stack."""
    source = stack_file.read(template)
    config = render.validate(dataclasses.replace(source, stack=stack))
    recording = render.run_main(stack, source.engine_config(), set(source.secret_keys))
    objects = [object_ref(registration.redacted_inputs) for registration in recording.kubernetes_objects()]
    job = config.smoke_job
    labels = {POOL_LABEL: job.pool} if job.enabled and job.pool else {}
    return Plan(sorted(ref for ref in objects if ref is not None), labels)


def inventory(state: Mapping[str, Any]) -> list[ObjectRef]:
    """Every Kubernetes object in a ``pulumi stack export``: the live object of each resource, else its inputs."""
    resources = (state.get("deployment") or {}).get("resources") or []
    found = []
    for resource in resources:
        if str(resource.get("type", "")).startswith("kubernetes:"):
            ref = object_ref(resource.get("outputs")) or object_ref(resource.get("inputs"))
            if ref is not None:
                found.append(ref)
    return sorted(set(found))


def kind_config(node_labels: Mapping[str, str]) -> str:
    """One node, control plane and worker at once (kind drops the control-plane taint then), with ``node_labels``."""
    node: dict[str, Any] = {"role": "control-plane"}
    if node_labels:
        node["labels"] = dict(node_labels)
    return yaml_text.dump({"kind": "Cluster", "apiVersion": "kind.x-k8s.io/v1alpha4", "nodes": [node]}, sort_keys=True)


class Discovery:
    """The API server's resources per group version, read once each (``None`` once a group version is not served)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._served: dict[str, list[dict[str, Any]] | None] = {}

    @staticmethod
    def base(group_version: str) -> str:
        return "/api/v1" if group_version == "v1" else f"/apis/{group_version}"

    def resources(self, group_version: str) -> list[dict[str, Any]] | None:
        if group_version not in self._served:
            try:
                listing = self.cluster.get(self.base(group_version))
                self._served[group_version] = [
                    r for r in listing.get("resources") or [] if "/" not in r.get("name", "")
                ]
            except Exception as error:
                if not is_not_found(error):
                    raise
                self._served[group_version] = None
        return self._served[group_version]

    def group_versions(self) -> list[str]:
        groups = self.cluster.get("/apis").get("groups") or []
        return ["v1", *(g["preferredVersion"]["groupVersion"] for g in groups if g.get("preferredVersion"))]


def cluster_scoped_objects(cluster: Cluster) -> set[str]:
    """``"<Kind> <name>"`` of every cluster-scoped object the API server lists, in every served group."""
    discovery = Discovery(cluster)
    found = set()
    for group_version in discovery.group_versions():
        for resource in discovery.resources(group_version) or []:
            if resource.get("namespaced") or "list" not in (resource.get("verbs") or []):
                continue
            for item in cluster.list(f"{Discovery.base(group_version)}/{resource['name']}"):
                found.add(f"{resource['kind']} {item['metadata']['name']}")
    return found


def still_there(cluster: Cluster, discovery: Discovery, ref: ObjectRef) -> bool:
    """Whether ``ref`` exists; an API group or kind no longer served holds nothing."""
    resource = next((r for r in discovery.resources(ref.api_version) or [] if r.get("kind") == ref.kind), None)
    if resource is None:
        return False
    where = f"/namespaces/{ref.namespace}" if ref.namespace and resource.get("namespaced") else ""
    try:
        cluster.get(f"{Discovery.base(ref.api_version)}{where}/{resource['name']}/{ref.name}")
    except Exception as error:
        if is_not_found(error):
            return False
        raise
    return True


def leftovers(cluster: Cluster, baseline: set[str], expected: Sequence[ObjectRef]) -> list[str]:
    """What the stack left: objects of ``expected`` that still exist, cluster-scoped objects not in ``baseline``."""
    try:
        discovery = Discovery(cluster)
        remaining = {str(ref) for ref in expected if still_there(cluster, discovery, ref)}
        return sorted(remaining | (cluster_scoped_objects(cluster) - baseline))
    except Exception as error:  # counts as "not yet": the poll reads again until its deadline
        return [f"(cannot read the cluster: {type(error).__name__}: {error})"]


@dataclasses.dataclass
class EndToEnd:
    """One run over injected collaborators; :meth:`run` returns the exit code."""

    run_id: str
    template: Path
    workdir: Path
    runner: Runner
    connect: Callable[[str], Cluster] = RestCluster
    plan: Callable[[Path, str], Plan] = plan_stack
    say: Say = dataclasses.field(default=lambda line: print(line, flush=True))
    passphrase: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(32))
    leftover_timeout_seconds: float = LEFTOVER_TIMEOUT_SECONDS
    policy_packs: tuple[str, ...] = ()
    """Policy packs ``up`` runs (``tools.ephemeral up --policy-pack``), as deploy.yml's: a mandatory violation fails."""
    poll_options: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def stack(self) -> str:
        return f"e2e-{self.run_id}"

    @property
    def kubeconfig_path(self) -> Path:
        return self.workdir / "kubeconfig"

    def pulumi_env(self) -> dict[str, str]:
        """What every Pulumi command gets: the run's own local backend and passphrase."""
        return {
            "PULUMI_BACKEND_URL": f"file://{self.workdir / 'state'}",
            "PULUMI_CONFIG_PASSPHRASE": self.passphrase,
            "PULUMI_SKIP_UPDATE_CHECK": "true",
        }

    def ephemeral(self, command: str) -> list[str]:
        argv = [sys.executable, "-m", "tools.ephemeral", command, "--stack", self.stack]
        argv += ["--template", str(self.template)]
        packs = [arg for pack in self.policy_packs for arg in ("--policy-pack", pack)]
        up = ["--secret", f"{SECRET_KEY}={KUBECONFIG_VARIABLE}", *packs]
        extra = {"up": up, "check": ["--timeout", CHECK_TIMEOUT]}
        return argv + extra.get(command, [])

    def run(self) -> int:
        try:
            plan = self.plan(PROJECT_ROOT / self.template, self.stack)
        except ConfigError as error:
            self.say(f"FAILED  plan: {error}")
            return USAGE
        labels = ", ".join(f"{k}={v}" for k, v in plan.node_labels.items()) or "none"
        self.say(f"ok      plan: stack {self.stack} creates {len(plan.objects)} objects; node labels: {labels}")
        ok, cluster_started, stack_started = True, False, False
        baseline: set[str] = set()
        (self.workdir / "state").mkdir(exist_ok=True)
        try:
            cluster_started = True
            ok = self._create_cluster(plan)
            ok = ok and self._step("baseline", lambda: self._baseline(baseline))
            stack_started = ok
            ok = ok and self._command("up", self.ephemeral("up"), {**self.pulumi_env(), **self._kubeconfig_env()})
            ok = ok and self._command("check", self.ephemeral("check"), self.pulumi_env())
            preview = ["pulumi", "preview", "--stack", self.stack, "--expect-no-changes", "--non-interactive", "--diff"]
            ok = ok and self._command("preview", preview, self.pulumi_env())
        finally:
            if stack_started:
                held = self._inventory()
                ok = self._command("down", self.ephemeral("down"), self.pulumi_env()) and ok
                ok = self._step("leftovers", lambda: self._no_leftovers(baseline, [*plan.objects, *held])) and ok
            if cluster_started:
                delete = ["kind", "delete", "cluster", "--name", self.stack, "--kubeconfig", str(self.kubeconfig_path)]
                ok = self._command("delete", delete, {}) and ok
        return OK if ok else FAILED

    def _step(self, name: str, action: Callable[[], str]) -> bool:
        """Run ``action``, which returns the detail of its ``ok`` line or raises; report one line."""
        try:
            detail = action()
        except Exception as error:
            self.say(f"FAILED  {name}: {type(error).__name__}: {error}")
            return False
        self.say(f"ok      {name}: {detail}")
        return True

    def _command(self, name: str, argv: list[str], env: Mapping[str, str]) -> bool:
        code = self.runner(argv, env, PROJECT_ROOT)
        self.say(f"ok      {name}" if code == 0 else f"FAILED  {name}: {' '.join(argv[:4])} ... exited {code}")
        return code == 0

    def _create_cluster(self, plan: Plan) -> bool:
        config = self.workdir / "kind.yaml"
        config.write_text(kind_config(plan.node_labels))
        create = ["kind", "create", "cluster", "--name", self.stack, "--image", KIND_NODE_IMAGE]
        where = ["--config", str(config), "--kubeconfig", str(self.kubeconfig_path), "--wait", "180s"]
        return self._command("cluster", [*create, *where], {})

    def _kubeconfig_env(self) -> dict[str, str]:
        return {KUBECONFIG_VARIABLE: self.kubeconfig_path.read_text()}

    def _baseline(self, baseline: set[str]) -> str:
        baseline.update(cluster_scoped_objects(self.connect(self.kubeconfig_path.read_text())))
        return f"{len(baseline)} cluster-scoped objects before up"

    def _inventory(self) -> list[ObjectRef]:
        """The stack's objects from its state; none (and a FAILED line) when the export fails."""
        path = self.workdir / "state.json"
        export = ["pulumi", "stack", "export", "--stack", self.stack, "--file", str(path)]
        if self.runner(export, self.pulumi_env(), PROJECT_ROOT) != 0 or not path.is_file():
            self.say("FAILED  inventory: pulumi stack export failed; the leftover check uses the plan alone")
            return []
        held = inventory(json.loads(path.read_text()))
        self.say(f"ok      inventory: the stack holds {len(held)} Kubernetes objects")
        return held

    def _no_leftovers(self, baseline: set[str], expected: Sequence[ObjectRef]) -> str:
        cluster = self.connect(self.kubeconfig_path.read_text())
        left, clean = poll(
            lambda: leftovers(cluster, baseline, expected),
            lambda found: not found,
            self.leftover_timeout_seconds,
            **self.poll_options,
        )
        if not clean:
            raise AssertionError(f"{len(left)} objects left on the cluster: {', '.join(left)}")
        return f"none of {len(set(expected))} objects and no new cluster-scoped object remains"


def default_run_id(environ: Mapping[str, str]) -> str:
    """The GitHub run and attempt (unique per run), else random hex."""
    if environ.get("GITHUB_RUN_ID"):
        return f"{environ['GITHUB_RUN_ID']}-{environ.get('GITHUB_RUN_ATTEMPT', '1')}"
    return secrets.token_hex(3)


def main(argv: list[str] | None = None, *, runner: Runner = run_command) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.e2e", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("run",))
    parser.add_argument("--id", help="the run's id: stack and kind cluster e2e-<id> (default: the GitHub run)")
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help="default: %(default)s")
    parser.add_argument(
        "--policy-pack", action="append", default=[], metavar="DIR", help="a policy pack up runs (repeatable)"
    )
    args = parser.parse_args(argv)
    run_id = args.id or default_run_id(os.environ)
    if not RUN_ID.match(run_id):
        print(f"error: --id {run_id!r}: lowercase letters, digits and inner dashes, at most 20", file=sys.stderr)
        return USAGE
    template = args.template if args.template.is_absolute() else PROJECT_ROOT / args.template
    if not template.is_file():
        print(f"error: --template {args.template}: no such stack file", file=sys.stderr)
        return USAGE
    workdir = Path(tempfile.mkdtemp(prefix="elastic-capacity-e2e-"))
    try:
        return EndToEnd(run_id, args.template, workdir, runner, policy_packs=tuple(args.policy_pack)).run()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
