"""The ``environment`` section: what kind of stack this is, and what that changes for the resources it creates.

One stack file format serves a developer's stack, a pull-request stack and production; the differences are config,
never code edits:

- ``dev`` (the default): exactly what the stack file says; an ACK cluster has deletion protection (and Pulumi's
  ``protect``) only when the file turns ``deletionProtection`` on, so ``pulumi destroy`` removes a dev stack.
- ``ephemeral``: a pull-request stack, created and destroyed by automation, possibly next to others of its kind in
  one Azure subscription, Alibaba Cloud account or shared cluster. Every physical name gets :attr:`name_suffix`,
  derived from the stack name, so two such stacks never collide and re-running ``up`` renames nothing; nothing is
  protected; ACK clusters have no deletion protection and delete the load balancers and log projects ACK created for
  them; the Kubernetes providers of the clusters the stack creates drop the objects of a cluster that is already
  gone; a temporary ACK kubeconfig lives 60 minutes instead of a day. A shared cluster's provider (``existingCluster``,
  ``ack.existingClusters``) never does: pulumi-kubernetes also calls a cluster unreachable when signing in fails, and
  a ``destroy`` would then drop the stack's objects from the state and leave them on the cluster.
- ``production``: the AKS and ACK clusters and the Kueue install carry Pulumi's ``protect`` (``pulumi destroy`` and
  a replacement refuse, https://www.pulumi.com/docs/iac/concepts/options/protect/), ACK deletion protection is on
  and may not be turned off, and the opt-in smoke Job, which scales a pool up on every change, is refused. Keys the
  stack file leaves unset get their secure production values (the AKS Standard tier and Entra ID, ACK control-plane
  and audit logs), a written key being the opt-out, and an AKS API server open to every address is warned about
  (``components/config/environment_rules.py``).

Which names are physical, and so suffixed: the resource group (only one the stack creates), the AKS cluster and its
DNS prefix, each ACK cluster and its VPC, vSwitches, NAT gateway and EIP, and every Kueue object with the references
between them (namespaces, ResourceFlavors, ProvisioningRequestConfigs, AdmissionChecks, Cohorts, ClusterQueues,
LocalQueues). Names scoped inside one of those (node pools, addons, the smoke Job inside its namespace) are not.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any, Literal

from pydantic import ValidationInfo, field_validator, model_validator

from components.config.base import ConfigModel, RuleViolation
from components.config.rules import rule

_EPHEMERAL_DOC_URL = "docs/operations.md#ephemeral-environments"
_K8S_NAMES_URL = "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"
_NAME_RULES_URL = "https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules"

EnvironmentKind = Literal["dev", "ephemeral", "production"]
"""What a stack is for; see the module docstring for what each kind changes."""

RESOLVED = "resolved"
"""The validation context key set while the resolved tree is validated again
(:func:`components.config.loader.resolved`): keys only the resolution may write are then accepted."""


def validating_resolved(info: ValidationInfo) -> bool:
    """Whether the tree being validated is the resolution's output, whose resolution-only keys are accepted."""
    return bool((info.context or {}).get(RESOLVED))


def stack_file_only(rule_id: str, *, source: str | None = None) -> Callable[[Callable[[Any, Any], Any]], Any]:
    """A model's before-validator, registered as rule ``rule_id``, that reads the stack file's tree and passes the
    resolved one through: that tree, validated again, holds what the check wrote or refuses in a stack file."""

    def decorate(check: Callable[[Any, Any], Any]) -> Any:
        @functools.wraps(check)
        def on_the_stack_file(cls: Any, data: Any, info: ValidationInfo) -> Any:
            return data if validating_resolved(info) else check(cls, data)

        del on_the_stack_file.__wrapped__  # pydantic reads the signature, which must keep ``info``
        validator: Any = classmethod(
            rule(rule_id, source=source)(on_the_stack_file)
        )  # pydantic's stubs type only the stacked form
        return model_validator(mode="before")(validator)

    return decorate


SUFFIX_PATTERN = re.compile(r"^-[a-z0-9]{1,8}$")
SUFFIX_MAX = 9
"""The longest suffix: ``-`` and 8 characters. Derived names leave room for it."""


def stack_digest(stack: str) -> str:
    """The first 6 hexadecimal digits of the SHA-256 of ``stack``: the same stack always gets the same digest."""
    return hashlib.sha256(stack.encode()).hexdigest()[:6]


def stack_slug(stack: str, room: int) -> str:
    """``stack`` as lowercase letters, digits and single hyphens, at most ``room`` characters.

    A stack name too long for ``room`` keeps its start and ends in its :func:`stack_digest`, so two long stack names
    with the same start still differ.
    """
    slug = re.sub(r"[^a-z0-9]+", "-", stack.lower()).strip("-")
    if slug and len(slug) <= room:
        return slug
    head = slug[: max(room - 7, 0)].rstrip("-")
    return f"{head}-{stack_digest(stack)}" if head else stack_digest(stack)


@rule("environment.name-fits-with-suffix", source=_NAME_RULES_URL)
def suffixed(key: str, name: str, suffix: str, limit: int) -> str:
    """A physical name that still fits its ``limit`` with ``environment.nameSuffix`` appended, because the cloud
    refuses a longer one. Returns ``name + suffix``, else raises :class:`RuleViolation` at ``key``."""
    if len(name) + len(suffix) > limit:
        allowed = (
            f"environment.nameSuffix {suffix!r} is appended to it, and the result may have at most {limit} "
            f"characters: shorten it to {limit - len(suffix)}"
        )
        raise RuleViolation(key, name, allowed)
    return name + suffix


class EnvironmentConfig(ConfigModel):
    """What kind of stack this is (stack key ``elastic-capacity:environment``)."""

    kind: EnvironmentKind = "dev"
    """``dev`` deploys what the stack file says; ``ephemeral`` (pull-request stacks) suffixes every physical name,
    protects nothing and makes every cluster deletable; ``production`` protects the clusters and the Kueue install,
    turns ACK deletion protection on (and refuses it off) and gives unset keys their secure values (the AKS
    Standard tier and Entra ID, ACK control-plane and audit logs). Details: ``components/config/environment.py``."""
    name_suffix: str = ""
    """Appended to every physical name (``-`` and 1-8 lowercase letters or digits). Unset: with ``kind: ephemeral``,
    ``-`` and the first 6 hex digits of the SHA-256 of the Pulumi stack name, so every pull-request stack gets its own
    names and keeps them on every run; otherwise none. Set it when two stacks of the same name (in different
    projects or organizations) share a subscription, account or cluster."""

    @model_validator(mode="before")
    @classmethod
    @rule("environment.suffix-from-the-stack", source=_EPHEMERAL_DOC_URL)
    def _suffix_from_the_stack(cls, data: Any, info: ValidationInfo) -> Any:
        """An ephemeral stack without an explicit suffix gets the one derived from its stack name, and is refused where
        that name is unknown, because two pull-request stacks would otherwise collide on their names."""
        if not isinstance(data, dict) or data.get("kind") != "ephemeral" or {"nameSuffix", "name_suffix"} & set(data):
            return data
        stack = (info.context or {}).get("stack")
        if not stack:
            raise RuleViolation(
                "nameSuffix", None, "an ephemeral stack derives it from the Pulumi stack name, which is unknown here"
            )
        return {**data, "nameSuffix": f"-{stack_digest(stack)}"}

    @field_validator("name_suffix")
    @classmethod
    @rule("environment.suffix-form", source=_K8S_NAMES_URL)
    def _suffix_form(cls, value: str) -> str:
        """A name suffix of ``-`` and 1-8 lowercase letters or digits, because every suffixed name must stay a DNS
        label."""
        if value and not SUFFIX_PATTERN.match(value):
            raise ValueError("write '-' and 1-8 lowercase letters or digits, e.g. '-pr123'")
        return value

    @property
    def ephemeral(self) -> bool:
        """A pull-request stack: everything it creates must be deletable by ``pulumi destroy``, whatever state the
        clusters are in."""
        return self.kind == "ephemeral"

    @property
    def protect(self) -> bool:
        """Whether the clusters and the Kueue install carry Pulumi's ``protect``."""
        return self.kind == "production"
