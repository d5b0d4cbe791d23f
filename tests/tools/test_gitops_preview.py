"""Where the provider writes each rendered object: renderPathForResource, mirrored; the chart's templates parsed."""

from __future__ import annotations

import datetime

import yaml

from tools.gitops_preview import render_path, yaml_documents


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


def test_a_template_parses_to_its_non_empty_documents_each_caller_getting_objects_of_its_own():
    text = "a: [1, 1.0, true, '1', 2024-01-01]\nb: &x {c: d}\ne: *x\n---\n---\n# only a comment\n---\nf: null\n"
    first = yaml_documents(text)
    assert first == [document for document in yaml.safe_load_all(text) if document]
    assert [type(item) for item in first[0]["a"]] == [int, float, bool, str, datetime.date]
    assert first[0]["b"] is first[0]["e"], "an alias is the same object, as a parse makes it"
    first[0]["a"].append("a caller's own change")
    again = yaml_documents(text)
    assert again == [document for document in yaml.safe_load_all(text) if document] and again[0] is not first[0]
