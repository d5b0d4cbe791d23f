"""The ``gitops`` section: render the Kubernetes objects instead of applying them."""

from __future__ import annotations

from components.config.gitops import GitOpsConfig
from tests.support.config import model_error_keys


def test_unset_applies_the_objects():
    assert not GitOpsConfig().renders


def test_a_directory_renders_them():
    config = GitOpsConfig.model_validate({"renderToDirectory": "gitops/manifests"})
    assert config.renders and config.render_to_directory == "gitops/manifests"


def test_an_empty_directory_is_refused_naming_the_key():
    assert model_error_keys(GitOpsConfig, {"renderToDirectory": ""}) == ["renderToDirectory"]
