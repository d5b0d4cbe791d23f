"""Kubeconfigs for Entra ID (AAD) AKS clusters that sign in without a prompt.

AKS returns, for an Entra ID cluster, a kubeconfig whose user runs ``kubelogin get-token --login devicecode``: fine
for a person at a terminal, a hang for the Pulumi Kubernetes provider and the smoke waiter. :func:`non_interactive`
rewrites such users the way ``kubelogin convert-kubeconfig -l <login>`` does
(https://azure.github.io/kubelogin/concepts/login-modes.html), keeping the cluster's server id and cloud. The result
holds no token at all, so it is the same on every run (no provider diff) and still works when ``destroy`` runs long
after the last ``up``. A kubeconfig without a kubelogin user (a cluster with local accounts, any other cluster) comes
back unchanged, and so does text that is no kubeconfig, for the Kubernetes provider to report.
"""

from __future__ import annotations

from typing import Any

import yaml

from components import yaml_text
from components.config.aks.entra_id import KubeloginConfig

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
PUBLIC_CLOUD = "AzurePublicCloud"
"""kubelogin's default ``--environment``: left out for global Azure, so its kubeconfigs stay as they were."""
INSTALL_HINT = "kubelogin is required for Entra ID clusters: https://azure.github.io/kubelogin/install.html"


def _flag(args: list[str], name: str) -> str | None:
    """The value after ``name`` in an argument list, as kubelogin reads it."""
    return next((args[i + 1] for i, arg in enumerate(args[:-1]) if arg == name), None)


def _login_args(args: list[str], login: KubeloginConfig) -> list[str]:
    server_id = _flag(args, "--server-id")
    if server_id is None:
        raise ValueError("the AKS kubeconfig's kubelogin user has no --server-id; cannot convert it")
    converted = ["get-token", "--login", login.login, "--server-id", server_id]
    tenant_id, environment = _flag(args, "--tenant-id"), _flag(args, "--environment")
    if login.login == "spn":
        converted += ["--client-id", str(login.client_id)]
        converted += ["--tenant-id", tenant_id] if tenant_id else []
    if environment and (login.login == "spn" or environment != PUBLIC_CLOUD):
        # A sovereign cloud's sign-in authority: kept whatever the login, since CI's AAD_LOGIN_METHOD may turn any
        # login into spn, which reads the authority from this flag only.
        converted += ["--environment", environment]
    return converted


def _runs_kubelogin(user: dict[str, Any]) -> bool:
    exec_config = (user.get("user") or {}).get("exec") or {}
    return "kubelogin" in str(exec_config.get("command", "")).lower()


def non_interactive(kubeconfig: str, login: KubeloginConfig) -> str:
    """``kubeconfig`` with every kubelogin user switched to ``login``; any other user is left as it is."""
    try:
        document = yaml_text.load(kubeconfig)
    except yaml.YAMLError:
        return kubeconfig
    if not isinstance(document, dict):
        return kubeconfig
    users = [user for user in document.get("users") or [] if _runs_kubelogin(user)]
    if not users:
        return kubeconfig
    for user in users:
        exec_config = user["user"]["exec"]
        user["user"]["exec"] = {
            "apiVersion": EXEC_API_VERSION,
            "command": "kubelogin",
            "args": _login_args(list(exec_config.get("args") or []), login),
            "installHint": INSTALL_HINT,
            "provideClusterInfo": False,
            "interactiveMode": "Never",
        }
    return yaml_text.dump(document)
