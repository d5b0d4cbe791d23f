"""``kueue.install: aks-extension``: AKS's managed Kueue extension (``microsoft.kueue``, preview) instead of the chart.

What was verified on 2026-12-01, and where:

- Prerequisites "AKS version v1.34 or later"; limitations "available in the following Azure regions: centralus,
  westus, westus2, and eastus" and "only supports Cluster Autoscaler"; the install command ``az k8s-extension create
  --cluster-type managedClusters --name kueue --extension-type microsoft.kueue --scope cluster --release-namespace
  kueue-system --version 0.19.6-aks.0.4.4 --auto-upgrade-mode none``, with no ``--release-train`` and no feature
  registration: ``articles/aks/kueue-overview.md`` (pivot ``extension``) of https://github.com/MicrosoftDocs/azure-aks-docs,
  published as https://docs.azure.cn/zh-cn/aks/kueue-overview?pivots=extension; the prerequisites again on
  https://learn.microsoft.com/en-us/azure/aks/install-the-managed-kueue-extension-on-aks, which calls the extension
  a preview ("self-service, opt-in ... aren't meant for production use").
- It creates ResourceFlavor ``aks-cpu`` and WorkloadPriorityClasses ``aks-low-priority``, ``aks-medium-priority`` and
  ``aks-high-priority`` (100/500/1000), and "manages resources with the aks- prefix ... instead of creating
  alternatives that use the same aks- prefix":
  https://learn.microsoft.com/azure/aks/configure-queues-with-automatic-resource-flavors.

UNVERIFIED: the live region list (the article may have moved on), which ``configurationSettings`` the extension
reads (none is documented, so this program sends none and refuses the chart's keys), the extension's manager
Configuration (integrations, feature gates, ``managedJobsNamespaceSelector``), and its object names beyond the
Deployment ``kueue-controller-manager`` the article shows after either install.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import model_validator

from components.config.base import ConfigModel, MisplacedKey, RuleViolation, key_path
from components.config.gitops import RENDER_KEY
from components.config.kueue import profiles as kueue_profiles
from components.config.kueue.profiles import UnsupportedVersion
from components.config.rules import rule
from components.config.versions import KubernetesVersion

_EXTENSION_FLAVORS_URL = "https://learn.microsoft.com/azure/aks/configure-queues-with-automatic-resource-flavors"
_EXTENSION_INSTALL_URL = "https://learn.microsoft.com/en-us/azure/aks/install-the-managed-kueue-extension-on-aks"

if TYPE_CHECKING:
    from components.config.queues.queues import QueuesConfig
    from components.config.stack import StackConfig

INSTALL = "aks-extension"
"""The ``kueue.install`` value that selects the extension."""
EXTENSION_TYPE = "microsoft.kueue"
EXTENSION_NAME = "kueue"
"""The extension's name on the cluster, as the article's ``--name kueue``."""
RELEASE_NAMESPACE = "kueue-system"
"""The article's ``--release-namespace``: Kueue's webhooks expect it (https://github.com/kubernetes-sigs/kueue/issues/3794)."""
CHECKED = "2026-12-01"
SOURCE = "https://github.com/MicrosoftDocs/azure-aks-docs/blob/main/articles/aks/kueue-overview.md"
REGIONS = ("centralus", "eastus", "westus", "westus2")
"""The regions the article lists (checked :data:`CHECKED`, :data:`SOURCE`)."""
MIN_KUBERNETES = (1, 34)
"""The article's "AKS version v1.34 or later"."""
MANAGED_PREFIX = "aks-"
"""The prefix of the objects the extension owns."""

_VERSION = re.compile(r"^(?P<upstream>\d+\.\d+\.\d+)-aks\.\d+(?:\.\d+)*$")
_EXAMPLE_VERSION = "0.19.6-aks.0.4.4"


def _as_of(fact: str) -> str:
    return f"{fact} (checked {CHECKED}: {SOURCE})"


class KueueExtensionConfig(ConfigModel):
    """The managed Kueue extension's pinned version and the acknowledgement that it is a preview."""

    version: str
    """The extension version to pin, such as ``0.19.6-aks.0.4.4``: the upstream Kueue release, then AKS's build.
    ``az k8s-extension extension-types list-versions-by-cluster --extension-type microsoft.kueue`` lists what a
    cluster can install. Pinned with ``autoUpgradeMinorVersion: false`` (whether ARM also holds patches at the API
    version used is unverified: docs/kueue-extension.md); the upstream part must be a Kueue minor this program
    profiles, and the queue objects are checked against it."""
    accept_preview: bool = False
    """Must be ``true``: the extension is an AKS preview, opt-in, excluded from the SLA and "not meant for production
    use" (https://learn.microsoft.com/en-us/azure/aks/install-the-managed-kueue-extension-on-aks)."""

    @model_validator(mode="after")
    @rule("kueue-extension.pinned-to-a-profiled-kueue", source=_EXTENSION_INSTALL_URL)
    def _pinned_to_a_profiled_kueue(self) -> KueueExtensionConfig:
        """An extension version ``<Kueue release>-aks.<build>`` of a Kueue this program has a profile for, with
        ``acceptPreview`` set, because the extension is a preview AKS excludes from its SLA."""
        match = _VERSION.match(self.version)
        if match is None:
            raise RuleViolation("version", self.version, f"write <Kueue release>-aks.<build>, e.g. {_EXAMPLE_VERSION}")
        try:
            kueue_profiles.profile_for(match["upstream"])
        except UnsupportedVersion as unsupported:
            raise RuleViolation("version", self.version, f"its Kueue {match['upstream']}: {unsupported}") from None
        if not self.accept_preview:
            allowed = "set it true to install a preview extension, which AKS excludes from its SLA"
            raise RuleViolation("acceptPreview", False, allowed)
        return self

    @property
    def kueue_version(self) -> str:
        """The upstream Kueue release the extension runs: ``0.19.6`` of ``0.19.6-aks.0.4.4``."""
        match = _VERSION.match(self.version)
        assert match is not None  # checked when the config loads
        return match["upstream"]


@rule("kueue-extension.region", source=SOURCE)
def require_region(location: str, key: str) -> None:
    """A region the managed extension is offered in, because AKS installs it only there. Raises at ``key``."""
    if location.replace(" ", "").lower() not in REGIONS:
        raise RuleViolation(key, location, _as_of(f"the managed Kueue extension is offered only in {list(REGIONS)}"))


@rule("kueue-extension.kubernetes", source=SOURCE)
def require_kubernetes(version: str, key: str) -> None:
    """A Kubernetes version of at least :data:`MIN_KUBERNETES`, because the managed extension needs AKS 1.34 or
    later. Raises at ``key``."""
    if not KubernetesVersion.parse(version).at_least(*MIN_KUBERNETES):
        minimum = ".".join(map(str, MIN_KUBERNETES))
        raise RuleViolation(key, version, _as_of(f"the managed Kueue extension needs AKS {minimum} or later"))


@rule("kueue-extension.across-sections", source=SOURCE)
def check(config: StackConfig) -> None:
    """The rules across sections for ``kueue.install: aks-extension``: an AKS cluster where the extension is offered,
    applied (not rendered), without MultiKueue, and no queue object in the extension's ``aks-`` names."""
    if config.kueue.install != INSTALL:
        return
    if config.aks is not None:
        require_region(config.aks.location, "aks.location")
        require_kubernetes(config.aks.kubernetes_version, "aks.kubernetesVersion")
    elif config.existing_cluster is None or config.existing_cluster.source != "aks":
        allowed = "the managed Kueue extension is an AKS cluster extension: use aks or existingCluster.source aks"
        raise RuleViolation("kueue.install", INSTALL, allowed)
    if config.gitops.render_to_directory is not None:
        raise MisplacedKey(
            RENDER_KEY,
            "kueue.install aks-extension is an Azure resource the GitOps controller neither applies nor waits for, "
            "so the rendered queues would race a Kueue it cannot see; install the chart (kueue.install true) to render",
        )
    if config.multi_kueue is not None:
        allowed = "MultiKueue configures the manager's Kueue, which the managed extension does not let this stack do"
        raise MisplacedKey("multiKueue", allowed)
    _refuse_managed_names(config.queues)


@rule("kueue-extension.refuse-managed-names", source=_EXTENSION_FLAVORS_URL)
def _refuse_managed_names(queues: QueuesConfig) -> None:
    """The extension owns every Kueue object named ``aks-...``: the stack must not create one (name it in
    ``queues.external`` to use it)."""
    sections: dict[str, Sequence[Any]] = {
        "topologies": queues.topologies,
        "resourceFlavors": queues.resource_flavors,
        "workloadPriorityClasses": queues.workload_priority_classes,
        "provisioningChecks": queues.provisioning_checks,
        "provisioningRequestConfigs": queues.provisioning_request_configs,
        "admissionChecks": queues.admission_checks,
        "cohorts": queues.cohorts,
        "clusterQueues": queues.cluster_queues,
        "localQueues": queues.local_queues,
    }
    names = [
        (key_path("queues", section, index, "name"), item.name)
        for section, items in sections.items()
        for index, item in enumerate(items)
    ]
    names += [
        (key_path("queues", "provisioningChecks", index, "configName"), check.provisioning_request_config().name)
        for index, check in enumerate(queues.provisioning_checks)
    ]
    for key, name in names:
        if name.startswith(MANAGED_PREFIX):
            allowed = _as_of(
                f"the managed Kueue extension owns every Kueue object named {MANAGED_PREFIX}*; pick another name, or "
                "list the extension's object under queues.external to use it"
            )
            raise RuleViolation(key, name, allowed)
