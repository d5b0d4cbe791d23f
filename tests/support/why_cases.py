"""The recorded states of tests/cases/why/states.yaml as the API answers
:class:`components.waiters.job_wait.JobObserver` gets for Job ``cas-kueue-demo/kueue-cas-job`` in each: the Job, its
pods, its Workload (the one of tests/support/why_states/pending-quota.json, with the state's conditions and admission
checks), its ProvisioningRequest, the AdmissionChecks, the LocalQueue, the autoscaler's events on the pod and the nodes.

The file holds each state's strings, with the upstream line that sets them; this module only builds the objects
around them, in the shapes the API server stores (``metav1.Condition`` with a reason, ``AdmissionCheckState`` with a
transition time), so that the Kueue objects pass each supported version's CRD.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import json
from collections.abc import Mapping
from typing import Any

import yaml

from tests.support import PROJECT_ROOT

KUEUE_VERSIONS = ("0.17.8", "0.18.6", "0.19.2")
VERSIONS = {"granular": ("0.18.6", "0.19.2")}
"""Named version sets of the file: ``granular``, the versions with the gate UnadmittedWorkloadsObservability."""
WRONG = {
    "never": ["waits for quota", "once quota frees"],
    "stuck": ["cannot make progress"],
    "coming": ["waits for new nodes"],
    "crd": ["ProvisioningRequest CRD", "kubectl get crd"],
}
"""The usual wrong diagnoses a state's ``not_says`` names: quota to wait for when none will ever do, a stuck pod
during a scale-up and the reverse, the ProvisioningRequest CRD blamed for another check."""
NS, NAME, LQ, CQ, CHECK = "cas-kueue-demo", "kueue-cas-job", "cas-local-queue", "cas-cluster-queue", "cas-provisioning"
NOW = datetime.datetime(2026, 3, 2, 9, 20, tzinfo=datetime.UTC)
"""When every state is observed."""
PROVISIONING = "kueue.x-k8s.io/provisioning-request"
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
PATHS = {
    "job": f"/apis/batch/v1/namespaces/{NS}/jobs/{NAME}",
    "pods": f"/api/v1/namespaces/{NS}/pods",
    "workloads": f"{KUEUE}/namespaces/{NS}/workloads",
    "provisioningrequests": f"/apis/autoscaling.x-k8s.io/v1/namespaces/{NS}/provisioningrequests",
    "events": f"/api/v1/namespaces/{NS}/events",
    "nodes": "/api/v1/nodes",
    "localqueue": f"{KUEUE}/namespaces/{NS}/localqueues/{LQ}",
}
STATES = PROJECT_ROOT / "tests/cases/why/states.yaml"
RECORDED = json.loads((PROJECT_ROOT / "tests/support/why_states/pending-quota.json").read_text())
WORKLOAD = RECORDED["workloads"]["items"][0]
PROVREQ = f"{WORKLOAD['metadata']['name']}-{CHECK}-1"
STARTED = {
    "startTime": "2026-03-02T09:06:01Z",
    "active": 3,
    "ready": 0,
    "conditions": [{"type": "Suspended", "status": "False", "reason": "JobResumed", "message": "Job resumed"}],
}
UNSCHEDULABLE = (
    "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are "
    "available: 2 Preemption is not helpful for scheduling."
)
"""kube-scheduler's message for a pod whose pool has no node yet."""
CONFIGS = {PROVISIONING: "ProvisioningRequestConfig", "kueue.x-k8s.io/multikueue": "MultiKueueConfig"}
CONSUMES = "autoscaling.x-k8s.io/consume-provisioning-request"
"""The annotation Kueue's podSetUpdates set on a provisioned Workload's pods (see the states that use it)."""


def cond(type_: str, status: str = "True", reason: str = "", message: str = "", at: str = "09:10:00") -> dict:
    """A condition as the API stores it."""
    stamp = f"2026-03-02T{at}Z"
    return {"type": type_, "status": status, "lastTransitionTime": stamp, "reason": reason or type_, "message": message}


RESERVED = cond("QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {CQ}")
WORKLOADS = {
    "quota": lambda reason, message: [
        cond("QuotaReserved", "False", reason, message),
        cond(
            "Admitted",
            "False",
            "NoReservationUnsatisfiedChecks",
            "The workload has no reservation and not all checks ready",
        ),
    ],
    "reserved": lambda _: [
        RESERVED,
        cond("Admitted", "False", "UnsatisfiedChecks", "The workload has not all checks ready"),
    ],
    "admitted": lambda _: [RESERVED, cond("Admitted", "True", "Admitted", "The workload is admitted")],
    "evicted": lambda reason, message: [
        cond("QuotaReserved", "False", "Pending", message),
        cond("Evicted", "True", reason, message),
    ],
    "finished": lambda reason, message: [*WORKLOADS["admitted"](True), cond("Finished", "True", reason, message)],
    "conditions": lambda conditions: conditions,
}
"""The Workload's conditions for each way the file gives them (the states' comments cite where Kueue sets them)."""


@dataclasses.dataclass(frozen=True)
class Case:
    """One state of the file: its Kueue objects, the API answers, and what the diagnosis must and must not say."""

    name: str
    spec: Mapping[str, Any]

    @property
    def versions(self) -> tuple[str, ...]:
        named = self.spec.get("versions", KUEUE_VERSIONS)
        return tuple(VERSIONS.get(named, named) if isinstance(named, str) else named)

    @property
    def says(self) -> list[str]:
        return list(self.spec["says"])

    @property
    def not_says(self) -> list[str]:
        named = self.spec.get("not_says", [])
        return WRONG[named] if isinstance(named, str) else list(named)

    def workload(self) -> dict | None:
        way = next((key for key in WORKLOADS if key in self.spec), None)
        if way is None:
            return None
        given = self.spec[way]
        workload = copy.deepcopy(WORKLOAD)
        checks = [self._check(*given) for given in self.spec.get("checks", [])]
        conditions = (
            WORKLOADS[way](*given) if isinstance(given, list) and way != "conditions" else WORKLOADS[way](given)
        )
        workload["status"] = {**workload["status"], "conditions": conditions, "admissionChecks": checks}
        return workload

    @staticmethod
    def _check(state: str, message: str, name: str = CHECK) -> dict:
        return {"name": name, "state": state, "lastTransitionTime": "2026-03-02T09:10:00Z", "message": message}

    def admission_checks(self) -> dict[str, dict]:
        controllers = self.spec.get("controllers", {CHECK: PROVISIONING})
        return {name: self._admission_check(name, controller) for name, controller in controllers.items()}

    @staticmethod
    def _admission_check(name: str, controller: str) -> dict:
        spec: dict[str, Any] = {"controllerName": controller}
        if controller in CONFIGS:
            spec["parameters"] = {"apiGroup": "kueue.x-k8s.io", "kind": CONFIGS[controller], "name": f"{name}-config"}
        return {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "AdmissionCheck",
            "metadata": {"name": name},
            "spec": spec,
        }

    @staticmethod
    def local_queue() -> dict:
        meta = {"name": LQ, "namespace": NS}
        return {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": meta,
            "spec": {"clusterQueue": CQ},
        }

    def kueue_objects(self) -> list[dict]:
        """The Workload, LocalQueue and AdmissionChecks the state serves, for the CRDs to check."""
        return [obj for obj in (self.workload(), self.local_queue(), *self.admission_checks().values()) if obj]

    def answers(self) -> dict[str, Any]:
        """What the API server answers, by path: an object, or a list's items; a path it lacks answers 404."""
        job = copy.deepcopy(RECORDED["job"])
        job["status"] = {**STARTED, **self.spec.get("job", {})} if self.spec.get("started") else job["status"]
        workload = self.workload()
        objects: dict[str, Any] = {
            PATHS["job"]: job,
            PATHS["pods"]: [pod(**given) for given in self.spec.get("pods", [])],
            PATHS["workloads"]: [workload] if workload else [],
            PATHS["events"]: [event(*given) for given in self.spec.get("events", [])],
            PATHS["nodes"]: [node(*given) for given in self.spec.get("nodes", [])],
            PATHS["localqueue"]: self.local_queue(),
        }
        objects |= {f"{KUEUE}/admissionchecks/{name}": check for name, check in self.admission_checks().items()}
        if "provreq" in self.spec and workload:
            meta = {"name": PROVREQ, "namespace": NS, "ownerReferences": [{"uid": workload["metadata"]["uid"]}]}
            conditions = [cond(*given) for given in self.spec["provreq"]]
            objects[PATHS["provisioningrequests"]] = [{"metadata": meta, "status": {"conditions": conditions}}]
        return objects


def pod(consumes: bool = False, scheduled: str | None = None, waiting: dict | None = None) -> dict:
    """A pod of the Job, unschedulable unless ``scheduled`` names its newest condition; ``consumes``: it carries the
    annotation Kueue's podSetUpdates set to the ProvisioningRequest; ``waiting``: its container's waiting state."""
    template = copy.deepcopy(RECORDED["job"]["spec"]["template"])
    annotations = {CONSUMES: PROVREQ} if consumes else {}
    status: dict[str, Any] = {
        "phase": "Pending",
        "conditions": [cond(scheduled) if scheduled else cond("PodScheduled", "False", "Unschedulable", UNSCHEDULABLE)],
    }
    if waiting:
        status["containerStatuses"] = [
            {"name": "worker", "ready": False, "restartCount": 0, "state": {"waiting": waiting}}
        ]
    meta = {**template["metadata"], "name": "kueue-cas-job-7xq2m", "namespace": NS, "annotations": annotations}
    return {"metadata": meta, "spec": template["spec"], "status": status}


def event(reason: str, message: str, at: str) -> dict:
    """The autoscaler's event on the pod, a core/v1 Event as its recorder writes it."""
    stamp = f"2026-03-02T{at}Z"
    return {
        "metadata": {"name": f"kueue-cas-job-7xq2m.{reason.lower()}", "namespace": NS, "creationTimestamp": stamp},
        "involvedObject": {"kind": "Pod", "name": "kueue-cas-job-7xq2m", "namespace": NS},
        "reason": reason,
        "message": message,
        "source": {"component": "cluster-autoscaler"},
        "type": "Normal",
        "firstTimestamp": stamp,
        "lastTimestamp": stamp,
    }


def node(created: str, ready: bool) -> dict:
    """A node of the Job's pool (``agentpool: scalepool``), created at ``created``."""
    meta = {"name": "aks-scalepool-12345678-vmss000002", "creationTimestamp": f"2026-03-02T{created}Z"}
    state = cond("Ready", "True", "KubeletReady") if ready else cond("Ready", "False", "KubeletNotReady")
    return {"metadata": meta | {"labels": {"agentpool": "scalepool"}}, "status": {"conditions": [state]}}


CASES = tuple(Case(spec["name"], spec) for spec in yaml.safe_load(STATES.read_text()))
