"""The config model's shared contract: errors that name the full key, and one uniqueness rule for every list."""

from __future__ import annotations

import pytest
from pydantic import ValidationError, model_validator

from components.config.base import (
    ConfigModel,
    MisplacedKey,
    RuleViolation,
    key_path,
    problems_from,
    require_unique,
)


def test_key_path_writes_keys_as_the_user_does():
    assert key_path("aks", "userPools", 0, "minCount") == "aks.userPools[0].minCount"
    assert key_path("", "queues", "") == "queues"


def test_the_first_repeat_is_named_by_its_own_key():
    with pytest.raises(RuleViolation) as caught:
        require_unique(["a", "b", "a", "b"], lambda i: key_path("pools", i, "name"), "pool names")
    assert caught.value.key == "pools[2].name"
    assert caught.value.value == "a"
    assert "pool names must be unique" in str(caught.value)


def test_unique_values_pass():
    require_unique(["a", "b"], lambda i: f"x[{i}]", "names")


def test_a_misplaced_key_is_named_without_quoting_a_value():
    error = MisplacedKey("kubeconfig", "it is only used with existingCluster.source 'kubeconfig'")
    assert error.key == "kubeconfig"
    assert error.problem == "it must not be set here; it is only used with existingCluster.source 'kubeconfig'"
    assert str(error) == f"kubeconfig: {error.problem}"
    assert "None" not in str(error) and "'set'" not in str(error)


def test_the_loader_reports_a_misplaced_key_with_its_full_key():
    class Section(ConfigModel):
        other: int | None = None

        @model_validator(mode="after")
        def _never(self) -> Section:
            raise MisplacedKey("other", "remove it")

    with pytest.raises(ValidationError) as caught:
        Section.model_validate({"other": 1})
    assert problems_from(caught.value, "section") == [("section.other", "it must not be set here; remove it")]
