"""Rehearse a stack's life against a simulated world that has a clock and identities: ``python -m tools.rehearse``.

    python -m tools.rehearse stacks/Pulumi.aks-kueue-dev.yaml [--identity NAME] [--seed N]

runs the stack's plan (the real program under the mock runtime, as the identity that runs ``up`` signs in) through
the rehearsed engine (:mod:`tools.world.engine`) in a world where role assignments propagate, CRDs and webhooks come
late, the autoscaler takes minutes and the API throttles (:mod:`tools.world.world`), then, on the deployed stack:

1. ``preview`` as the identity that previews it (pull requests), which must succeed and plan no change;
2. ``preview --refresh`` as the drift check's identity, which must read everything and plan no change;
3. ``destroy`` as the deployer.

Who runs what comes from ``deploy/stacks.json`` and :mod:`tools.world.identities` (``--identity`` runs ``up`` as
another one instead); a stack that deploys onto another stack's cluster (the shared pull-request template) is
rehearsed after that stack's own ``up``, in the same world. It prints each operation's timeline and, for a failure,
the first operation that failed, who ran it and what it lacked; the exit code is 0 when all succeed, 1 when one
fails, 2 for a stack file that cannot be read.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path

from components.config.base import ConfigError
from tools import mock_engine, mock_runtime, render
from tools.mock_cloud import FAKE_KUBECONFIG, Signer, ack_cluster_credential
from tools.recording import Recording
from tools.world.engine import ACK_RESOURCE_POLICY_CRD, Engine, Outcome, timeline
from tools.world.identities import IDENTITIES, LOCAL, stack_identities
from tools.world.world import SUBSCRIPTION, World

PROJECT_ROOT = Path(__file__).resolve().parents[1]
STACKS_JSON = PROJECT_ROOT / "deploy/stacks.json"
KUBECONFIG_KEY = "elastic-capacity:kubeconfig"


@dataclasses.dataclass
class Rehearsal:
    """Every operation rehearsed for one stack, in order."""

    stack: str
    outcomes: list[Outcome]

    @property
    def ok(self) -> bool:
        return all(outcome.failed is None and not outcome.changes for outcome in self.outcomes)

    def report(self) -> str:
        parts = [timeline(outcome) + _changes(outcome) for outcome in self.outcomes]
        return "\n".join(parts) + f"\n{self.stack}: {'ok' if self.ok else 'FAILED'}"


def _changes(outcome: Outcome) -> str:
    return "".join(f"\n  planned change: {change}" for change in outcome.changes)


def deployer_of(stack: str) -> str | None:
    entry = json.loads(STACKS_JSON.read_text())["stacks"].get(stack)
    return None if entry is None else str(entry["deployer"])


def rehearse(stack_file: Path, *, seed: int = 0, identity: str | None = None, world: World | None = None) -> Rehearsal:
    """Rehearse ``stack_file``'s ``up``, previews and ``destroy`` (see the module docstring)."""
    stack, config, secret_keys = render.read_stack_file(stack_file)
    world = world or World(seed)
    runs = stack_identities(stack, deployer_of(stack))
    if identity is not None:
        runs["up"] = identity
    config, secret_keys = _prepare(world, stack, config, secret_keys)
    outcomes: list[Outcome] = []
    with _pins() as pins:
        world.run_as(runs["up"])
        _grant_shared(world, config)
        engine = Engine(world, _plan(stack, config, secret_keys, runs["up"]))
        outcomes.append(engine.up())
        if outcomes[-1].failed is not None:
            return Rehearsal(stack, outcomes)
        world.conductor.now += 3600  # the stack as it stands an hour later: every grant has arrived
        for operation in ("preview", "refresh"):
            who = runs.get(operation) or (runs["up"] if operation == "preview" else None)
            if who is None:
                continue
            world.run_as(who)
            previewing = _plan(stack, config, secret_keys, who, pins=pins)
            outcomes.append(engine.preview(previewing, refresh=operation == "refresh"))
        world.run_as(runs["destroy"])
        outcomes.append(engine.destroy())
    return Rehearsal(stack, outcomes)


@contextlib.contextmanager
def _pins() -> Iterator[dict[tuple[str, str], dict[str, object]]]:
    """The version pins' state across the stack's runs, as the engine keeps it (:mod:`tools.mock_engine`)."""
    saved, mock_engine.VERSION_PIN_STATE = mock_engine.VERSION_PIN_STATE, {}
    try:
        yield mock_engine.VERSION_PIN_STATE
    finally:
        mock_engine.VERSION_PIN_STATE = saved


def _plan(stack: str, config: dict[str, str], secret_keys: set[str], who: str, pins: object | None = None) -> Recording:
    """The program's registrations, run as ``who`` signs in to Azure."""
    identity = IDENTITIES.get(who)
    signer = Signer(identity.object_id, kind="ServicePrincipal") if identity else Signer()

    def program() -> None:
        runpy.run_path(str(PROJECT_ROOT / "__main__.py"), run_name="__main__")

    return mock_runtime.run(program, config, secret_keys, stack=stack, signer=signer)


def _prepare(
    world: World, stack: str, config: dict[str, str], secret_keys: set[str]
) -> tuple[dict[str, str], set[str]]:
    """The clusters a stack deploys onto without creating them, as they stand before its first ``up``: another
    shipped stack's cluster is that stack's own rehearsed ``up``; an ACK cluster by id, a cluster by kubeconfig."""
    existing = json.loads(config.get("elastic-capacity:existingCluster", "null"))
    if existing and existing.get("source") == "aks":
        owner = _stack_creating(existing["resourceGroupName"], existing["clusterName"])
        owned = rehearse(owner, world=world, seed=0)
        if owned.outcomes[0].failed is not None:
            raise RuntimeError(f"the shared cluster's own stack failed: {owned.report()}")
    elif existing and existing.get("source") == "kubeconfig":
        if KUBECONFIG_KEY not in config:
            config, secret_keys = {**config, KUBECONFIG_KEY: FAKE_KUBECONFIG}, {*secret_keys, KUBECONFIG_KEY}
        world.add_cluster(stack, "https://mock.invalid:443", "plain")
    for cluster in json.loads(config.get("elastic-capacity:ack", "{}")).get("existingClusters", []):
        server = ack_cluster_credential({"clusterId": cluster["clusterId"]})["kubeConfig"]
        from tools.world.engine import _server

        url = _server(server)
        world.ack[cluster["clusterId"]] = {"server": url, "creator": IDENTITIES["deployer"].ram_uid, "grants": []}
        world.add_cluster(cluster["name"], url, "ack").serve_crd(ACK_RESOURCE_POLICY_CRD, -1.0)
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
    args = parser.parse_args(argv)
    try:
        rehearsal = rehearse(args.stack_file, seed=args.seed, identity=args.identity)
    except ConfigError as error:
        print(f"{args.stack_file}: {error}", file=sys.stderr)
        return 2
    print(rehearsal.report())
    return 0 if rehearsal.ok else 1


if __name__ == "__main__":
    sys.exit(main())
