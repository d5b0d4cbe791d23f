"""ACK clusters of a production stack have deletion protection on.

Production is a fact of the stack, not of the resource: :func:`~elastic_capacity_policies.facts.production_reason`
reads the stack config the CLI passes every policy pack (``elastic-capacity:environment.kind``, the key the program
itself reads) and the stack's tags.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, ResourceValidationPolicy

from elastic_capacity_policies.facts import production_reason

ACK_CLUSTER = "alicloud:cs/managedKubernetes:ManagedKubernetes"

DELETION_PROTECTION_URL = (
    "https://registry.terraform.io/providers/aliyun/alicloud/latest/docs/resources/cs_managed_kubernetes"
    "#deletion_protection"
)


def validate_deletion_protection(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type != ACK_CLUSTER:
        return
    reason = production_reason(args.stack_tags)
    if reason is None:
        return
    value = args.props.get("deletionProtection")
    if value is not True:
        report_violation(
            f"ACK cluster {args.props.get('name') or args.name!r} has deletionProtection {value!r}, and the stack is "
            f"a production stack ({reason}): set ack.clusters[].deletionProtection to true.",
            None,
        )


DELETION_PROTECTION = ResourceValidationPolicy(
    name="ack-production-deletion-protection",
    description=(
        "An ACK cluster of a production stack has deletionProtection on: then neither the console, the API nor a "
        f"stray destroy can delete it ({DELETION_PROTECTION_URL}). A stack is production when its config sets "
        "elastic-capacity:environment.kind to production, or its stack tag environment is production."
    ),
    validate=validate_deletion_protection,
    enforcement_level=EnforcementLevel.MANDATORY,
    url=DELETION_PROTECTION_URL,
)

POLICIES = [DELETION_PROTECTION]
