"""The pack as Pulumi loads it: every guarantee a mandatory policy with its reason and source, the project file Pulumi
reads, and the one requirement it installs, pinned as the project pins it."""

from __future__ import annotations

import re

from elastic_capacity_policies import ack, aks, kueue, pools, workloads
from elastic_capacity_policies.pack import ENFORCEMENT_LEVEL, PACK_NAME, POLICIES
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from components import yaml_text
from tests.support import PROJECT_ROOT

PACK_DIR = PROJECT_ROOT / "policies"

GUARANTEES = [
    "aks-entra-id-azure-rbac",
    "aks-workload-identity",
    "autoscaling-pool-bounds",
    "ack-production-deletion-protection",
    "kueue-v1beta2-only",
    "kueue-provisioning-check-on-autoscaled-pools",
    "acs-compute-class-not-in-selector",
    "gpu-pods-guaranteed",
]


def test_the_pack_holds_every_policy_of_every_module_once_in_the_order_of_the_guarantees():
    assert [p.name for p in POLICIES] == GUARANTEES
    modules = [aks, pools, ack, kueue, workloads]
    assert [p for module in modules for p in module.POLICIES] == POLICIES
    assert re.fullmatch(r"[a-zA-Z0-9._-]{1,100}", PACK_NAME)


def test_every_policy_is_mandatory_and_says_why_with_its_source():
    assert ENFORCEMENT_LEVEL is EnforcementLevel.MANDATORY
    for policy in POLICIES:
        assert policy.enforcement_level is EnforcementLevel.MANDATORY, policy.name
        assert policy.url and policy.url.startswith("https://") and policy.url in policy.description, policy.name
        assert ": " in policy.description and len(policy.description) < 700, policy.name


def test_only_the_provisioning_check_needs_the_whole_stack():
    stack = [p.name for p in POLICIES if isinstance(p, StackValidationPolicy)]
    assert stack == ["kueue-provisioning-check-on-autoscaled-pools"]
    assert all(isinstance(p, ResourceValidationPolicy) for p in POLICIES if p.name not in stack)


def test_the_project_file_is_a_python_pack_that_runs_on_the_python_on_the_path():
    project = yaml_text.load((PACK_DIR / "PulumiPolicy.yaml").read_text())
    assert project["runtime"] == "python", "no virtualenv option: the pack runs on python3 from the PATH (.venv in CI)"
    assert re.fullmatch(r"\d+\.\d+\.\d+", project["version"])
    assert (PACK_DIR / "__main__.py").is_file()


def pin(path, package):
    found = re.search(rf"^{package}([^\s#]+)", path.read_text(), re.M)
    assert found is not None, f"{path.name} does not pin {package}"
    return found.group(1)


def test_the_pack_needs_only_the_policy_sdk_pinned_as_the_project_pins_it():
    requirements = PACK_DIR / "requirements.in"  # the range; requirements.txt beside it is its lock
    lines = [line for line in requirements.read_text().splitlines() if line and not line.startswith("#")]
    assert [line.split(">")[0] for line in lines] == ["pulumi-policy"]
    assert pin(requirements, "pulumi-policy") == pin(PROJECT_ROOT / "requirements-dev.in", "pulumi-policy")
