"""What the waiters share: reading a cluster over its REST paths, conditions, a bounded poll, and the names of the
objects they read.

The waiters run inside Pulumi's dynamic-provider process, shipped by value (:mod:`components.waiters.dynamic_by_value`),
so this module imports nothing from the project (and no Pulumi). Reading objects by REST path keeps the waiters' fakes
in tests to a dictionary of paths.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import yaml

PROVISIONING_REQUEST_CRD = "provisioningrequests.autoscaling.x-k8s.io"
"""The CRD of ProvisioningRequests, served by the cluster autoscaler's side (kubernetes/autoscaler), not by Kueue."""

KUEUE_API_PATH = "/apis/kueue.x-k8s.io/v1beta2"
"""Where the API server serves Kueue's objects, in the storage version the stack writes."""
MULTIKUEUE_CLUSTER_REASONS = {
    "ClientConnectionFailed": "the manager could not reach or use the worker's API server: its egress must reach the "
    "worker's public endpoint, the token must be valid, and the worker must serve Kueue's v1beta2 API",
    "BadKubeConfig": "the Secret it names is missing, or has no key 'kubeconfig' holding a kubeconfig",
    "InsecureKubeConfig": "the kubeconfig uses an exec plugin, a token or CA file, basic auth or "
    "insecure-skip-tls-verify; MultiKueue accepts an inline token and certificate-authority-data only",
    "BadClusterProfile": "its ClusterProfile could not be read",
    "BadRestConfig": "no client could be built from the kubeconfig (its server or credentials)",
}
"""Why a MultiKueueCluster is ``Active=False``, by the reasons Kueue 0.17 sets
(https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/multikueuecluster.go)."""
MULTIKUEUE_CHECK_REASONS = {
    "NoUsableClusters": "none of its MultiKueueClusters is connected",
    "BadConfig": "its MultiKueueConfig is missing or names no cluster",
}
"""Why a MultiKueue AdmissionCheck is ``Active=False`` (``SomeActiveClusters`` keeps it Active with some workers
down; https://github.com/kubernetes-sigs/kueue/blob/v0.17.8/pkg/controller/admissionchecks/multikueue/admissioncheck.go)."""


@dataclasses.dataclass(frozen=True)
class ClusterReader:
    """How a waiter reads a cluster: the kubeconfig it signs in with, and what must be done before that identity may
    read there. On an Entra ID AKS cluster that is the access waiter, which completes once the role assignments of
    the stack reach the API server; a waiter that read before it would meet their propagation delay as 403s."""

    kubeconfig: Any
    """The secret kubeconfig (a ``pulumi.Input[str]``)."""
    after: tuple[Any, ...] = ()
    """The resources the waiter depends on for its access (``pulumi.Resource``)."""


Conditions = Sequence[Mapping[str, Any]]
Seen = TypeVar("Seen")


class Cluster(Protocol):
    """Read access to a cluster: ``get`` one object, ``list`` a collection's items, both by REST path."""

    def get(self, path: str) -> Any: ...

    def list(self, path: str, label_selector: str | None = None) -> list[Any]: ...


def is_not_found(error: Exception) -> bool:
    return getattr(error, "status", None) == 404


CONNECT_TIMEOUT_SECONDS = 10.0
"""How long one attempt to connect to the API server may take (urllib3 makes four). Without it an address the API
server drops, as one outside AKS's authorized IP ranges is, waits out the kernel's TCP timeout: minutes per attempt."""


class CredentialPluginError(Exception):
    """The kubeconfig's exec credential plugin (kubelogin, ack-ram-tool) could not run or failed; the message is its
    own."""


class UnreachableError(Exception):
    """No HTTP answer from the API server: its name did not resolve, or the connection was refused, dropped or timed
    out."""

    def __init__(self, server: str, reason: object) -> None:
        super().__init__(f"cannot reach the API server {server}: {reason}")


def _named(entries: Any, name: Any) -> Mapping[str, Any]:
    return next((entry for entry in entries or () if entry.get("name") == name), {})


def run_credential_plugin(kubeconfig: Mapping[str, Any]) -> None:
    """Run the exec credential plugin of the kubeconfig's current user once, if it has one; raise
    :class:`CredentialPluginError` with the plugin's own message (its stderr) when it fails.

    The client's loader catches a failing plugin, only logs it and then sends every request without a credential
    (``_load_from_exec_plugin`` in
    https://github.com/kubernetes-client/python/blob/master/kubernetes/base/config/kube_config.py), so a missing
    kubelogin or an expired ``az`` session would otherwise look like the cluster refusing the identity.
    """
    context = _named(kubeconfig.get("contexts"), kubeconfig.get("current-context")).get("context") or {}
    user = _named(kubeconfig.get("users"), context.get("user")).get("user") or {}
    if "exec" not in user:
        return
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.exec_provider import ExecProvider
    from kubernetes.config.kube_config import ConfigNode

    plugin = user["exec"]
    cluster = _named(kubeconfig.get("clusters"), context.get("cluster")).get("cluster") or {}
    try:
        ExecProvider(ConfigNode("exec", plugin), None, ConfigNode("cluster", cluster)).run()
    except OSError as error:
        hint = f"; {plugin['installHint']}" if plugin.get("installHint") else ""
        raise CredentialPluginError(f"cannot run {plugin['command']}: {error.strerror}{hint}") from None
    except ConfigException as error:
        raise CredentialPluginError(f"{plugin['command']} failed to sign in: {error}") from None


class RestCluster:
    """:class:`Cluster` over the official Kubernetes client, which also runs exec credential plugins (kubelogin).

    Building one runs the plugin first (:func:`run_credential_plugin`), so a sign-in that fails is raised with the
    plugin's message; the client then runs it itself and again whenever the credential expires. A read that gets no
    HTTP answer raises :class:`UnreachableError`.
    """

    def __init__(self, kubeconfig: str) -> None:
        from kubernetes import config

        document = yaml.safe_load(kubeconfig)
        run_credential_plugin(document)
        self.api_client = config.new_client_from_config_dict(document, persist_config=False)

    def _call(self, method: str, path: str, query: list[tuple[str, str]], body: Any = None) -> Any:
        import urllib3

        headers = {"Accept": "application/json"} | ({"Content-Type": "application/json"} if body is not None else {})
        try:
            return self.api_client.call_api(
                path,
                method,
                query_params=query,
                header_params=headers,
                body=body,
                response_types_map={200: "object", 201: "object"},
                auth_settings=["BearerToken"],
                _return_http_data_only=True,
                _request_timeout=(CONNECT_TIMEOUT_SECONDS, None),
            )
        except urllib3.exceptions.HTTPError as error:
            reason = getattr(error, "reason", None) or error  # MaxRetryError wraps the last attempt's failure
            raise UnreachableError(self.api_client.configuration.host, reason) from None

    def get(self, path: str) -> Any:
        return self._call("GET", path, [])

    def list(self, path: str, label_selector: str | None = None) -> list[Any]:
        query = [("labelSelector", label_selector)] if label_selector else []
        return self._call("GET", path, query).get("items") or []

    def post(self, path: str, body: Any) -> Any:
        """Create ``body`` at ``path`` (a subresource such as a ServiceAccount's ``token``); the answer as a dict."""
        return self._call("POST", path, [], body)


def condition(conditions: Conditions | None, type_: str) -> Mapping[str, Any] | None:
    return next((c for c in conditions or () if c.get("type") == type_), None)


def is_true(conditions: Conditions | None, type_: str) -> bool:
    found = condition(conditions, type_)
    return found is not None and found.get("status") == "True"


def explained(found: Mapping[str, Any] | None) -> str:
    """`` (reason: message)`` of a condition, or nothing."""
    if found is None:
        return ""
    parts = [str(found[k]) for k in ("reason", "message") if found.get(k)]
    return f" ({': '.join(parts)})" if parts else ""


def why_inactive(kind: str, found: Mapping[str, Any] | None) -> str:
    """``"; <what the reason means>"`` for a MultiKueue object's known ``Active=False`` reason, else nothing."""
    reasons = {"MultiKueueCluster": MULTIKUEUE_CLUSTER_REASONS, "AdmissionCheck": MULTIKUEUE_CHECK_REASONS}
    meaning = reasons.get(kind, {}).get(str((found or {}).get("reason")))
    return f"; {meaning}" if meaning else ""


TRANSIENT_STATUSES = frozenset({429, 500, 502, 503, 504})
"""Answers an API server gives while it is throttled, restarting or scaling (Too Many Requests, Internal Server Error,
Bad Gateway, Service Unavailable, Gateway Timeout): the next read may well succeed, so a wait reads again."""
ACCESS_PROPAGATION_SECONDS = 600.0
"""How long a 403 is taken for a grant still on its way: Azure role assignments take up to 10 minutes to take effect
(https://learn.microsoft.com/azure/role-based-access-control/troubleshooting), AKS says up to five for its own
(https://learn.microsoft.com/azure/aks/manage-azure-rbac), and each API server instance caches its authorization
answers for a while. A 403 that outlasts this is a grant that is missing, not late."""


class AccessRefusedError(Exception):
    """The cluster kept refusing the identity (403) past :data:`ACCESS_PROPAGATION_SECONDS`."""


def not_yet(error: Exception, waited_seconds: float) -> bool:
    """Whether a failed read is worth reading again: a transient answer, or a refusal young enough to be a grant
    still propagating."""
    status = getattr(error, "status", None)
    return status in TRANSIENT_STATUSES or (status == 403 and waited_seconds < ACCESS_PROPAGATION_SECONDS)


def poll(
    observe: Callable[[], Seen],
    finished: Callable[[Seen], bool],
    timeout_seconds: float,
    *,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    interval_seconds: float = 10.0,
) -> tuple[Seen, bool]:
    """Observe until ``finished`` or the deadline; return the last observation and whether it finished.

    Never sleeps past the deadline, and always observes once more at it. A read that fails :func:`not_yet` is read
    again; at the deadline its error is raised, a refusal as :class:`AccessRefusedError`. ``clock`` and ``sleep``
    default to the ``time`` module's, looked up at each call.
    """
    clock, sleep = clock or time.monotonic, sleep or time.sleep
    started = clock()
    deadline = started + timeout_seconds
    while True:
        try:
            seen = observe()
        except Exception as error:
            waited = clock() - started
            if not not_yet(error, waited) or clock() >= deadline:
                if getattr(error, "status", None) == 403:
                    raise AccessRefusedError(
                        f"the cluster still refuses the identity running Pulumi after {waited:.0f}s (403 Forbidden: "
                        f"{_reason(error)}): the role that lets it read there is missing, not late"
                    ) from None
                raise
        else:
            if finished(seen):
                return seen, True
            if clock() >= deadline:
                return seen, False
        sleep(min(interval_seconds, max(deadline - clock(), 0.0)))


def _reason(error: Exception) -> str:
    """The API server's own words for a refusal: the ``message`` of its Status body, or the error itself."""
    body = getattr(error, "body", None)
    try:
        return str(json.loads(body)["message"]) if body else str(error)
    except (ValueError, KeyError, TypeError):
        return str(error)
