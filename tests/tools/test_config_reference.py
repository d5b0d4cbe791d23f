"""The generated configuration reference: identical to the model, and no key without a meaning."""

from __future__ import annotations

from tools import config_reference


def test_the_reference_file_is_generated_from_the_model():
    assert config_reference.REFERENCE_FILE.read_text() == config_reference.reference(), (
        "docs/config-reference.md is stale: regenerate it with python3 -m tools.config_reference --write"
    )


def test_every_key_says_what_it_means():
    assert config_reference.undocumented_keys() == [], "give each of these config fields a docstring"


def test_the_reference_has_one_table_per_top_level_key():
    reference = config_reference.reference()
    for key in ("aks", "existingCluster", "kubeconfig", "kueue", "queues", "smokeJob", "ack"):
        assert f"#### `elastic-capacity:{key}`" in reference
