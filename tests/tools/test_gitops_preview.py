"""Where the provider writes each rendered object: renderPathForResource, mirrored."""

from __future__ import annotations

from tools.gitops_preview import render_path


def test_a_crd_goes_to_0_crd_and_a_missing_namespace_is_written_default():
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "a.x.io"}}
    assert render_path(crd, "d") == "d/0-crd/apiextensions.k8s.io_v1-customresourcedefinition-default-a.x.io.yaml"


def test_everything_else_goes_to_1_manifest_with_slashes_and_colons_of_the_api_version_replaced():
    obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "t"}}
    assert render_path(obj, "d/20-queues") == "d/20-queues/1-manifest/kueue.x-k8s.io_v1beta2-localqueue-t-q.yaml"
    odd = {"apiVersion": "x.io:v1", "kind": "Thing", "metadata": {"name": "n"}}
    assert render_path(odd, "d") == "d/1-manifest/x.io_v1-thing-default-n.yaml"


def test_a_crd_kind_of_another_group_is_a_manifest():
    obj = {"apiVersion": "x.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "n"}}
    assert render_path(obj, "d") == "d/1-manifest/x.io_v1-customresourcedefinition-default-n.yaml"
