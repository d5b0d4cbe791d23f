"""The rules whose refusals are raised outside a decorated check, each naming its id: the loader's checks of the raw
values, the stack file's, and the deploy-time checks against what the cloud reports (docs/rules.md lists them all)."""

from __future__ import annotations

from components.config.base import MATCHING_RULE
from components.config.rules import declare

PULUMI_CONFIG = "https://www.pulumi.com/docs/iac/concepts/config/"
ACK_VERSIONS = (
    "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/support-for-kubernetes-versions"
)
ACS_IN_ACK = "https://www.alibabacloud.com/help/tc/cs/user-guide/access-acs-computing-power-in-an-ack-cluster"
ACK_KUBECONFIG = (
    "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/"
    "api-cs-2015-12-15-describeclusteruserkubeconfig"
)

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
    "No value is infinite, NaN or an integer beyond 64 bits, because YAML reads ``.inf`` and ``.nan`` as numbers and "
    "Kubernetes holds integers in 64 bits",
    source="https://yaml.org/spec/1.2.2/",
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
    "A string has the form its key documents (a region, a VM size, a duration ...), said in words, because the "
    "cloud or Kubernetes refuses any other",
    source="https://docs.pydantic.dev/latest/errors/validation_errors/#string_pattern_mismatch",
    key="every key typed with matching()",
)
KUEUE_CHART = declare(
    "tool.kueue-chart",
    "tools.gitops_preview:_chart_error",
    "The --kueue-chart directory is an unpacked Kueue Helm chart, because the preview renders its templates",
    source="https://github.com/kubernetes-sigs/kueue/tree/v0.19.2/charts/kueue",
    key="--kueue-chart",
)

# Deploy time: what the cloud reports about a cluster, checked when the program runs against it.
declare(
    "deploy.ack-version-offered",
    "components.config.deploy.checks:AckReport.refusal",
    "ACK offers the requested Kubernetes version for a new cluster, because it creates clusters only of the versions "
    "it lists",
    source=ACK_VERSIONS,
    key="ack.clusters[].kubernetesVersion",
)
declare(
    "deploy.ack-enhanced-nat-zone",
    "components.config.deploy.checks:AckReport.refusal",
    "The cluster's first zone offers an Enhanced NAT gateway, because the NAT gateway of a new VPC is created there",
    source="https://www.pulumi.com/registry/packages/alicloud/api-docs/vpc/getenhancednatavailablezones",
    key="ack.clusters[].network.zones",
)
declare(
    "deploy.ack-scheduler-version",
    "components.config.deploy.checks:AckReport.refusal",
    "The kube-scheduler ACK installed meets every need of the cluster's ACS workloads, because an older one cannot "
    "schedule their compute classes",
    source="https://www.alibabacloud.com/help/en/ack/product-overview/kube-scheduler",
    key="ack.clusters[].addons.kubeScheduler",
)
declare(
    "deploy.ack-virtual-node-version",
    "components.config.deploy.checks:AckReport.refusal",
    "The ack-virtual-node ACK installed meets the cluster's need, because an older one cannot create its ACS pods",
    source=ACS_IN_ACK,
    key="ack.clusters[].addons.virtualNode",
)
declare(
    "deploy.ack-existing-cluster",
    "components.config.deploy.checks:AckReport.refusal",
    "An existing ACK cluster exists in the region, is managed Pro and runs the configured Kubernetes minor, because "
    "ACS compute needs ACK managed Pro and the scheduler tables are keyed by minor",
    source=ACS_IN_ACK,
    key="ack.existingClusters[].clusterId, ack.existingClusters[].kubernetesVersion",
)
declare(
    "deploy.ack-existing-addons",
    "components.config.deploy.checks:AckReport.refusal",
    "An existing ACK cluster runs ack-virtual-node and kube-scheduler new enough for its ACS workloads, because the "
    "stack does not manage a shared cluster's addons",
    source=ACS_IN_ACK,
    key="ack.existingClusters[]",
)
declare(
    "deploy.ack-api-endpoint",
    "components.config.deploy.checks:AckReport.refusal",
    "ACK reports the API endpoint the kubeconfig mode asks for, because the kubeconfig is built on that endpoint",
    source=ACK_KUBECONFIG,
    key="ack.clusters[].kubeconfigMode",
)
declare(
    "deploy.ack-existing-endpoint",
    "components.config.deploy.checks:AckReport.refusal",
    "ACK's credential for an existing cluster names an https API endpoint, because the stack's kubeconfig connects "
    "to it",
    source=ACK_KUBECONFIG,
    key="ack.existingClusters[]",
)
declare(
    "deploy.render-no-secret-data",
    "components.config.deploy.checks:secret_data_rendered",
    "A rendered directory holds no Secret with data, because the provider writes rendered Secrets in plain text",
    source="https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/#renderyamltodirectory_python",
    key="gitops.renderToDirectory",
)
declare(
    "deploy.aks-provisioning-requests",
    "components.config.deploy.checks:require_provisioning_requests",
    "An existing AKS cluster runs a Kubernetes whose managed autoscaler serves ProvisioningRequests",
    source="https://github.com/Azure/AKS/pull/5867",
    key="existingCluster.clusterName",
)
declare(
    "deploy.aks-version-offered",
    "components.azure.aks_catalogue:offer",
    "AKS creates the requested Kubernetes minor in the location with the stack's support plan",
    source="https://learn.microsoft.com/azure/aks/supported-kubernetes-versions",
    key="aks.kubernetesVersion",
)
