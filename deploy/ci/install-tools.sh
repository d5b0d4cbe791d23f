#!/usr/bin/env bash
# Install the two programs the Pulumi program runs while it deploys (docs/known-limits.md): kubelogin, for Entra ID
# AKS kubeconfigs, and ack-ram-tool, for ACK kubeconfigs in exec-plugin mode. Pinned releases, for Linux or macOS on
# amd64 or arm64 (the build this machine's `uname` names); each archive is checked against the checksum file its
# release publishes. Used by the GitHub workflows, deploy/operator/Dockerfile and the by-hand set-up.
#
#   deploy/ci/install-tools.sh [BIN_DIR]      (default: $HOME/.local/bin)
set -euo pipefail

KUBELOGIN_VERSION="v0.2.19"          # https://github.com/Azure/kubelogin/releases
ACK_RAM_TOOL_VERSION="v0.19.0"       # https://github.com/AliyunContainerService/ack-ram-tool/releases

# Asset names, from the release configs: kubelogin's .github/workflows/release.yml zips bin/<os>_<arch>/kubelogin as
# kubelogin-<os>-<arch>.zip; ack-ram-tool's .goreleaser.yml names ack-ram-tool_<version>_<Title Os>_<x86_64|arm64>.
case "$(uname -s)" in
  Linux) os=linux ack_os=Linux ;;
  Darwin) os=darwin ack_os=Darwin ;;
  *) echo "install-tools.sh: unsupported system '$(uname -s)'; allowed: Linux, Darwin" >&2; exit 2 ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=amd64 ack_arch=x86_64 ;;
  aarch64 | arm64) arch=arm64 ack_arch=arm64 ;;
  *) echo "install-tools.sh: unsupported machine '$(uname -m)'; allowed: x86_64/amd64, aarch64/arm64" >&2; exit 2 ;;
esac

bin_dir="${1:-$HOME/.local/bin}"
mkdir -p "$bin_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fetch() { curl --fail --silent --show-error --location --retry 3 --output "$2" "$1"; }
# `sha256sum` lines ("<hash>  <file>") on standard input; macOS has `shasum` instead of coreutils' sha256sum.
verify() {
  if command -v sha256sum >/dev/null; then sha256sum --check --strict; else shasum -a 256 --check; fi
}

kubelogin_zip="kubelogin-${os}-${arch}.zip"
fetch "https://github.com/Azure/kubelogin/releases/download/${KUBELOGIN_VERSION}/${kubelogin_zip}" "$kubelogin_zip"
fetch "https://github.com/Azure/kubelogin/releases/download/${KUBELOGIN_VERSION}/${kubelogin_zip}.sha256" kubelogin.sha256
verify < kubelogin.sha256
python3 -m zipfile -e "$kubelogin_zip" kubelogin
install -m 0755 "kubelogin/bin/${os}_${arch}/kubelogin" "$bin_dir/kubelogin"

ack_version="${ACK_RAM_TOOL_VERSION#v}"
ack_archive="ack-ram-tool_${ack_version}_${ack_os}_${ack_arch}.tar.gz"
ack_release="https://github.com/AliyunContainerService/ack-ram-tool/releases/download/${ACK_RAM_TOOL_VERSION}"
fetch "${ack_release}/${ack_archive}" "$ack_archive"
fetch "${ack_release}/checksums.txt" checksums.txt
grep " ${ack_archive}\$" checksums.txt | verify
tar -xzf "$ack_archive" ack-ram-tool
install -m 0755 ack-ram-tool "$bin_dir/ack-ram-tool"

"$bin_dir/kubelogin" --version
"$bin_dir/ack-ram-tool" version
