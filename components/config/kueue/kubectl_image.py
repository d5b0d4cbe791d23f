"""Which kubectl image the readiness gate runs: a repository, and a tag that follows the cluster's Kubernetes minor.

kubectl is supported within one minor of the API server (https://kubernetes.io/releases/version-skew-policy/#kubectl),
so a fixed tag falls out of support as the clusters move on. A stack names the repository (a mirror in China) and the
tag is derived from the minor of the cluster the gate runs on: the patch of :data:`KUBECTL_PATCHES` for that minor,
else ``v<minor>.0``. Kubernetes publishes ``registry.k8s.io/kubectl`` for every release from 1.28 on, each listed
under "Container Images" in its changelog
(https://github.com/kubernetes/kubernetes/tree/master/CHANGELOG), so ``.0`` exists as soon as a cluster can run the
minor, and tags are immutable. A stack may still write a tag; it is then checked against the cluster's minor.
"""

from __future__ import annotations

import re

KUBECTL_REPOSITORY = "registry.k8s.io/kubectl"
KUBECTL_PATCHES_CHECKED = "2026-12-01"
KUBECTL_PATCHES = {(1, 33): 4, (1, 34): 9, (1, 35): 9, (1, 36): 4, (1, 37): 1}
"""The newest patch of each minor a shipped stack may run whose ``registry.k8s.io/kubectl`` tag was seen published on
:data:`KUBECTL_PATCHES_CHECKED` (1.33.4 is the tag this program pinned before); a newer patch only adds fixes, so the
table moves when it is checked again."""

_TAG_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.-]+)?$")


def minor_text(minor: tuple[int, int]) -> str:
    return f"{minor[0]}.{minor[1]}"


def split_reference(reference: str) -> tuple[str, str | None]:
    """``(repository, tag)`` of an image reference; the tag is ``None`` for a bare repository or a digest alone."""
    name = reference.split("@", 1)[0]
    repository, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        return name, None
    return repository, tag


def is_pinned(reference: str) -> bool:
    """Whether the reference carries its own tag or digest (the stack chose the kubectl version)."""
    return "@" in reference or split_reference(reference)[1] is not None


def tag_minor(tag: str) -> tuple[int, int] | None:
    """The Kubernetes minor a kubectl tag such as ``v1.35.9`` names, or ``None`` if it names none."""
    match = _TAG_VERSION.match(tag)
    return (int(match[1]), int(match[2])) if match else None


def kubectl_tag(minor: tuple[int, int]) -> str:
    """The tag for a cluster of ``minor``: the table's patch, or ``.0`` of a minor the table does not hold."""
    return f"v{minor_text(minor)}.{KUBECTL_PATCHES.get(minor, 0)}"


def allowed_minors(minor: tuple[int, int]) -> list[str]:
    major, number = minor
    return [f"{major}.{n}" for n in range(max(number - 1, 0), number + 2)]


def skew_refusal(reference: str, minor: tuple[int, int]) -> str | None:
    """Why ``reference`` cannot run against a cluster of ``minor``, or ``None``: a bare repository gets its tag from
    the minor, a tag must name a kubectl within one minor of it, a digest alone is taken as the stack's choice."""
    repository, tag = split_reference(reference)
    allowed = allowed_minors(minor)
    named = tag_minor(tag) if tag is not None else minor
    if named is not None and minor_text(named) in allowed:
        return None
    return (
        f"kubectl is supported within one minor of the cluster's Kubernetes {minor_text(minor)} "
        f"(https://kubernetes.io/releases/version-skew-policy/#kubectl): a tag of {', '.join(allowed)}, or write "
        f"{repository} without a tag and it follows the cluster ({kubectl_tag(minor)}, kubectl patches checked "
        f"{KUBECTL_PATCHES_CHECKED})"
    )


def for_cluster(reference: str, minor: tuple[int, int]) -> str:
    """The image the gate runs on a cluster of ``minor``: ``reference`` as pinned, or with :func:`kubectl_tag`."""
    return reference if is_pinned(reference) else f"{reference}:{kubectl_tag(minor)}"
