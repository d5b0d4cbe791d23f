"""Render a stack offline: run the real program under the mock runtime and write what it would register.

    python -m tools.render stacks/Pulumi.aks-kueue-dev.yaml --out out/

writes ``out/plan.json`` (every resource with its type, name, parent, provider, dependencies, ``ignoreChanges``,
``protect`` and inputs, secrets redacted) and ``out/manifests/<cluster>/<kind>-[<namespace>-]<name>.yaml`` (every
Kubernetes object the program creates itself; a Helm chart's own contents are not rendered). No Pulumi CLI, no
credentials, no cluster.
Invalid configuration exits with code 2 and one line naming the key.
"""

from __future__ import annotations

import argparse
import json
import logging
import runpy
import sys
from pathlib import Path
from typing import Any

import yaml
from pulumi.runtime import rpc

from components.config.base import ConfigError
from tools import mock_cloud, mock_runtime
from tools.recording import REDACTED, UNKNOWN, Recording

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SECRET_PLACEHOLDER = "rendered-offline-secret"
"""Stands in for a ``secure:`` value: its ciphertext cannot be decrypted without the stack's secrets provider."""


def read_stack_file(path: Path) -> tuple[str, dict[str, str], set[str]]:
    """Return the stack name, the config as the engine hands it to the program (strings), and the secret keys."""
    stack = path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    document = yaml.safe_load(path.read_text()) or {}
    config: dict[str, str] = {}
    secret_keys: set[str] = set()
    for key, value in (document.get("config") or {}).items():
        plain, secret = _decrypt_placeholder(key, value)
        config[key] = plain if isinstance(plain, str) else json.dumps(plain)
        if secret:
            secret_keys.add(key)
    return stack, config, secret_keys


def _decrypt_placeholder(key: str, value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict) and set(value) == {"secure"}:
        return (mock_cloud.FAKE_KUBECONFIG if key.endswith(":kubeconfig") else SECRET_PLACEHOLDER), True
    if isinstance(value, dict):
        pairs = {k: _decrypt_placeholder(key, v) for k, v in value.items()}
        return {k: v for k, (v, _) in pairs.items()}, any(s for _, s in pairs.values())
    if isinstance(value, list):
        items = [_decrypt_placeholder(key, v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def run_main(stack: str, config: dict[str, str], secret_keys: set[str], *, preview: bool = False) -> Recording:
    """Run the real ``__main__.py`` under the mocks, as ``pulumi up`` (or, with ``preview``, ``pulumi preview``)."""

    def program() -> None:
        runpy.run_path(str(PROJECT_ROOT / "__main__.py"), run_name="__main__")

    return mock_runtime.run(program, config, secret_keys=secret_keys, stack=stack, preview=preview)


def render(stack_file: Path) -> tuple[str, Recording]:
    stack, config, secret_keys = read_stack_file(stack_file)
    return stack, run_main(stack, config, secret_keys)


def plan(stack: str, recording: Recording) -> dict[str, Any]:
    resources = [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "custom": r.custom,
            "parent": r.parent,
            "provider": _readable_provider_ref(r.provider),
            "dependencies": sorted(r.all_dependencies),
            "explicitDependencies": sorted(r.dependencies),
            "ignoreChanges": list(r.ignore_changes),
            "protect": r.protect,
            "inputs": _without_serialized_code(r.redacted_inputs),
        }
        for r in recording.registrations
    ]
    outputs = {k: REDACTED if k in recording.secret_outputs else v for k, v in recording.outputs.items()}
    return {"stack": stack, "resources": resources, "outputs": outputs}


def _readable_provider_ref(ref: str | None) -> str | None:
    """``urn::id``, with the engine's unknown-id sentinel (a provider created during preview) shown as unknown."""
    if ref is None:
        return None
    urn, _, provider_id = ref.rpartition("::")
    return f"{urn}::{UNKNOWN}" if provider_id == rpc.UNKNOWN else ref


def _without_serialized_code(inputs: dict[str, Any]) -> dict[str, Any]:
    """A dynamic resource's inputs carry its pickled provider: code, not configuration."""
    return {k: ("[serialized dynamic provider]" if k == "__provider" else v) for k, v in inputs.items()}


def manifests(recording: Recording) -> dict[str, dict[str, Any]]:
    """Relative file path -> Kubernetes object, one per object the program creates, grouped by cluster provider."""
    files: dict[str, dict[str, Any]] = {}
    for registration in recording.kubernetes_objects():
        provider = recording.provider_of(registration)
        obj = registration.redacted_inputs
        meta = obj.get("metadata") or {}
        parts = [obj["kind"].lower(), meta.get("namespace"), meta.get("name", registration.name)]
        cluster = provider.name if provider else "default"
        files[f"{cluster}/{'-'.join(p for p in parts if p)}.yaml"] = obj
    return files


def write(out: Path, stack: str, recording: Recording) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(plan(stack, recording), indent=2, sort_keys=True) + "\n")
    for relative, obj in manifests(recording).items():
        path = out / "manifests" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(obj, sort_keys=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("stack_file", type=Path, help="a stacks/Pulumi.<stack>.yaml file")
    parser.add_argument("--out", type=Path, required=True, help="directory for plan.json and manifests/")
    args = parser.parse_args(argv)
    if not args.stack_file.is_file():
        print(f"error: no stack file at {args.stack_file}", file=sys.stderr)
        return 2
    # A deploy-time check that fails inside an apply leaves sibling tasks unretrieved; Pulumi's language host
    # silences asyncio's report of them the same way, so the user sees only the one-line error.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    try:
        stack, recording = render(args.stack_file)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    write(args.out, stack, recording)
    print(f"rendered {len(recording.registrations)} resources of stack {stack} to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
