"""Where the stack pulls charts and images from, and which Azure cloud can reach each registry.

Every chart and image source is a config key so that a stack in Azure China can use the Azure China mirrors
(:data:`AZURE_CHINA_PROXIES`); :func:`registry_host` and :data:`AZURE_CHINA_MIRRORS` let the stack rules check that
each source is reachable from the cloud the stack deploys to.
"""

from __future__ import annotations

import re
from typing import Annotated, NamedTuple
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field

from components.config.rules import rule

_IMAGES_URL = "https://kubernetes.io/docs/concepts/containers/images/#image-names"

AZURE_CHINA_PROXIES = (
    "https://github.com/Azure/container-service-for-azure-china/blob/master/aks/README.md#22-container-registry-proxy"
)
"""Azure China's registry proxy table: which proxy serves which global registry."""

AZURE_CHINA_MIRRORS = {
    "registry.k8s.io": "registryk8s.azk8s.cn",
    "k8s.gcr.io": "k8sgcr.azk8s.cn",
    "gcr.io": "gcr.azk8s.cn",
    "us.gcr.io": "usgcr.azk8s.cn",
    "quay.io": "quay.azk8s.cn",
    "docker.io": "dockerhub.azk8s.cn",
    "mcr.microsoft.com": "mcr.azure.cn (or the proxy mcr.azk8s.cn)",
}
"""Global registries and what replaces them in Azure China: the proxy table of
https://github.com/Azure/container-service-for-azure-china/blob/master/aks/README.md#22-container-registry-proxy, and
for Microsoft's registry its official Azure China endpoint ``mcr.azure.cn``
(https://github.com/microsoft/containerregistry/blob/main/docs/client-firewall-rules.md)."""

AZURE_CHINA_ONLY_SUFFIXES = (".azk8s.cn", ".azure.cn")
"""Registries that serve Azure China only: "*.azk8s.cn could only be accessed by Azure China IP" (the proxy README
above), and ``*.azure.cn`` are Azure China's own endpoints."""


CHART_REFERENCE = re.compile(r"^(oci|https?)://[^\s]+$")
"""A chart's OCI reference (the chart itself) or an https Helm repository."""
IMAGE_REPOSITORY = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::\d+)?(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*$")
"""An image reference without a tag or digest: ``host[:port]/path``."""
NO_AZURE_CHINA_MIRROR = {
    "nvcr.io": "NVIDIA's image registry",
    "nvidia.github.io": "NVIDIA's device plugin chart repository",
    "helm.ngc.nvidia.com": "NVIDIA's GPU Operator chart repository",
}
"""Global sources Azure China's proxy table has no mirror for (:data:`AZURE_CHINA_PROXIES`): a stack there copies
them into a registry of its own (``az acr import`` into an Azure Container Registry in Azure China, ``helm push``)."""


def chart_reference(repository: str, name: str) -> tuple[str, str | None]:
    """``(chart, repository)`` for Helm: an OCI reference is the chart itself; an https repository serves ``name``."""
    if repository.startswith("oci://"):
        return repository, None
    return name, repository


def registry_host(reference: str) -> str:
    """The registry a chart (``oci://host/...``, ``https://host/...``), an image reference or a bare registry host
    is pulled from.

    An image's first path component is a registry only if it has a ``.`` or ``:`` or is ``localhost``; otherwise the
    image is on Docker Hub, as container runtimes resolve it (``splitDockerDomain`` in
    https://github.com/distribution/reference/blob/main/normalize.go).
    """
    if "://" in reference:
        return (urlsplit(reference).hostname or "").lower()
    if "/" not in reference and "." in reference and ":" not in reference:
        return reference.lower()  # a registry itself (``nvcr.io``), as a registry key holds it: images carry a tag
    first, slash, _ = reference.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first.split(":", 1)[0].lower()
    return "docker.io"


def is_azure_china_only(host: str) -> bool:
    """Whether ``host`` serves Azure China addresses only (:data:`AZURE_CHINA_ONLY_SUFFIXES`)."""
    return host.endswith(AZURE_CHINA_ONLY_SUFFIXES)


class Source(NamedTuple):
    """A chart or image the stack pulls: its key (relative to the stack), its value, and the global default."""

    key: str
    reference: str
    default: str


@rule("registries.pinned-image", source=_IMAGES_URL)
def _check_pinned_image(text: str) -> str:
    """An image without a tag or digest means ``latest``: a moving target nobody can review or roll back."""
    last = text.rsplit("/", 1)[-1]
    if "@" not in text and ":" not in last:
        raise ValueError(f"{text!r} has no tag or digest; pin it, e.g. {text}:<version>")
    return text


PinnedImage = Annotated[str, Field(min_length=1), AfterValidator(_check_pinned_image)]
"""A container image reference with an explicit tag or digest."""


MAINLAND_CHINA_UNREACHABLE = {
    "registry.k8s.io": "https://github.com/kubernetes/registry.k8s.io/issues/137",
    "k8s.gcr.io": "https://github.com/kubernetes/registry.k8s.io/issues/137",
    "gcr.io": "https://github.com/kubernetes/registry.k8s.io/issues/137",
}
"""Registries nodes in mainland China cannot pull from, with the evidence: Kubernetes' registry and Google's
Container Registry are served from Google Cloud ("probably blocked by GFW ... We can't really do anything about
that", the registry maintainers in https://github.com/kubernetes/registry.k8s.io/issues/137)."""


def is_mainland_china_region(region: str) -> bool:
    """Alibaba Cloud's mainland China regions are ``cn-*`` except Hong Kong (``cn-hongkong``), which is outside the
    mainland's network restrictions (https://www.alibabacloud.com/help/en/cloud-migration-guide-for-beginners/latest/regions-and-zones)."""
    return region.startswith("cn-") and region != "cn-hongkong"
