"""The stack root: which sections deploy what, the rules that span sections, and how errors name keys."""

from __future__ import annotations

import json

import pytest

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from tests.support.config import WALKTHROUGH, as_config, stack_error_keys

ARTICLE_POOL = {"name": "scalepool", "vmSize": "Standard_D4s_v3", "minCount": 1, "maxCount": 5, "initialCount": 1}


def test_aks_section_alone_targets_kueue_at_the_new_cluster_with_no_queue_object():
    config = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}}))
    assert config.kueue_target == "aks"
    assert (config.queues.namespaces, config.queues.cluster_queues, config.queues.local_queues) == ([], [], [])


def test_the_walkthrough_preset_brings_the_walkthroughs_queues():
    config = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH}))
    assert [f.name for f in config.queues.resource_flavors] == ["scalepool"]
    assert [(q.namespace, q.name) for q in config.queues.local_queues] == [("cas-kueue-demo", "cas-local-queue")]


def test_unknown_top_level_key_is_named():
    assert stack_error_keys({"aks": {"preset": "aks-walkthrough"}, "queue": {}}) == ["elastic-capacity:queue"]


def test_unknown_nested_key_is_named_with_its_path():
    assert stack_error_keys({"aks": {"userPools": [{**ARTICLE_POOL, "maxcount": 3}]}}) == [
        "elastic-capacity:aks.userPools[0].maxcount"
    ]


def test_new_and_existing_cluster_together_are_refused():
    keys = stack_error_keys(
        {
            "aks": {"preset": "aks-walkthrough"},
            "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
        }
    )
    assert keys == ["elastic-capacity:existingCluster"]


@pytest.mark.parametrize("section", ["kueue", "queues", "smokeJob"])
def test_kueue_sections_need_a_target_cluster(section):
    assert stack_error_keys({section: {}}) == [f"elastic-capacity:{section}"]


def test_existing_cluster_by_kubeconfig_reads_the_secret_value():
    cluster = {"source": "kubeconfig", "kubernetesVersion": "1.35"}
    values = as_config({"existingCluster": cluster, "kubeconfig": "apiVersion: v1"})
    config = load_stack_config(values, secret_keys={"elastic-capacity:kubeconfig"})
    assert config.kueue_target == "existing"
    assert config.kubeconfig is not None
    assert config.kubeconfig.get_secret_value() == "apiVersion: v1"
    assert "apiVersion" not in repr(config), "the kubeconfig never shows in a repr or log line"


def test_kubeconfig_source_without_kubeconfig_is_refused():
    assert stack_error_keys({"existingCluster": {"source": "kubeconfig"}}) == ["elastic-capacity:kubeconfig"]


@pytest.mark.parametrize(
    ("sections", "secret_keys", "key", "reason", "rule"),
    [
        (
            {
                "aks": {"preset": "aks-walkthrough"},
                "existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"},
            },
            (),
            "existingCluster",
            "set either aks (a new cluster) or existingCluster, not both",
            "stack.one-kueue-target",
        ),
        (
            {"queues": {}},
            (),
            "queues",
            "Kueue needs a target cluster: add aks or existingCluster",
            "stack.one-kueue-target",
        ),
        (
            {"aks": {"preset": "aks-walkthrough"}, "kubeconfig": "apiVersion: v1 # secret"},
            ("elastic-capacity:kubeconfig",),
            "kubeconfig",
            "it is only used with existingCluster.source 'kubeconfig'",
            "stack.kubeconfig-only-for-its-source",
        ),
    ],
    ids=["both targets", "no target", "stray kubeconfig"],
)
def test_a_key_set_where_it_does_not_belong_is_named_without_its_value(sections, secret_keys, key, reason, rule):
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections), secret_keys)
    assert str(caught.value) == f"elastic-capacity:{key}: it must not be set here; {reason} [rule: {rule}]"


def test_flavor_must_select_an_autoscaling_pool_of_the_stack():
    keys = stack_error_keys({"aks": {"userPools": [{**ARTICLE_POOL, "name": "burst"}]}, **WALKTHROUGH})
    assert keys == ["elastic-capacity:queues.resourceFlavors[0].nodeLabels.agentpool"]


def test_flavor_pool_is_not_checked_on_an_existing_cluster():
    values = as_config(
        {"existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}, **WALKTHROUGH}
    )
    assert load_stack_config(values).queues.resource_flavors[0].node_labels == {"agentpool": "scalepool"}


def test_smoke_job_must_use_a_configured_local_queue():
    keys = stack_error_keys(
        {"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH, "smokeJob": {"enabled": True, "localQueue": "nope"}}
    )
    assert keys == ["elastic-capacity:smokeJob.localQueue"]


def test_smoke_job_must_select_a_pool_of_the_stack():
    assert stack_error_keys(
        {"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH, "smokeJob": {"enabled": True, "pool": "gpupool"}}
    ) == ["elastic-capacity:smokeJob.pool"]


def test_local_queue_namespace_must_be_managed_by_kueue():
    selector = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a"]}]}
    keys = stack_error_keys(
        {"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH, "kueue": {"managedJobsNamespaceSelector": selector}}
    )
    assert keys == ["elastic-capacity:queues.localQueues[0].namespace"]


def test_smoke_job_with_its_defaults_runs_on_the_walkthrough_preset():
    config = load_stack_config(
        as_config({"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH, "smokeJob": {"enabled": True}})
    )
    assert config.smoke_job.local_queue == "cas-local-queue"


def test_smoke_job_on_a_stack_without_queue_objects_is_told_how_to_get_one():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}, "smokeJob": {"enabled": True}}))
    assert str(caught.value) == (
        "elastic-capacity:smokeJob.localQueue: it is not set; the stack creates no LocalQueue: "
        "name queues.preset aks-walkthrough, whose LocalQueue the smoke Job then uses, or write queues.localQueues "
        "[rule: stack.smoke-job-targets-a-local-queue-and-pool]"
    )


def test_error_message_names_key_value_and_what_is_allowed():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": {"userPools": [{**ARTICLE_POOL, "name": "burst"}]}, **WALKTHROUGH}))
    message = str(caught.value)
    assert "elastic-capacity:queues.resourceFlavors[0].nodeLabels.agentpool" in message
    assert "'scalepool'" in message
    assert "burst" in message


# --- chart and image sources must be reachable from the stack's Azure cloud --------------------------------------

CHINA_MIRRORS = {
    "kueue": {
        "chartRepository": "oci://k8sgcr.azk8s.cn/kueue/charts/kueue",
        "imageRepository": "registryk8s.azk8s.cn/kueue/kueue",
        "readinessGate": {"probeImage": "registryk8s.azk8s.cn/kubectl"},
    },
    "smokeJob": {"image": "mcr.azk8s.cn/azurelinux/busybox:1.36"},
}
IN_CHINA = {"azure-native:environment": "china", "azure-native:location": "chinanorth3"}
CHINA_AKS = {"location": "chinanorth3"}


def load_in(azure: dict[str, str], sections: dict):
    return load_stack_config({**azure, **as_config(sections)})


def error_in(azure: dict[str, str], sections: dict) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_in(azure, sections)
    return caught.value


def with_source(key: str, value: str, base: dict | None = None) -> dict:
    """``base`` sections (default: none) with one source key, such as ``kueue.readinessGate.probeImage``, set."""
    sections = json.loads(json.dumps(base or {}))
    *path, leaf = key.split(".")
    target = sections
    for part in path:
        target = target.setdefault(part, {})
    target[leaf] = value
    return sections


CHINA_ONLY = [
    ("kueue.chartRepository", "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"),
    ("kueue.imageRepository", "registryk8s.azk8s.cn/kueue/kueue"),
    ("kueue.readinessGate.probeImage", "registryk8s.azk8s.cn/kubectl"),
    ("smokeJob.image", "mcr.azure.cn/azurelinux/busybox:1.36"),
]
GLOBAL = [
    ("kueue.chartRepository", "oci://registry.k8s.io/kueue/charts/kueue"),
    ("kueue.imageRepository", "mcr.microsoft.com/oss/v2/kueue/kueue"),
    ("kueue.readinessGate.probeImage", "registry.k8s.io/kubectl"),
    ("smokeJob.image", "busybox:1.36"),
]


@pytest.mark.parametrize(("key", "value"), CHINA_ONLY, ids=[k for k, _ in CHINA_ONLY])
def test_azure_china_sources_are_refused_in_global_azure(key, value):
    assert stack_error_keys(with_source(key, value, {"aks": {"preset": "aks-walkthrough"}})) == [
        f"elastic-capacity:{key}"
    ]


def test_azure_china_source_error_names_the_value_the_cloud_and_the_global_source():
    message = str(
        error_in(
            {},
            with_source(
                "kueue.chartRepository",
                "oci://k8sgcr.azk8s.cn/kueue/charts/kueue",
                {"aks": {"preset": "aks-walkthrough"}},
            ),
        )
    )
    assert message.startswith("elastic-capacity:kueue.chartRepository: 'oci://k8sgcr.azk8s.cn/kueue/charts/kueue'")
    assert "serves Azure China addresses only" in message
    assert "aks.location 'eastus2' targets global Azure" in message
    assert "oci://registry.k8s.io/kueue/charts/kueue" in message


@pytest.mark.parametrize(("key", "value"), GLOBAL, ids=[k for k, _ in GLOBAL])
def test_global_sources_are_refused_in_azure_china(key, value):
    sections = with_source(key, value, {"aks": CHINA_AKS, **CHINA_MIRRORS})
    assert error_in(IN_CHINA, sections).keys == [f"elastic-capacity:{key}"]


def test_global_source_error_names_the_azure_china_mirror():
    message = str(error_in(IN_CHINA, {"aks": CHINA_AKS}))
    assert message.startswith("elastic-capacity:kueue.chartRepository: 'oci://registry.k8s.io/kueue/charts/kueue'")
    assert "azure-native:environment 'china' targets Azure China" in message
    assert "registryk8s.azk8s.cn" in message


def test_a_china_location_alone_puts_the_stack_in_azure_china():
    message = str(error_in({}, {"aks": CHINA_AKS}))
    assert "aks.location 'chinanorth3' targets Azure China" in message


def test_azure_china_mirrors_are_accepted_in_azure_china():
    config = load_in(IN_CHINA, {"aks": CHINA_AKS, **CHINA_MIRRORS})
    assert config.kueue.chart_repository == "oci://k8sgcr.azk8s.cn/kueue/charts/kueue"


@pytest.mark.parametrize("azure", [{}, IN_CHINA], ids=["global", "china"])
def test_a_registry_of_your_own_is_accepted_in_either_cloud(azure):
    own = {
        "chartRepository": "oci://registry.example.com/charts/kueue",
        "imageRepository": "registry.example.com/kueue/kueue",
        "readinessGate": {"probeImage": "registry.example.com/kubectl"},
    }
    aks = CHINA_AKS if azure else {}
    sections = {"aks": aks, "kueue": own, "smokeJob": {"image": "registry.example.com/busybox:1.36"}}
    assert load_in(azure, sections).kueue.image_repository == "registry.example.com/kueue/kueue"


def test_aks_location_must_be_in_the_provider_cloud():
    assert error_in(IN_CHINA, {"aks": {"preset": "aks-walkthrough", "location": "eastus2"}, **CHINA_MIRRORS}).keys == [
        "elastic-capacity:aks.location"
    ]
    assert error_in({"azure-native:environment": "public"}, {"aks": CHINA_AKS}).keys == [
        "elastic-capacity:aks.location"
    ]


def test_existing_cluster_in_azure_china_refuses_global_sources():
    existing = {"existingCluster": {"source": "aks", "resourceGroupName": "rg", "clusterName": "c"}}
    assert error_in({"azure-native:environment": "china"}, existing).keys == ["elastic-capacity:kueue.chartRepository"]
    assert load_in({"azure-native:environment": "china"}, {**existing, **CHINA_MIRRORS}).kueue_target == "existing"


def test_us_government_is_outside_azure_china():
    us_gov = {"azure-native:environment": "usgovernment"}
    assert (
        load_in(us_gov, {"aks": {"preset": "aks-walkthrough", "location": "usgovvirginia"}}).aks.location
        == "usgovvirginia"
    )
    sections = with_source(
        "smokeJob.image",
        "mcr.azk8s.cn/azurelinux/busybox:1.36",
        {"aks": {"preset": "aks-walkthrough", "location": "usgovvirginia"}},
    )
    assert error_in(us_gov, sections).keys == ["elastic-capacity:smokeJob.image"]


def test_sources_are_not_checked_without_a_kueue_target():
    assert load_in(IN_CHINA, {}).kueue_target is None


def test_a_new_aks_cluster_cannot_use_a_kueue_it_does_not_have():
    assert stack_error_keys({"aks": {"preset": "aks-walkthrough"}, "kueue": {"install": False}}) == [
        "elastic-capacity:kueue.install"
    ]
