"""deploy/: the Pulumi Kubernetes Operator's Stack objects, its workspace image, and the CI tool installer."""

from __future__ import annotations

import re
import subprocess
from typing import Any

import yaml

from tests.support import PROJECT_ROOT

OPERATOR = PROJECT_ROOT / "deploy/operator"
INSTALL_TOOLS = PROJECT_ROOT / "deploy/ci/install-tools.sh"
STACK_FIELDS = {
    "accessTokenSecret", "backend", "branch", "commit", "config", "configRef", "continueResyncOnCommitMatch",
    "destroyOnFinalize", "envRefs", "envSecrets", "environment", "envs", "expectNoRefreshChanges", "fluxSource",
    "gitAuth", "gitAuthSecret", "prerequisites", "preview", "programRef", "projectRepo", "refresh", "repoDir",
    "resyncFrequencySeconds", "retryMaxBackoffDurationSeconds", "retryOnUpdateConflict", "runProgram", "secrets",
    "secretsProvider", "secretsRef", "serviceAccountName", "shallow", "stack", "targetDependents", "targets",
    "updateTemplate", "useLocalStackOnly", "workspaceReclaimPolicy", "workspaceTemplate",
}  # fmt: skip
"""``Stack.spec`` of pulumi.com/v1 as the operator's v2.9 reference lists it
(https://github.com/pulumi/pulumi-kubernetes-operator/blob/v2.9.0/docs/stacks.md); ``stack`` is its one required
field. A misspelt field would be dropped by the API server without a word."""
ENV_REF_TYPES = {"Env", "FS", "Secret", "Literal"}


def documents() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((OPERATOR / "stack.yaml").read_text()) if d]


def stacks() -> list[dict[str, Any]]:
    return [d for d in documents() if d["kind"] == "Stack"]


def cli_version() -> str:
    return (PROJECT_ROOT / "deploy/ci/pulumi-version").read_text().strip()


def test_the_operator_deploys_long_lived_stacks_from_this_repository_and_never_destroys_them():
    assert [s["metadata"]["name"] for s in stacks()] == ["ack-acs-dev", "aks-kueue-dev"]
    for stack in stacks():
        assert stack["apiVersion"] == "pulumi.com/v1"
        spec = stack["spec"]
        assert set(spec) <= STACK_FIELDS
        assert re.fullmatch(r"[\w-]+/" + stack["metadata"]["name"], spec["stack"])
        assert spec["projectRepo"].startswith("https://") and spec["branch"] == "main" and "commit" not in spec
        assert spec["destroyOnFinalize"] is False
        assert spec["resyncFrequencySeconds"] >= 60
        assert "config" not in spec, "the config is the stack file's, read from the repository"
        assert (PROJECT_ROOT / "stacks" / f"Pulumi.{stack['metadata']['name']}.yaml").is_file()


def test_credentials_come_from_secrets_never_from_the_manifest():
    needs = {"ack-acs-dev": {"ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY"}, "aks-kueue-dev": {"ARM_CLIENT_SECRET"}}
    for stack in stacks():
        refs = stack["spec"]["envRefs"]
        assert {"PULUMI_ACCESS_TOKEN", *needs[stack["metadata"]["name"]]} <= set(refs)
        for name, ref in refs.items():
            assert ref["type"] in ENV_REF_TYPES
            assert ref["type"] == "Secret" and set(ref["secret"]) == {"name", "key"}, name


def test_the_workspace_runs_the_image_built_for_the_project_as_its_service_account():
    accounts = {
        (d["metadata"]["namespace"], d["metadata"]["name"]) for d in documents() if d["kind"] == "ServiceAccount"
    }
    for stack in stacks():
        namespace = stack["metadata"]["namespace"]
        assert (namespace, stack["spec"]["serviceAccountName"]) in accounts
        image = stack["spec"]["workspaceTemplate"]["spec"]["image"]
        assert image.endswith(f"/elastic-capacity-workspace:{cli_version()}")


def test_the_workspace_image_is_python_with_the_pinned_cli_and_the_tools_the_program_runs():
    dockerfile = (OPERATOR / "Dockerfile").read_text()
    assert re.search(rf"^FROM pulumi/pulumi-python-3\.1[1-9]:{re.escape(cli_version())}$", dockerfile, re.M)
    assert "deploy/ci/install-tools.sh" in dockerfile
    assert "requirements.txt" in dockerfile, "it says where the Python dependencies come from"


def test_the_tool_installer_pins_its_releases_and_checks_their_checksums():
    script = INSTALL_TOOLS.read_text()
    versions = dict(re.findall(r'^(KUBELOGIN_VERSION|ACK_RAM_TOOL_VERSION)="(v\d+\.\d+\.\d+)"', script, re.M))
    assert set(versions) == {"KUBELOGIN_VERSION", "ACK_RAM_TOOL_VERSION"}
    assert "latest" not in script
    assert script.count("verify <") + script.count("| verify") == 2, "both archives are checked"
    subprocess.run(["bash", "-n", str(INSTALL_TOOLS)], check=True)
    assert INSTALL_TOOLS.stat().st_mode & 0o111, "the workflows run it directly"
