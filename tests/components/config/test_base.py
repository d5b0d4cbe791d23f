"""The config model's shared contract: errors that name the full key, and one uniqueness rule for every list."""

from __future__ import annotations

import pytest

from components.config.base import RuleViolation, key_path, require_unique


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
