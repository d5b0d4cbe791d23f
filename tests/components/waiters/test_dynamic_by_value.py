"""The dynamic providers reach Pulumi's provider process by value: loadable where this project is not importable."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pulumi.dynamic.dynamic import serialize_provider

from components.azure.access_wait import ClusterAccessProvider
from components.waiters.crd_wait import CrdEstablishedProvider
from components.waiters.dynamic_by_value import WaitProvider, reduce_by_value
from components.waiters.job_wait import JobCompletionProvider
from components.waiters.queue_wait import QueuesActiveProvider
from components.waiters.version_pin import CLUSTER_PIN
from components.waiters.worker_token import WorkerTokenProvider

LOAD_OUTSIDE_THE_PROJECT = """
import base64, importlib.util, json, os, sys, traceback
import dill
import pulumi.dynamic
olds = {"jobUid": "a", "objects": [], "timeoutSeconds": 1, "roleAssignmentIds": ["/ra/1"], "anchor": {"uid": "1"},
        "crd": "a"}
news = {**olds, "jobUid": "b", "objects": [{"kind": "ClusterQueue", "name": "q"}], "roleAssignmentIds": ["/ra/2"],
        "anchor": {"uid": "2"}, "crd": "b"}


def load(serialized):
    provider = dill.loads(base64.b64decode(serialized))
    return {
        "class": type(provider).__module__ + "." + type(provider).__qualname__,
        "file": sys.modules[type(provider).__module__].__file__,
        "project_importable": importlib.util.find_spec("components") is not None,
        "replaces": provider.diff("id", olds, news).replaces,
    }


def load_in_a_fork(serialized):
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(readable)
        try:
            answer = load(serialized)
        except BaseException:
            answer = {"error": traceback.format_exc()}
        os.write(writable, json.dumps(answer).encode())
        os._exit(0)
    os.close(writable)
    with os.fdopen(readable, "rb") as pipe:
        answer = pipe.read()
    _, status = os.waitpid(pid, 0)
    return json.loads(answer) if answer else {"error": f"the fork ended with status {status} and no answer"}


print(json.dumps({name: load_in_a_fork(serialized) for name, serialized in json.load(sys.stdin).items()}))
"""
"""Pulumi's provider process (``pulumi.dynamic.__main__``) has ``dill`` and ``pulumi.dynamic`` loaded before it
unpickles ``__provider``; each provider is then unpickled in its own fork of that state, so no provider finds a
module another one shipped, at the cost of one interpreter start rather than one per provider."""

PROVIDERS = {
    "JobCompletion": (JobCompletionProvider(), ["jobUid"]),
    "QueuesActive": (QueuesActiveProvider(), ["objects"]),
    "ClusterAccess": (ClusterAccessProvider(), ["roleAssignmentIds"]),
    "WorkerToken": (WorkerTokenProvider(), ["anchor"]),
    "CrdEstablished": (CrdEstablishedProvider(), ["crd"]),
    "VersionPin": (CLUSTER_PIN, []),
}


@pytest.fixture(scope="module")
def loaded_outside_the_project(tmp_path_factory) -> dict[str, dict]:
    """What Pulumi's provider process does with each ``__provider``, from a directory that is not the project's."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD_OUTSIDE_THE_PROJECT],
        input=json.dumps({name: serialize_provider(provider) for name, (provider, _) in PROVIDERS.items()}),
        capture_output=True,
        text=True,
        cwd=tmp_path_factory.mktemp("outside-the-project"),
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("name", PROVIDERS)
def test_a_provider_loads_and_works_where_the_project_cannot_be_imported(name, loaded_outside_the_project):
    provider, replaced = PROVIDERS[name]
    loaded = loaded_outside_the_project[name]
    assert "error" not in loaded, loaded.get("error")
    assert loaded["project_importable"] is False
    assert loaded["class"] == f"{type(provider).__module__}.{type(provider).__qualname__}"
    assert loaded["file"].startswith("<shipped by value"), "the class came from the pickle, not from disk"
    assert loaded["replaces"] == replaced


def test_the_same_source_pickles_the_same_so_an_unchanged_stack_does_not_diff():
    assert serialize_provider(JobCompletionProvider()) == serialize_provider(JobCompletionProvider())


def test_the_provider_module_must_come_last():
    with pytest.raises(ValueError, match=r"must end with components\.waiters\.job_wait"):
        reduce_by_value(JobCompletionProvider(), ["components.waiters.job_wait", "components.waiters.kube_wait"])


class Waiter(WaitProvider):
    shipped_modules = ("components.waiters.dynamic_by_value",)
    watched_inputs = ("target", "deadline")


def test_a_wait_provider_replaces_itself_only_for_a_watched_input_deleting_first():
    olds = {"target": "a", "deadline": 60, "kubeconfig": "old"}
    assert not Waiter().diff("id", olds, {**olds, "kubeconfig": "rotated"}).changes
    diff = Waiter().diff("id", olds, {**olds, "target": "b", "deadline": 90})
    assert (diff.changes, diff.replaces, diff.delete_before_replace) == (True, ["target", "deadline"], True)
