"""The ``gitops`` section: hand the in-cluster objects to a GitOps controller instead of applying them.

Teams whose Argo CD or Flux owns what runs inside the clusters can let Pulumi keep the cloud resources (networks,
clusters, pools, addons) and only render the Kubernetes objects, the Kueue chart included, as YAML files for the
controller to apply (https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/#renderyamltodirectory_python).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from components.config.base import ConfigModel


class GitOpsConfig(ConfigModel):
    """Render the Kubernetes objects instead of applying them (stack key ``elastic-capacity:gitops``)."""

    render_to_directory: Annotated[str, StringConstraints(min_length=1)] | None = None
    """A directory (relative to the project) under which every cluster's objects are written, one sub-directory per
    cluster provider. Unset applies them. In this mode the readiness gate and the waiters are left out: they check a
    running cluster, which only the GitOps controller reaches. Switching an existing stack between the two modes
    replaces every Kubernetes object's provider, so choose the mode when the stack is created."""

    @property
    def renders(self) -> bool:
        return self.render_to_directory is not None
