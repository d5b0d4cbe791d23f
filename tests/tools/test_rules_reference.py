"""The generated rules reference: identical to the registry, one row per rule, keys found from the model."""

from __future__ import annotations

from tools import rules_reference


def test_the_rules_file_is_generated_from_the_registry():
    assert rules_reference.REFERENCE_FILE.read_text() == rules_reference.reference(), (
        "docs/rules.md is stale: regenerate it with python -m tools.rules_reference --write"
    )


def test_every_registered_rule_has_its_row():
    reference = rules_reference.reference()
    for rule_id in rules_reference.load_all():
        assert f"| `{rule_id}` |" in reference


def test_the_keys_of_a_model_validator_are_found_from_the_model():
    keys = rules_reference.guarded_keys()
    assert keys["components.config.aks.pools:UserPoolConfig._count_bounds"] == ["aks.userPools[]"]
    assert "aks.location" not in keys.get("components.config.aks.aks:AksConfig._unique_pool_names", [])
    assert keys["components.config.environment:EnvironmentConfig._suffix_form"] == ["environment.nameSuffix"]
