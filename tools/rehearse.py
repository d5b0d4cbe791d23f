"""Rehearse a stack's life against a simulated world that has a clock and identities: ``python -m tools.rehearse``.

    python -m tools.rehearse stacks/Pulumi.aks-kueue-dev.yaml [--identity NAME] [--seed N] [--propagation S]

runs the stack's plan (the real program under the mock runtime, signed in as the identity that runs ``up``) through
the rehearsed engine (:mod:`tools.world.engine`) in a world where role assignments propagate, CRDs and webhooks come
late, the autoscaler takes minutes and the API throttles (:mod:`tools.world.world`), then, an hour later, on the
deployed stack:

1. ``preview`` as the identity that previews it (pull requests), which must succeed and plan no change;
2. ``preview --refresh`` as the drift check's identity, which must read everything and plan no change;
3. ``destroy`` as the deployer.

Who runs what comes from ``deploy/stacks.json`` and :mod:`tools.world.identities` (``--identity`` runs ``up`` as
another one instead); a stack that deploys onto another stack's cluster (the shared pull-request template) is
rehearsed after that stack's own ``up``, in the same world. ``--seed`` draws the world's delays; ``--propagation``
fixes every role assignment's delay (``300``: the longest AKS documents). It prints each operation's timeline and,
for a failure, the first operation that failed, who ran it and what it lacked. Exit code 0 when everything succeeded,
1 when something failed, 2 for a stack file that cannot be read.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from components import yaml_text
from components.config.base import ConfigError
from tools import render
from tools.mock_cloud import FAKE_KUBECONFIG, Signer, ack_cluster_credential
from tools.recording import Recording
from tools.world.engine import Engine, Outcome, timeline
from tools.world.identities import IDENTITIES, LOCAL, stack_identities
from tools.world.providers import ACK_RESOURCE_POLICY_CRD, server_of
from tools.world.world import ROLE_PROPAGATION, SUBSCRIPTION, World

PROJECT_ROOT = Path(__file__).resolve().parents[1]
STACKS_JSON = PROJECT_ROOT / "deploy/stacks.json"
KUBECONFIG_KEY = "elastic-capacity:kubeconfig"
AN_HOUR_LATER = 3600.0
"""When the previews and ``destroy`` run after ``up``: every grant has long arrived."""
CACHED_AZ_TOKEN_SECONDS = 3600.0
"""How long a job's Kubernetes credential lasts when kubelogin reads a token ``az`` cached at the job's start
(``azurecli``): an Entra access token's shortest lifetime, 60 minutes
(https://learn.microsoft.com/entra/identity-platform/configurable-token-lifetimes)."""
DEPLOY_WORKFLOW = PROJECT_ROOT / ".github/workflows/deploy.yml"
RENEWING_LOGINS = frozenset({"workloadidentity", "spn", "msi"})
"""kubelogin logins that sign in afresh whenever the token runs out: a federated token asked of GitHub, a secret,
the runner's managed identity."""

Plan = Callable[[str, dict[str, str], set[str], Signer], Recording]
"""How the program's plan is made: ``(stack, config, secret keys, signer) -> recording``."""


@dataclasses.dataclass
class Rehearsal:
    """Every operation rehearsed for one stack, in order."""

    stack: str
    outcomes: list[Outcome]

    @property
    def ok(self) -> bool:
        return all(outcome.failed is None and not outcome.changes for outcome in self.outcomes)

    def report(self) -> str:
        parts = [
            timeline(outcome) + "".join(f"\n  planned change: {c}" for c in outcome.changes)
            for outcome in self.outcomes
        ]
        return "\n".join([*parts, f"{self.stack}: {'ok' if self.ok else 'FAILED'}"])


def run_program(stack: str, config: dict[str, str], secret_keys: set[str], signer: Signer) -> Recording:
    """The default :data:`Plan`: ``__main__.py`` under the mock runtime (:func:`tools.render.run_main`)."""
    return render.run_main(stack, config, secret_keys, signer=signer)


def rehearse(
    stack_file: Path,
    *,
    seed: int = 0,
    identity: str | None = None,
    world: World | None = None,
    role_propagation: tuple[float, float] = ROLE_PROPAGATION,
    plan: Plan = run_program,
) -> Rehearsal:
    """Rehearse ``stack_file``'s ``up``, previews and ``destroy`` (see the module docstring)."""
    stack, config, secret_keys = render.read_stack_file(stack_file)
    world = world or World(seed, role_propagation=role_propagation)
    entry = _stacks_json().get(stack) or {}
    runs = stack_identities(stack, str(entry["deployer"]) if "deployer" in entry else None)
    if identity is not None:
        runs["up"] = identity
    config, secret_keys = _prepare(world, stack, config, secret_keys, plan)
    recordings: dict[str, Recording] = {}

    def planned(who: str) -> Recording:
        signer = signer_of(who)
        if signer.object_id not in recordings:
            recordings[signer.object_id] = plan(stack, config, secret_keys, signer)
        return recordings[signer.object_id]

    outcomes: list[Outcome] = []
    _sign_in(world, runs["up"], entry)
    _grant_shared(world, config)
    engine = Engine(world, planned(runs["up"]))
    outcomes.append(engine.up())
    if outcomes[-1].failed is not None:
        return Rehearsal(stack, outcomes)
    world.conductor.now += AN_HOUR_LATER
    for operation in ("preview", "refresh"):
        who = runs.get(operation) or (runs["up"] if operation == "preview" else None)
        if who is not None:
            _sign_in(world, who, entry)
            outcomes.append(engine.preview(planned(who), refresh=operation == "refresh"))
    _sign_in(world, runs["destroy"], entry)
    outcomes.append(engine.destroy())
    return Rehearsal(stack, outcomes)


def signer_of(who: str) -> Signer:
    """How ``who`` signs in to Azure, for the mocks: every GitHub identity is an application."""
    identity = IDENTITIES.get(who)
    return Signer(identity.object_id, kind="ServicePrincipal") if identity else Signer()


def _stacks_json() -> dict[str, dict[str, object]]:
    return dict(json.loads(STACKS_JSON.read_text())["stacks"])


def kubelogin_login(azure: str) -> str:
    """The kubelogin login CI's jobs for a stack of ``azure`` (``global``, ``china``) use: the ``AAD_LOGIN_METHOD``
    of deploy.yml's pulumi step, ``${{ matrix.azure == 'global' && '<global>' || '<otherwise>' }}``."""
    for job in yaml_text.load(DEPLOY_WORKFLOW.read_text())["jobs"].values():
        for step in job.get("steps") or []:
            method = (step.get("env") or {}).get("AAD_LOGIN_METHOD")
            if method is not None:
                global_login, other = re.findall(r"'(\w+)'", method.removeprefix("${{ matrix.azure == 'global'"))
                return global_login if azure == "global" else other
    raise LookupError(f"{DEPLOY_WORKFLOW} sets no AAD_LOGIN_METHOD")


def _sign_in(world: World, who: str, entry: dict[str, object]) -> None:
    """``who`` starts a job: a new sign-in, which lasts :data:`CACHED_AZ_TOKEN_SECONDS` unless CI's kubelogin login
    for the stack's cloud renews itself."""
    world.run_as(who)
    renews = kubelogin_login(str(entry.get("azure"))) in RENEWING_LOGINS
    world.credential_expires = None if renews else world.now + CACHED_AZ_TOKEN_SECONDS


def _prepare(
    world: World, stack: str, config: dict[str, str], secret_keys: set[str], plan: Plan
) -> tuple[dict[str, str], set[str]]:
    """The clusters a stack deploys onto without creating them, as they stand before its first ``up``: another
    shipped stack's cluster is that stack's own rehearsed ``up``; an ACK cluster by id, a cluster by kubeconfig."""
    existing = json.loads(config.get("elastic-capacity:existingCluster", "null")) or {}
    if existing.get("source") == "aks":
        owner = rehearse(
            _stack_creating(existing["resourceGroupName"], existing["clusterName"]), world=world, plan=plan
        )
        if owner.outcomes[0].failed is not None:
            raise RuntimeError(f"the shared cluster's own stack failed:\n{owner.report()}")
    elif existing.get("source") == "kubeconfig":
        if KUBECONFIG_KEY not in config:
            config, secret_keys = {**config, KUBECONFIG_KEY: FAKE_KUBECONFIG}, {*secret_keys, KUBECONFIG_KEY}
        world.add_cluster(stack, server_of(config[KUBECONFIG_KEY]), "plain")
    for cluster in json.loads(config.get("elastic-capacity:ack", "{}")).get("existingClusters", []):
        server = server_of(ack_cluster_credential({"clusterId": cluster["clusterId"]})["kubeConfig"])
        world.ack[cluster["clusterId"]] = {"server": server, "creator": IDENTITIES["deployer"].ram_uid, "grants": []}
        world.add_cluster(cluster["name"], server, "ack").serve_crd(ACK_RESOURCE_POLICY_CRD, -1.0)
    return config, secret_keys


def _grant_shared(world: World, config: dict[str, str]) -> None:
    """The docs' grants of the identity running ``up`` on the shared clusters it uses."""
    identity = world.runner
    if identity is None or identity.name == LOCAL:
        return
    existing = json.loads(config.get("elastic-capacity:existingCluster", "null")) or {}
    aks_id = None
    if existing.get("source") == "aks":
        aks_id = (
            f"{SUBSCRIPTION}/resourceGroups/{existing['resourceGroupName']}/providers/"
            f"Microsoft.ContainerService/managedClusters/{existing['clusterName']}"
        )
    ack = json.loads(config.get("elastic-capacity:ack", "{}")).get("existingClusters", [])
    world.grant_on_shared(identity, aks_id, ack[0]["clusterId"] if ack else None)


def _stack_creating(group: str, name: str) -> Path:
    for path in sorted((PROJECT_ROOT / "stacks").glob("Pulumi.*.yaml")):
        _, config, _ = render.read_stack_file(path)
        aks = json.loads(config.get("elastic-capacity:aks", "null")) or {}
        if aks.get("clusterName") == name and (aks.get("resourceGroup") or {}).get("name") == group:
            return path
    raise LookupError(f"no shipped stack creates the AKS cluster {group}/{name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.rehearse", description=__doc__.split("\n\n")[0])
    parser.add_argument("stack_file", type=Path)
    parser.add_argument("--identity", choices=sorted(IDENTITIES), help="run up as this identity instead")
    parser.add_argument("--seed", type=int, default=0, help="the world's random delays (default 0)")
    parser.add_argument("--propagation", type=float, help="every role assignment's delay in seconds (0 to 300)")
    args = parser.parse_args(argv)
    bounds = (args.propagation, args.propagation) if args.propagation is not None else ROLE_PROPAGATION
    try:
        rehearsal = rehearse(args.stack_file, seed=args.seed, identity=args.identity, role_propagation=bounds)
    except ConfigError as error:
        print(f"{args.stack_file}: {error}", file=sys.stderr)
        return 2
    print(rehearsal.report())
    return 0 if rehearsal.ok else 1


if __name__ == "__main__":
    sys.exit(main())
