"""Kueue's namespace and Helm values, as plain dicts; the readiness gate's objects are in
:mod:`components.manifests.kueue_gate`."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

from components import yaml_text
from components.config.kueue import registries
from components.config.kueue.kueue import KueueConfig
from components.manifests.core import namespace

MANAGER_CONFIG_API_VERSION = "config.kueue.x-k8s.io/v1beta2"


def _dump(model: BaseModel) -> dict[str, Any]:
    """A config model as the Kubernetes API spells it: camelCase keys, unset and default-empty fields left out."""
    return model.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)


def chart_reference(args: KueueConfig) -> tuple[str, str | None]:
    """``(chart, repository)`` for Helm: an OCI reference is the chart itself; an https repository serves ``kueue``."""
    return registries.chart_reference(args.chart_repository, "kueue")


def manager_config(args: KueueConfig) -> dict[str, Any]:
    """The complete manager Configuration; ``managedJobsNamespaceSelector`` is always present, because the chart only
    gives its Job webhook a namespaceSelector when the key is there (``templates/webhook/manifests.yaml``); the fair
    sharing and resource settings only when set, since their presence is what turns them on. The rest is the chart's
    own default of the installed minor (``manager_defaults`` of its profile)."""
    defaults = copy.deepcopy(dict(args.profile.manager_defaults))
    return {
        "apiVersion": MANAGER_CONFIG_API_VERSION,
        "kind": "Configuration",
        **defaults,
        "managedJobsNamespaceSelector": _dump(args.managed_jobs_namespace_selector),
        "integrations": {"frameworks": list(args.frameworks)},
        **{
            key: settings.model_dump(by_alias=True, exclude_none=True, mode="json")
            for key, settings in (
                ("fairSharing", args.fair_sharing),
                ("admissionFairSharing", args.admission_fair_sharing),
                ("resources", args.resources),
                ("waitForPodsReady", args.wait_for_pods_ready),
                ("objectRetentionPolicies", args.object_retention_policies),
                ("multiKueue", args.multi_kueue),
            )
            if settings is not None
        },
        "metrics": defaults["metrics"]
        | (args.metrics.model_dump(by_alias=True, exclude_none=True, mode="json") if args.metrics else {}),
    }


def chart_values(args: KueueConfig) -> dict[str, Any]:
    """Always names the manager image's repository, so the registry it comes from is visible and checked."""
    return {
        "controllerManager": {
            "replicas": args.replicas,
            # With a second replica, a node drain may take only one at a time; with one it would block every drain.
            "podDisruptionBudget": {"enabled": args.replicas > 1, "minAvailable": 1},
            "manager": {
                "resources": _dump(args.manager_resources),
                "image": {"repository": args.image_repository},
            },
            "featureGates": [{"name": name, "enabled": on} for name, on in sorted(args.feature_gates.items())],
            "tolerations": [_dump(t) for t in args.tolerations],
            "nodeSelector": dict(args.node_selector),
        },
        "managerConfig": {"controllerManagerConfigYaml": yaml_text.dump(manager_config(args))},
    }


def kueue_namespace(args: KueueConfig) -> dict[str, Any]:
    """No labels of its own: ``KueueConfig`` proves the Job webhook skips it from its name label alone."""
    return namespace(args.namespace)


def kueue_fullname(args: KueueConfig) -> str:
    """The chart's ``kueue.fullname``: the release name if it contains ``kueue``, else ``<release>-kueue``."""
    return args.release_name if "kueue" in args.release_name else f"{args.release_name}-kueue"[:63].rstrip("-")
