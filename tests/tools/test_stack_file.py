"""Reading a stack file as the engine would: the shipped stacks read unchanged, and every malformed file is refused
with one line naming the file, the line and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from components.config.base import ConfigError
from components.config.loader import load_stack_config
from tests.support.stacks import STACK_IDS, STACKS
from tools import mock_cloud, stack_file
from tools.stack_file import StackFileError, parse

FILE = Path("stacks/Pulumi.dev.yaml")


def refusal(text: str) -> str:
    with pytest.raises(StackFileError) as caught:
        parse(text, FILE)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    return message


@pytest.mark.parametrize("path", STACKS, ids=STACK_IDS)
def test_a_shipped_stack_reads_as_yaml_reads_it(path):
    source = stack_file.read(path)
    config = yaml.safe_load(path.read_text())["config"]
    by_kubeconfig = config.get("elastic-capacity:existingCluster", {}).get("source") == "kubeconfig"
    stand_in = {"elastic-capacity:kubeconfig": mock_cloud.FAKE_KUBECONFIG} if by_kubeconfig else {}
    assert source.stack == path.name.removeprefix("Pulumi.").removesuffix(".yaml")
    assert source.config == config | stand_in
    assert source.secret_keys == frozenset(stand_in)
    assert len(source.notes) == len(stand_in)


KUBECONFIG_SOURCE = "config:\n  elastic-capacity:existingCluster: {source: kubeconfig}\n"


def test_a_kubeconfig_set_per_stack_gets_a_secret_stand_in_and_a_note_saying_so():
    source = parse(KUBECONFIG_SOURCE, FILE)
    assert source.config["elastic-capacity:kubeconfig"] == mock_cloud.FAKE_KUBECONFIG
    assert source.secret_keys == {"elastic-capacity:kubeconfig"}
    (note,) = source.notes
    assert "elastic-capacity:kubeconfig is not in the file" in note and "stand-in" in note


@pytest.mark.parametrize(
    "text",
    [
        KUBECONFIG_SOURCE + "  elastic-capacity:kubeconfig: {secure: AAAB}\n",
        "config:\n  elastic-capacity:existingCluster: {source: aks, resourceGroupName: g, clusterName: c}\n",
        "config:\n  elastic-capacity:queues: {}\n",
    ],
    ids=["kubeconfig given", "aks source", "no existing cluster"],
)
def test_no_stand_in_where_the_file_gives_the_kubeconfig_or_none_is_needed(text):
    source = parse(text, FILE)
    assert source.notes == ()
    assert source.config.get("elastic-capacity:kubeconfig") in (None, mock_cloud.FAKE_KUBECONFIG)
    assert ("elastic-capacity:kubeconfig" in source.config) is ("secure" in text)


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ("[elastic-capacity/aks-dev, shared/azure]", "imports the Pulumi ESC environments elastic-capacity/aks-dev, "
         "shared/azure;"),
        ("{imports: [team/base]}", "imports the Pulumi ESC environments team/base;"),
        ("{values: {pulumiConfig: {a: b}}}", "defines a Pulumi ESC environment;"),
    ],
)  # fmt: skip
def test_pulumi_esc_environments_are_named_since_their_values_are_not_rendered(environment, named):
    (note,) = parse(f"environment: {environment}\nconfig: {{}}\n", FILE).notes
    assert note.startswith(f"environment: the stack file {named}") and "missing from this render" in note
    assert parse("environment: []\nconfig: {}\n", FILE).notes == ()


def test_secure_values_become_placeholders_and_their_keys_secret():
    source = parse(
        "config:\n  elastic-capacity:kubeconfig: {secure: AAAB}\n  alicloud:x: {a: [{secure: AAAC}]}\n", FILE
    )
    assert source.config["elastic-capacity:kubeconfig"] == mock_cloud.FAKE_KUBECONFIG
    assert source.config["alicloud:x"] == {"a": [stack_file.SECRET_PLACEHOLDER]}
    assert source.secret_keys == {"elastic-capacity:kubeconfig", "alicloud:x"}


def test_the_engine_gets_strings_and_structured_values_as_json():
    source = parse("config:\n  azure-native:location: eastus2\n  elastic-capacity:aks: {maxPods: 30}\n", FILE)
    assert source.engine_config() == {"azure-native:location": "eastus2", "elastic-capacity:aks": '{"maxPods": 30}'}


def test_only_unquoted_scalars_yaml_typed_as_booleans_or_numbers_are_recorded():
    text = "config:\n  elastic-capacity:aks:\n    a: 1.30\n    b: '1.30'\n    c: [yes, 'no', 1e3, x, ~]\n"
    assert parse(text, FILE).yaml_scalars == {
        "elastic-capacity:aks.a": "1.30",
        "elastic-capacity:aks.c[0]": "yes",
        "elastic-capacity:aks.c[2]": "1e3",
    }


def test_an_exponent_without_a_dot_is_a_number_as_in_yaml_1_2():
    assert parse("config:\n  alicloud:x: {n: 1e3}\n", FILE).config["alicloud:x"] == {"n": 1000.0}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "config:\n  alicloud:x: 1\n  alicloud:x: 2\n",
            "dev.yaml:3:3: alicloud:x: duplicate key `alicloud:x` (first at line 2)",
        ),
        (
            "config:\n  alicloud:x:\n    a: [{b: 1, b: 2}]\n",
            "dev.yaml:3:16: alicloud:x.a[0].b: duplicate key `b` (first at line 3)",
        ),
        ("config: {}\nconfig: {}\n", "dev.yaml:2:1: config: duplicate key `config` (first at line 1)"),
    ],
)
def test_duplicate_keys_are_refused_at_any_depth(text, expected):
    assert expected in refusal(text)


def test_merge_keys_may_be_overridden_without_a_duplicate():
    source = parse("environment: &b {x: 1, y: 2}\nconfig:\n  alicloud:k: {<<: *b, y: 3}\n", FILE)
    assert source.config["alicloud:k"] == {"x": 1, "y": 3}


def test_a_syntax_error_is_one_line_with_line_and_column():
    message = refusal("config:\n  alicloud:x: [a\n  alicloud:y: b\n")
    assert message.startswith(f"{FILE}:3:")
    assert "YAML syntax error: " in message


def test_a_tab_is_named_as_the_culprit():
    assert "indent with spaces" in refusal("config:\n\tp:x: 1\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- config\n", "the top level must be a mapping of config, secretsprovider"),
        ("config: [a]\n", "config: it must be a mapping of namespace:key entries; found a list"),
        ("confg: {}\n", "confg: unknown top-level key `confg`; did you mean `config`?"),
        ("elastic-capacity:aks: {}\n", "`elastic-capacity:aks` is a config key: indent it under `config:`"),
        ("config:\n  aks: {}\n", "aks: a config key needs its namespace: write `elastic-capacity:aks`"),
        (
            "config:\n  elastc-capacity:aks: {}\n",
            "unknown namespace `elastc-capacity`; did you mean `elastic-capacity`?",
        ),
        ("config:\n  elastic-capacity:: 1\n", "no key after the namespace"),
    ],
)
def test_the_stack_files_own_shape_is_checked(text, expected):
    assert expected in refusal(text)


@pytest.mark.parametrize(
    ("scalar", "expected"),
    [
        ("2026-01-01", 'YAML reads 2026-01-01 as a date, which no key takes: quote it: "2026-01-01"'),
        ("1e1000000", "1e1000000 is out of range: YAML reads it as inf"),
        ("-.inf", "-.inf is out of range"),
        (".nan", ".nan is out of range"),
        ("9223372036854775808", "integers must fit in 64 bits"),
        ("!!binary aGk=", "YAML tag tag:yaml.org,2002:binary is not allowed"),
        ("!Ref x", "YAML tag !Ref is not allowed"),
        ("{1: a}", 'alicloud:x.1: a key must be a string; quote it: "1"'),
        ("{[a]: b}", "a key must be a plain string"),
        ("&a [*a]", "an alias refers to a value that contains it"),
    ],
)
def test_values_no_key_can_hold_are_refused_with_their_key(scalar, expected):
    assert expected in refusal(f"config:\n  alicloud:x: {scalar}\n")


def test_the_largest_int64_is_still_a_number():
    assert parse("config:\n  alicloud:x: 9223372036854775807\n", FILE).config["alicloud:x"] == 2**63 - 1


def test_aliases_cannot_expand_a_small_file_into_a_huge_one():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 9)]
    text = "environment:\n" + "".join(f"  {line}\n" for line in lines)
    assert f"more than {stack_file.MAX_VALUES} values" in refusal(text)


def test_nesting_deeper_than_any_key_needs_is_refused():
    assert f"nested deeper than {stack_file.MAX_DEPTH} levels" in refusal(
        "config:\n  alicloud:x: " + "[" * 200 + "]" * 200
    )


def test_a_file_that_is_not_utf8_or_cannot_be_read_is_refused(tmp_path):
    binary = tmp_path / "Pulumi.bin.yaml"
    binary.write_bytes(b"config:\n  alicloud:x: \xff\n")
    with pytest.raises(StackFileError, match=r"Pulumi.bin.yaml:2: not UTF-8 text: byte 0xff"):
        stack_file.read(binary)
    with pytest.raises(StackFileError, match="cannot read the stack file"):
        stack_file.read(tmp_path)


def test_a_stack_file_error_is_a_config_error_naming_its_key():
    with pytest.raises(ConfigError) as caught:
        parse("config:\n  aks: {}\n", FILE)
    assert caught.value.keys == ["aks"]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({"aks": "{}"}, "aks: a config key needs its namespace: write `elastic-capacity:aks`"),
        ({"elastc-capacity:aks": "{}"}, "did you mean `elastic-capacity`?"),
        ({"elastic-capacity:aks": json.dumps({"maxPods": float("inf")})}, "aks.maxPods: inf is out of range"),
        ({"elastic-capacity:smokeJob": '{"parallelism": 1e999}'}, "smokeJob.parallelism: inf is out of range"),
        ({"elastic-capacity:smokeJob": json.dumps({"cpu": -(2**64)})}, "integers must fit in 64 bits"),
    ],
)
def test_the_program_refuses_the_same_keys_and_numbers_whatever_reads_the_file(values, expected):
    """Under ``pulumi up`` the engine reads the file; the program still sees namespaces and numbers."""
    with pytest.raises(ConfigError) as caught:
        load_stack_config(values)
    assert expected in str(caught.value)
