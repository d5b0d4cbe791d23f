"""deploy/ci/install-tools.sh on each system it supports, against stand-in releases: a fake `uname` says which machine
it is, a fake `curl` serves assets named the way the upstream release configs name them (kubelogin's
.github/workflows/release.yml, ack-ram-tool's .goreleaser.yml), and the PATH decides whether `sha256sum` exists."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.support import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "deploy/ci/install-tools.sh"
KUBELOGIN = "v0.2.19"
ACK = "0.19.0"
TOOLS = ["bash", "mkdir", "mktemp", "rm", "grep", "tar", "gzip", "install", "cat"]
# (uname -s, uname -m) -> kubelogin's <os>_<arch>, ack-ram-tool's <Os>_<arch>
PLATFORMS = {
    ("Linux", "x86_64"): ("linux_amd64", "Linux_x86_64"),
    ("Linux", "aarch64"): ("linux_arm64", "Linux_arm64"),
    ("Darwin", "x86_64"): ("darwin_amd64", "Darwin_x86_64"),
    ("Darwin", "arm64"): ("darwin_arm64", "Darwin_arm64"),
}


def sha256_line(name: str, data: bytes) -> str:
    return f"{hashlib.sha256(data).hexdigest()}  {name}\n"


def program(output: str) -> bytes:
    return f"#!/bin/sh\necho '{output}'\n".encode()


def releases(directory: Path) -> None:
    """Every asset of both releases, as their release jobs publish them (zip + .sha256; tar.gz + checksums.txt)."""
    directory.mkdir()
    checksums = ""
    for kubelogin_platform, ack_platform in PLATFORMS.values():
        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as zipped:
            zipped.writestr(f"bin/{kubelogin_platform}/kubelogin", program(f"kubelogin {kubelogin_platform}"))
        name = f"kubelogin-{kubelogin_platform.replace('_', '-')}.zip"
        (directory / name).write_bytes(archive.getvalue())
        (directory / f"{name}.sha256").write_text(sha256_line(name, archive.getvalue()))
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w:gz") as tarred:
            data = program(f"ack-ram-tool {ack_platform}")
            member = tarfile.TarInfo("ack-ram-tool")
            member.size, member.mode = len(data), 0o755
            tarred.addfile(member, io.BytesIO(data))
        name = f"ack-ram-tool_{ACK}_{ack_platform}.tar.gz"
        (directory / name).write_bytes(archive.getvalue())
        checksums += sha256_line(name, archive.getvalue())
    (directory / "checksums.txt").write_text(checksums)


def sandbox(tmp_path: Path, system: str, machine: str, checksum_tool: str) -> dict[str, str]:
    """A PATH with only the tools the script needs, `checksum_tool` among them, and stand-ins for uname and curl."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in [*TOOLS, checksum_tool]:
        found = shutil.which(tool)
        assert found, f"{tool} is needed on this machine to run the test"
        (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(sys.executable)  # a real interpreter, not a version manager's shim
    releases(tmp_path / "release")
    (bin_dir / "uname").write_text(f'#!/bin/sh\ncase "$1" in -s) echo {system} ;; -m) echo {machine} ;; esac\n')
    (bin_dir / "curl").write_text(
        "#!/bin/sh\n"
        'while [ "$1" != --output ]; do shift; done\n'
        f'echo "$3" >> {tmp_path}/downloads\n'
        f'{shutil.which("cp")} "{tmp_path}/release/${{3##*/}}" "$2" 2>/dev/null || exit 22\n'
    )
    for fake in ("uname", "curl"):
        (bin_dir / fake).chmod(0o755)
    return {"PATH": str(bin_dir), "HOME": str(tmp_path)}


def install(env: dict[str, str], target: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), str(target)], env=env, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("system", "machine"), PLATFORMS, ids=lambda value: value)
@pytest.mark.parametrize("checksum_tool", ["sha256sum", "shasum"])
def test_each_system_gets_its_own_build_checked_with_the_tool_it_has(tmp_path, system, machine, checksum_tool):
    env = sandbox(tmp_path, system, machine, checksum_tool)
    result = install(env, tmp_path / "tools")
    assert result.returncode == 0, result.stdout + result.stderr
    kubelogin_platform, ack_platform = PLATFORMS[(system, machine)]
    assert result.stdout.splitlines()[-2:] == [f"kubelogin {kubelogin_platform}", f"ack-ram-tool {ack_platform}"]
    kubelogin = f"https://github.com/Azure/kubelogin/releases/download/{KUBELOGIN}"
    kubelogin_zip = f"kubelogin-{kubelogin_platform.replace('_', '-')}.zip"
    ack = f"https://github.com/AliyunContainerService/ack-ram-tool/releases/download/v{ACK}"
    assert (tmp_path / "downloads").read_text().splitlines() == [
        f"{kubelogin}/{kubelogin_zip}",
        f"{kubelogin}/{kubelogin_zip}.sha256",
        f"{ack}/ack-ram-tool_{ACK}_{ack_platform}.tar.gz",
        f"{ack}/checksums.txt",
    ]
    assert os.access(tmp_path / "tools/kubelogin", os.X_OK) and os.access(tmp_path / "tools/ack-ram-tool", os.X_OK)


@pytest.mark.parametrize("checksum_tool", ["sha256sum", "shasum"])
def test_an_archive_that_does_not_match_its_checksum_is_not_installed(tmp_path, checksum_tool):
    env = sandbox(tmp_path, "Linux", "x86_64", checksum_tool)
    with (tmp_path / "release/kubelogin-linux-amd64.zip").open("ab") as archive:
        archive.write(b"tampered")
    result = install(env, tmp_path / "tools")
    assert result.returncode != 0 and not (tmp_path / "tools/kubelogin").exists()


@pytest.mark.parametrize(
    ("system", "machine", "message"),
    [
        ("MINGW64_NT-10.0", "x86_64", "install-tools.sh: unsupported system 'MINGW64_NT-10.0'; allowed: Linux, Darwin"),
        ("Linux", "riscv64", "install-tools.sh: unsupported machine 'riscv64'; allowed: x86_64/amd64, aarch64/arm64"),
    ],
)
def test_a_system_without_a_build_is_refused_in_one_line_before_any_download(tmp_path, system, machine, message):
    result = install(sandbox(tmp_path, system, machine, "sha256sum"), tmp_path / "tools")
    assert (result.returncode, result.stderr.splitlines()) == (2, [message])
    assert not (tmp_path / "downloads").exists()
