"""Which Kubernetes minors AKS creates in a location today, asked of ARM's "List Kubernetes versions" API.

azure-native has no invoke for it (``pulumi_azure_native.containerservice`` 3.29 has no ``kubernetesVersions``
function), so the program calls the REST operation itself
(``GET /subscriptions/{id}/providers/Microsoft.ContainerService/locations/{location}/kubernetesVersions``,
https://learn.microsoft.com/rest/api/aks/managed-clusters/list-kubernetes-versions) with the token azure-native's own
``authorization.getClientToken`` invoke returns: the very credentials the provider deploys with (Azure CLI, OIDC in
GitHub Actions, a service principal, managed identity), in global Azure and Azure China alike, and no other client
library to configure.

When the answer cannot be had (ARM unreachable, a token without read access to the subscription) the dated table of
:mod:`components.config.aks.versions` answers instead, with a warning saying so and its date. Under the mocks
:data:`LOOKUP` is the mock cloud's catalogue (``tools/mock_cloud.py``).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable

import pulumi

from components.config.aks import versions as aks_versions
from components.config.stack import is_azure_china_region

_RULE = "[rule: deploy.aks-version-offered]"
"""The rule a refused version names (docs/rules.md)."""

API_VERSION = "2024-02-01"
ARM_HOSTS = {False: "management.azure.com", True: "management.chinacloudapi.cn"}
"""ARM's host in global Azure and in Azure China (https://learn.microsoft.com/azure/china/resources-developer-guide)."""

Catalogue = dict[str, tuple[str, ...]]
"""Minor (``"1.35"``) to the support plans AKS creates it with (``KubernetesOfficial``, ``AKSLongTermSupport``)."""


def live(token: str, subscription_id: str, location: str) -> Catalogue:
    """ARM's answer for ``location`` (an Azure China location asks Azure China's ARM); previews are left out. Raises
    whatever the call raises."""
    host = ARM_HOSTS[is_azure_china_region(location)]
    url = (
        f"https://{host}/subscriptions/{subscription_id}/providers/Microsoft.ContainerService"
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


LOOKUP: Callable[[str, str, str], Catalogue] = live
"""How the program asks for the catalogue; ``tools.mock_runtime`` puts the mock cloud's in its place."""


def offer(
    key: str, requested: str, lts: bool, token: str, subscription_id: str, location: str
) -> tuple[str | None, str | None]:
    """``(requested, None)`` if AKS creates its minor in ``location`` with the stack's support plan (``lts``:
    Premium tier and ``AKSLongTermSupport``), else ``(None, why not)`` naming ``key``; ``token`` is ARM's."""
    major, minor = (int(part) for part in requested.split(".")[:2])
    wanted = f"{major}.{minor}"
    try:
        catalogue = LOOKUP(token, subscription_id, location)
    except Exception as exc:  # any failure: the table answers, said loudly
        pulumi.log.warn(
            f"{key}: cannot read AKS's Kubernetes versions for {location} ({type(exc).__name__}: {exc}); checking "
            f"{requested!r} against the table of {aks_versions.AKS_VERSIONS_CHECKED} instead"
        )
        problem = aks_versions.unsupported((major, minor), lts=lts)
        return (None, f"{key}: {requested!r} cannot be created: {problem} {_RULE}") if problem else (requested, None)
    plan = "AKSLongTermSupport" if lts else "KubernetesOfficial"
    if plan in catalogue.get(wanted, ()):
        return requested, None
    offered = sorted(
        (m for m, plans in catalogue.items() if plan in plans), key=lambda m: tuple(map(int, m.split(".")))
    )
    return (
        None,
        f"{key}: {requested!r} cannot be created: AKS creates {offered} with {plan} in {location} today {_RULE}",
    )
