"""No credential material leaves a secret: every shipped stack's plan.json and manifests are scanned for what the mock
cloud hands out (kubeconfigs, tokens, client keys and certificates), and no stack file holds a plain-text secret."""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.stacks import STACK_IDS, STACKS, rendered

CREDENTIAL_MARKERS = [
    ("a PEM block", re.compile(r"-----BEGIN [A-Z ]+-----")),
    ("a base64 PEM block", re.compile(re.escape(base64.b64encode(b"-----BEGIN ").decode()[:12]))),
    ("a kubeconfig user", re.compile(r"\b(client-key-data|client-certificate-data|users:)")),
    ("a bearer token", re.compile(r"\btoken['\"]?\s*[:=]\s*['\"]?[A-Za-z0-9._-]{8,}")),
    ("the mock token", re.compile(r"mock-token")),
    ("an Alibaba Cloud AccessKey id", re.compile(r"\bLTAI[0-9A-Za-z]{12,}")),
]
"""What a credential looks like in text: the forms the mock cloud's credential invokes answer in, and real ones."""

SECRET_KEY_NAMES = re.compile(r"(kubeconfig|password|secret|token|accesskey|privatekey|clientkey)$", re.I)
"""Config keys whose value is a credential, whatever section they sit in."""


def credential_findings(text: str) -> list[str]:
    return [what for what, pattern in CREDENTIAL_MARKERS if pattern.search(text)]


@pytest.fixture(scope="module", params=STACKS, ids=STACK_IDS)
def rendered_stack(request) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    return rendered(request.param)


def test_the_markers_find_what_the_mock_cloud_hands_out():
    """The scan is only as good as its markers: each credential the mocks return trips one."""
    from tools import mock_cloud

    kubeconfig = mock_cloud.ack_cluster_credential({"clusterId": "c1"})["kubeConfig"]
    assert credential_findings(kubeconfig)
    assert credential_findings(mock_cloud.FAKE_KUBECONFIG)
    assert credential_findings(json.dumps({"kubeconfig": kubeconfig}))
    assert not credential_findings(json.dumps({"kubeconfig": "[secret]", "server": "https://mock.invalid:443"}))


def test_no_plan_or_manifest_holds_credential_material(rendered_stack):
    plan, manifests = rendered_stack
    assert credential_findings(json.dumps(plan)) == []
    for path, manifest in manifests.items():
        assert credential_findings(yaml_text.dump(manifest, sort_keys=True)) == [], path


def secret_like_plain_values(value: Any, path: str = "") -> list[str]:
    """Keys named like a credential whose value is written in plain text rather than as ``secure:``."""
    found: list[str] = []
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return []
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if SECRET_KEY_NAMES.search(str(key).split(":")[-1]) and isinstance(item, str | int) and item != "":
                found.append(where)
            found += secret_like_plain_values(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += secret_like_plain_values(item, f"{path}[{i}]")
    return found


STACK_FILES = [*STACKS, *sorted((PROJECT_ROOT / "examples").rglob("Pulumi.*.yaml"))]


def test_stack_files_hold_no_plain_text_secret():
    plain = {}
    for path in STACK_FILES:
        document = yaml_text.load(path.read_text()) or {}
        if found := secret_like_plain_values(document.get("config") or {}):
            plain[str(path.relative_to(PROJECT_ROOT))] = found
    assert STACK_FILES and plain == {}


def test_the_stack_file_check_finds_a_plain_text_kubeconfig():
    assert secret_like_plain_values({"elastic-capacity:kubeconfig": "apiVersion: v1"}) == [
        "elastic-capacity:kubeconfig"
    ]
    assert secret_like_plain_values({"elastic-capacity:kubeconfig": {"secure": "v1:abc"}}) == []
