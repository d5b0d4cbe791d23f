"""The MultiKueue manager's token on a worker: a bound, expiring ServiceAccount token from the TokenRequest API.

A legacy ``kubernetes.io/service-account-token`` Secret never expires, so a leaked manager kubeconfig would open the
worker for good. This resource asks the worker's API server for a token of the manager's ServiceAccount
(``POST .../serviceaccounts/<name>/token``,
https://kubernetes.io/docs/reference/kubernetes-api/authentication-resources/token-request-v1/) that expires after
``expirationSeconds`` and is bound to an anchor Secret: deleting the anchor revokes it at once. It is replaced, which
issues a new token before the old one is dropped, when its inputs change (a new anchor: ``multiKueue.tokenRotation``)
and when less than :data:`RENEW_WHEN_LEFT` of its lifetime is left, so every ``pulumi up`` in time keeps the manager
connected and ``pulumi preview`` shows a due renewal as a replacement.

Shipped by value (:mod:`components.waiters.dynamic_by_value`): imports nothing from the project but
:data:`SHIPPED_MODULES`.
"""

from __future__ import annotations

import datetime
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ResourceProvider

from components.waiters.dynamic_by_value import reading, reduce_by_value
from components.waiters.kube_wait import ClusterReader, RestCluster, poll

SHIPPED_MODULES = (
    "components.waiters.dynamic_by_value",
    "components.waiters.kube_wait",
    "components.waiters.worker_token",
)
RENEW_WHEN_LEFT = 1 / 3
"""The share of a token's lifetime left when ``pulumi up`` issues the next one."""
ISSUE_TIMEOUT_SECONDS = 900.0
"""How long a token request is retried while the worker's API server throttles, restarts or does not yet let the
identity in (:func:`components.waiters.kube_wait.poll`)."""
WATCHED_INPUTS = ("namespace", "serviceAccount", "anchor", "expirationSeconds")
"""What makes a token a different one: another account, another anchor (a rotation) or another lifetime."""


class TokenCappedError(Exception):
    """The worker's API server issued a shorter token than asked (``--service-account-max-token-expiration``)."""


def token_request(expiration_seconds: int, anchor: dict[str, str]) -> dict[str, Any]:
    """A TokenRequest for the API server's own audience, bound to the anchor Secret (name and uid)."""
    return {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {
            "expirationSeconds": expiration_seconds,
            "boundObjectRef": {"apiVersion": "v1", "kind": "Secret", "name": anchor["name"], "uid": anchor["uid"]},
        },
    }


def capped_message(asked: float, granted: float, advice: dict[str, str]) -> str:
    """What to do when the API server issued a ``granted``-second token for ``asked`` seconds, in the config's words
    (``advice``, :data:`~components.config.deploy.checks.TOKEN_CAPPED_ADVICE`): a shorter lifetime in days, or,
    when the cap is below one day, a longer cap on the API server."""
    days = int(granted // 86400)
    if days >= 1:
        return (
            f"The worker's API server caps ServiceAccount tokens at about {days} day(s), below the "
            f"{int(asked // 86400)} asked for: {advice['shorter'].format(days=days)}"
        )
    hours = max(int(granted // 3600), 0)
    return (
        f"The worker's API server caps ServiceAccount tokens at about {hours} hour(s), below the one day "
        f"{advice['raise_cap']}"
    )


def _timestamp(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def renewal_due(issued_at: str, expires_at: str, now: datetime.datetime) -> bool:
    """Whether less than :data:`RENEW_WHEN_LEFT` of the token's lifetime is left at ``now``."""
    issued, expires = _timestamp(issued_at), _timestamp(expires_at)
    return now >= expires - (expires - issued) * RENEW_WHEN_LEFT


def now() -> datetime.datetime:
    """The provider's clock (tests replace it)."""
    return datetime.datetime.now(datetime.UTC)


class WorkerTokenProvider(ResourceProvider):
    """Creating the resource issues a token; deleting it deletes nothing (the token lapses, or dies with its
    anchor)."""

    def __reduce__(self) -> Any:
        return reduce_by_value(self, SHIPPED_MODULES)

    def create(self, props: dict[str, Any]) -> CreateResult:
        path = f"/api/v1/namespaces/{props['namespace']}/serviceaccounts/{props['serviceAccount']}/token"
        issued = now()
        asked = int(props["expirationSeconds"])
        cluster, request = RestCluster(props["kubeconfig"]), token_request(asked, props["anchor"])
        answer, _ = poll(lambda: cluster.post(path, request), lambda _: True, ISSUE_TIMEOUT_SECONDS)
        status = answer.get("status") or {}
        expires = _timestamp(status["expirationTimestamp"])
        granted = (expires - issued).total_seconds()
        if granted < asked * 0.99:
            raise TokenCappedError(capped_message(asked, granted, props["cappedAdvice"]))
        outs = {key: props[key] for key in (*WATCHED_INPUTS, "cappedAdvice")}
        outs |= {"token": status["token"], "issuedAt": issued.isoformat(), "expiresAt": expires.isoformat()}
        return CreateResult(id_=f"{props['namespace']}/{props['serviceAccount']}/{issued.isoformat()}", outs=outs)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        replaces = [key for key in WATCHED_INPUTS if olds.get(key) != news.get(key)]
        issued, expires = olds.get("issuedAt"), olds.get("expiresAt")
        if issued and expires and renewal_due(issued, expires, now()):
            replaces.append("expiresAt")
        return DiffResult(changes=bool(replaces), replaces=replaces, delete_before_replace=False)

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        return None


class WorkerToken(pulumi.dynamic.Resource, module="multikueue", name="WorkerToken"):
    """A token of ``service_account`` on the worker ``kubeconfig`` reaches, bound to the ``anchor`` Secret."""

    token: pulumi.Output[str]
    """The bearer token; a secret."""

    @property
    def expires_at(self) -> pulumi.Output[str]:
        """When the token expires (RFC 3339): the output ``expiresAt``."""
        return getattr(self, "expiresAt")  # noqa: B009  (set by the dynamic resource from its outputs)

    def __init__(
        self,
        resource_name: str,
        *,
        namespace: str,
        service_account: str,
        anchor: pulumi.Input[dict[str, pulumi.Input[str]]],
        expiration_seconds: int,
        capped_advice: dict[str, str],
        reader: ClusterReader,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """``capped_advice`` is what the message says to do when the worker caps the lifetime
        (:func:`capped_message`)."""
        props = {
            "namespace": namespace,
            "serviceAccount": service_account,
            "anchor": anchor,
            "expirationSeconds": expiration_seconds,
            "cappedAdvice": capped_advice,
            "kubeconfig": pulumi.Output.secret(reader.kubeconfig),
            "token": None,
            "issuedAt": None,
            "expiresAt": None,
        }
        secret = pulumi.ResourceOptions(additional_secret_outputs=["token"])
        options = reading(reader, pulumi.ResourceOptions.merge(opts, secret))
        super().__init__(WorkerTokenProvider(), resource_name, props, options)
