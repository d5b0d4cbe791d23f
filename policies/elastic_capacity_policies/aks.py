"""AKS sign-in and identity: Entra ID with Azure RBAC and no local accounts, and workload identity on its OIDC issuer.

Both read the ``azure-native:containerservice:ManagedCluster`` inputs the program sends to ARM
(https://learn.microsoft.com/rest/api/aks/managed-clusters/create-or-update).
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy

from elastic_capacity_policies.facts import dig, mapping

MANAGED_CLUSTER = "azure-native:containerservice:ManagedCluster"

ENTRA_ID_URL = "https://learn.microsoft.com/azure/aks/manage-local-accounts-managed-azure-ad"
WORKLOAD_IDENTITY_URL = "https://learn.microsoft.com/azure/aks/workload-identity-deploy-cluster"


def validate_entra_id(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """With Entra ID on (an ``aadProfile``), AKS-managed Entra ID, Azure RBAC and ``disableLocalAccounts``."""
    if args.resource_type != MANAGED_CLUSTER or "aadProfile" not in args.props:
        return
    aad = mapping(args.props["aadProfile"])
    required = {
        "aadProfile.managed": aad.get("managed"),
        "aadProfile.enableAzureRBAC": aad.get("enableAzureRBAC"),
        "disableLocalAccounts": args.props.get("disableLocalAccounts"),
    }
    for key, value in required.items():
        if value is not True:
            report_violation(
                f"AKS cluster {args.name!r} has Entra ID on (aadProfile is set) but {key} is {value!r}: set it to "
                "true.",
                None,
            )


def validate_workload_identity(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    """The OIDC issuer and workload identity, both on."""
    if args.resource_type != MANAGED_CLUSTER:
        return
    required = {
        "oidcIssuerProfile.enabled": dig(args.props, "oidcIssuerProfile", "enabled"),
        "securityProfile.workloadIdentity.enabled": dig(args.props, "securityProfile", "workloadIdentity", "enabled"),
    }
    for key, value in required.items():
        if value is not True:
            report_violation(f"AKS cluster {args.name!r} has {key} {value!r}: set it to true.", None)


ENTRA_ID = ResourceValidationPolicy(
    name="aks-entra-id-azure-rbac",
    description=(
        "An AKS cluster with Entra ID uses AKS-managed Entra ID with Azure RBAC and has local accounts disabled: "
        "otherwise the static admin kubeconfig (az aks get-credentials --admin) stays a non-auditable way in that "
        f"bypasses Entra ID and Azure RBAC ({ENTRA_ID_URL})."
    ),
    validate=validate_entra_id,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=ENTRA_ID_URL,
)

WORKLOAD_IDENTITY = ResourceValidationPolicy(
    name="aks-workload-identity",
    description=(
        "An AKS cluster publishes an OIDC issuer and has workload identity enabled: pods then reach Azure with "
        "federated tokens instead of stored secrets, workload identity needs the issuer, and the stack exports "
        f"aksOidcIssuerUrl for the federated credentials ({WORKLOAD_IDENTITY_URL})."
    ),
    validate=validate_workload_identity,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=WORKLOAD_IDENTITY_URL,
)

POLICIES = [ENTRA_ID, WORKLOAD_IDENTITY]
