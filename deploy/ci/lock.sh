#!/usr/bin/env bash
# Compile the dependency ranges (requirements.in, requirements-dev.in, policies/requirements.in) into hash-pinned
# locks (requirements.txt, requirements-dev.txt, policies/requirements.txt) for every platform and Python >= 3.11.
# The dev lock is resolved first, over everything (runtime, tools, the policy pack's SDK), and constrains the other
# two, so a package has one version in all three and the runtime resolves as it does under the tests.
# Needs uv (https://docs.astral.sh/uv/pip/compilation/), e.g. `python3 -m pip install uv` in a scratch virtualenv.
#
#   deploy/ci/lock.sh [--upgrade]      (without --upgrade, uv keeps the versions already locked)
set -euo pipefail
cd "$(dirname "$0")/../.."

compile() {
  uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
    --custom-compile-command "deploy/ci/lock.sh" "$@"
}
compile "$@" requirements-dev.in --output-file requirements-dev.txt
compile requirements.in --constraint requirements-dev.txt --output-file requirements.txt
compile policies/requirements.in --constraint requirements-dev.txt --output-file policies/requirements.txt
