"""The offline render tool: plan.json and manifests on disk, secrets redacted, and every malformed stack refused
with exit code 2 and the key."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.seeds import KUEUE_SEED_OBJECTS
from tests.support.stacks import ACK_STACK, AKS_STACK, CHINA_STACK, edited_stack, rendered
from tools import render


def test_kubeconfigs_are_secrets_and_redacted_in_the_plan(aks, ack):
    for plan, _ in (aks, ack):
        providers = [r for r in plan["resources"] if r["type"] == "pulumi:providers:kubernetes"]
        assert providers
        assert all(p["inputs"]["kubeconfig"] == "[secret]" for p in providers)
    assert aks[0]["outputs"]["kubeconfig"] == "[secret]"
    assert ack[0]["outputs"]["ackKubeconfigs"] == "[secret]"
    for path in ("aks", "ack"):
        assert "mock-token" not in json.dumps((aks if path == "aks" else ack)[0])


def aks_pool(config):
    return config["elastic-capacity:aks"]["userPools"][0]


def queues_with(**changes) -> Callable[[dict[str, Any]], None]:
    """Set ``elastic-capacity:queues`` to the seed's queues with one cluster queue's fields changed.

    The config keys of a cluster queue are its v1beta2 spec fields, so the seed's own object is the starting point.
    """
    (seed_queue,) = [o for o in KUEUE_SEED_OBJECTS if o["kind"] == "ClusterQueue"]
    queue = {"name": seed_queue["metadata"]["name"], **seed_queue["spec"]}
    return lambda config: config.__setitem__("elastic-capacity:queues", {"clusterQueues": [{**queue, **changes}]})


def ack_workload(index: int, **changes) -> Callable[[dict[str, Any]], None]:
    return lambda config: config["elastic-capacity:ack"]["workloads"][index].update(changes)


def ack_cluster(index: int, **changes) -> Callable[[dict[str, Any]], None]:
    return lambda config: config["elastic-capacity:ack"]["clusters"][index].update(changes)


def policy_cluster(scheduler: str, *unit_qos: str) -> Callable[[dict[str, Any]], None]:
    """Add a 1.28 cluster with the given scheduler and a CPU workload scheduled by a policy with these acs units."""

    def change(config: dict[str, Any]) -> None:
        ack = config["elastic-capacity:ack"]
        network = {
            "vpcCidr": "10.0.0.0/8",
            "zones": [{"zoneId": "cn-shanghai-b", "nodeCidr": "10.1.0.0/16", "podCidr": "10.4.0.0/16"}],
        }
        ack["clusters"].append(
            {
                "name": "extra",
                "region": "cn-shanghai",
                "kubernetesVersion": "1.28.9-aliyun.1",
                "network": network,
                "scheduler": {"version": scheduler},
            }
        )
        units = [{"resource": "acs", "computeQos": qos} for qos in unit_qos]
        ack["workloads"].append(
            {
                "name": "web",
                "cluster": "extra",
                "image": "nginx:1.27",
                "scheduling": "resource-policy",
                "resourcePolicy": {"units": units},
            }
        )

    return change


BAD_AKS = {
    "unknown key": (lambda c: aks_pool(c).update(maxcount=3), "aks.userPools[0].maxcount"),
    "min above max": (lambda c: aks_pool(c).update(minCount=6), "aks.userPools[0].minCount"),
    "Kubernetes below 1.30": (
        lambda c: c["elastic-capacity:aks"].update(kubernetesVersion="1.29"),
        "aks.kubernetesVersion",
    ),
    "flavor selects no pool of the stack": (
        lambda c: aks_pool(c).update(name="burst"),
        "queues.resourceFlavors[0].nodeLabels.agentpool",
    ),
    "onFlavors names no flavor of the queue": (
        queues_with(admissionChecksStrategy={"admissionChecks": [{"name": "cas-provisioning", "onFlavors": ["gpu"]}]}),
        "queues.clusterQueues[0].admissionChecksStrategy.admissionChecks[0].onFlavors[0]",
    ),
    "v1beta1 cohort": (queues_with(cohort="team"), "queues.clusterQueues[0].cohort"),
    "v1beta1 admissionChecks": (
        queues_with(admissionChecks=["cas-provisioning"]),
        "queues.clusterQueues[0].admissionChecks",
    ),
    "not a DNS-1123 name": (queues_with(name="CAS_queue"), "queues.clusterQueues[0].name"),
    "borrowing limit without a cohort": (
        queues_with(
            resourceGroups=[
                {
                    "coveredResources": ["cpu"],
                    "flavors": [
                        {
                            "name": "scalepool",
                            "resources": [{"name": "cpu", "nominalQuota": "8", "borrowingLimit": "8"}],
                        }
                    ],
                }
            ]
        ),
        "queues.clusterQueues[0].resourceGroups[0].flavors[0].resources[0].borrowingLimit",
    ),
    "smoke job on an unknown local queue": (
        lambda c: c["elastic-capacity:smokeJob"].update(enabled=True, localQueue="nope"),
        "smokeJob.localQueue",
    ),
    "chart older than v1beta2": (
        lambda c: c["elastic-capacity:kueue"].update(chartVersion="0.14.2"),
        "kueue.chartVersion",
    ),
    "a 0.18 patch below its verified floor": (
        lambda c: c["elastic-capacity:kueue"].update(chartVersion="0.18.5"),
        "kueue.chartVersion",
    ),
    "Azure China chart mirror in global Azure": (
        lambda c: c["elastic-capacity:kueue"].update(chartRepository="oci://k8sgcr.azk8s.cn/kueue/charts/kueue"),
        "kueue.chartRepository",
    ),
    "Azure China smoke image in global Azure": (
        lambda c: c["elastic-capacity:smokeJob"].update(image="mcr.azk8s.cn/azurelinux/busybox:1.36"),
        "smokeJob.image",
    ),
}

BAD_CHINA = {
    "global chart in Azure China": (
        lambda c: c["elastic-capacity:kueue"].update(chartRepository="oci://registry.k8s.io/kueue/charts/kueue"),
        "kueue.chartRepository",
    ),
    "chart's own Kueue image in Azure China": (
        lambda c: c["elastic-capacity:kueue"].pop("imageRepository"),
        "kueue.imageRepository",
    ),
    "global probe image in Azure China": (
        lambda c: c["elastic-capacity:kueue"].pop("readinessGate"),
        "kueue.readinessGate.probeImage",
    ),
    "global smoke image in Azure China": (
        lambda c: c["elastic-capacity:smokeJob"].update(image="mcr.microsoft.com/azurelinux/busybox:1.36"),
        "smokeJob.image",
    ),
    "global AKS region in Azure China": (
        lambda c: c["elastic-capacity:aks"].update(location="eastus2"),
        "aks.location",
    ),
}

BAD_ACK = {
    "Kubernetes below 1.26": (ack_cluster(0, kubernetesVersion="1.24.6-aliyun.1"), "ack.clusters[0].kubernetesVersion"),
    "virtual node below v2.13.0": (
        ack_cluster(0, virtualNode={"version": "v2.12.0"}),
        "ack.clusters[0].virtualNode.version",
    ),
    "GPU-HPN with virtual node below v2.15.0": (
        ack_cluster(2, virtualNode={"version": "v2.14.0"}),
        "ack.clusters[2].virtualNode.version",
    ),
    "GPU below the seed's scheduler minimum": (
        ack_cluster(0, scheduler={"version": "v1.35.0-apsara.6.8.3.aaaaaaaa"}),
        "ack.clusters[0].scheduler.version",
    ),
    "GPU-HPN below the seed's scheduler minimum": (
        ack_cluster(2, scheduler={"version": "v1.35.0-apsara.6.9.3.aaaaaaaa"}),
        "ack.clusters[2].scheduler.version",
    ),
    "GPU-HPN on a minor older than the seed's table": (
        ack_cluster(2, kubernetesVersion="1.26"),
        "ack.clusters[2].kubernetesVersion",
    ),
    "an acs unit below scheduler 6.7.1": (
        policy_cluster("v1.28.12-aliyun-6.7.0.aaaaaaaa", "default"),
        "ack.clusters[3].scheduler.version",
    ),
    "several acs units below scheduler 6.8.3": (
        policy_cluster("v1.28.12-aliyun-6.8.2.aaaaaaaa", "best-effort", "default"),
        "ack.clusters[3].scheduler.version",
    ),
    "gpu-hpn with best-effort QoS": (ack_workload(5, computeQos="best-effort"), "ack.workloads[5].computeQos"),
    "GPU without a model series": (ack_workload(2, gpuModelSeries=None), "ack.workloads[2].gpuModelSeries"),
    "GPU pod that could not be Guaranteed": (ack_workload(2, memory=None), "ack.workloads[2].memory"),
    "compute-class label given by the user": (
        ack_workload(0, labels={"alibabacloud.com/compute-class": "performance"}),
        "ack.workloads[0].labels.alibabacloud.com/compute-class",
    ),
    "the ECI label": (
        ack_workload(0, labels={"alibabacloud.com/eci": "true"}),
        "ack.workloads[0].labels.alibabacloud.com/eci",
    ),
    "pod-label mode with a WaitForFirstConsumer volume": (
        ack_workload(
            1,
            volumes=[
                {"name": "data", "claimName": "data", "mountPath": "/data", "bindingMode": "WaitForFirstConsumer"}
            ],
        ),
        "ack.workloads[1].scheduling",
    ),
}


@pytest.mark.parametrize(
    ("stack", "change", "key"),
    [(AKS_STACK, *case) for case in BAD_AKS.values()]
    + [(CHINA_STACK, *case) for case in BAD_CHINA.values()]
    + [(ACK_STACK, *case) for case in BAD_ACK.values()],
    ids=list(BAD_AKS) + list(BAD_CHINA) + list(BAD_ACK),
)
def test_bad_config_exits_2_naming_the_key(stack, change, key, tmp_path, capsys):
    bad = edited_stack(stack, change, tmp_path)
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert re.match(rf"error: {re.escape(str(bad))}:\d+:\d+: elastic-capacity:{re.escape(key)}: ", error), error
    assert not (tmp_path / "out").exists(), "nothing is written for an invalid stack"


def test_provider_location_outside_the_provider_environment_exits_2_naming_it(tmp_path, capsys):
    bad = edited_stack(CHINA_STACK, lambda c: c.update({"azure-native:location": "eastus2"}), tmp_path)
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert re.match(rf"error: {re.escape(str(bad))}:\d+:\d+: azure-native:location: 'eastus2' is not allowed; ", error)
    assert not (tmp_path / "out").exists()


def test_bad_config_from_the_command_line_is_one_line_without_a_traceback(tmp_path):
    bad = edited_stack(AKS_STACK, lambda c: aks_pool(c).update(minCount=6), tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "tools.render", str(bad), "--out", str(tmp_path / "out")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "elastic-capacity:aks.userPools[0].minCount" in result.stderr


def test_the_plan_says_which_resources_are_protected(aks, tmp_path):
    assert {r["protect"] for r in aks[0]["resources"]} == {False}
    production = edited_stack(
        AKS_STACK, lambda c: c.update({"elastic-capacity:environment": {"kind": "production"}}), tmp_path
    )
    plan, _ = rendered(tmp_path / "out", production)
    assert {r["name"] for r in plan["resources"] if r["protect"]} == {"aks-cluster", "kueue-chart"}


def test_a_malformed_stack_file_exits_2_naming_the_file_and_line(tmp_path, capsys):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(
        AKS_STACK.read_text().replace("    clusterName: kueue-cas\n", "    clusterName: a\n    clusterName: b\n")
    )
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {bad}:")
    assert "elastic-capacity:aks.clusterName: duplicate key `clusterName`" in error
    assert not (tmp_path / "out").exists()


def test_a_type_error_quotes_the_scalar_as_the_file_wrote_it(tmp_path, capsys):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(AKS_STACK.read_text().replace('kubernetesVersion: "1.35"', "kubernetesVersion: 1.30"))
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    assert (
        'aks.kubernetesVersion: 1.30 is not allowed; YAML reads 1.30 as the number 1.3, not a string: quote it: "1.30"'
        in (capsys.readouterr().err)
    )


@pytest.fixture
def empty_stack(tmp_path):
    """A stack that deploys nothing: the output-directory rules without the cost of a full render."""
    path = tmp_path / "Pulumi.empty.yaml"
    path.write_text("config: {}\n")
    return path


def previous_render_of(stack: Path, out: Path) -> Path:
    """A directory as an earlier render of ``stack`` left it, with a manifest the stack no longer creates."""
    (out / "manifests" / "aks").mkdir(parents=True)
    (out / "manifests" / "aks" / "job-stale.yaml").write_text("kind: Job\n")
    (out / "plan.json").write_text("{}\n")
    (out / render.RENDER_MARKER).write_text(f"{stack.resolve()}\n")
    return out


def test_a_previous_render_of_the_same_stack_file_is_cleared_first(empty_stack, tmp_path, capsys):
    out = previous_render_of(empty_stack, tmp_path / "out")
    assert render.main([str(empty_stack), "--out", str(out)]) == 0
    assert f"cleared the previous render of {empty_stack} in {out}: " in capsys.readouterr().out
    assert not (out / "manifests" / "aks").exists(), "no stale manifest survives"
    assert (out / render.RENDER_MARKER).read_text() == f"{empty_stack.resolve()}\n"
    assert render.main([str(empty_stack), "--out", str(out)]) == 0, "a render can always be redone in place"


@pytest.mark.parametrize(
    ("prepare", "expected"),
    [
        (lambda out, stack: (out / "notes.txt").write_text("mine"), "is not empty and is not a render"),
        (lambda out, stack: previous_render_of(stack.with_name("Pulumi.other.yaml"), out), "not of "),
        (lambda out, stack: (previous_render_of(stack, out) / "notes.txt").write_text("mine"), "but also notes.txt"),
    ],
    ids=["foreign files", "another stack's render", "a render with files added"],
)
def test_a_directory_that_is_not_a_previous_render_is_refused_and_left_alone(
    prepare, expected, empty_stack, tmp_path, capsys
):
    out = tmp_path / "out"
    out.mkdir()
    prepare(out, empty_stack)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert render.main([str(empty_stack), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {out} ") and expected in error and error.count("\n") == 1
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before


def test_an_output_path_that_is_a_file_is_refused(empty_stack, tmp_path, capsys):
    (tmp_path / "out").write_text("")
    assert render.main([str(empty_stack), "--out", str(tmp_path / "out")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_a_failed_render_leaves_the_previous_render_as_it_was(tmp_path, capsys):
    bad = edited_stack(AKS_STACK, lambda c: aks_pool(c).update(minCount=6), tmp_path)
    out = previous_render_of(bad, tmp_path / "out")
    assert render.main([str(bad), "--out", str(out)]) == 2
    assert (out / "manifests" / "aks" / "job-stale.yaml").is_file()
