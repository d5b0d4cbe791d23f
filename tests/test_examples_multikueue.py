"""The MultiKueue gallery (examples/multikueue/): every stack renders one of Kueue v0.19.2's own MultiKueue set-ups
object for object, with the kubeconfig Secrets its MultiKueueClusters read, each only as a secret."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import PROJECT_ROOT
from tests.support.gallery import assert_renders_the_upstream_objects
from tests.support.multikueue_examples import MULTIKUEUE_GALLERY
from tests.support.stacks import of_type, rendered

GALLERY_DIR = PROJECT_ROOT / "examples/multikueue"
NAMES = sorted(path.name.removeprefix("Pulumi.").removesuffix(".yaml") for path in GALLERY_DIR.glob("Pulumi.*.yaml"))


@pytest.fixture(scope="module")
def gallery(tmp_path_factory: pytest.TempPathFactory):
    cache: dict[str, Any] = {}

    def render_stack(name: str):
        if name not in cache:
            cache[name] = rendered(tmp_path_factory.mktemp(name), GALLERY_DIR / f"Pulumi.{name}.yaml")
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
