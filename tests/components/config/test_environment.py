"""The ``environment`` section: its kinds, the suffix an ephemeral stack derives from its name, and the name helpers."""

from __future__ import annotations

import hashlib

import pytest

from components.config.base import RuleViolation
from components.config.environment import EnvironmentConfig, stack_digest, stack_slug, suffixed
from components.config.loader import load_stack_config
from tests.support.config import as_config, stack_error_keys


def environment(section: dict, stack: str | None = "pr-7") -> EnvironmentConfig:
    return load_stack_config(as_config({"environment": section}), stack=stack).environment


def test_a_stack_without_the_section_is_a_dev_stack_with_no_suffix():
    config = load_stack_config({}, stack="pr-7")
    assert (config.environment.kind, config.environment.name_suffix) == ("dev", "")
    assert not config.environment.ephemeral and not config.environment.protect


def test_an_ephemeral_stack_derives_its_suffix_from_the_stack_name_the_same_way_every_time():
    expected = "-" + hashlib.sha256(b"pr-7").hexdigest()[:6]
    assert environment({"kind": "ephemeral"}).name_suffix == expected
    assert environment({"kind": "ephemeral"}).name_suffix == expected
    assert environment({"kind": "ephemeral"}, stack="pr-8").name_suffix != expected


def test_an_explicit_suffix_wins_and_any_kind_may_set_one():
    assert environment({"kind": "ephemeral", "nameSuffix": "-pr7"}).name_suffix == "-pr7"
    assert environment({"nameSuffix": "-blue"}).name_suffix == "-blue"
    assert environment({"kind": "production"}).name_suffix == ""


def test_only_production_protects_and_only_ephemeral_is_disposable():
    assert (environment({"kind": "production"}).protect, environment({"kind": "production"}).ephemeral) == (True, False)
    assert (environment({"kind": "ephemeral"}).protect, environment({"kind": "ephemeral"}).ephemeral) == (False, True)


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ({"kind": "staging"}, "environment.kind"),
        ({"nameSuffix": "pr7"}, "environment.nameSuffix"),
        ({"nameSuffix": "-PR7"}, "environment.nameSuffix"),
        ({"nameSuffix": "-toolong123"}, "environment.nameSuffix"),
        ({"kinds": "dev"}, "environment.kinds"),
    ],
)
def test_bad_values_are_named_by_their_key(section, key):
    assert stack_error_keys({"environment": section}) == [f"elastic-capacity:{key}"]


def test_an_ephemeral_stack_outside_a_stack_must_name_its_suffix():
    assert stack_error_keys({"environment": {"kind": "ephemeral"}}) == ["elastic-capacity:environment.nameSuffix"]


@pytest.mark.parametrize(
    ("stack", "room", "slug"),
    [
        ("pr-42", 35, "pr-42"),
        ("Feature_Branch.2", 35, "feature-branch-2"),
        ("org/team/pr-42", 35, "org-team-pr-42"),
        ("a" * 50, 35, "a" * 28 + "-" + stack_digest("a" * 50)),
        ("___", 35, stack_digest("___")),
    ],
)
def test_a_stack_name_becomes_a_valid_name_part_that_fits(stack, room, slug):
    assert stack_slug(stack, room) == slug
    assert len(slug) <= room


def test_suffixed_names_the_key_the_value_and_the_room_left():
    assert suffixed("clusterName", "kueue", "-abc123", 63) == "kueue-abc123"
    with pytest.raises(RuleViolation) as caught:
        suffixed("clusterName", "a" * 60, "-abc123", 63)
    assert caught.value.key == "clusterName"
    assert "at most 63 characters: shorten it to 56" in str(caught.value)
