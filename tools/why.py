"""Say in one line why a Kueue Job waits and what to do: ``python -m tools.why NAMESPACE/JOB``.

It reads what the smoke Job's waiter reads, with the waiter's own :class:`components.waiters.job_wait.JobObserver` (the
Job, its pods, its Workload with that Workload's conditions and admission checks, the Workload's newest
ProvisioningRequest, and where the state calls for them the AdmissionChecks, the LocalQueue, the pods' events and the
nodes), and prints :func:`components.waiters.job_wait.diagnose`'s line: one diagnosis for both.

The kubeconfig is ``--kubeconfig FILE``; or with ``--stack STACK`` the stack's ``kubeconfig`` output, which
``pulumi stack output --show-secrets`` writes to a pipe (never onto a command line or a file); else the one file
``$KUBECONFIG`` names, else ``~/.kube/config``. What it reads and the read-only RBAC it needs: docs/why.md.

Exit codes: 0 the line was printed; 1 the cluster could not be read (no answer, a failed sign-in, access refused);
2 a usage error; 3 the Job does not exist. Each failure is one line on standard error.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn

import yaml

from components.waiters.job_wait import JobObserver, diagnose
from components.waiters.kube_wait import Cluster, CredentialPluginError, RestCluster, UnreachableError, is_not_found

PROJECT_ROOT = Path(__file__).resolve().parents[1]
JOB_REFERENCE = re.compile(
    r"(?P<namespace>[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)/(?P<name>[a-z0-9]([-.a-z0-9]{0,61}[a-z0-9])?)"
)
"""``namespace/name``: a namespace is a DNS label; a Job's name must fit the ``batch.kubernetes.io/job-name`` label
its pods carry, so 63 characters at most."""
STACK_OUTPUT = "kubeconfig"
"""The stack output holding the kubeconfig of the cluster Kueue runs on (components/fleet.py exports it)."""
RBAC = "get on jobs (batch), list on pods, workloads (kueue.x-k8s.io) and provisioningrequests (autoscaling.x-k8s.io)"
"""The reads a line needs; the observer's other reads are optional and a refusal of one only shortens the line."""

NO_SUCH_JOB = 3
"""The exit code for a Job the cluster does not have: a script telling "no such Job" from "cannot read" needs it."""

RunPulumi = Callable[[list[str]], subprocess.CompletedProcess[str]]


class UsageError(Exception):
    """A bad argument or an unusable kubeconfig; the message names the flag or the source."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors raised, so that :func:`main` says them on one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def job_reference(text: str) -> tuple[str, str]:
    """``"namespace/name"`` -> ``(namespace, name)``."""
    match = JOB_REFERENCE.fullmatch(text)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write the Job as NAMESPACE/NAME in lower case, e.g. cas-kueue-demo/kueue-cas-job"
        )
    return match["namespace"], match["name"]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m tools.why", description=__doc__.split("\n\n")[0])
    parser.add_argument("job", type=job_reference, metavar="NAMESPACE/JOB", help="the Job to explain")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--kubeconfig", type=Path, metavar="FILE", help="the kubeconfig to read the cluster with")
    source.add_argument(
        "--stack", metavar="STACK", help=f"read the kubeconfig from the stack's {STACK_OUTPUT!r} output (Pulumi CLI)"
    )
    return parser


def run_pulumi(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, check=False)


def stack_kubeconfig(stack: str, run: RunPulumi) -> str:
    """The stack's kubeconfig output, read through the Pulumi CLI's standard output."""
    command = ["pulumi", "stack", "output", "--stack", stack, "--show-secrets", STACK_OUTPUT]
    try:
        done = run(command)
    except FileNotFoundError:
        raise UsageError("--stack needs the Pulumi CLI (pulumi) on PATH; or pass --kubeconfig FILE") from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UsageError(f"--stack {stack}: {' '.join(command)} failed: {said}")
    if not done.stdout.strip():
        raise UsageError(f"--stack {stack}: the stack's {STACK_OUTPUT!r} output is empty")
    return done.stdout


def kubeconfig_of(args: argparse.Namespace, environ: Mapping[str, str], run: RunPulumi) -> tuple[str, str]:
    """The kubeconfig to read the cluster with, and where it came from (for messages)."""
    if args.stack:
        return stack_kubeconfig(args.stack, run), f"--stack {args.stack}"
    if args.kubeconfig:
        path, source = args.kubeconfig, f"--kubeconfig {args.kubeconfig}"
    elif environ.get("KUBECONFIG"):
        files = [name for name in environ["KUBECONFIG"].split(os.pathsep) if name]
        if len(files) > 1:
            raise UsageError(f"KUBECONFIG names {len(files)} files and tools.why reads one: pass --kubeconfig FILE")
        path, source = Path(files[0]), "KUBECONFIG"
    else:
        path = Path.home() / ".kube" / "config"
        source = f"the default kubeconfig {path} (no --kubeconfig, --stack or KUBECONFIG)"
    try:
        return path.read_text(), source
    except OSError as error:
        raise UsageError(f"{source}: cannot read {path}: {error.strerror}") from None


def connect_with(connect: Callable[[str], Cluster], kubeconfig: str, source: str) -> Cluster:
    """The cluster client; a kubeconfig the client cannot use is a usage error naming its source."""
    try:
        return connect(kubeconfig)
    except CredentialPluginError:
        raise
    except yaml.MarkedYAMLError as error:  # its own text quotes the line, which may hold a token: say where only
        mark = error.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise UsageError(f"the kubeconfig from {source} is not usable: not YAML ({error.problem}{where})") from None
    except Exception as error:
        raise UsageError(f"the kubeconfig from {source} is not usable: {error}") from None


def read_error(error: Exception, namespace: str) -> str | None:
    """One line for an error reading the cluster, or ``None`` for an error that is no reading's (a bug)."""
    if isinstance(error, UnreachableError | CredentialPluginError):
        return str(error)
    status = getattr(error, "status", None)
    if status == 401:
        return "the API server did not accept the kubeconfig's credential (401 Unauthorized)"
    if status == 403:
        return f"the API server refused a read (403 Forbidden): tools.why needs {RBAC} in namespace {namespace}"
    if isinstance(status, int):
        return f"the API server answered {status} {getattr(error, 'reason', '') or ''}".rstrip()
    return None


def main(
    argv: Sequence[str] | None = None,
    *,
    connect: Callable[[str], Cluster] = RestCluster,
    run: RunPulumi = run_pulumi,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Print the Job's diagnosis; ``connect`` and ``run`` default to the Kubernetes client and the Pulumi CLI."""
    try:
        args = build_parser().parse_args(argv)
        namespace, name = args.job
        cluster = connect_with(connect, *kubeconfig_of(args, environ, run))
        seen = JobObserver(cluster).observe(namespace, name)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except Exception as error:
        if is_not_found(error):
            print(
                f"error: Job {namespace}/{name} does not exist: check its name and namespace (kubectl -n {namespace} "
                "get jobs); a finished Job is deleted, with its Workload, once its ttlSecondsAfterFinished has passed.",
                file=sys.stderr,
            )
            return NO_SUCH_JOB
        said = read_error(error, namespace)
        if said is None:
            raise
        print(f"error: {said}", file=sys.stderr)
        return 1
    print(diagnose(seen, namespace=namespace, name=name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
