"""Named sets of queue objects: ``queues.preset`` writes a whole, tested set instead of the stack file listing it.

``aks-walkthrough`` is the queue manifest of Azure's article
(https://learn.microsoft.com/en-us/azure/aks/configure-kueue-with-cluster-autoscaler) object for object: namespace
``cas-kueue-demo``, ResourceFlavor ``scalepool``, ProvisioningRequestConfig ``cas-provreq-config``, AdmissionCheck
``cas-provisioning``, ClusterQueue ``cas-cluster-queue`` and LocalQueue ``cas-local-queue``.

A preset is all of a section's objects or none of them: with ``queues.preset`` every object list of the section
(and ``existingNamespaces`` and ``external``, which only the stack's own objects use) is refused, and only the settings
``waitUntilActive`` and ``lints`` may be written beside it. The preset's objects name each other (the flavor a
ClusterQueue gives quota to, the check it requires, the queue a LocalQueue submits to), so replacing one list either
breaks a reference or leaves an object of the preset that nothing uses, created without a word; refusing the mix
means every object a stack creates is either named by its preset or written in its file. To change one, write the
preset out (docs/kueue-api.md has it as stack-file YAML) and edit it.

Each preset is written as a stack file writes it (camelCase keys), so the program, the docs' copy and a stack file
that writes the same objects are one shape, and the preset's objects pass every rule a written one does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic.fields import FieldInfo

from components.config.aks.pools import POOL_LABEL, WALKTHROUGH_POOL
from components.config.base import MisplacedKey

PresetName = Literal["aks-walkthrough"]
"""The names ``queues.preset`` takes: the keys of :data:`PRESETS`."""
AKS_WALKTHROUGH: PresetName = "aks-walkthrough"
"""The preset of Azure's article; the shipped stacks that reproduce it name it."""
SETTINGS = frozenset({"preset", "wait_until_active", "lints"})
"""The ``queues`` fields that hold no object: the only ones a stack may write beside a preset."""
WALKTHROUGH_NAMESPACE = "cas-kueue-demo"
"""The article's queue manifest creates its own namespace rather than reusing the Ray example's ``ray``."""
WALKTHROUGH_LOCAL_QUEUE = "cas-local-queue"
"""The LocalQueue the article's Job ``kueue-cas-job`` is submitted to."""

PRESETS: dict[PresetName, dict[str, Any]] = {
    AKS_WALKTHROUGH: {
        "namespaces": [WALKTHROUGH_NAMESPACE],
        # Nodes AKS labels agentpool=scalepool: exactly the autoscaling pool the article adds.
        "resourceFlavors": [{"name": WALKTHROUGH_POOL, "nodeLabels": {POOL_LABEL: WALKTHROUGH_POOL}}],
        # The gate: pod sets requesting CPU go into one atomic ProvisioningRequest before admission.
        "provisioningChecks": [
            {"name": "cas-provisioning", "configName": "cas-provreq-config", "managedResources": ["cpu"]}
        ],
        # Quota set generously, as the article explains, so the pool's maxCount rather than Kueue caps the scale-up.
        "clusterQueues": [
            {
                "name": "cas-cluster-queue",
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {
                                "name": WALKTHROUGH_POOL,
                                "resources": [
                                    {"name": "cpu", "nominalQuota": "100"},
                                    {"name": "memory", "nominalQuota": "200Gi"},
                                ],
                            }
                        ],
                    }
                ],
                "admissionChecksStrategy": {
                    "admissionChecks": [{"name": "cas-provisioning", "onFlavors": [WALKTHROUGH_POOL]}]
                },
            }
        ],
        "localQueues": [
            {"name": WALKTHROUGH_LOCAL_QUEUE, "namespace": WALKTHROUGH_NAMESPACE, "clusterQueue": "cas-cluster-queue"}
        ],
    }
}
"""Every preset by the name ``queues.preset`` takes, as the ``queues`` keys it writes."""


def with_preset_objects(data: Any, fields: Mapping[str, FieldInfo]) -> Any:
    """The ``queues`` section ``data`` (whose model has ``fields``) with its preset's objects, when it names a known
    preset; any other field than :data:`SETTINGS` written beside it is refused by its stack-file key. An unknown
    preset name is left to the field's own validation, which lists the names."""
    preset = data.get("preset") if isinstance(data, dict) else None
    if not isinstance(preset, str) or preset not in PRESETS:
        return data
    aliases = {name: field.alias or name for name, field in fields.items() if name not in SETTINGS}
    written = [alias for name, alias in aliases.items() if name in data or alias in data]
    if written:
        raise MisplacedKey(
            written[0],
            f"queues.preset {preset!r} writes every queue object: drop the preset and write them all "
            "(docs/kueue-api.md#the-aks-walkthrough-preset has its objects written out)",
        )
    return {**data, **PRESETS[preset]}
