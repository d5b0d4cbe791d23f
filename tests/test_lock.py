"""The dependency locks: requirements.txt (runtime: CI, `pulumi install`, the operator's workspace),
requirements-dev.txt (developers and the test suite) and policies/requirements.txt (the policy pack), compiled by
deploy/ci/lock.sh from the ranges in the matching .in files. Every pin is exact and hash-checked, names no package
index, satisfies its range, agrees across the three files and is there on every Python from 3.11 on, on Linux and
macOS."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support import PROJECT_ROOT

LOCKS = {
    "requirements.txt": "requirements.in",
    "requirements-dev.txt": "requirements-dev.in",
    "policies/requirements.txt": "policies/requirements.in",
}
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;]+)\s*(?:;\s*(?P<marker>[^\\]+?))?\s*$")
HASH = re.compile(r"^--hash=sha256:[0-9a-f]{64}$")
# Where the locks must hold: the CPython minors from the project's floor (pyproject's target-version) on, on the
# platforms install-tools.sh supports.
ENVIRONMENTS = [
    {
        "python_version": minor,
        "python_full_version": f"{minor}.0",
        "sys_platform": platform,
        "platform_system": system,
        "platform_machine": machine,
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
        "os_name": "posix",
    }
    for minor, (platform, system), machine in itertools.product(
        ["3.11", "3.12", "3.13", "3.14"], [("linux", "Linux"), ("darwin", "Darwin")], ["x86_64", "arm64", "aarch64"]
    )
]


def entries(lock: str) -> list[tuple[str, list[str]]]:
    """Each requirement of a lock as (its first line, its options), continuation lines joined, comments dropped."""
    logical = re.sub(r"\\\n\s*", " ", (PROJECT_ROOT / lock).read_text())
    lines = [line.split(" #", 1)[0].strip() for line in logical.splitlines()]
    found = []
    for line in filter(None, (line for line in lines if not line.startswith("#"))):
        head, *options = line.split(" --")
        found.append((head.strip(), ["--" + option.strip() for option in options]))
    return found


def pins(lock: str) -> dict[str, list[tuple[Version, Marker | None, list[str]]]]:
    """Package -> its pins (version, marker, hashes); a package may be pinned once per marker."""
    result: dict[str, list[tuple[Version, Marker | None, list[str]]]] = {}
    for head, options in entries(lock):
        match = PIN.match(head)
        assert match, f"{lock}: {head!r} is not pinned with =="
        marker = Marker(match["marker"]) if match["marker"] else None
        result.setdefault(canonicalize_name(match["name"]), []).append((Version(match["version"]), marker, options))
    return result


def ranges(source: str) -> list[Requirement]:
    """The requirements of a .in file, following its `-r` includes."""
    found = []
    for raw in (PROJECT_ROOT / source).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("-r "):
            found += ranges(str(Path(source).parent / line.removeprefix("-r ").strip()))
        elif line:
            found.append(Requirement(line))
    return found


def pin_for(
    lock: str, locked: dict[str, list[tuple[Version, Marker | None, list[str]]]], name: str, environment: dict[str, str]
) -> Version | None:
    """The one pin of ``name`` that ``locked`` (the :func:`pins` of ``lock``, parsed once by the caller) installs in
    ``environment``."""
    chosen = [
        version
        for version, marker, _ in locked.get(canonicalize_name(name), [])
        if marker is None or marker.evaluate(environment)
    ]
    assert len(chosen) <= 1, f"{lock}: {name} is pinned twice for {environment}"
    return chosen[0] if chosen else None


@pytest.mark.parametrize("lock", LOCKS)
def test_every_requirement_is_pinned_exactly_with_at_least_one_hash(lock):
    found = entries(lock)
    assert found, f"{lock} is empty"
    for head, options in found:
        assert PIN.match(head), f"{lock}: {head!r} is not pinned with =="
        assert options and all(HASH.match(option) for option in options), f"{lock}: {head} needs --hash=sha256 only"


@pytest.mark.parametrize("lock", LOCKS)
def test_no_lock_names_a_package_index_or_any_host(lock):
    text = (PROJECT_ROOT / lock).read_text()
    assert "://" not in text, f"{lock} names a host"
    for option in ("--index-url", "--extra-index-url", "--find-links", "--trusted-host", "-i ", "-f "):
        assert not re.search(rf"^\s*{re.escape(option)}", text, re.M), f"{lock}: {option}"


@pytest.mark.parametrize(("lock", "source"), LOCKS.items())
def test_every_range_a_human_wrote_is_met_by_its_pin_everywhere(lock, source):
    locked = pins(lock)
    for requirement, environment in itertools.product(ranges(source), ENVIRONMENTS):
        version = pin_for(lock, locked, requirement.name, environment)
        assert version is not None, f"{lock}: no pin of {requirement.name} for {environment}"
        assert requirement.specifier.contains(version, prereleases=True), f"{lock}: {requirement.name}=={version}"


def test_the_three_locks_agree_on_every_package_they_share():
    runtime, dev, pack = (pins(lock) for lock in LOCKS)
    assert set(runtime) <= set(dev) and set(pack) <= set(dev), "the dev lock holds the runtime and the pack"
    for name in set(runtime) | set(pack):
        for other in (runtime, pack):
            if name in other:
                assert [v for v, _, _ in other[name]] == [v for v, _, _ in dev[name]], name


@pytest.mark.parametrize(("lock", "source"), LOCKS.items())
def test_no_package_a_human_named_is_locked_to_a_pre_release(lock, source):
    # uv takes a pre-release when nothing else resolves (pulumi-policy 1.22 alphas once did under a protobuf pin).
    locked = pins(lock)
    for requirement in ranges(source):
        versions = [version for version, _, _ in locked[canonicalize_name(requirement.name)]]
        assert not any(version.is_prerelease for version in versions), f"{lock}: {requirement.name} {versions}"


def test_the_locks_are_compiled_for_every_platform_from_the_python_floor_on_with_hashes():
    script = (PROJECT_ROOT / "deploy/ci/lock.sh").read_text()
    assert "uv pip compile --quiet --universal --python-version 3.11 --generate-hashes" in script
    floor = re.search(r'^target-version = "py3(\d+)"', (PROJECT_ROOT / "pyproject.toml").read_text(), re.M)
    assert floor is not None and f"--python-version 3.{floor.group(1)}" in script
    for lock, source in LOCKS.items():
        assert re.search(rf"\s{re.escape(source)}(\s|$)", script), source
        assert f"--output-file {lock}" in script
        assert (PROJECT_ROOT / lock).read_text().startswith("# This file was autogenerated by uv"), lock
