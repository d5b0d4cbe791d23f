"""What a MultiKueue burst set-up needs from the other sections: each refused naming the key and what is allowed."""

from __future__ import annotations

import copy

import pytest

from components import yaml_text
from components.config.base import ConfigError, RuleViolation
from components.config.loader import load_stack_config
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS
from components.config.multikueue.multikueue import MultiKueueConfig, Quota
from components.config.multikueue.rules import multikueue_kubeconfig_problem
from components.config.multikueue.workers import burst_queues
from tests.support import ack as ack_data
from tests.support.config import as_config, stack_error_keys
from tests.support.multikueue import (
    BURST,
    KUBECONFIGS,
    MIRROR,
    QUEUES_WITH_MULTIKUEUE,
    WORKER,
    WORKER_KUBECONFIG,
    kubeconfig_stack,
    queues_stack,
    stack,
)


def test_the_burst_set_up_loads_and_gives_the_manager_its_multikueue_settings():
    config = load_stack_config(as_config(stack()))
    assert config.multi_kueue is not None
    settings = config.kueue.multi_kueue
    assert settings is not None
    assert (settings.origin, settings.gc_interval, settings.worker_lost_timeout) == ("elastic-capacity", "1m", "15m")
    assert settings.dispatcher_name == "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"aks": None, "queues": None}, "multiKueue"),
        ({"aks": None, "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
          "kueue": {"install": False}}, "multiKueue"),
        ({"kueue": {"chartVersion": "0.17.1"}}, "kueue.chartVersion"),
        ({"multiKueue": {**BURST, "namespace": "cas-kueue-demo"}}, "multiKueue.namespace"),
        ({"multiKueue": {"workers": [{"cluster": "elsewhere"}]}}, "multiKueue.workers[0].cluster"),
        ({"ack": {"clusters": [ack_data.cluster("worker")]}}, "multiKueue.workers[0].cluster"),
        ({"ack": {"clusters": [{**WORKER, "slbInternetEnabled": False}]}}, "multiKueue.workers[0].cluster"),
        ({"multiKueue": {"workers": []}}, "multiKueue.workers"),
        ({"multiKueue": {**BURST, "origin": "Burst_Origin"}}, "multiKueue.origin"),
        ({"kueue": {"multiKueue": {"origin": "x"}}}, "kueue.multiKueue"),
        ({"gitops": {"renderToDirectory": "gitops"}}, "multiKueue"),
        ({"multiKueue": {**BURST, "clusterQueue": "cas-cluster-queue"}}, "multiKueue.clusterQueue"),
        ({"multiKueue": {**BURST, "admissionCheck": "cas-provisioning"}}, "multiKueue.admissionCheck"),
        ({"queues": {"resourceFlavors": [{"name": "multikueue", "nodeLabels": {"agentpool": "scalepool"}}],
                     "provisioningChecks": [], "clusterQueues": [], "localQueues": []}}, "queues.resourceFlavors"),
        ({"multiKueue": {"workers": [{"cluster": "worker", **MIRROR, "frameworks": ["batch/job"]}]}},
         "multiKueue.workers[0].frameworks"),
        ({"multiKueueKubeconfigs": {"w1": WORKER_KUBECONFIG}}, "multiKueueKubeconfigs.w1"),
    ],
)  # fmt: skip
def test_what_the_burst_set_up_cannot_work_without_is_refused_naming_the_key(changes, key):
    assert stack_error_keys(stack(**changes), [KUBECONFIGS]) == [f"elastic-capacity:{key}"]


def test_an_existing_cluster_with_its_own_kueue_install_can_be_the_manager():
    manager = {"aks": None, "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}}
    sections = stack(**manager)
    assert load_stack_config(as_config(sections)).multi_kueue is not None


@pytest.mark.parametrize("framework", sorted(set(MULTIKUEUE_ADAPTERS) - {"batch/job"}))
def test_every_kind_multikueue_watches_is_refused_unless_every_worker_serves_it(framework):
    """Kueue 0.17.8 opens a watch on every worker for each enabled integration with an adapter: Kubeflow, Ray,
    JobSet, pods, StatefulSets ... The stack's workers run a batch/job Kueue, so the manager must not enable them."""
    keys = stack_error_keys(stack(kueue={"frameworks": ["batch/job", framework]}))
    assert keys == ["elastic-capacity:kueue.frameworks[1]"]


def test_the_refusal_says_which_worker_serves_what():
    with pytest.raises(ConfigError, match=r"workers\[0\] \(elastic-capacity-worker\) serves batch/job"):
        load_stack_config(as_config(stack(kueue={"frameworks": ["batch/job", "ray.io/rayjob"]})))


def test_an_integration_without_a_multikueue_adapter_is_no_watch_and_is_allowed():
    """``deployment`` has no adapter, and the pod integration it enables implicitly is no watch either: Kueue takes
    the adapters of the frameworks listed (``GetMultiKueueAdapters(cfg.Integrations.Frameworks)`` in
    cmd/kueue/main.go at v0.17.8)."""
    assert "deployment" not in MULTIKUEUE_ADAPTERS
    config = load_stack_config(as_config(stack(kueue={"frameworks": ["batch/job", "deployment"]})))
    assert config.kueue.frameworks == ["batch/job", "deployment"]


def test_a_worker_set_up_elsewhere_may_serve_more_kinds_when_it_says_so():
    workers = [{"source": "kubeconfig", "name": "w1", "frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}]
    sections = kubeconfig_stack(
        kueue={"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}, multiKueue={"workers": workers}
    )
    assert load_stack_config(as_config(sections), [KUBECONFIGS]).multi_kueue is not None
    without = kubeconfig_stack(kueue={"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]})
    assert stack_error_keys(without, [KUBECONFIGS]) == ["elastic-capacity:kueue.frameworks[1]"]


@pytest.mark.parametrize(
    ("worker", "key"),
    [
        ({"cluster": "worker"}, "imageRepository"),
        ({"cluster": "worker", "imageRepository": MIRROR["imageRepository"]}, "probeImage"),
        ({"cluster": "worker", "probeImage": MIRROR["probeImage"]}, "imageRepository"),
        ({"cluster": "worker", **MIRROR, "imageRepository": "k8s.gcr.io/kueue/kueue"}, "imageRepository"),
    ],
)
def test_a_worker_in_mainland_china_pulling_from_registry_k8s_io_is_refused_naming_the_key(worker, key):
    keys = stack_error_keys(stack(multiKueue={"workers": [worker]}))
    assert keys == [f"elastic-capacity:multiKueue.workers[0].{key}"]


def test_the_china_refusal_cites_the_evidence_and_names_a_mirror():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(stack(multiKueue={"workers": [{"cluster": "worker"}]})))
    assert "registry.k8s.io/issues/137" in str(caught.value) and "m.daocloud.io/registry.k8s.io/kueue/kueue" in str(
        caught.value
    )


def test_hong_kong_is_not_mainland_china_and_pulls_from_registry_k8s_io():
    hong_kong = ack_data.cluster(
        "worker",
        region="cn-hongkong",
        nodePool=ack_data.POOL,
        network={"vpcCidr": "10.0.0.0/8", "zones": [{**ack_data.ZONE_K, "zoneId": "cn-hongkong-b"}]},
    )
    sections = stack(ack={"clusters": [hong_kong]}, multiKueue={"workers": [{"cluster": "worker"}]})
    assert load_stack_config(as_config(sections)).multi_kueue is not None


def test_an_existing_ack_worker_runs_its_own_kueue_needs_no_pool_and_takes_no_image_keys():
    existing = {"clusters": [], "existingClusters": [ack_data.existing_cluster("worker")]}
    config = load_stack_config(as_config(stack(ack=existing, multiKueue={"workers": [{"cluster": "worker"}]})))
    assert config.multi_kueue is not None
    keys = stack_error_keys(stack(ack=existing))
    assert keys == ["elastic-capacity:multiKueue.workers[0].imageRepository"]


def test_an_existing_ack_worker_may_get_the_stacks_kueue_and_then_follows_the_image_rule():
    existing = {"clusters": [], "existingClusters": [ack_data.existing_cluster("worker")]}
    assert load_stack_config(
        as_config(stack(ack=existing, multiKueue={"workers": [{"cluster": "worker", "installKueue": True, **MIRROR}]}))
    )
    keys = stack_error_keys(stack(ack=existing, multiKueue={"workers": [{"cluster": "worker", "installKueue": True}]}))
    assert keys == ["elastic-capacity:multiKueue.workers[0].imageRepository"]


def test_a_kubeconfig_worker_needs_its_secret_and_nothing_else():
    assert load_stack_config(as_config(kubeconfig_stack()), [KUBECONFIGS]).multi_kueue is not None
    missing = {k: v for k, v in kubeconfig_stack().items() if k != "multiKueueKubeconfigs"}
    assert stack_error_keys(missing) == ["elastic-capacity:multiKueue.workers[0].name"]
    stray = kubeconfig_stack(multiKueueKubeconfigs={"w1": WORKER_KUBECONFIG, "w2": WORKER_KUBECONFIG})
    assert stack_error_keys(stray, [KUBECONFIGS]) == ["elastic-capacity:multiKueueKubeconfigs.w2"]


def test_a_worker_kubeconfig_in_plain_text_is_refused():
    assert stack_error_keys(kubeconfig_stack()) == [KUBECONFIGS]


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d["users"][0]["user"].update(exec={"command": "kubelogin"}), "exec plugin"),
        (lambda d: d["users"][0]["user"].update(tokenFile="/var/run/token"), "token file"),
        (lambda d: d["users"][0]["user"].update(username="u", password="p"), "basic auth"),
        (lambda d: d["clusters"][0]["cluster"].update({"insecure-skip-tls-verify": True}), "insecure"),
        (lambda d: d["clusters"][0]["cluster"].update({"certificate-authority": "/ca.crt"}), "file path"),
        (lambda d: d["clusters"][0]["cluster"].update(server="https://bad_host:6443"), "neither an IP"),
        (lambda d: d["clusters"][0]["cluster"].pop("server"), "no server"),
    ],
)
def test_a_kubeconfig_multikueue_refuses_is_refused_without_quoting_it(change, fragment):
    document = yaml_text.load(WORKER_KUBECONFIG)
    change(document)
    assert fragment in str(multikueue_kubeconfig_problem(yaml_text.dump(document, sort_keys=True)))
    sections = kubeconfig_stack(multiKueueKubeconfigs={"w1": yaml_text.dump(document, sort_keys=True)})
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections), [KUBECONFIGS])
    assert caught.value.keys == [f"{KUBECONFIGS}.w1"] and "sa-token-not-to-be-quoted" not in str(caught.value)


def insecure_kubeconfig() -> str:
    document = yaml_text.load(WORKER_KUBECONFIG)
    document["clusters"][0]["cluster"]["insecure-skip-tls-verify"] = True
    document["users"][0]["user"]["exec"] = {"command": "kubelogin"}
    return yaml_text.dump(document, sort_keys=True)


def insecure_worker_stack(version: str, gates: dict[str, bool]) -> dict:
    return kubeconfig_stack(
        kueue={"chartVersion": version, "featureGates": gates}, multiKueueKubeconfigs={"w1": insecure_kubeconfig()}
    )


@pytest.mark.parametrize("version", ["0.17.8", "0.18.6"])
def test_before_0_19_the_insecure_kubeconfig_gate_lets_multikueue_skip_its_checks(version):
    """``loadClientConfig`` skips ``validateKubeconfig`` under MultiKueueAllowInsecureKubeconfigs (v0.18.6); 0.19
    locks the gate off."""
    gate = {"MultiKueueAllowInsecureKubeconfigs": True}
    assert load_stack_config(as_config(insecure_worker_stack(version, gate)), [KUBECONFIGS]).multi_kueue is not None
    assert stack_error_keys(insecure_worker_stack(version, {}), [KUBECONFIGS]) == [f"{KUBECONFIGS}.w1"]


def test_0_19_checks_every_worker_kubeconfig_and_refuses_the_gate():
    assert stack_error_keys(insecure_worker_stack("0.19.2", {}), [KUBECONFIGS]) == [f"{KUBECONFIGS}.w1"]
    gate = {"MultiKueueAllowInsecureKubeconfigs": True}
    keys = stack_error_keys(insecure_worker_stack("0.19.2", gate), [KUBECONFIGS])
    assert keys == ["elastic-capacity:kueue.featureGates.MultiKueueAllowInsecureKubeconfigs"]


def test_the_insecure_gate_still_needs_a_kubeconfig_with_a_server():
    """Without its checks MultiKueue still builds a client from the kubeconfig (``RESTConfigFromKubeConfig``)."""
    assert multikueue_kubeconfig_problem(insecure_kubeconfig(), secure=False) is None
    assert "insecure" in str(multikueue_kubeconfig_problem(insecure_kubeconfig()))
    assert multikueue_kubeconfig_problem("clusters: [", secure=False) == "it is not YAML"
    document = yaml_text.load(WORKER_KUBECONFIG)
    document["clusters"][0]["cluster"].pop("server")
    assert (
        multikueue_kubeconfig_problem(yaml_text.dump(document, sort_keys=True), secure=False)
        == "a cluster has no server"
    )


def test_kueues_own_kubeconfig_and_an_ip_server_pass():
    assert multikueue_kubeconfig_problem(WORKER_KUBECONFIG) is None
    document = yaml_text.load(WORKER_KUBECONFIG)
    document["clusters"][0]["cluster"]["server"] = "https://203.0.113.7:6443"
    assert multikueue_kubeconfig_problem(yaml_text.dump(document, sort_keys=True)) is None


def test_the_queues_section_may_hold_the_multikueue_check_and_its_queues():
    config = load_stack_config(as_config(queues_stack()))
    assert config.multi_kueue is not None and config.multi_kueue.multikueue_config == "multikueue-test"


def test_a_multikueue_check_in_the_queues_section_needs_burst_queue_false():
    keys = stack_error_keys(stack(queues=QUEUES_WITH_MULTIKUEUE))
    assert keys == ["elastic-capacity:multiKueue.burstQueue"]


def test_burst_queue_false_needs_a_multikueue_check_naming_the_config_and_a_queue_behind_it():
    no_check = {**QUEUES_WITH_MULTIKUEUE, "admissionChecks": [], "clusterQueues": [], "localQueues": []}
    assert stack_error_keys(queues_stack(no_check)) == ["elastic-capacity:multiKueue.burstQueue"]
    other = copy.deepcopy(QUEUES_WITH_MULTIKUEUE)
    other["admissionChecks"][0]["parameters"]["name"] = "another-config"
    assert stack_error_keys(queues_stack(other)) == ["elastic-capacity:queues.admissionChecks[0].parameters.name"]
    unused = {**QUEUES_WITH_MULTIKUEUE, "localQueues": []}
    assert stack_error_keys(queues_stack(unused)) == ["elastic-capacity:queues.localQueues"]


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        ({"configName": "multikueue.burst"}, "multiKueue.configName"),
        ({"admissionCheck": "multikueue.burst"}, "multiKueue.admissionCheck"),
    ],
)
def test_the_burst_objects_are_validated_by_the_queue_rules_naming_the_multikueue_key(changes, key):
    """A MultiKueue check's ``parameters.name`` is a DNS label (the AdmissionCheck CRD's pattern), which only the
    queue model knows: the section's names allow a dot. Refused by the queue rules, at the key the name comes from."""
    assert stack_error_keys(stack(multiKueue={**BURST, **changes})) == [f"elastic-capacity:{key}"]
    with pytest.raises(ConfigError, match=r"admissionChecks\[0\]\.parameters\.name breaks a queue rule"):
        load_stack_config(as_config(stack(multiKueue={**BURST, **changes})))


@pytest.mark.parametrize(
    ("quota", "key"), [({"cpu": "-1", "memory": "1Gi"}, "quota.cpu"), ({"cpu": "1", "memory": "-1"}, "quota.memory")]
)
def test_a_burst_quota_the_queue_rules_refuse_is_refused_naming_the_multikueue_key(quota, key):
    """The section's own model refuses a negative quota first; built past it, the queue rules refuse it at the same
    key, so the burst ClusterQueue's quota cannot escape them."""
    burst = MultiKueueConfig.model_validate(BURST)
    unchecked = burst.model_copy(update={"quota": Quota.model_construct(**quota)})
    with pytest.raises(RuleViolation) as caught:
        burst_queues(unchecked)
    assert caught.value.key == f"multiKueue.{key}"
    assert "clusterQueues[0].resourceGroups[0].flavors[0].resources" in caught.value.allowed
