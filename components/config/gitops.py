"""The ``gitops`` section: hand the in-cluster objects to a GitOps controller instead of applying them.

Teams whose Argo CD or Flux owns what runs inside the clusters can let Pulumi keep the cloud resources (networks,
clusters, pools, addons) and only render the Kubernetes objects, the Kueue chart included, as YAML files for the
controller to apply (https://www.pulumi.com/registry/packages/kubernetes/api-docs/provider/#renderyamltodirectory_python).
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import PurePosixPath
from typing import Annotated

from pydantic import StringConstraints, field_validator

from components.config.base import ConfigModel
from components.config.rules import rule

_FLUX_PATH_URL = "https://fluxcd.io/flux/components/kustomize/kustomizations/#path"

RENDER_KEY = "gitops.renderToDirectory"
"""The key every render-mode refusal names."""
GITIGNORE = (
    ".venv/",
    "venv/",
    "__pycache__/",
    "*.pyc",
    ".pytest_cache/",
    ".mypy_cache/",
    ".ruff_cache/",
    "/out/",
    "/render/",
    "*.egg-info/",
    ".hypothesis/",
    "/stacks/Pulumi.dev-*.yaml",
)
"""The project's ``.gitignore``, pattern for pattern: the configuration reads no file, so a test holds the two equal."""


def _ignored_by(pattern: str, parts: tuple[str, ...]) -> bool:
    """Whether the ``.gitignore`` ``pattern`` ignores the directory ``parts`` or one of its parents: a pattern with a
    slash before its end matches from the project's root, any other at every depth, and a trailing slash only
    matches directories, which every part is (https://git-scm.com/docs/gitignore#_pattern_format)."""
    name = pattern.rstrip("/")
    if "/" not in name:
        return any(fnmatchcase(part, name) for part in parts)
    depth = name.lstrip("/").count("/") + 1
    return len(parts) >= depth and fnmatchcase("/".join(parts[:depth]), name.lstrip("/"))


class GitOpsConfig(ConfigModel):
    """Render the Kubernetes objects instead of applying them (stack key ``elastic-capacity:gitops``)."""

    render_to_directory: Annotated[str, StringConstraints(min_length=1)] | None = None
    """A directory inside the project that git commits (relative, no ``..``, none that ``.gitignore`` names, such as
    ``out`` or ``render``; ``gitops`` or one below it for ``.github/workflows/gitops.yml``, whose pushes the other
    workflows' triggers ignore only there) under which the objects are written: per cluster one
    directory per layer, `<dir>/<cluster>/<NN-layer>/` (10-kueue, 20-queues, 30-workloads), each object annotated
    with its layer's Argo CD sync wave, and one Flux Kustomization per layer in `<dir>/flux/<cluster>/`. Unset
    applies them. In this mode the readiness gate and the waiters are left out: they check a running cluster, which
    only the GitOps controller reaches; MultiKueue and any Secret with data are refused. Switching an existing stack
    between the two modes replaces every Kubernetes object's provider, so choose the mode when the stack is
    created."""

    @field_validator("render_to_directory")
    @classmethod
    @rule("gitops.inside-the-project", source=_FLUX_PATH_URL)
    def _inside_the_project(cls, value: str | None) -> str | None:
        """The directory is committed to this repository and Flux's paths are relative to its root: it must be
        inside the project. Returned normalized (``./gitops/`` is ``gitops``), as every path built from it
        expects."""
        if value is None:
            return None
        path = PurePosixPath(value)
        if path.is_absolute() or ".." in path.parts or str(path) == ".":
            raise ValueError("use a directory inside the project, relative to it, such as 'gitops'")
        return str(path)

    @field_validator("render_to_directory")
    @classmethod
    @rule("gitops.tracked-by-git")
    def _tracked_by_git(cls, value: str | None) -> str | None:
        """The directory is one git can commit: ``.gitignore`` names neither it nor a parent, and it is not in
        ``.git``. ``.github/workflows/gitops.yml`` commits the render with ``git add``, which exits 1 on an ignored
        path (https://git-scm.com/docs/git-add) and adds nothing under ``.git``, so the controllers would never see
        it."""
        if value is None:
            return None
        parts = PurePosixPath(value).parts
        if ".git" in parts:
            raise ValueError(
                "git keeps its own files in .git and commits none of them; use a directory such as 'gitops'"
            )
        for pattern in GITIGNORE:
            if _ignored_by(pattern, parts):
                raise ValueError(
                    f"the project's .gitignore ignores it ({pattern!r}), so the render could not be committed; use a "
                    "directory git tracks, such as 'gitops'"
                )
        return value

    @property
    def renders(self) -> bool:
        return self.render_to_directory is not None
