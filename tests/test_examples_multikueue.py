"""The MultiKueue gallery (examples/multikueue/): every stack renders one of Kueue v0.19.2's own MultiKueue set-ups
object for object, with the kubeconfig Secrets its MultiKueueClusters read, each only as a secret."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.gallery import assert_renders_the_upstream_objects
from tests.support.kueue_examples import EXAMPLES, GALLERY, REFUSED
from tests.support.multikueue_examples import MULTIKUEUE_GALLERY
from tests.support.stacks import of_type, rendered

GALLERY_DIR = PROJECT_ROOT / "examples/multikueue"
NAMES = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in GALLERY_DIR.glob("Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def gallery():
    cache: dict[str, Any] = {}

    def render_stack(name: str):
        if name not in cache:
            cache[name] = rendered(GALLERY_DIR / f"Pulumi.{name}.yaml")
        return cache[name]

    return render_stack


def test_every_stack_has_its_upstream_set_up_and_every_set_up_its_stack():
    assert sorted(MULTIKUEUE_GALLERY) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_header_names_the_upstream_file_and_the_readme_lists_it(name):
    url = MULTIKUEUE_GALLERY[name].example.url
    header = "\n".join(line for line in (GALLERY_DIR / f"Pulumi.{name}.yaml").read_text().splitlines()[:8])
    assert url in header
    rows = [line for line in (GALLERY_DIR / "README.md").read_text().splitlines() if f"`Pulumi.{name}.yaml`" in line]
    assert len(rows) == 1 and f"({url})" in rows[0]


@pytest.mark.parametrize("name", NAMES)
def test_the_stack_renders_the_upstream_objects_field_for_field(name, gallery):
    plan, manifests = gallery(name)
    assert_renders_the_upstream_objects(plan, manifests, MULTIKUEUE_GALLERY[name].example.objects)


@pytest.mark.parametrize("name", NAMES)
def test_each_multikueue_cluster_reads_a_secret_the_stack_makes_in_kueues_namespace_as_a_secret(name, gallery):
    plan, _ = gallery(name)
    secrets = [
        r
        for r in of_type(plan, "kubernetes:core/v1:Secret")
        if r["inputs"]["metadata"].get("namespace") == "kueue-system"
    ]
    assert sorted(r["inputs"]["metadata"]["name"] for r in secrets) == sorted(MULTIKUEUE_GALLERY[name].secrets)
    assert all(r["inputs"]["stringData"] == "[secret]" for r in secrets)


QUEUE_OBJECT_FILES = [
    "admin/concurrent-admission-setup.yaml", "admin/minimal-cq.yaml", "admin/resource-flavor-empty.yaml",
    "admin/resource-flavor-taints.yaml", "admin/resource-flavor-tolerations.yaml", "admin/shared-quota-setup.yaml",
    "admin/single-clusterqueue-setup.yaml", "admission-fs/admission-fair-sharing-setup.yaml",
    "dra/sample-dra-capacity-queues.yaml", "dra/sample-dra-counter-queues.yaml", "dra/sample-dra-queues.yaml",
    "getting-started/quick-start-setup.yaml", "multikueue/multikueue-setup.yaml", "multikueue/tas/manager-setup.yaml",
    "multikueue/tas/worker-setup.yaml", "provisioning/provisioning-setup.yaml", "sample-admission-check.yaml",
    "serving-workloads/sample-hami.yaml", "tas/sample-gpu-queues.yaml", "tas/sample-queues.yaml",
]  # fmt: skip
"""Every file under ``site/static/examples/`` of kubernetes-sigs/kueue v0.19.2 that holds a Kueue object other than a
Workload (listed from ``git ls-tree -r v0.19.2 site/static/examples`` and each file's kinds)."""


def test_every_queue_object_example_of_kueue_v0_19_2_is_a_gallery_stack_or_refused_naming_its_key():
    sources = {example.source for example in GALLERY.values()} | {
        entry.example.source for entry in MULTIKUEUE_GALLERY.values()
    }
    sources |= {refused.source for refused in REFUSED}
    assert [path for path in QUEUE_OBJECT_FILES if EXAMPLES + path not in sources] == []
