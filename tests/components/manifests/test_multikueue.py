"""The manager's MultiKueue objects and the burst smoke Job: field for field, and valid for the real CRDs and core
schemas."""

from __future__ import annotations

import pytest

from components.config.multikueue.multikueue import BURST_FLAVOR, MULTIKUEUE_CONTROLLER, MultiKueueConfig
from components.config.multikueue.workers import burst_queues
from components.manifests import multikueue as manifests
from components.manifests.labels import QUEUE_NAME_LABEL
from components.manifests.queues import queue_manifests
from tests.support.schemas import validate_core, validate_kueue

BURST = MultiKueueConfig.model_validate(
    {"workers": [{"cluster": "hangzhou"}, {"cluster": "beijing"}], "quota": {"cpu": "96", "memory": "384Gi"}}
)
LABELS = {"managed-by-kueue": "true"}


def clusters(burst: MultiKueueConfig) -> list[str]:
    return [burst.worker_cluster_name(worker) for worker in burst.workers]


def burst_objects(burst: MultiKueueConfig = BURST, labels: dict[str, str] | None = None) -> dict[str, dict]:
    """The burst queue objects as the queue builders render them, by kind (one of each)."""
    rendered = queue_manifests(burst_queues(burst), labels)
    by_kind = {obj["kind"]: obj for obj in rendered}
    assert len(by_kind) == len(rendered), "one object per kind"
    return by_kind


def kueue_objects(burst: MultiKueueConfig = BURST) -> list[dict]:
    return [
        *(
            manifests.multikueue_cluster(burst.worker_cluster_name(w), burst.worker_secret_name(w))
            for w in burst.workers
        ),
        manifests.multikueue_config(burst, clusters(burst)),
        *(obj for kind, obj in burst_objects(burst).items() if kind != "Namespace"),
    ]


@pytest.mark.parametrize("obj", kueue_objects(), ids=lambda o: f"{o['kind']}-{o['metadata']['name']}")
def test_every_manager_object_passes_its_crd_schema_and_cel_rules(obj):
    validate_kueue(obj)


def test_each_worker_has_a_secret_and_a_multikueue_cluster_of_the_same_name_in_kueues_namespace():
    worker = BURST.workers[0]
    secret = manifests.kubeconfig_secret(BURST.worker_secret_name(worker), "kueue-system")
    cluster = manifests.multikueue_cluster(BURST.worker_cluster_name(worker), BURST.worker_secret_name(worker))
    assert secret["metadata"] == {"name": "elastic-capacity-hangzhou", "namespace": "kueue-system"}
    assert secret["type"] == "Opaque" and "data" not in secret and "stringData" not in secret
    validate_core({**secret, "stringData": {manifests.KUBECONFIG_KEY: "kubeconfig"}}, "1.35")
    assert cluster["metadata"] == {"name": "elastic-capacity-hangzhou"}, "cluster-scoped"
    assert cluster["spec"] == {
        "clusterSource": {"kubeConfig": {"locationType": "Secret", "location": "elastic-capacity-hangzhou"}}
    }
    assert manifests.KUBECONFIG_KEY == "kubeconfig"


def test_the_burst_set_up_is_exactly_these_queue_objects_in_creation_order():
    rendered = queue_manifests(burst_queues(BURST), LABELS)
    kinds = ["Namespace", "ResourceFlavor", "AdmissionCheck", "ClusterQueue", "LocalQueue"]
    assert [(obj["kind"], obj["metadata"]["name"]) for obj in rendered] == list(
        zip(kinds, ["burst", BURST_FLAVOR, "multikueue-burst", "burst", "burst"], strict=True)
    )
    assert all(obj["apiVersion"] == "kueue.x-k8s.io/v1beta2" for obj in rendered[1:])


def test_no_burst_queue_objects_without_burst_queue():
    burst = MultiKueueConfig.model_validate({"burstQueue": False, "configName": "mk", "workers": [{"cluster": "w"}]})
    assert queue_manifests(burst_queues(burst)) == []


def test_the_config_lists_every_worker_and_the_check_points_at_it():
    config, check = manifests.multikueue_config(BURST, clusters(BURST)), burst_objects()["AdmissionCheck"]
    assert config == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "MultiKueueConfig",
        "metadata": {"name": "multikueue-burst"},
        "spec": {"clusters": ["elastic-capacity-hangzhou", "elastic-capacity-beijing"]},
    }
    assert check["spec"] == {
        "controllerName": MULTIKUEUE_CONTROLLER,
        "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "multikueue-burst"},
    }
    assert config["metadata"]["name"] == check["metadata"]["name"] == BURST.admission_check, "named alike by default"


def test_the_burst_cluster_queue_has_exactly_the_multikueue_check_on_every_flavor():
    objects = burst_objects()
    queue = objects["ClusterQueue"]
    assert queue == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "burst"},
        "spec": {
            "namespaceSelector": {},
            "queueingStrategy": "BestEffortFIFO",
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": BURST_FLAVOR,
                            "resources": [
                                {"name": "cpu", "nominalQuota": "96"},
                                {"name": "memory", "nominalQuota": "384Gi"},
                            ],
                        }
                    ],
                }
            ],
            "admissionChecksStrategy": {"admissionChecks": [{"name": "multikueue-burst"}]},
        },
    }
    assert objects["ResourceFlavor"] == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": BURST_FLAVOR},
    }, "empty: no spec, as in Kueue's own MultiKueue examples"


def test_the_burst_namespace_is_labelled_for_kueue_and_holds_the_local_queue():
    objects = burst_objects(labels=LABELS)
    namespace = objects["Namespace"]
    assert namespace == {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "burst", "labels": LABELS}}
    validate_core(namespace, "1.35")
    assert objects["LocalQueue"] == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "burst", "namespace": "burst"},
        "spec": {"clusterQueue": "burst"},
    }


def test_names_follow_the_config():
    burst = MultiKueueConfig.model_validate(
        {
            "workers": [{"cluster": "w"}],
            "namespace": "spill",
            "localQueue": "spill-lq",
            "clusterQueue": "spill-cq",
            "admissionCheck": "spill-check",
            "origin": "aks-one",
        }
    )
    for obj in kueue_objects(burst):
        validate_kueue(obj)
    assert clusters(burst) == ["aks-one-w"]
    objects = burst_objects(burst)
    assert objects["ClusterQueue"]["metadata"] == {"name": "spill-cq"}
    assert objects["ClusterQueue"]["spec"]["admissionChecksStrategy"]["admissionChecks"] == [{"name": "spill-check"}]
    assert objects["LocalQueue"]["metadata"] == {"name": "spill-lq", "namespace": "spill"}
    assert objects["LocalQueue"]["spec"] == {"clusterQueue": "spill-cq"}
    assert objects["Namespace"]["metadata"] == {"name": "spill"}


def test_the_smoke_job_goes_to_the_burst_queue_without_an_acs_label_with_requests_equal_to_limits():
    """No ACS label: the worker's ResourcePolicy sends it to ACS, which the runner then checks."""
    burst = MultiKueueConfig.model_validate(
        {"workers": [{"cluster": "w"}], "smokeJob": {"enabled": True, "cpu": "2", "memory": "4Gi"}}
    )
    job = manifests.burst_smoke_job(burst)
    validate_core(job, "1.35")
    assert job["metadata"] == {"name": "burst-smoke", "namespace": "burst", "labels": {QUEUE_NAME_LABEL: "burst"}}
    template = job["spec"]["template"]
    assert "metadata" not in template
    [container] = template["spec"]["containers"]
    assert container["resources"] == {
        "requests": {"cpu": "2", "memory": "4Gi"},
        "limits": {"cpu": "2", "memory": "4Gi"},
    }
    assert container["image"] == burst.smoke_job.image
    assert "nodeSelector" not in template["spec"] and "tolerations" not in template["spec"], (
        "the worker's flavor places it"
    )
    assert job["spec"]["suspend"] is True and template["spec"]["restartPolicy"] == "Never"


def test_the_cel_rules_are_evaluated_on_the_cluster_source():
    """The check that passes the objects above does refuse what MultiKueue's CRD refuses (exactly one source)."""
    cluster = manifests.multikueue_cluster("hz", "hz-secret")
    cluster["spec"]["clusterSource"]["clusterProfileRef"] = {"name": "profile"}
    with pytest.raises(Exception, match="exactly one of the fields"):
        validate_kueue(cluster)
    assert validate_kueue(manifests.multikueue_cluster("hz", "hz-secret")).evaluated


def test_the_chosen_names_reach_the_config_the_cluster_its_secret_and_the_check():
    burst = MultiKueueConfig.model_validate(
        {
            "configName": "multikueue-test",
            "workers": [{"source": "kubeconfig", "name": "w1", "secretName": "w1-secret"}],
        }
    )
    [worker] = burst.workers
    cluster = manifests.multikueue_cluster(burst.worker_cluster_name(worker), burst.worker_secret_name(worker))
    assert cluster["metadata"] == {"name": "w1"}
    assert cluster["spec"]["clusterSource"]["kubeConfig"]["location"] == "w1-secret"
    assert manifests.multikueue_config(burst, ["w1"])["metadata"] == {"name": "multikueue-test"}
    check = burst_objects(burst)["AdmissionCheck"]
    assert check["spec"]["parameters"]["name"] == "multikueue-test"
    assert check["metadata"] == {"name": "multikueue-burst"}
