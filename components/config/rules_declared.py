"""The rules whose refusals are raised outside a decorated check, each naming its id: the loader's checks of the raw
values, the stack file's, and the deploy-time checks against what the cloud reports (docs/rules.md lists them all)."""

from __future__ import annotations

from components.config.base import MATCHING_RULE
from components.config.rules import declare

PULUMI_CONFIG = "https://www.pulumi.com/docs/iac/concepts/config/"

NAMESPACE = declare(
    "config.namespace",
    "components.config.loader:_stray_key_problems",
    "Every config key has a namespace the program or one of its providers reads",
    source=PULUMI_CONFIG,
    key="<namespace>:<key>",
)
FINITE_NUMBER = declare(
    "config.finite-number",
    "components.config.loader:_absurd_number_problems",
    "No value is infinite, NaN or an integer beyond 64 bits",
    key="elastic-capacity:*",
)
KUBECONFIG_SECRET = declare(
    "config.kubeconfig-secret",
    "components.config.loader:load_stack_config",
    "A kubeconfig is set as a Pulumi secret, never in plain text",
    source="https://www.pulumi.com/docs/iac/concepts/secrets/",
    key="elastic-capacity:kubeconfig, elastic-capacity:multiKueueKubeconfigs",
)
PROVIDER_CLOUD = declare(
    "config.provider-cloud",
    "components.config.loader:azure_provider_cloud",
    "The azure-native provider's location lies in its environment's cloud (Azure China or global Azure)",
    source="https://www.pulumi.com/registry/packages/azure-native/installation-configuration/",
    key="azure-native:location",
)
STACK_FILE = declare(
    "stack-file.readable",
    "tools.stack_file:parse",
    "The stack file is YAML the Pulumi engine reads as meant: one mapping, stack-file keys, no duplicate keys",
    source="https://www.pulumi.com/docs/iac/concepts/projects/stack-settings-file/",
    key="the stack file",
)
MATCHING = declare(
    MATCHING_RULE,
    "components.config.base:matching",
    "A string has the form its key documents (a region, a VM size, a duration ...), said in words",
    key="every key typed with matching()",
)
KUEUE_CHART = declare(
    "tool.kueue-chart",
    "tools.gitops_preview:_chart_error",
    "The --kueue-chart directory is an unpacked Kueue Helm chart",
    key="--kueue-chart",
)

# Deploy time: what the cloud reports about a cluster, checked when the program runs against it.
declare(
    "deploy.ack-version-offered",
    "components.config.deploy_checks:AckReport.refusal",
    "ACK offers the requested Kubernetes version for a new cluster",
    key="ack.clusters[].kubernetesVersion",
)
declare(
    "deploy.ack-enhanced-nat-zone",
    "components.config.deploy_checks:AckReport.refusal",
    "The cluster's first zone offers an Enhanced NAT gateway",
    key="ack.clusters[].network.zones",
)
declare(
    "deploy.ack-scheduler-version",
    "components.config.deploy_checks:AckReport.refusal",
    "The kube-scheduler ACK installed meets every need of the cluster's ACS workloads",
    key="ack.clusters[].addons.kubeScheduler",
)
declare(
    "deploy.ack-virtual-node-version",
    "components.config.deploy_checks:AckReport.refusal",
    "The ack-virtual-node ACK installed meets the cluster's need",
    key="ack.clusters[].addons.virtualNode",
)
declare(
    "deploy.ack-existing-cluster",
    "components.config.deploy_checks:AckReport.refusal",
    "An existing ACK cluster exists in the region, is managed Pro and runs the configured Kubernetes minor",
    key="ack.existingClusters[].clusterId, ack.existingClusters[].kubernetesVersion",
)
declare(
    "deploy.ack-existing-addons",
    "components.config.deploy_checks:AckReport.refusal",
    "An existing ACK cluster runs ack-virtual-node and kube-scheduler new enough for its ACS workloads",
    key="ack.existingClusters[]",
)
declare(
    "deploy.ack-api-endpoint",
    "components.config.deploy_checks:AckReport.refusal",
    "ACK reports the API endpoint the kubeconfig mode asks for",
    key="ack.clusters[].kubeconfigMode",
)
declare(
    "deploy.ack-existing-endpoint",
    "components.config.deploy_checks:AckReport.refusal",
    "ACK's credential for an existing cluster names an https API endpoint",
    key="ack.existingClusters[]",
)
declare(
    "deploy.render-no-secret-data",
    "components.config.deploy_checks:secret_data_rendered",
    "A rendered directory holds no Secret with data, which it would keep in plain text",
    key="gitops.renderToDirectory",
)
declare(
    "deploy.aks-provisioning-requests",
    "components.config.deploy_checks:require_provisioning_requests",
    "An existing AKS cluster runs a Kubernetes whose managed autoscaler serves ProvisioningRequests",
    source="https://github.com/Azure/AKS/pull/5867",
    key="existingCluster.clusterName",
)
declare(
    "deploy.aks-version-offered",
    "components.aks_catalogue:offer",
    "AKS creates the requested Kubernetes minor in the location with the stack's support plan",
    source="https://learn.microsoft.com/azure/aks/supported-kubernetes-versions",
    key="aks.kubernetesVersion",
)
