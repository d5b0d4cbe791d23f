"""The dynamic providers reach Pulumi's provider process by value: loadable where this project is not importable."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pulumi.dynamic.dynamic import serialize_provider

from components.access_wait import ClusterAccessProvider
from components.crd_wait import CrdEstablishedProvider
from components.dynamic_by_value import WaitProvider, reduce_by_value
from components.job_wait import JobCompletionProvider
from components.queue_wait import QueuesActiveProvider
from components.version_pin import CLUSTER_PIN
from components.worker_token import WorkerTokenProvider

LOAD_OUTSIDE_THE_PROJECT = """
import base64, importlib.util, json, sys
import dill
provider = dill.loads(base64.b64decode(sys.stdin.read()))
olds = {"jobUid": "a", "objects": [], "timeoutSeconds": 1, "roleAssignmentId": "/ra/1", "anchor": {"uid": "1"},
        "crd": "a"}
news = {**olds, "jobUid": "b", "objects": [{"kind": "ClusterQueue", "name": "q"}], "roleAssignmentId": "/ra/2",
        "anchor": {"uid": "2"}, "crd": "b"}
print(json.dumps({
    "class": type(provider).__module__ + "." + type(provider).__qualname__,
    "file": sys.modules[type(provider).__module__].__file__,
    "project_importable": importlib.util.find_spec("components") is not None,
    "replaces": provider.diff("id", olds, news).replaces,
}))
"""


def load_in_a_fresh_process(serialized: str, cwd) -> dict:
    """What Pulumi's provider process does with ``__provider``, from a directory that is not the project's."""
    done = subprocess.run(
        [sys.executable, "-c", LOAD_OUTSIDE_THE_PROJECT],
        input=serialized,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("provider", "replaced"),
    [
        (JobCompletionProvider(), ["jobUid"]),
        (QueuesActiveProvider(), ["objects"]),
        (ClusterAccessProvider(), ["roleAssignmentId"]),
        (WorkerTokenProvider(), ["anchor"]),
        (CrdEstablishedProvider(), ["crd"]),
        (CLUSTER_PIN, []),
    ],
    ids=["JobCompletion", "QueuesActive", "ClusterAccess", "WorkerToken", "CrdEstablished", "VersionPin"],
)
def test_a_provider_loads_and_works_where_the_project_cannot_be_imported(provider, replaced, tmp_path):
    loaded = load_in_a_fresh_process(serialize_provider(provider), tmp_path)
    assert loaded["project_importable"] is False
    assert loaded["class"] == f"{type(provider).__module__}.{type(provider).__qualname__}"
    assert loaded["file"].startswith("<shipped by value"), "the class came from the pickle, not from disk"
    assert loaded["replaces"] == replaced


def test_the_same_source_pickles_the_same_so_an_unchanged_stack_does_not_diff():
    assert serialize_provider(JobCompletionProvider()) == serialize_provider(JobCompletionProvider())


def test_the_provider_module_must_come_last():
    with pytest.raises(ValueError, match=r"must end with components\.job_wait"):
        reduce_by_value(JobCompletionProvider(), ["components.job_wait", "components.kube_wait"])


class Waiter(WaitProvider):
    shipped_modules = ("components.dynamic_by_value",)
    watched_inputs = ("target", "deadline")


def test_a_wait_provider_replaces_itself_only_for_a_watched_input_deleting_first():
    olds = {"target": "a", "deadline": 60, "kubeconfig": "old"}
    assert not Waiter().diff("id", olds, {**olds, "kubeconfig": "rotated"}).changes
    diff = Waiter().diff("id", olds, {**olds, "target": "b", "deadline": 90})
    assert (diff.changes, diff.replaces, diff.delete_before_replace) == (True, ["target", "deadline"], True)
