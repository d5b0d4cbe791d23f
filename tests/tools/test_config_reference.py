"""The generated configuration reference: identical to the model, and no key without a meaning."""

from __future__ import annotations

from pydantic import BaseModel, Field

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


def test_a_field_gets_the_docstring_below_it_in_the_class_that_declares_it():
    """What pydantic's use_attribute_docstrings gave, read only when a tool asks: a subclass's redeclared field has
    its own docstring (none here), an inherited one its parent's, an explicit description stays."""

    class Parent(BaseModel):
        kept: int = Field(default=0, description="explicit")
        """not this one"""
        inherited: int = 0
        """  the parent's meaning,
        cleaned"""
        redeclared: int = 0
        """the parent's"""

    class Child(Parent):
        redeclared: int = 1
        plain: int = 0
        """the child's"""

    config_reference.describe(Child)
    described = {name: field.description for name, field in Child.model_fields.items()}
    assert described == {
        "kept": "explicit",
        "inherited": "the parent's meaning,\ncleaned",
        "redeclared": None,
        "plain": "the child's",
    }
    assert Child.model_json_schema()["properties"]["plain"]["description"] == "the child's"
