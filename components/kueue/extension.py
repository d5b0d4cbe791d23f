"""Kueue from AKS's managed extension (``microsoft.kueue``): an ARM ``Microsoft.KubernetesConfiguration`` extension
on the cluster, in place of the Helm chart (``kueue.install: aks-extension``, docs/kueue-extension.md).

The request is the one Azure's article makes with ``az k8s-extension create --cluster-type managedClusters
--extension-type microsoft.kueue --scope cluster --release-namespace kueue-system --version <v>``
(:mod:`components.config.kueue.extension` has the sources), through azure-native's ``kubernetesconfiguration.Extension``
at its default API version 2023-05-01:

- ``autoUpgradeMinorVersion: false`` pins ``version``; the API describes ``version`` as "To use 'version',
  autoUpgradeMinorVersion must be 'false'" and the CLI refuses a pin otherwise (``validate_version_and_auto_upgrade``
  in https://github.com/Azure/azure-cli-extensions/tree/main/src/k8s-extension).
- ``releaseTrain: Stable``: the API's own default, which it reads "only if autoUpgradeMinorVersion is 'true'"
  (``ExtensionProperties`` in https://github.com/Azure/azure-rest-api-specs/blob/main/specification/kubernetesconfiguration/resource-manager/Microsoft.KubernetesConfiguration/extensions/models.tsp).
  The article's command sends no train, so ARM applies the same default; azure-native would send ``Stable`` if this
  program sent nothing, so it is written out rather than left implicit.
- ``autoUpgradeMode`` (the article's ``--auto-upgrade-mode none``) exists only from API 2025-03-01, which azure-native
  3.x offers as a generated local package only. Whether ARM treats a 2023-05-01 pin without it as ``none`` is
  UNVERIFIED: if the extension moved itself on, ``pulumi refresh`` would show a version drift.
"""

from __future__ import annotations

import dataclasses

import pulumi
from pulumi_azure_native import containerservice, kubernetesconfiguration

from components.config.deploy import checks as deploy_checks
from components.config.kueue import extension as kueue_extension
from components.config.kueue.kueue import KueueConfig

CLUSTER_RP = "Microsoft.ContainerService"
CLUSTER_RESOURCE = "managedClusters"


@dataclasses.dataclass(frozen=True)
class ManagedCluster:
    """The AKS cluster the extension goes on. An ``existing`` one is checked at deploy time, where its region and
    version first become known; a new one was checked when the config loaded."""

    resource_group_name: pulumi.Input[str]
    cluster_name: pulumi.Input[str]
    existing: bool = False


def extension(
    name: str,
    args: KueueConfig,
    cluster: ManagedCluster,
    *,
    protect: bool,
    depends_on: list[pulumi.Resource],
    parent: pulumi.Resource,
) -> kubernetesconfiguration.Extension:
    """The extension, pinned, in ``args.namespace``. ``protect`` as for the chart: removing the extension removes
    Kueue, and with it (UNVERIFIED for the extension, as for the chart's CRDs) every queue and workload."""
    assert args.extension is not None  # install aks-extension requires it
    cluster_name = pulumi.Output.from_input(cluster.cluster_name)
    if cluster.existing:
        found = containerservice.get_managed_cluster_output(
            resource_group_name=cluster.resource_group_name,
            resource_name=cluster.cluster_name,
            opts=pulumi.InvokeOutputOptions(parent=parent),
        )
        checked = pulumi.Output.all(found.location, found.current_kubernetes_version).apply(
            lambda found: deploy_checks.require_extension_offered(found[0], found[1])
        )
        cluster_name = pulumi.Output.all(checked, cluster_name).apply(lambda values: values[1])
    return kubernetesconfiguration.Extension(
        name,
        resource_group_name=cluster.resource_group_name,
        cluster_name=cluster_name,
        cluster_rp=CLUSTER_RP,
        cluster_resource_name=CLUSTER_RESOURCE,
        extension_name=kueue_extension.EXTENSION_NAME,
        extension_type=kueue_extension.EXTENSION_TYPE,
        auto_upgrade_minor_version=False,
        release_train="Stable",
        version=args.extension.version,
        scope=kubernetesconfiguration.ScopeArgs(
            cluster=kubernetesconfiguration.ScopeClusterArgs(release_namespace=args.namespace)
        ),
        opts=pulumi.ResourceOptions(parent=parent, protect=protect, depends_on=depends_on),
    )
