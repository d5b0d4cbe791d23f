"""What one ACK cluster ships to Simple Log Service: control-plane logs and the API server's audit log.

Both mirror arguments of the provider's ``cs.ManagedKubernetes``
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes).
"""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from components.config.base import ConfigModel, key_path, require_unique
from components.config.rules import rule

_TF_CLUSTER_URL = "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes"

CONTROL_PLANE_LOG_COMPONENTS = (
    "apiserver",
    "kcm",
    "scheduler",
    "ccm",
    "controlplane-events",
    "alb",
    "ack-goatscaler",
    "coredns",
    "gatekeeper",
)
"""Control-plane components whose logs ACK ships to SLS, as the provider's examples (auto mode included) list them
(https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""


class ControlPlaneLogsConfig(ConfigModel):
    """Control-plane logs shipped to Simple Log Service (the provider's ``control_plane_log_*`` arguments,
    https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

    components: list[str] = Field(min_length=1)
    """The components whose logs are shipped, each once: ``apiserver``, ``kcm``, ``scheduler``, ``ccm``,
    ``controlplane-events``, ``alb``, ``ack-goatscaler``, ``coredns`` or ``gatekeeper``. Sent in this order, which
    is the order the provider reads them back in (its acceptance test checks it), so keep it as ACK lists them."""
    ttl: int = Field(30, ge=1, le=3000)
    """Days SLS keeps the logs, 1-3000 as ACK's UpdateControlPlaneLog takes them; ACK's default is 30
    (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-updatecontrolplanelog)."""
    project: str | None = None
    """SLS project; ACK creates ``k8s-log-{ClusterID}`` when omitted."""

    @field_validator("components")
    @classmethod
    @rule("ack-logs.documented", source=_TF_CLUSTER_URL)
    def _documented(cls, value: list[str]) -> list[str]:
        """Control-plane log components ACK ships to SLS, because ACK refuses any other name."""
        for component in value:
            if component not in CONTROL_PLANE_LOG_COMPONENTS:
                raise ValueError(f"{component!r} is not one of {list(CONTROL_PLANE_LOG_COMPONENTS)}")
        return value

    @model_validator(mode="after")
    @rule("ack-logs.each-once", source=_TF_CLUSTER_URL)
    def _each_once(self) -> ControlPlaneLogsConfig:
        """Each control-plane log component once, because the provider reads the list back as ACK stores it and a repeat
        would show as a diff on every run."""
        require_unique(self.components, lambda i: key_path("components", i), "components")
        return self


class AuditLogConfig(ConfigModel):
    """The API server's audit log in Simple Log Service (the provider's ``audit_log_config``,
    https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes)."""

    enabled: bool = True
    """Whether the API server's audit log is shipped to SLS."""
    sls_project_name: str | None = None
    """The SLS project that receives it; unset leaves the choice to ACK."""
