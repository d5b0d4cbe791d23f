"""Render a stack offline: run the real program under the mock runtime and write what it would register.

    python -m tools.render stacks/Pulumi.aks-kueue-dev.yaml --out out/

writes ``out/plan.json`` (every resource with its type, name, parent, provider, dependencies, ``ignoreChanges``,
``protect`` and inputs, secrets redacted) and ``out/manifests/<cluster>/<kind>-[<namespace>-]<name>.yaml`` (every
Kubernetes object the program creates itself; a Helm chart's own contents are not rendered). No Pulumi CLI, no
credentials, no cluster.

A stack with ``gitops.renderToDirectory: <dir>`` gets, instead of ``manifests/``, the directory its ``pulumi up``
writes, at the same paths under ``out/<dir>/`` (:mod:`tools.gitops_preview`), the Kueue chart's objects included when
``--kueue-chart`` (or ``KUEUE_CHART_DIR``) names the unpacked chart; without it one line says they are absent.

A malformed stack file (:mod:`tools.stack_file`) or invalid configuration exits with code 2 and one line naming the
file, and the key at its ``file:line:column``
(``stacks/Pulumi.<stack>.yaml:12:7: elastic-capacity:aks.clustrName: ...``); nothing is written then.

The output directory: a render must never mix with other files, nor leave a manifest of an object the stack no
longer creates. So every render writes :data:`RENDER_MARKER`, holding the resolved path of its stack file, and the
tool writes only into

- a directory that does not exist or is empty, or
- a previous render of the same stack file: the marker names that file and the top level holds nothing but
  ``plan.json``, ``manifests/`` and the marker. It is cleared first (the tool says so), after the new render has
  succeeded, so a failed render leaves the previous one as it was.

Anything else (a directory of other files, a render of another stack file, a render with files added to it) is
refused with exit code 2 and left untouched: choose another directory or delete it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import runpy
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml
from pulumi.runtime import rpc

from components import yaml_text
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.config.stack import StackConfig
from tools import gitops_preview, mock_runtime, stack_file, stack_locations
from tools.mock_cloud import DEPLOYER, Signer
from tools.recording import REDACTED, UNKNOWN, Recording
from tools.stack_file import StackFile

PROJECT_ROOT = Path(__file__).resolve().parents[1]
RENDER_MARKER = ".rendered-from"
"""The file every render writes: the resolved path of the stack file it was rendered from."""
RENDER_ENTRIES = frozenset({"plan.json", "manifests", RENDER_MARKER})
"""Everything a render writes at the top of its directory."""


class OutputDirectoryError(Exception):
    """The output directory holds files a render must neither mix with nor delete."""


def read_stack_file(path: Path) -> tuple[str, dict[str, str], set[str]]:
    """Return the stack name, the config as the engine hands it to the program (strings), and the secret keys.

    Raises :class:`~tools.stack_file.StackFileError` (a ``ConfigError``) for a malformed stack file."""
    source = stack_file.read(path)
    return source.stack, source.engine_config(), set(source.secret_keys)


def validate(source: StackFile) -> StackConfig:
    """The stack file's configuration, validated as the program validates it, with the file's YAML-typed scalars
    so a type error can name the exact text to quote; raises ``ConfigError`` with each key's ``file:line:column``
    (:mod:`tools.stack_locations`). Cheap: no resource is registered."""
    config = source.engine_config()
    try:
        return load_stack_config(config, source.secret_keys, stack=source.stack, yaml_scalars=source.yaml_scalars)
    except ConfigError as error:
        raise stack_locations.locate(error, source) from None


def run_main(
    stack: str, config: dict[str, str], secret_keys: set[str], *, preview: bool = False, signer: Signer = DEPLOYER
) -> Recording:
    """Run the real ``__main__.py`` under the mocks, as ``pulumi up`` (or, with ``preview``, ``pulumi preview``),
    with azure-native signed in as ``signer``."""

    def program() -> None:
        runpy.run_path(str(PROJECT_ROOT / "__main__.py"), run_name="__main__")

    return mock_runtime.run(program, config, secret_keys=secret_keys, stack=stack, preview=preview, signer=signer)


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


def previous_render(out: Path, stack_path: Path, render_to: str | None = None) -> list[str]:
    """The entries of ``out`` a render of ``stack_path`` may clear (none for a new or empty directory); raises
    :class:`OutputDirectoryError` for any directory the module docstring's rule does not allow writing into. A
    render-mode stack (``render_to``) also writes the top directory of its rendered tree."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise OutputDirectoryError(f"{out} is not a directory; give --out a directory")
    entries = sorted(entry.name for entry in out.iterdir())
    if not entries:
        return []
    marker = out / RENDER_MARKER
    if not marker.is_file():
        raise OutputDirectoryError(
            f"{out} is not empty and is not a render (it has no {RENDER_MARKER}); render into a new or empty "
            "directory, so no file of yours is overwritten or mixed with the render"
        )
    rendered_from = marker.read_text(errors="replace").strip()
    if rendered_from != str(stack_path.resolve()):
        raise OutputDirectoryError(
            f"{out} holds a render of {rendered_from}, not of {stack_path}; choose another directory or delete it"
        )
    allowed = RENDER_ENTRIES | ({render_to.split("/", 1)[0]} if render_to else set())
    strangers = [entry for entry in entries if entry not in allowed]
    if strangers:
        raise OutputDirectoryError(
            f"{out} holds a render of {stack_path} but also {', '.join(strangers)}, which no render writes; "
            "move them away or choose another directory"
        )
    return entries


def clear(out: Path, entries: list[str]) -> None:
    """Delete the previous render's ``entries``, so no manifest of an object the stack dropped survives."""
    for name in entries:
        path = out / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def write(
    out: Path,
    stack: str,
    recording: Recording,
    source: Path | None = None,
    gitops: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Write ``plan.json`` and the manifests into ``out``, and with ``source`` the marker naming that stack file.
    With ``gitops`` (:func:`tools.gitops_preview.files`), those files take the place of ``manifests/``, keys sorted
    as the provider's JSON-to-YAML writes them."""
    out.mkdir(parents=True, exist_ok=True)
    if source is not None:
        (out / RENDER_MARKER).write_text(f"{source.resolve()}\n")
    (out / "plan.json").write_text(json.dumps(plan(stack, recording), indent=2, sort_keys=True) + "\n")
    written = gitops if gitops is not None else {f"manifests/{r}": obj for r, obj in manifests(recording).items()}
    for relative, obj in written.items():
        path = out / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.dump(obj, Dumper=yaml_text.FAST_DUMPER, sort_keys=gitops is not None))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("stack_file", type=Path, help="a stacks/Pulumi.<stack>.yaml file")
    parser.add_argument("--out", type=Path, required=True, help="directory for plan.json and manifests/")
    parser.add_argument(
        "--kueue-chart",
        type=Path,
        default=os.environ.get(gitops_preview.CHART_DIR_VARIABLE) or None,
        help=f"an unpacked Kueue chart, to render its objects too (default: ${gitops_preview.CHART_DIR_VARIABLE})",
    )
    args = parser.parse_args(argv)
    if not args.stack_file.is_file():
        print(f"error: no stack file at {args.stack_file}", file=sys.stderr)
        return 2
    # A deploy-time check that fails inside an apply leaves sibling tasks unretrieved; Pulumi's language host
    # silences asyncio's report of them the same way, so the user sees only the one-line error.
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    source: StackFile | None = None
    try:
        source = stack_file.read(args.stack_file)
        render_to = validate(source).gitops.render_to_directory
        stale = previous_render(args.out, args.stack_file, render_to)
        for note in source.notes:
            print(f"note: {note}")
        recording = run_main(source.stack, source.engine_config(), set(source.secret_keys))
        gitops, absent = gitops_preview.files(recording, args.kueue_chart) if render_to else (None, [])
    except (ConfigError, OutputDirectoryError) as error:
        # The program's own deploy-time checks (a cloud's answer, the chart's objects) name keys too.
        located = stack_locations.locate(error, source) if isinstance(error, ConfigError) and source else error
        print(f"error: {located}", file=sys.stderr)
        return 2
    if stale:
        print(f"cleared the previous render of {args.stack_file} in {args.out}: {', '.join(stale)}")
        clear(args.out, stale)
    write(args.out, source.stack, recording, source=args.stack_file, gitops=gitops)
    print(f"rendered {len(recording.registrations)} resources of stack {source.stack} to {args.out}")
    for chart in absent:
        print(f"chart contents absent: {chart} (give --kueue-chart or {gitops_preview.CHART_DIR_VARIABLE})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
