"""``queues.preset``: a named set of queue objects, all of them or none, and the docs' copy of each preset."""

from __future__ import annotations

import re
from typing import get_args

import pytest

from components import yaml_text
from components.config.base import ConfigError
from components.config.loader import load_stack_config
from components.config.queues.presets import AKS_WALKTHROUGH, PRESETS, SETTINGS, PresetName
from components.config.queues.queues import QueuesConfig
from tests.support import PROJECT_ROOT
from tests.support.config import WALKTHROUGH, as_config, model_error_keys
from tests.support.stacks import STACKS

QUEUE_API = (PROJECT_ROOT / "docs/kueue-api.md").read_text()
OBJECT_KEYS = sorted(field.alias or name for name, field in QueuesConfig.model_fields.items() if name not in SETTINGS)
"""Every ``queues`` key a preset excludes, in stack-file spelling."""
SOME_VALUE = {"external": {}}
"""A value each key takes; a list for the others (an empty one is refused too: it is written)."""


def test_every_preset_name_the_field_takes_has_its_objects():
    assert set(get_args(PresetName)) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_is_the_objects_it_names_written_out(name):
    written = QueuesConfig.model_validate(PRESETS[name])
    assert QueuesConfig(preset=name).model_copy(update={"preset": None}) == written


@pytest.mark.parametrize("key", OBJECT_KEYS)
def test_any_object_key_beside_a_preset_is_refused_naming_it(key):
    data = {"preset": AKS_WALKTHROUGH, key: SOME_VALUE.get(key, [])}
    assert model_error_keys(QueuesConfig, data, "queues") == [f"queues.{key}"]


def test_a_key_written_by_its_python_name_is_refused_by_its_stack_file_key():
    assert model_error_keys(QueuesConfig, {"preset": AKS_WALKTHROUGH, "local_queues": []}) == ["localQueues"]


def test_the_settings_may_be_written_beside_a_preset():
    settings = {"waitUntilActive": {"onInactive": "warn"}, "lints": {"managedResourcesCovered": False}}
    config = QueuesConfig.model_validate({"preset": AKS_WALKTHROUGH, **settings})
    assert (config.wait_until_active.on_inactive, config.lints.managed_resources_covered) == ("warn", False)
    assert [q.name for q in config.local_queues] == ["cas-local-queue"]


def test_the_refusal_says_what_to_do_instead():
    sections = {"aks": {"preset": "aks-walkthrough"}, "queues": {"preset": AKS_WALKTHROUGH, "clusterQueues": []}}
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config(sections))
    assert str(caught.value) == (
        "elastic-capacity:queues.clusterQueues: it must not be set here; queues.preset 'aks-walkthrough' writes every "
        "queue object: drop the preset and write them all (docs/kueue-api.md#the-aks-walkthrough-preset has its "
        "objects written out) [rule: queues.preset-objects]"
    )


@pytest.mark.parametrize("value", [[], {}, 1], ids=["list", "mapping", "number"])
def test_a_preset_that_is_no_name_is_refused_by_the_field(value):
    assert model_error_keys(QueuesConfig, {"preset": value, "clusterQueues": []}) == ["preset"]


def test_an_unknown_preset_is_refused_naming_the_names_allowed():
    with pytest.raises(ConfigError) as caught:
        load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}, "queues": {"preset": "walkthrough"}}))
    assert str(caught.value) == (
        "elastic-capacity:queues.preset: 'walkthrough' is not allowed; Input should be 'aks-walkthrough' "
        "[rule: schema.literal-error]"
    )


def test_the_preset_is_kept_through_the_ephemeral_renaming():
    sections = {
        "aks": {"preset": "aks-walkthrough"},
        **WALKTHROUGH,
        "environment": {"kind": "ephemeral", "nameSuffix": "-pr7"},
    }
    queues = load_stack_config(as_config(sections)).queues
    assert queues.preset == AKS_WALKTHROUGH
    assert [(q.namespace, q.name, q.cluster_queue) for q in queues.local_queues] == [
        ("cas-kueue-demo-pr7", "cas-local-queue-pr7", "cas-cluster-queue-pr7")
    ]


def test_the_docs_write_the_walkthrough_preset_out_as_the_program_has_it():
    section = QUEUE_API.split("## The aks-walkthrough preset\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the section shows the preset named, then written out"
    assert yaml_text.load(blocks[0]) == {"elastic-capacity:queues": {"preset": AKS_WALKTHROUGH}}
    assert yaml_text.load(blocks[1]) == {"config": {"elastic-capacity:queues": PRESETS[AKS_WALKTHROUGH]}}


def test_a_shipped_stack_names_a_preset_or_writes_its_objects_never_neither():
    """The section's defaults are empty, so a shipped stack with Kueue that wrote neither would create no queue."""
    for path in STACKS:
        config = yaml_text.load(path.read_text())["config"]
        if "elastic-capacity:aks" in config or "elastic-capacity:existingCluster" in config:
            queues = config.get("elastic-capacity:queues") or {}
            assert queues.get("preset") in PRESETS or queues.get("localQueues"), path.name


def test_kueue_without_queue_objects_is_warned_about_the_old_defaults():
    """A stack deployed when leaving queues out meant the walkthrough: its next up would delete them."""
    bare = load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}})).warnings()
    assert [key for key, _ in bare] == ["queues"] and AKS_WALKTHROUGH in bare[0][1]
    assert load_stack_config(as_config({"aks": {"preset": "aks-walkthrough"}, **WALKTHROUGH})).warnings() == []
