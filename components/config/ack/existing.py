"""One entry of ``ack.existingClusters``: an ACK managed Pro cluster this stack does not create, only deploys onto.

A pull-request stack that targets such a cluster creates its own namespace of ACS workloads there and nothing else:
no network, cluster, node pool or addon. The cluster must already run ACK Virtual Node (and kube-scheduler) at the
versions its workloads need; that is checked at deploy time (``components/alicloud/ack_checks.py``), as is that ACK
reports it as a Pro cluster of the configured minor. The Kubernetes provider gets the same stable exec-plugin kubeconfig
as a new cluster (``components/alicloud/ack_access.py``), on the public API endpoint ACK's credential names.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import StringConstraints, field_validator, model_validator

from components.config.base import ConfigModel, DnsLabel, MisplacedKey
from components.config.kube import KubernetesVersionText
from components.config.rules import rule
from components.config.versions import ACK_MIN_KUBERNETES, KubernetesVersion

_ACS_IN_ACK_URL = "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster"
_RBAC_API_URL = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-updateuserpermissions"

ClusterId = Annotated[str, StringConstraints(pattern=r"^c[0-9a-z]{8,63}$")]
"""ACK's id of a cluster: ``c`` and lowercase letters and digits, as the ACK console shows it."""

_MINOR = re.compile(r"^\d+\.\d+$")


class AckExistingClusterConfig(ConfigModel):
    """An ACK managed Pro cluster that already runs ACK Virtual Node; the stack only deploys ACS workloads onto it."""

    name: DnsLabel
    """How workloads (``ack.workloads[].cluster``) and the outputs name the cluster in this stack; unique among
    ``ack.clusters`` and ``ack.existingClusters``. It need not be ACK's name of the cluster."""
    cluster_id: ClusterId
    """ACK's id of the cluster (``c`` followed by letters and digits, in the ACK console's cluster list)."""
    region: Annotated[str, StringConstraints(pattern=r"^[a-z]{2}(-[a-z0-9]+)+$")]
    """The Alibaba Cloud region of the cluster, e.g. ``cn-hangzhou``."""
    kubernetes_version: KubernetesVersionText
    """The cluster's Kubernetes minor, e.g. ``"1.35"``: the key of the GPU kube-scheduler tables. ``up`` fails,
    naming this key, when ACK reports another minor for the cluster."""

    @model_validator(mode="before")
    @classmethod
    @rule("ack-existing.no-grants", source=_RBAC_API_URL)
    def _no_grants(cls, data: Any) -> Any:
        """A stack that only deploys onto a shared cluster must not own its RBAC grants: ``cs.KubernetesPermission``
        revokes exactly the roles it lists when it is deleted, so one stack's ``destroy`` would take away a role
        that the cluster's owner, or another stack, granted to the same identity."""
        if isinstance(data, dict) and "rbac" in data:
            raise MisplacedKey(
                "rbac",
                "grant roles on a shared cluster where it is managed (ack.clusters[].rbac of the stack that creates "
                "it, or the ACK console): this stack's destroy would revoke them for every stack that shares it",
            )
        return data

    @field_validator("kubernetes_version")
    @classmethod
    @rule("ack-existing.minor", source=_ACS_IN_ACK_URL)
    def _minor(cls, value: str) -> str:
        """An existing cluster's Kubernetes minor (``"1.35"``) of 1.26 or later, because the GPU scheduler tables are
        keyed by minor and ACS in ACK managed Pro needs 1.26."""
        if not _MINOR.match(value):
            raise ValueError('write the cluster\'s minor, such as "1.35"')
        if not KubernetesVersion.parse(value).at_least(*ACK_MIN_KUBERNETES):
            raise ValueError("ACS in ACK managed Pro needs Kubernetes 1.26 or later")
        return value

    @property
    def minor_version(self) -> str:
        """The cluster's Kubernetes minor, such as ``1.35``."""
        return self.kubernetes_version
