"""The policy pack's entry point. ``pulumi preview --policy-pack policies`` runs ``python3 -u -m pulumi.policy
<engine> .`` in this folder, which runs this file with the folder first on ``sys.path``; ``PolicyPack`` then serves
the policies to the engine over gRPC until the engine is done.
"""

from elastic_capacity_policies.pack import ENFORCEMENT_LEVEL, PACK_NAME, POLICIES
from pulumi_policy import PolicyPack

PolicyPack(
    name=PACK_NAME,
    policies=POLICIES,
    enforcement_level=ENFORCEMENT_LEVEL,
    description="Mandatory guarantees of the elastic-capacity stacks (AKS + Kueue, ACK Pro + ACS).",
)
