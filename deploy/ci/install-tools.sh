#!/usr/bin/env bash
# Install the two programs the Pulumi program runs while it deploys (docs/known-limits.md): kubelogin, for Entra ID
# AKS kubeconfigs, and ack-ram-tool, for ACK kubeconfigs in exec-plugin mode. Pinned releases; each archive is checked
# against the checksum file its release publishes. Used by the GitHub workflows and deploy/operator/Dockerfile.
#
#   deploy/ci/install-tools.sh [BIN_DIR]      (default: $HOME/.local/bin)
set -euo pipefail

KUBELOGIN_VERSION="v0.2.19"          # https://github.com/Azure/kubelogin/releases
ACK_RAM_TOOL_VERSION="v0.19.0"       # https://github.com/AliyunContainerService/ack-ram-tool/releases

bin_dir="${1:-$HOME/.local/bin}"
mkdir -p "$bin_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fetch() { curl --fail --silent --show-error --location --retry 3 --output "$2" "$1"; }

kubelogin_zip="kubelogin-linux-amd64.zip"
fetch "https://github.com/Azure/kubelogin/releases/download/${KUBELOGIN_VERSION}/${kubelogin_zip}" "$kubelogin_zip"
fetch "https://github.com/Azure/kubelogin/releases/download/${KUBELOGIN_VERSION}/${kubelogin_zip}.sha256" kubelogin.sha256
sha256sum --check --strict kubelogin.sha256
python3 -m zipfile -e "$kubelogin_zip" kubelogin
install -m 0755 kubelogin/bin/linux_amd64/kubelogin "$bin_dir/kubelogin"

ack_version="${ACK_RAM_TOOL_VERSION#v}"
ack_archive="ack-ram-tool_${ack_version}_Linux_x86_64.tar.gz"
ack_release="https://github.com/AliyunContainerService/ack-ram-tool/releases/download/${ACK_RAM_TOOL_VERSION}"
fetch "${ack_release}/${ack_archive}" "$ack_archive"
fetch "${ack_release}/checksums.txt" checksums.txt
grep " ${ack_archive}\$" checksums.txt | sha256sum --check --strict
tar -xzf "$ack_archive" ack-ram-tool
install -m 0755 ack-ram-tool "$bin_dir/ack-ram-tool"

"$bin_dir/kubelogin" --version
"$bin_dir/ack-ram-tool" version
