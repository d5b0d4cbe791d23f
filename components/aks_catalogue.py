"""Which Kubernetes minors AKS creates in a location today, asked of ARM's "List Kubernetes versions" API.

azure-native has no invoke for it (``pulumi_azure_native.containerservice`` 3.29 has no ``kubernetesVersions``
function), so the program calls the REST operation itself
(``GET /subscriptions/{id}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions``,
https://learn.microsoft.com/rest/api/aks/managed-clusters/list-kubernetes-versions) with azure-identity's
``DefaultAzureCredential``: Microsoft's own credential chain (environment, workload identity, Azure CLI), one small
package, where azure-mgmt-containerservice would add every API version of the whole service for one GET.

When the answer cannot be had (no credential, no network, offline rendering) the dated table of
:mod:`components.config.aks_versions` answers instead, with a warning saying so and its date. Under the mocks
:data:`LOOKUP` is the mock cloud's catalogue (``tools/mock_cloud.py``).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

import pulumi

from components.config import aks_versions

API_VERSION = "2024-02-01"
ARM_SCOPE = "https://management.azure.com/.default"

Catalogue = dict[str, tuple[str, ...]]
"""Minor (``"1.35"``) to the support plans AKS creates it with (``KubernetesOfficial``, ``AKSLongTermSupport``)."""


def live(subscription_id: str, location: str) -> Catalogue:
    """ARM's answer for ``location``; previews are left out. Raises whatever the credential or the call raises."""
    from azure.identity import DefaultAzureCredential  # only the live answer needs it

    token = DefaultAzureCredential().get_token(ARM_SCOPE).token
    url = (
        f"https://management.azure.com/subscriptions/{subscription_id}/providers/Microsoft.ContainerService"
        f"/locations/{location}/kubernetesVersions?api-version={API_VERSION}"
    )
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        listed = json.load(response)
    return {
        str(entry["version"]): tuple((entry.get("capabilities") or {}).get("supportPlan") or ())
        for entry in listed.get("values", [])
        if not entry.get("isPreview")
    }


LOOKUP: Callable[[str, str], Catalogue] = live
"""How the program asks for the catalogue; ``tools.mock_runtime`` puts the mock cloud's in its place."""


def offer(key: str, requested: str, lts: bool, subscription_id: str, location: str) -> tuple[str | None, str | None]:
    """``(requested, None)`` if AKS creates its minor in ``location`` with the stack's support plan (``lts``:
    Premium tier and ``AKSLongTermSupport``), else ``(None, why not)`` naming ``key``."""
    major, minor = (int(part) for part in requested.split(".")[:2])
    wanted = f"{major}.{minor}"
    try:
        catalogue = LOOKUP(subscription_id, location)
    except Exception as exc:  # any failure: the table answers, said loudly
        pulumi.log.warn(
            f"{key}: cannot read AKS's Kubernetes versions for {location} ({type(exc).__name__}: {exc}); checking "
            f"{requested!r} against the table of {aks_versions.AKS_VERSIONS_CHECKED} instead"
        )
        problem = aks_versions.unsupported((major, minor), lts=lts)
        return (None, f"{key}: {requested!r} cannot be created: {problem}") if problem else (requested, None)
    plan = "AKSLongTermSupport" if lts else "KubernetesOfficial"
    if plan in catalogue.get(wanted, ()):
        return requested, None
    offered = sorted(
        (m for m, plans in catalogue.items() if plan in plans), key=lambda m: tuple(map(int, m.split(".")))
    )
    return None, f"{key}: {requested!r} cannot be created: AKS creates {offered} with {plan} in {location} today"
