"""Kueue's upstream artefacts the tests read, fetched at pinned versions and checked against pinned digests.

    python -m tools.kueue_assets fetch  [--into DIR]      fetch what is missing, check what is there
    python -m tools.kueue_assets verify [--into DIR]      only check
    python -m tools.kueue_assets pin --from DIR           maintainers: rewrite the pins from a layout

``DIR`` defaults to ``../shared`` beside the project's root, the folder the tests read (``tests/support/schemas.py``
and ``tests/support/kueue_sources.py``). For every release in :data:`RELEASES` (the verified patches of
``components/config/kueue/profiles.py``, a test keeps the two equal) it holds:

- ``charts/kueue/<v>/chart/``: the chart as ``helm pull oci://registry.k8s.io/kueue/charts/kueue --version <v>
  --untar`` writes it (https://kueue.sigs.k8s.io/docs/installation/#install-by-helm);
- ``charts/kueue/<v>/src/``: ``apis/config/v1beta2/configuration_types.go`` and ``pkg/features/kube_features.go`` of
  the tag, and two files derived from it: ``frameworks.json`` (:func:`frameworks_json`) and ``kubernetes.json``
  (:func:`kubernetes_json`);
- for the newest patch of each minor, ``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` of the tag in
  :attr:`Release.crds`.

Raw files come from https://raw.githubusercontent.com/kubernetes-sigs/kueue/<tag>/. Each file written has a pinned
sha256 in ``tools/kueue_assets.json``, but two of the chart's: the release job rewrites ``values.yaml`` with yq and
``Chart.yaml`` with ``helm package`` (``hack/helm-chart-package.sh`` of the tag), in tool versions of its own, so
their bytes are pinned as Helm reads them (``helm show values --jsonpath '{@}'``, ``helm show chart``): the same for
the registry's chart and for a copy packaged from the tag by other means. A mismatch or a failed download refuses in
one line naming the release, the file, the expected and the actual digest; everything is written into a folder
beside ``DIR`` first and renamed into place once all of it checked, so a refusal leaves ``DIR`` as it was. A folder
already in place is checked and never fetched again or replaced.

Only the standard library and the ``helm`` CLI: CI runs this before any virtualenv exists, on ``ubuntu-latest``,
whose image carries Helm (https://github.com/actions/runner-images/releases/tag/ubuntu24%2F20260615.205).

Adding a Kueue version: add it to :data:`RELEASES` (its CRD folder if it becomes its minor's newest patch, the
sources of ``kubernetes.json`` if the tag still has them), lay the new release's folders out in a layout (``fetch``
cannot, without pins), check them against the tag, and run ``pin --from`` on it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ROOT = PROJECT_ROOT.parent / "shared"
PINS = Path(__file__).with_suffix(".json")
RAW_BASE = "https://raw.githubusercontent.com/kubernetes-sigs/kueue"
CHART = "oci://registry.k8s.io/kueue/charts/kueue"
HELM_READ = ("Chart.yaml", "values.yaml")
"""The chart's files pinned as Helm reads them, not byte for byte (the module docstring says why)."""
FRAMEWORK_SOURCES = tuple(
    f"pkg/controller/jobs/{path}_controller.go"
    for path in (
        "appwrapper/appwrapper",
        "deployment/deployment",
        "job/job",
        "jobset/jobset",
        *(f"kubeflow/jobs/{kind}/{kind}" for kind in ("jaxjob", "paddlejob", "pytorchjob", "tfjob", "xgboostjob")),
        "leaderworkerset/leaderworkerset",
        "mpijob/mpijob",
        "pod/pod",
        "raycluster/raycluster",
        "rayjob/rayjob",
        "rayservice/rayservice",
        "sparkapplication/sparkapplication",
        "statefulset/statefulset",
        "trainjob/trainjob",
    )
)
"""Every file of the tag that declares an integration's ``FrameworkName`` (the same in 0.17-0.19)."""
KUBERNETES_0_17 = ("Makefile-test.mk", "site/content/en/docs/installation/_index.md")
"""Where 0.17's tags say which Kubernetes releases the e2e tests run on and the oldest one supported."""
SRC_FILES = ("configuration_types.go", "frameworks.json", "kube_features.go", "kubernetes.json")


@dataclasses.dataclass(frozen=True)
class Release:
    """What the layout holds of one Kueue release besides its chart and sources."""

    crds: str | None
    """The layout folder of its CRDs; ``None`` where a newer patch of the minor stands for them."""
    kubernetes: tuple[str, str] | None
    """The tag's files :func:`kubernetes_json` reads; ``None``: the tag has neither file, so ``kubernetes.json`` says
    nothing (0.18 moved both, to ``hack/make/test.mk`` and ``site/content/en/docs/getting-started/installation.md``,
    which the pinned digests of 0.18.6 and 0.19.2 do not read)."""


RELEASES = {
    "0.17.1": Release(crds=None, kubernetes=KUBERNETES_0_17),
    "0.17.8": Release(crds="schemas/kueue", kubernetes=KUBERNETES_0_17),
    "0.18.6": Release(crds="schemas/kueue-0.18.6", kubernetes=None),
    "0.19.2": Release(crds="schemas/kueue-0.19.2", kubernetes=None),
}
"""Every Kueue release the tests read, oldest first; ``schemas/kueue`` is the suite's default CRD folder."""


Pins = dict[str, dict[str, dict[str, str]]]
"""Per release: ``files`` (layout path -> sha256 of its bytes) and ``helm`` (path -> sha256 of Helm's reading)."""


class Refused(Exception):
    """A one-line reason nothing was written."""


class Mismatch(Refused):
    """A file off its pin: the release, the file, the expected and the actual digest."""


@dataclasses.dataclass(frozen=True)
class Sources:
    """Where ``fetch`` downloads from; the tests point both at a loopback server."""

    raw_base: str = RAW_BASE
    chart: str = CHART
    helm: tuple[str, ...] = ("helm",)
    plain_http: bool = False
    """``helm pull --plain-http``: a registry without TLS."""


@dataclasses.dataclass(frozen=True)
class Unit:
    """One folder of the layout, fetched and checked as a whole."""

    version: str
    kind: str
    """``chart``, ``src`` or ``crds``."""
    folder: str

    @property
    def label(self) -> str:
        return f"Kueue {self.version}: {self.folder}"


def units() -> list[Unit]:
    found = []
    for version, release in RELEASES.items():
        found += [Unit(version, "chart", chart_folder(version)), Unit(version, "src", f"charts/kueue/{version}/src")]
        if release.crds:
            found.append(Unit(version, "crds", release.crds))
    return found


def chart_folder(version: str) -> str:
    return f"charts/kueue/{version}/chart"


def load_pins(path: Path = PINS) -> Pins:
    pins: Pins = json.loads(path.read_text())
    return pins


def pinned(unit: Unit, pins: Pins) -> tuple[dict[str, str], dict[str, str]]:
    """The unit's byte digests and Helm-read digests, by path inside its folder."""
    prefix = f"{unit.folder}/"
    entry = pins[unit.version]
    files, helm = (
        {p[len(prefix) :]: d for p, d in entry[key].items() if p.startswith(prefix)} for key in ("files", "helm")
    )
    return files, helm


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _mismatch(unit: Unit, name: str, expected: str, got: str, what: str = "sha256") -> Mismatch:
    return Mismatch(f"{unit.label}/{name}: expected {what} {expected}, got {got}")


# --- checking a folder ----------------------------------------------------------------------------------------------


def check(unit: Unit, folder: Path, pins: Pins, helm: Sequence[str]) -> None:
    """Raise :class:`Refused` unless every file pinned for ``unit`` is in ``folder`` with its digest. Other files are
    left alone (a provenance note, a chart's unit-test suites that ``helm package`` drops): no test reads them."""
    files, helm_read = pinned(unit, pins)
    for name, expected in sorted(files.items()):
        path = folder / name
        got = sha256(path.read_bytes()) if path.is_file() else "no such file"
        if got != expected:
            raise _mismatch(unit, name, expected, got)
    if helm_read:
        for name, got in helm_reads(helm, folder).items():
            if got != helm_read[name]:
                raise _mismatch(unit, name, helm_read[name], got, "sha256 as Helm reads it")


def helm_reads(helm: Sequence[str], chart: Path) -> dict[str, str]:
    """The digests of :data:`HELM_READ` as Helm reads them: the values as canonical JSON, the metadata as ``helm show
    chart`` prints it."""
    values = json.loads(_helm(helm, "show", "values", str(chart), "--jsonpath", "{@}"))
    canonical = json.dumps(values, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return {"Chart.yaml": sha256(_helm(helm, "show", "chart", str(chart))), "values.yaml": sha256(canonical)}


def _helm(helm: Sequence[str], *args: str) -> bytes:
    try:
        result = subprocess.run([*helm, *args], capture_output=True, check=False)
    except FileNotFoundError:
        raise Refused(f"{helm[0]} not found: the chart needs Helm (https://helm.sh/docs/intro/install/)") from None
    if result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines() or ["no output"]
        raise Refused(f"helm {' '.join(args)} failed: {lines[-1]}")
    return result.stdout


# --- fetching -------------------------------------------------------------------------------------------------------


def fetch(root: Path, sources: Sources, pins: Pins) -> list[Unit]:
    """Check each folder already in ``root``, fetch the missing ones; return those fetched. Everything missing is
    written beside ``root`` first and renamed into place only once all of it checked."""
    missing = []
    for unit in units():
        target = root / unit.folder
        if target.exists():
            try:
                check(unit, target, pins, sources.helm)
            except Mismatch as mismatch:
                raise Refused(f"{mismatch} (in place, so not fetched again: remove {target} to fetch it)") from None
        else:
            missing.append(unit)
    if not missing:
        return []
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.partial-", dir=root.parent))
    try:
        for unit in missing:
            _write(unit, staging / unit.folder, sources, pins)
        for unit in missing:
            (root / unit.folder).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / unit.folder, root / unit.folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return missing


def _write(unit: Unit, folder: Path, sources: Sources, pins: Pins) -> None:
    if unit.kind == "chart":
        _pull_chart(unit, folder, sources, pins)
        return
    folder.mkdir(parents=True)
    if unit.kind == "crds":
        names = sorted(pinned(unit, pins)[0])
        texts = _download(unit, [f"config/components/crd/bases/{name}" for name in names], sources)
    else:
        texts = _source_files(unit, sources)
    for name, data in texts.items():
        (folder / Path(name).name).write_bytes(data)
    check(unit, folder, pins, sources.helm)


def _source_files(unit: Unit, sources: Sources) -> dict[str, bytes]:
    """``src/``: two files of the tag as they are, and the two derived from the tag's files."""
    release = RELEASES[unit.version]
    copied = ["apis/config/v1beta2/configuration_types.go", "pkg/features/kube_features.go"]
    read = _download(unit, [*copied, *FRAMEWORK_SOURCES, *(release.kubernetes or ())], sources)
    texts = {path: data.decode() for path, data in read.items()}
    makefile, install = release.kubernetes or (None, None)
    return {
        **{path: read[path] for path in copied},
        "frameworks.json": frameworks_json(texts[path] for path in FRAMEWORK_SOURCES),
        "kubernetes.json": kubernetes_json(
            texts[makefile] if makefile else None, texts[install] if install else None, unit.label
        ),
    }


def _download(unit: Unit, paths: list[str], sources: Sources) -> dict[str, bytes]:
    """The tag's ``paths``, read concurrently (about twenty per release)."""
    base = f"{sources.raw_base}/v{unit.version}"
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        bodies = pool.map(lambda path: _get(unit, f"{base}/{path}"), paths)
        return dict(zip(paths, bodies, strict=True))


def _get(unit: Unit, url: str, attempts: int = 3) -> bytes:
    """The body at ``url``; a server error or a network failure is tried again, twice."""
    for attempt in range(1, attempts + 1):
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as error:
            failure = f"HTTP {error.code} {error.reason}"
            if error.code < 500:
                break
        except (urllib.error.URLError, TimeoutError) as error:
            failure = str(getattr(error, "reason", error))
        if attempt < attempts:
            time.sleep(attempt)
    raise Refused(f"{unit.label}: GET {url} failed: {failure}")


def _pull_chart(unit: Unit, folder: Path, sources: Sources, pins: Pins) -> None:
    """``helm pull --untar``, then the pulled files must be exactly the pinned ones: another set is another chart."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    untar = folder.parent / ".pull"
    args = ["pull", sources.chart, "--version", unit.version, "--untar", "--untardir", str(untar)]
    _helm(sources.helm, *args, *(["--plain-http"] if sources.plain_http else []))
    os.replace(untar / "kueue", folder)
    untar.rmdir()
    files, helm_read = pinned(unit, pins)
    pulled = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    extra = sorted(pulled - set(files) - set(helm_read))
    if extra:
        raise _mismatch(unit, extra[0], "no such file", sha256((folder / extra[0]).read_bytes()))
    check(unit, folder, pins, sources.helm)


# --- the derived files ----------------------------------------------------------------------------------------------

_FRAMEWORK = re.compile(r'^\s*FrameworkName\s*=\s*"([^"]+)"', re.M)
_E2E_VERSIONS = re.compile(r"^E2E_K8S_VERSIONS \?= (.+)$", re.M)
_MINIMUM = re.compile(r"with version (\d+\.\d+) or newer")


def frameworks_json(controllers: Iterable[str]) -> bytes:
    """Every integration the manager registers (``FrameworkName`` of each job controller), sorted, as JSON."""
    return json.dumps(sorted({name for text in controllers for name in _FRAMEWORK.findall(text)})).encode()


def kubernetes_json(makefile: str | None, install: str | None, label: str) -> bytes:
    """``{"tested": [...], "minimum": "1.29"}``: the e2e suites' Kubernetes releases (``E2E_K8S_VERSIONS``) and the
    oldest one the installation page names; empty and null where the tag has no such file."""
    tested, minimum = _E2E_VERSIONS.search(makefile or ""), _MINIMUM.search(install or "")
    if (makefile is not None and tested is None) or (install is not None and minimum is None):
        raise Refused(f"{label}: kubernetes.json: E2E_K8S_VERSIONS or 'with version X or newer' not found")
    return json.dumps(
        {"tested": tested.group(1).split() if tested else [], "minimum": minimum.group(1) if minimum else None}
    ).encode()


# --- pinning --------------------------------------------------------------------------------------------------------


def pins_of(root: Path, helm: Sequence[str]) -> Pins:
    """The pins of the layout in ``root``; the chart as ``helm package`` of it packs it, which is what ``helm pull``
    of the packaged chart unpacks (``.helmignore`` applied)."""
    pins: Pins = {}
    for unit in units():
        entry = pins.setdefault(unit.version, {"files": {}, "helm": {}})
        folder = root / unit.folder
        if unit.kind == "chart":
            with tempfile.TemporaryDirectory() as scratch:
                packed = _packed(helm, folder, Path(scratch))
                names = [p.relative_to(packed).as_posix() for p in packed.rglob("*") if p.is_file()]
                entry["files"] |= _digests(unit, packed, [n for n in names if n not in HELM_READ])
                entry["helm"] |= {f"{unit.folder}/{n}": d for n, d in helm_reads(helm, packed).items()}
        else:
            names = [p.name for p in folder.glob("kueue.x-k8s.io_*.yaml")] if unit.kind == "crds" else list(SRC_FILES)
            entry["files"] |= _digests(unit, folder, names)
    return pins


def _digests(unit: Unit, folder: Path, names: list[str]) -> dict[str, str]:
    return {f"{unit.folder}/{name}": sha256((folder / name).read_bytes()) for name in sorted(names)}


def _packed(helm: Sequence[str], chart: Path, scratch: Path) -> Path:
    _helm(helm, "package", str(chart), "--destination", str(scratch))
    (archive,) = scratch.glob("*.tgz")
    with tarfile.open(archive) as tar:
        tar.extractall(scratch / "unpacked", filter="data")
    return scratch / "unpacked/kueue"


# --- the command line -----------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Exit codes: 0 done; 1 refused (one line on stderr); 2 bad arguments."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--helm", default=os.environ.get("KUEUE_ASSETS_HELM", "helm"), help="the helm CLI")
    parser = argparse.ArgumentParser(prog="python -m tools.kueue_assets", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("fetch", "verify"):
        sub = commands.add_parser(name, parents=[common])
        sub.add_argument("--into", type=Path, default=DEFAULT_ROOT, help="the layout (default: ../shared)")
    fetching = commands.choices["fetch"]
    fetching.add_argument("--raw-base", default=RAW_BASE, help=f"where the tags' files are (default: {RAW_BASE})")
    fetching.add_argument("--chart", default=CHART, help=f"the chart's OCI repository (default: {CHART})")
    fetching.add_argument("--plain-http", action="store_true", help="the OCI registry speaks plain HTTP")
    commands.add_parser("pin", parents=[common]).add_argument("--from", dest="source", type=Path, required=True)
    args = parser.parse_args(argv)
    helm = (args.helm,)
    try:
        if args.command == "pin":
            PINS.write_text(json.dumps(pins_of(args.source, helm), indent=1, sort_keys=True) + "\n")
            print(f"wrote {PINS.relative_to(PROJECT_ROOT)} from {args.source}")
        elif args.command == "verify":
            pins = load_pins()
            for unit in units():
                check(unit, args.into / unit.folder, pins, helm)
            print(f"ok: {args.into} holds every pinned file of Kueue {', '.join(RELEASES)}")
        else:
            sources = Sources(args.raw_base, args.chart, helm, args.plain_http)
            fetched = fetch(args.into, sources, load_pins())
            print(f"ok: {args.into}: fetched {', '.join(u.folder for u in fetched) or 'nothing, all in place'}")
    except Refused as refused:
        print(f"kueue_assets: refused: {refused}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
