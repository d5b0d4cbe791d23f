"""tools/kueue_assets.py against a loopback upstream (tests/support/upstream.py) serving what the layout in
``../shared`` holds: the tag's raw files and, for real ``helm pull --plain-http``, the chart packaged by real Helm.

The derivation inputs the layout does not hold (the job controllers, 0.17's Makefile and installation page) are
served in their upstream shape, rebuilt from the derived files; the derivation itself is checked on upstream's
exact lines below. Tests of the chart need the helm CLI (on ubuntu-latest's PATH; elsewhere $KUEUE_ASSETS_HELM) and
skip, saying so, without it; all others run on the standard library alone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from components.config.kueue.profiles import PROFILES
from tests.support.kueue_sources import FETCH_HINT, KUEUE_CHARTS
from tests.support.schemas import KUEUE_CRD_DIRS
from tests.support.tiers import SLOW, tiered
from tests.support.upstream import Upstream, serving
from tools import kueue_assets
from tools.kueue_assets import RELEASES, Refused, Sources, Unit, sha256

SHARED = kueue_assets.DEFAULT_ROOT
PINS = kueue_assets.load_pins()
RAW = [unit for unit in kueue_assets.units() if unit.kind != "chart"]
HELM = os.environ.get("KUEUE_ASSETS_HELM") or shutil.which("helm")
needs_shared = pytest.mark.skipif(
    not (SHARED / "charts/kueue").is_dir(), reason=f"no Kueue layout at {SHARED}: {FETCH_HINT}"
)
needs_helm = pytest.mark.skipif(
    HELM is None,
    reason="the chart needs the helm CLI (https://helm.sh/docs/intro/install/): on the PATH or in $KUEUE_ASSETS_HELM",
)


def test_the_releases_are_the_verified_patches_and_the_folders_those_the_tests_read():
    assert list(RELEASES) == [version for profile in PROFILES.values() for version in profile.verified]
    assert list(PINS) == list(RELEASES)
    newest = {profile.latest: Path(KUEUE_CRD_DIRS[minor]).name for minor, profile in PROFILES.items()}
    assert {v: Path(r.crds).name for v, r in RELEASES.items() if r.crds} == newest
    assert RELEASES["0.17.8"].crds == "schemas/kueue", "the suite's default CRD folder (KUEUE_CRD_DIR)"
    assert SHARED / "charts/kueue" == KUEUE_CHARTS


def test_every_folder_is_pinned_and_only_values_and_chart_yaml_as_helm_reads_them():
    for unit in kueue_assets.units():
        files, helm_read = kueue_assets.pinned(unit, PINS)
        if unit.kind == "chart":
            assert {"values.yaml", "Chart.yaml"}.isdisjoint(files) and set(helm_read) == set(kueue_assets.HELM_READ)
            assert any(name.startswith("templates/") for name in files), unit.label
        else:
            assert not helm_read and files, unit.label
    assert all(set(kueue_assets.pinned(u, PINS)[0]) == set(kueue_assets.SRC_FILES) for u in RAW if u.kind == "src")


# --- the derived files, on upstream's own lines ---------------------------------------------------------------------


def test_frameworks_are_every_controllers_framework_name_sorted_as_json():
    controllers = [
        'const (\n\tFrameworkName = "batch/job"\n)\n',  # pkg/controller/jobs/job/job_controller.go
        '\tFrameworkName          = "ray.io/rayjob"\n\tother = "x"\n',  # aligned, as gofmt writes a const block
        '\tFrameworkName                  = "pod"\n',
        'var _ = jobframework.RegisterIntegration(FrameworkName, cb)\n\tFrameworkName = "batch/job"\n',
    ]
    assert kueue_assets.frameworks_json(controllers) == b'["batch/job", "pod", "ray.io/rayjob"]'


def test_kubernetes_json_is_the_e2e_releases_and_the_installation_pages_minimum():
    makefile = "E2E_K8S_VERSIONS ?= 1.33.7 1.34.3 1.35.0\nE2E_K8S_VERSION ?= 1.35\n"
    page = "- A Kubernetes cluster with version 1.29 or newer is running. Learn how to ...\n"
    derived = kueue_assets.kubernetes_json(makefile, page, "Kueue 0.17.8")
    assert derived == b'{"tested": ["1.33.7", "1.34.3", "1.35.0"], "minimum": "1.29"}'
    assert kueue_assets.kubernetes_json(None, None, "Kueue 0.19.2") == b'{"tested": [], "minimum": null}'
    with pytest.raises(Refused, match=r"^Kueue 0\.17\.8: kubernetes\.json: E2E_K8S_VERSIONS"):
        kueue_assets.kubernetes_json("E2E_K8S_VERSION ?= 1.35\n", page, "Kueue 0.17.8")


# --- fetching the raw folders from a loopback upstream --------------------------------------------------------------


def raw_upstream(layout: Path) -> Upstream:
    """The tags' files as raw.githubusercontent.com serves them, from ``layout``'s copies and the derived files."""
    upstream = Upstream()
    for version, release in RELEASES.items():
        tag, src = f"/v{version}", layout / f"charts/kueue/{version}/src"
        upstream.raw[f"{tag}/apis/config/v1beta2/configuration_types.go"] = (
            src / "configuration_types.go"
        ).read_bytes()
        upstream.raw[f"{tag}/pkg/features/kube_features.go"] = (src / "kube_features.go").read_bytes()
        names = json.loads((src / "frameworks.json").read_text())
        for path, name in zip(kueue_assets.FRAMEWORK_SOURCES, names, strict=True):
            upstream.raw[f"{tag}/{path}"] = f'package x\n\nconst (\n\tFrameworkName = "{name}"\n)\n'.encode()
        if release.kubernetes:
            facts = json.loads((src / "kubernetes.json").read_text())
            makefile, page = release.kubernetes
            upstream.raw[f"{tag}/{makefile}"] = f"E2E_K8S_VERSIONS ?= {' '.join(facts['tested'])}\n".encode()
            upstream.raw[f"{tag}/{page}"] = f"- A cluster with version {facts['minimum']} or newer\n".encode()
        for crd in (layout / release.crds).glob("kueue.x-k8s.io_*.yaml") if release.crds else ():
            upstream.raw[f"{tag}/config/components/crd/bases/{crd.name}"] = crd.read_bytes()
    return upstream


def writable_copy(source: Path, target: Path) -> None:
    """A copy of part of the layout to change (the shared one may be read-only, and copies keep modes)."""
    shutil.copytree(source, target, copy_function=shutil.copyfile)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


@pytest.fixture
def raw_only(monkeypatch) -> list[Unit]:
    """``fetch`` and ``verify`` over the folders other than the charts: no helm needed."""
    monkeypatch.setattr(kueue_assets, "units", lambda: RAW)
    return RAW


def sources(upstream: Upstream) -> Sources:
    return Sources(upstream.base, upstream.chart_ref, (HELM or "helm",), plain_http=True)


@needs_shared
def test_a_fetch_writes_the_layout_byte_for_byte_and_the_next_one_fetches_nothing(raw_only, tmp_path):
    root = tmp_path / "shared"
    with serving(raw_upstream(SHARED)) as upstream:
        assert kueue_assets.fetch(root, sources(upstream), PINS) == raw_only
        asked = len(upstream.requests)
        assert kueue_assets.fetch(root, sources(upstream), PINS) == []
        assert len(upstream.requests) == asked, "a verified folder is not fetched again"
    for unit in raw_only:
        kueue_assets.check(unit, root / unit.folder, PINS, ())
        written = sorted(p.name for p in (root / unit.folder).iterdir())
        assert written == sorted(kueue_assets.pinned(unit, PINS)[0]), unit.label
        assert all((root / unit.folder / n).read_bytes() == (SHARED / unit.folder / n).read_bytes() for n in written)
    assert [p.name for p in tmp_path.iterdir()] == ["shared"], "no staging folder is left"


@needs_shared
def test_the_layout_in_place_verifies_and_nothing_is_fetched(raw_only):
    with serving(Upstream()) as upstream:
        assert kueue_assets.fetch(SHARED, sources(upstream), PINS) == []
        assert upstream.requests == []


def tamper_crd(upstream: Upstream) -> tuple[str, str]:
    upstream.raw["/v0.19.2/config/components/crd/bases/kueue.x-k8s.io_workloads.yaml"] += b"# changed\n"
    return "0.19.2", "schemas/kueue-0.19.2/kueue.x-k8s.io_workloads.yaml"


def tamper_controller(upstream: Upstream) -> tuple[str, str]:
    """A source the derived ``frameworks.json`` is made from: the derived file is off its pin."""
    upstream.raw[f"/v0.18.6/{kueue_assets.FRAMEWORK_SOURCES[0]}"] += b'\tFrameworkName = "example.com/extra"\n'
    return "0.18.6", "charts/kueue/0.18.6/src/frameworks.json"


@needs_shared
@pytest.mark.parametrize("tamper", [tamper_crd, tamper_controller], ids=lambda f: f.__name__)
def test_a_file_off_its_pin_is_refused_naming_it_and_both_digests_and_nothing_is_written(raw_only, tmp_path, tamper):
    upstream = raw_upstream(SHARED)
    version, layout_path = tamper(upstream)
    with serving(upstream), pytest.raises(Refused) as refused:
        kueue_assets.fetch(tmp_path / "shared", sources(upstream), PINS)
    expected = PINS[version]["files"][layout_path]
    assert str(refused.value).startswith(f"Kueue {version}: {layout_path}: expected sha256 {expected}, got ")
    assert len(str(refused.value).split()[-1]) == 64 and "\n" not in str(refused.value)
    assert list(tmp_path.iterdir()) == [], "neither the layout nor a staging folder"


@needs_shared
def test_a_failed_download_is_refused_naming_the_url(raw_only, tmp_path):
    upstream = raw_upstream(SHARED)
    del upstream.raw["/v0.17.1/pkg/features/kube_features.go"]
    with serving(upstream), pytest.raises(Refused) as refused:
        kueue_assets.fetch(tmp_path / "shared", sources(upstream), PINS)
    url = f"{upstream.base}/v0.17.1/pkg/features/kube_features.go"
    assert str(refused.value) == f"Kueue 0.17.1: charts/kueue/0.17.1/src: GET {url} failed: HTTP 404 Not Found"
    assert list(tmp_path.iterdir()) == []


@needs_shared
def test_a_folder_in_place_off_its_pins_is_refused_and_left_as_it_is(raw_only, tmp_path):
    root = tmp_path / "shared"
    writable_copy(SHARED / "schemas", root / "schemas")
    crd = root / "schemas/kueue/kueue.x-k8s.io_cohorts.yaml"
    crd.write_bytes(b"kind: Changed\n")
    with serving(raw_upstream(SHARED)) as upstream, pytest.raises(Refused, match="in place, so not fetched again"):
        kueue_assets.fetch(root, sources(upstream), PINS)
    assert crd.read_bytes() == b"kind: Changed\n" and not (root / "charts").exists()


@needs_shared
def test_the_command_line_fetches_verifies_and_refuses_in_one_line(raw_only, tmp_path, capsys):
    root = tmp_path / "shared"
    with serving(raw_upstream(SHARED)) as upstream:
        assert kueue_assets.main(["fetch", "--into", str(root), "--raw-base", upstream.base]) == 0
    assert capsys.readouterr().out.startswith(f"ok: {root}: fetched charts/kueue/0.17.1/src, ")
    assert kueue_assets.main(["verify", "--into", str(root)]) == 0
    (root / "charts/kueue/0.19.2/src/kube_features.go").write_text("package features\n")
    assert kueue_assets.main(["verify", "--into", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("kueue_assets: refused: Kueue 0.19.2: charts/kueue/0.19.2/src/kube_features.go: expected")
    assert err.count("\n") == 1


@needs_shared
def test_the_pins_are_those_of_the_layout(raw_only):
    charts = tuple(f"{kueue_assets.chart_folder(version)}/" for version in RELEASES)
    raw = {
        version: {p: d for p, d in entry["files"].items() if not p.startswith(charts)}
        for version, entry in PINS.items()
    }
    assert {version: entry["files"] for version, entry in kueue_assets.pins_of(SHARED, ()).items()} == raw


# --- the chart, with real Helm: packaged from the layout, pulled over OCI ------------------------------------------


@pytest.fixture
def helm_home(tmp_path, monkeypatch) -> None:
    """Helm's cache, configuration and data in the test's folder, not the user's."""
    for name in ("CACHE", "CONFIG", "DATA"):
        monkeypatch.setenv(f"HELM_{name}_HOME", str(tmp_path / f"helm-{name.lower()}"))


def packaged(chart: Path, scratch: Path) -> bytes:
    """``helm package`` of ``chart``: the archive Kueue's release job pushes, from this layout's copy."""
    scratch.mkdir()
    subprocess.run([HELM, "package", str(chart), "--destination", str(scratch)], check=True, capture_output=True)
    (archive,) = scratch.glob("*.tgz")
    return archive.read_bytes()


def chart_unit(version: str) -> Unit:
    return next(u for u in kueue_assets.units() if u.kind == "chart" and u.version == version)


@needs_shared
@needs_helm
@pytest.mark.usefixtures("helm_home")
@pytest.mark.parametrize(
    "version", tiered([(v,) for v in RELEASES], lambda v: v == "0.17.8", lambda v: v)
)  # 0.17.8 keeps its helm-unittest suites (no tests/* in its .helmignore), 0.18 on drops them
def test_helm_pull_of_the_chart_checks_and_lays_it_out_as_the_tests_read_it(version, tmp_path, monkeypatch):
    unit = chart_unit(version)
    monkeypatch.setattr(kueue_assets, "units", lambda: [unit])
    upstream = Upstream(charts={version: packaged(SHARED / unit.folder, tmp_path / "package")})
    root = tmp_path / "shared"
    with serving(upstream):
        assert kueue_assets.fetch(root, sources(upstream), PINS) == [unit]
        assert kueue_assets.fetch(root, sources(upstream), PINS) == []
    pulled = root / unit.folder
    assert (pulled / "Chart.yaml").is_file() and (pulled / "templates/manager/manager.yaml").is_file()
    files, _ = kueue_assets.pinned(unit, PINS)
    assert all(sha256((SHARED / unit.folder / name).read_bytes()) == files[name] for name in files)


@SLOW
@needs_shared
@needs_helm
@pytest.mark.usefixtures("helm_home")
@pytest.mark.parametrize(
    ("name", "pinned"),
    [("templates/manager/manager.yaml", True), ("templates/extra.yaml", False)],
    ids=["changed", "added"],
)
def test_a_chart_with_a_template_off_its_pins_is_refused_and_nothing_is_written(tmp_path, monkeypatch, name, pinned):
    unit = chart_unit("0.19.2")
    monkeypatch.setattr(kueue_assets, "units", lambda: [unit])
    changed = tmp_path / "kueue"
    writable_copy(SHARED / unit.folder, changed)
    template = changed / name
    template.write_text((template.read_text() if pinned else "") + "# changed\n")
    upstream = Upstream(charts={"0.19.2": packaged(changed, tmp_path / "package")})
    with serving(upstream), pytest.raises(Refused) as refused:
        kueue_assets.fetch(tmp_path / "shared", sources(upstream), PINS)
    expected = PINS["0.19.2"]["files"][f"{unit.folder}/{name}"] if pinned else "no such file"
    assert str(refused.value) == f"{unit.label}/{name}: expected sha256 {expected}, got {sha256(template.read_bytes())}"
    assert not (tmp_path / "shared").exists() and not list(tmp_path.glob(".shared.partial-*"))


@SLOW
@needs_shared
@needs_helm
def test_the_layout_in_place_verifies_charts_included_and_the_pins_are_its_own():
    assert kueue_assets.main(["verify", "--into", str(SHARED), "--helm", str(HELM)]) == 0
    assert kueue_assets.pins_of(SHARED, (str(HELM),)) == PINS
