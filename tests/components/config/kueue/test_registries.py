"""Where charts and images come from: registry hosts as Helm and container runtimes resolve them, and pinned images."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from components.config.kueue.registries import AZURE_CHINA_MIRRORS, PinnedImage, is_azure_china_only, registry_host
from tests.support.config import model_error_keys


@pytest.mark.parametrize(
    ("reference", "host"),
    [
        ("oci://registry.k8s.io/kueue/charts/kueue", "registry.k8s.io"),
        ("oci://k8sgcr.azk8s.cn/kueue/charts/kueue", "k8sgcr.azk8s.cn"),
        ("https://kubernetes-sigs.github.io/kueue/charts", "kubernetes-sigs.github.io"),
        ("registry.k8s.io/kueue/kueue", "registry.k8s.io"),
        ("mcr.azk8s.cn/azurelinux/busybox:1.36", "mcr.azk8s.cn"),
        ("myregistry:5000/tools/kubectl:v1.33.4", "myregistry"),
        ("localhost/kubectl:v1", "localhost"),
        ("busybox:1.36", "docker.io"),
        ("bitnami/kubectl:1.33", "docker.io"),
    ],
)
def test_registry_host_resolves_charts_and_images_as_helm_and_container_runtimes_do(reference, host):
    assert registry_host(reference) == host


@pytest.mark.parametrize(
    ("host", "china_only"),
    [("k8sgcr.azk8s.cn", True), ("mcr.azure.cn", True), ("registry.k8s.io", False), ("azk8s.cn.example.com", False)],
)
def test_azure_china_only_registries(host, china_only):
    assert is_azure_china_only(host) is china_only


@pytest.mark.parametrize("image", ["busybox:1.36", "registry.k8s.io/kubectl@sha256:" + "0" * 64, "host:5000/a/b:v1"])
def test_pinned_images_carry_a_tag_or_a_digest(image):
    assert TypeAdapter(PinnedImage).validate_python(image) == image


@pytest.mark.parametrize("image", ["busybox", "registry.k8s.io/kubectl", "host:5000/a/b", ""])
def test_an_image_without_tag_or_digest_is_refused(image):
    assert model_error_keys(TypeAdapter(PinnedImage), image, "x") == ["x"]


def test_every_azure_china_mirror_serves_azure_china_only():
    for mirror in AZURE_CHINA_MIRRORS.values():
        assert is_azure_china_only(mirror.split()[0]), mirror
