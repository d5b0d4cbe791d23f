"""Rules of a cluster's SLS logs: documented control-plane components, each once, and the audit log's keys."""

from __future__ import annotations

import pytest

from components.config.ack.logs import CONTROL_PLANE_LOG_COMPONENTS, AuditLogConfig, ControlPlaneLogsConfig
from tests.support.config import model_error_keys


@pytest.mark.parametrize(
    ("logs", "key"),
    [
        ({"components": ["apiserver", "etcd"]}, "controlPlaneLogs.components"),
        ({"components": ["apiserver", "kcm", "apiserver"]}, "controlPlaneLogs.components[2]"),
        ({"components": []}, "controlPlaneLogs.components"),
        ({"components": ["apiserver"], "ttl": 0}, "controlPlaneLogs.ttl"),
        ({"components": ["apiserver"], "ttl": 3001}, "controlPlaneLogs.ttl"),  # UpdateControlPlaneLog takes 1-3000
    ],
)
def test_control_plane_logs(logs, key):
    good = ControlPlaneLogsConfig.model_validate({"components": list(CONTROL_PLANE_LOG_COMPONENTS), "ttl": 7})
    assert (good.ttl, good.project) == (7, None)
    assert ControlPlaneLogsConfig.model_validate({"components": ["kcm"], "ttl": 3000}).ttl == 3000
    assert model_error_keys(ControlPlaneLogsConfig, logs, "controlPlaneLogs") == [key]


def test_control_plane_logs_keep_acks_default_ttl():
    assert ControlPlaneLogsConfig.model_validate({"components": ["apiserver"]}).ttl == 30


def test_audit_log():
    audit = AuditLogConfig.model_validate({"slsProjectName": "audit"})
    assert (audit.enabled, audit.sls_project_name) == (True, "audit")
    assert model_error_keys(AuditLogConfig, {"enable": True}, "auditLog") == ["auditLog.enable"]
