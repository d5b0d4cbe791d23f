"""What a MultiKueue burst set-up needs from the other sections, refused naming the key and what is allowed.

The manager's Kubernetes version needs no rule of its own: MultiKueue hands Jobs over through ``spec.managedBy``, on
by default from Kubernetes 1.32
(https://kubernetes.io/docs/concepts/workloads/controllers/job/#delegation-of-managing-a-job-object-to-external-controller),
and ``aks.kubernetesVersion`` only takes versions AKS supports, all later than that.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING

import yaml
from packaging.version import Version

from components import yaml_text
from components.config.base import DNS1123_SUBDOMAIN, MisplacedKey, RuleViolation, key_path
from components.config.kueue import cluster as kueue_cluster
from components.config.kueue import gates as kueue_gates
from components.config.kueue.registries import MAINLAND_CHINA_UNREACHABLE, is_mainland_china_region, registry_host
from components.config.multikueue.adapters import MULTIKUEUE_ADAPTERS, watched_frameworks
from components.config.multikueue.multikueue import BURST_FLAVOR, WorkerConfig
from components.config.multikueue.workers import (
    FIRST_MINOR_WITH_WORKER_POD_LABEL,
    ack_cluster_version,
    burst_queues,
    dispatching_cluster_queues,
    installs_kueue,
    multikueue_checks,
    served_frameworks,
    worker_kueue,
    worker_plans,
    worker_region,
)
from components.config.queues.checks import MULTIKUEUE_CONFIG_KIND
from components.config.rules import rule

_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_MK_CLUSTER_URL = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/multikueue/multikueuecluster.go"
_MK_CONCEPT_URL = "https://kueue.sigs.k8s.io/docs/concepts/multikueue/"
_MK_SETUP_URL = "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_multikueue/"
_VN_FAQ_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/virtual-node-faq"

if TYPE_CHECKING:
    from components.config.stack import StackConfig

MIN_KUEUE = Version("0.17.8")
"""0.17.2-0.17.8 fix a dozen MultiKueue faults: hung or lost workers stalling admission, remote clean-up, reconnects
(https://github.com/kubernetes-sigs/kueue/releases/tag/v0.17.8 and the releases before it)."""
KUBECONFIGS_KEY = "multiKueueKubeconfigs"
"""The secret config key whose entries are the kubeconfigs of ``source: kubeconfig`` workers, by worker ``name``."""


@rule("multikueue.burst-set-up", source=_MK_SETUP_URL)
def check(config: StackConfig) -> None:
    """A burst set-up with what MultiKueue needs (a Kueue the stack installs, a recent enough release, applied not
    rendered, burst queue objects the queue rules accept, reachable workers serving the watched kinds, their
    kubeconfigs), because the manager cannot dispatch otherwise."""
    burst = config.multi_kueue
    if burst is None:
        if config.multi_kueue_kubeconfigs is not None:
            raise MisplacedKey(KUBECONFIGS_KEY, "it only holds the kubeconfigs of multiKueue.workers")
        return
    if config.kueue_target is None or not config.kueue.install:
        allowed = "the manager is the stack's Kueue cluster (aks or existingCluster), with kueue.install true"
        raise MisplacedKey("multiKueue", allowed)
    if Version(config.kueue.chart_version) < MIN_KUEUE:
        allowed = f"MultiKueue needs Kueue {MIN_KUEUE} or later on the manager and the workers (its MultiKueue fixes)"
        raise RuleViolation("kueue.chartVersion", config.kueue.chart_version, allowed)
    if config.gitops.render_to_directory is not None:
        raise MisplacedKey("multiKueue", "a worker's token exists only once it is applied: MultiKueue cannot render")
    if burst.burst_queue:
        burst_queues(burst)  # the burst objects are queue objects: each queue rule holds for them
        _apart_from_the_queues_section(config)
    else:
        _the_queues_section_dispatches(config)
    for index, worker in enumerate(burst.workers):
        key = key_path("multiKueue.workers", index)
        _worker_reachable(config, key, worker)
        _fields_of_its_install(config, key, worker)
        _images_its_region_reaches(config, key, worker)
        _kueue_fits_its_cluster_version(config, key, worker)
    _every_worker_serves_the_watched_kinds(config)
    _burst_pods_selectable(config)
    _kubeconfigs_given(config)
    worker_plans(config)  # the derived worker configs validate here, so their mistakes fail the load


@rule("multikueue.apart-from-the-queues-section", source=_K8S_NAMES_URL)
def _apart_from_the_queues_section(config: StackConfig) -> None:
    """The burst objects live on the manager beside the ``queues`` section's: one name, one object."""
    assert config.multi_kueue is not None
    burst, queues = config.multi_kueue, config.queues
    taken = [
        ("namespace", burst.namespace, queues.all_namespaces, "queues.namespaces/existingNamespaces"),
        ("clusterQueue", burst.cluster_queue, [q.name for q in queues.cluster_queues], "queues.clusterQueues"),
        ("admissionCheck", burst.admission_check, [c.name for c in queues.all_admission_checks], "queues' checks"),
    ]
    for key, name, names, where in taken:
        if name in names:
            raise RuleViolation(
                key_path("multiKueue", key), name, f"the burst set-up creates it: pick one not in {where}"
            )
    if BURST_FLAVOR in [flavor.name for flavor in queues.resource_flavors]:
        allowed = f"the burst set-up creates the flavor {BURST_FLAVOR!r}: rename the one in queues.resourceFlavors"
        raise RuleViolation("queues.resourceFlavors", BURST_FLAVOR, allowed)
    if multikueue_checks(queues):
        allowed = "set multiKueue.burstQueue false to give the queues section the MultiKueue checks"
        raise RuleViolation("multiKueue.burstQueue", True, allowed)


@rule("multikueue.the-queues-section-dispatches", source=_MK_CONCEPT_URL)
def _the_queues_section_dispatches(config: StackConfig) -> None:
    """With ``burstQueue: false`` the ``queues`` section holds the MultiKueue checks: each names this section's
    MultiKueueConfig (MultiKueue marks a check naming another config inactive), and some LocalQueue submits to a
    ClusterQueue that has one, or nothing is ever dispatched."""
    assert config.multi_kueue is not None
    burst, queues = config.multi_kueue, config.queues
    checks = [(i, c) for i, c in enumerate(queues.admission_checks) if c.name in multikueue_checks(queues)]
    if not checks:
        allowed = "give queues.admissionChecks a check of controller kueue.x-k8s.io/multikueue, or burstQueue true"
        raise RuleViolation("multiKueue.burstQueue", False, allowed)
    for index, check in checks:
        parameters = check.parameters
        key = key_path("queues.admissionChecks", index, "parameters")
        if parameters is None or parameters.kind != MULTIKUEUE_CONFIG_KIND:
            allowed = f"a MultiKueue check's parameters name the MultiKueueConfig {burst.multikueue_config!r}"
            raise RuleViolation(key, parameters.kind if parameters else None, allowed)
        if parameters.name != burst.multikueue_config:
            allowed = f"it must be multiKueue.configName {burst.multikueue_config!r}"
            raise RuleViolation(key_path(key, "name"), parameters.name, allowed)
    dispatching = set(dispatching_cluster_queues(burst, queues))
    if not any(local.cluster_queue in dispatching for local in queues.local_queues):
        allowed = f"no LocalQueue submits to a ClusterQueue with a MultiKueue check ({sorted(dispatching)})"
        raise RuleViolation("queues.localQueues", [q.name for q in queues.local_queues], allowed)


@rule("multikueue.worker-reachable", source=_VN_FAQ_URL)
def _worker_reachable(config: StackConfig, key: str, worker: WorkerConfig) -> None:
    """An ACK worker is a cluster of the ``ack`` section with a public API endpoint (the manager calls it from
    outside the VPC), and ECS nodes when the stack installs Kueue there (its controller and webhook cannot run on the
    virtual node)."""
    if worker.source != "ack":
        return
    ack = config.ack
    new = {cluster.name: cluster for cluster in (ack.clusters if ack else [])}
    existing = ack.existing_cluster_names if ack else set()
    cluster_key = key_path(key, "cluster")
    if worker.cluster not in new and worker.cluster not in existing:
        allowed = f"it must name one of ack.clusters or ack.existingClusters {sorted([*new, *existing])}"
        raise RuleViolation(cluster_key, worker.cluster, allowed)
    cluster = new.get(str(worker.cluster))
    if cluster is None:
        return
    if not cluster.slb_internet_enabled:
        allowed = (
            f"the manager reaches the worker's public API: ack.clusters {worker.cluster!r} needs slbInternetEnabled"
        )
        raise RuleViolation(cluster_key, worker.cluster, allowed)
    if installs_kueue(worker, ack) and cluster.node_pool is None:
        allowed = f"Kueue's controller needs ECS nodes: give ack.clusters {worker.cluster!r} a nodePool"
        raise RuleViolation(cluster_key, worker.cluster, allowed)


@rule("multikueue.fields-of-its-install", source=_MK_SETUP_URL)
def _fields_of_its_install(config: StackConfig, key: str, worker: WorkerConfig) -> None:
    """Chart and image sources go with a Kueue the stack installs; ``frameworks`` with one it does not."""
    installs = installs_kueue(worker, config.ack)
    foreign = ("frameworks",) if installs else ("chart_repository", "image_repository", "probe_image")
    for field in foreign:
        if field in worker.model_fields_set:
            alias = WorkerConfig.model_fields[field].alias or field
            why = (
                "the Kueue the stack installs there serves batch/job"
                if installs
                else "the stack installs no Kueue on this worker (installKueue)"
            )
            raise MisplacedKey(key_path(key, alias), why)


@rule("multikueue.images-its-region-reaches")
def _images_its_region_reaches(config: StackConfig, key: str, worker: WorkerConfig) -> None:
    """Every image a worker in mainland China runs comes from a registry it reaches: not registry.k8s.io, which is
    hosted on Google Cloud and cannot be pulled there (https://github.com/kubernetes/registry.k8s.io/issues/137)."""
    if not installs_kueue(worker, config.ack):
        return
    region = worker_region(config, worker)
    if region is None or not is_mainland_china_region(region):
        return
    images = [
        ("imageRepository", worker.image_repository or config.kueue.image_repository),
        ("probeImage", worker.probe_image or config.kueue.readiness_gate.probe_image),
    ]
    for field, image in images:
        host = registry_host(image)
        if host in MAINLAND_CHINA_UNREACHABLE:
            allowed = (
                f"{host} cannot be pulled from {region} ({MAINLAND_CHINA_UNREACHABLE[host]}): set it to a copy in your "
                "ACR (https://www.alibabacloud.com/help/en/acr/) or a mirror you trust, "
                f"e.g. DaoCloud's m.daocloud.io/{image} (https://github.com/DaoCloud/public-image-mirror#readme)"
            )
            raise RuleViolation(key_path(key, field), image, allowed)


def _kueue_fits_its_cluster_version(config: StackConfig, key: str, worker: WorkerConfig) -> None:
    """The Kueue the stack installs on a worker meets its own ACK cluster's version: Kueue's minimum, and a probe
    image (the worker's, else the manager's) whose kubectl is within one minor of that cluster."""
    version = ack_cluster_version(worker, config.ack)
    if version is None or not installs_kueue(worker, config.ack):
        return
    version_key, text = version
    probe_key = key_path(key, "probeImage") if worker.probe_image else kueue_cluster.PROBE_IMAGE_KEY
    kueue = worker_kueue(config.kueue, worker)
    kueue_cluster.require_fits(
        kueue, kueue_cluster.minor_of(text), version_key=version_key, version=text, probe_key=probe_key
    )


@rule("multikueue.every-worker-serves-the-watched-kinds", source=_MK_CLUSTER_URL)
def _every_worker_serves_the_watched_kinds(config: StackConfig) -> None:
    """MultiKueue watches the kind of every manager integration that has an adapter on every worker, and a failed
    watch refuses the connection: each such integration must be one every worker serves."""
    burst = config.multi_kueue
    assert burst is not None
    for index, framework in enumerate(config.kueue.frameworks):
        if framework not in watched_frameworks(config.kueue.frameworks):
            continue
        for worker_index, worker in enumerate(burst.workers):
            served = served_frameworks(worker, config.ack)
            if framework not in served:
                allowed = (
                    f"MultiKueue watches {MULTIKUEUE_ADAPTERS[framework].resource} on every worker, and "
                    f"multiKueue.workers[{worker_index}] ({burst.worker_cluster_name(worker)}) serves "
                    f"{', '.join(served)}"
                    + (
                        " (the Kueue the stack installs there serves batch/job only)"
                        if installs_kueue(worker, config.ack)
                        else ": list it in that worker's frameworks once its CRD and Kueue integration are there"
                    )
                )
                raise RuleViolation(key_path("kueue.frameworks", index), framework, allowed)


@rule("multikueue.burst-pods-selectable")
def _burst_pods_selectable(config: StackConfig) -> None:
    """An ACK worker's ResourcePolicy selects burst pods by a label Kueue puts on them (``burst_pod_selector``). Kueue
    0.17 has no MultiKueue pod label, and the pod-set label's value is the pod set's name, ``main`` only for batch
    Jobs: on 0.17 with an ACK worker the manager may dispatch batch Jobs only
    (https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/jobframework/reconciler.go)."""
    burst = config.multi_kueue
    assert burst is not None
    if kueue_cluster.minor_of(config.kueue.chart_version) >= FIRST_MINOR_WITH_WORKER_POD_LABEL:
        return
    if not any(worker.source == "ack" for worker in burst.workers):
        return
    for index, framework in enumerate(config.kueue.frameworks):
        if framework in watched_frameworks(config.kueue.frameworks) and framework != "batch/job":
            allowed = (
                "with Kueue 0.17 an ACK worker's ResourcePolicy selects burst pods by kueue.x-k8s.io/podset: main, "
                "which only batch Jobs' pods carry: use Kueue 0.18 or later (its pods carry "
                "kueue.x-k8s.io/multikueue-worker-workload-pod), or dispatch batch/job only"
            )
            raise RuleViolation(key_path("kueue.frameworks", index), framework, allowed)


@rule("multikueue.kubeconfigs-given", source=_MK_CLUSTER_URL)
def _kubeconfigs_given(config: StackConfig) -> None:
    """Every ``kubeconfig`` worker has its kubeconfig in :data:`KUBECONFIGS_KEY`, in a form MultiKueue accepts, and
    every entry there belongs to one."""
    burst = config.multi_kueue
    assert burst is not None
    wanted = [burst.worker_cluster_name(w) for w in burst.workers if w.source == "kubeconfig"]
    given = config.multi_kueue_kubeconfigs or {}
    insecure_allowed = kueue_gates.effective(config.kueue.feature_gates, config.kueue.profile).get(INSECURE_GATE, False)
    for index, worker in enumerate(burst.workers):
        name = burst.worker_cluster_name(worker)
        if worker.source == "kubeconfig" and name not in given:
            needs = f"its kubeconfig goes in the secret {KUBECONFIGS_KEY}.{name}"
            raise RuleViolation(key_path("multiKueue.workers", index, "name"), name, needs)
    for name, secret in given.items():
        key = key_path(KUBECONFIGS_KEY, name)
        if name not in wanted:
            raise MisplacedKey(key, f"no multiKueue.workers entry of source kubeconfig is named so ({wanted})")
        problem = multikueue_kubeconfig_problem(secret.get_secret_value(), secure=not insecure_allowed)
        if problem is not None:
            raise MisplacedKey(key, f"MultiKueue refuses this kubeconfig: {problem}")


INSECURE_GATE = "MultiKueueAllowInsecureKubeconfigs"
"""The gate under which ``loadClientConfig`` skips ``validateKubeconfig``: alpha, off by default, in 0.17 and 0.18;
locked off in 0.19 (the gate tables say so)."""


def multikueue_kubeconfig_problem(text: str, *, secure: bool = True) -> str | None:
    """What MultiKueue would refuse in a worker kubeconfig, or ``None``: a YAML kubeconfig with a server for each
    cluster, and with ``secure`` (the manager's :data:`INSECURE_GATE` off) the checks of ``validateKubeconfig`` and
    ``validateRestConfig`` in
    https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/admissionchecks/multikueue/multikueuecluster.go
    (same in v0.17.8-v0.19.2: no token file, TLS verified, CA as data, a server whose host is an IP or DNS name, no
    basic auth, exec plugin or auth provider). Never quotes the kubeconfig: it holds a credential."""
    try:
        document = yaml_text.load(text)
    except yaml.YAMLError:
        return "it is not YAML"
    if not isinstance(document, dict) or not document.get("clusters"):
        return "it is not a kubeconfig with a cluster"
    for entry in document.get("clusters") or []:
        cluster = (entry or {}).get("cluster") or {}
        server = str(cluster.get("server") or "")
        if not server:
            return "a cluster has no server"
        if not secure:
            continue
        if cluster.get("insecure-skip-tls-verify"):
            return "insecure-skip-tls-verify is not allowed"
        if cluster.get("certificate-authority"):
            return "a certificate-authority file path is not allowed; use certificate-authority-data"
        host = server.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]").lower()
        if not (_is_ip(host) or (re.fullmatch(DNS1123_SUBDOMAIN, host) and len(host) <= 253)):
            return "a server's host is neither an IP address nor a DNS name"
    if not secure:
        return None
    for entry in document.get("users") or []:
        user = (entry or {}).get("user") or {}
        for field, what in (
            ("tokenFile", "a token file"),
            ("username", "basic auth"),
            ("password", "basic auth"),
            ("exec", "an exec plugin"),
            ("auth-provider", "an auth provider"),
        ):
            if user.get(field):
                return f"{what} is not allowed; MultiKueue takes an inline token or client certificate"
    return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
