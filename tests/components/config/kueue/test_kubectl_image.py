"""The readiness gate's kubectl: a repository whose tag follows the cluster's minor (a dated table of patches, ``.0``
beyond it), or an image of the stack's own, whose tag must be within one minor of the cluster."""

from __future__ import annotations

import pytest

from components.config.kueue import kubectl_image
from components.config.kueue.kueue import ReadinessGateConfig
from tests.support.multikueue import MIRROR

AKS_VERSIONS = [(1, 33), (1, 34), (1, 35), (1, 36), (1, 37)]


@pytest.mark.parametrize("minor", AKS_VERSIONS)
def test_every_minor_a_shipped_stack_may_run_has_a_checked_patch_of_its_own_minor(minor):
    tag = kubectl_image.kubectl_tag(minor)
    assert kubectl_image.tag_minor(tag) == minor
    assert tag == f"v{minor[0]}.{minor[1]}.{kubectl_image.KUBECTL_PATCHES[minor]}"


def test_a_minor_newer_than_the_table_gets_its_dot_zero_which_exists_once_a_cluster_can_run_it():
    newer = (1, max(minor for _, minor in kubectl_image.KUBECTL_PATCHES) + 1)
    assert newer not in kubectl_image.KUBECTL_PATCHES
    assert kubectl_image.kubectl_tag(newer) == f"v1.{newer[1]}.0"


def test_a_repository_gets_the_clusters_tag_and_a_pinned_image_is_kept():
    gate = ReadinessGateConfig()
    assert gate.image_for((1, 36)) == f"registry.k8s.io/kubectl:{kubectl_image.kubectl_tag((1, 36))}"
    assert gate.image_for((1, 35)) != gate.image_for((1, 36)), "a changed minor changes the image"
    mirror = ReadinessGateConfig(probe_image=MIRROR["probeImage"])
    assert mirror.image_for((1, 35)) == f"{MIRROR['probeImage']}:{kubectl_image.kubectl_tag((1, 35))}"
    for pinned in ("myregistry:5000/tools/kubectl:v1.34.1", "registry.k8s.io/kubectl@sha256:" + "0" * 64):
        assert ReadinessGateConfig(probe_image=pinned).image_for((1, 35)) == pinned
    assert (
        ReadinessGateConfig(probe_image="myregistry:5000/tools/kubectl")
        .image_for((1, 35))
        .endswith(f":{kubectl_image.kubectl_tag((1, 35))}")
    )


@pytest.mark.parametrize(("tag", "ok"), [("v1.34.1", True), ("v1.36.4", True), ("v1.33.4", False), ("v1.37.1", False)])
def test_a_tag_must_be_within_one_minor_of_the_cluster(tag, ok):
    refusal = kubectl_image.skew_refusal(f"registry.k8s.io/kubectl:{tag}", (1, 35))
    assert (refusal is None) is ok
    if refusal:
        assert "a tag of 1.34, 1.35, 1.36" in refusal
        assert kubectl_image.KUBECTL_PATCHES_CHECKED in refusal, "the table's date is in the message"
