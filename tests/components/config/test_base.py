"""The config model's shared contract: errors that name the full key, and one uniqueness rule for every list."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BeforeValidator, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from components.config.base import (
    ConfigModel,
    MisplacedKey,
    RuleViolation,
    camel_key,
    closest,
    key_path,
    model_at,
    one_line,
    problems_from,
    require_unique,
)
from components.config.stack import StackConfig


def test_every_key_is_the_camel_case_pydantics_own_generator_gives_its_field():
    """The keys users write stay what pydantic's ``to_camel`` made them: ``camel_key`` only replaces its regexes."""
    fields = {name for model in _sections(ConfigModel) for name in model.model_fields}
    assert set(StackConfig.model_fields) <= fields and len(fields) > 300
    assert {name: camel_key(name) for name in fields} == {name: to_camel(name) for name in fields}
    assert camel_key("ipv4_cidr_block") == "ipv4CidrBlock" and camel_key("name") == "name"


def _sections(model: type[ConfigModel]) -> list[type[ConfigModel]]:
    return [section for sub in model.__subclasses__() for section in (sub, *_sections(sub))]


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


class Pool(ConfigModel):
    name: str
    max_count: int = 5


class Cluster(ConfigModel):
    cluster_name: str = "c"
    pools: list[Pool] = Field(default_factory=list)
    by_zone: dict[str, Pool] = Field(default_factory=dict)
    system: Pool | None = None
    version: str = "1.35"
    zone: Literal["1", "2", "3"] = "1"
    replicas: Annotated[int, Field(strict=True)] = 1


def problems(data: dict, **kwargs) -> list[tuple[str, str]]:
    with pytest.raises(ValidationError) as caught:
        Cluster.model_validate(data)
    return problems_from(caught.value, "aks", **kwargs)


@pytest.mark.parametrize(
    ("data", "key", "suggestion"),
    [
        ({"clustrName": "x"}, "aks.clustrName", "clusterName"),
        ({"pools": [{"name": "a", "maxcount": 3}]}, "aks.pools[0].maxcount", "maxCount"),
        ({"byZone": {"1": {"name": "a", "maxCont": 3}}}, "aks.byZone.1.maxCont", "maxCount"),
        ({"system": {"name": "a", "nme": "b"}}, "aks.system.nme", "name"),
    ],
    ids=["top", "list item", "map value", "optional"],
)
def test_an_unknown_key_suggests_the_closest_key_allowed_at_its_place(data, key, suggestion):
    unknown = key.rsplit(".", 1)[-1]
    assert (key, f"unknown key `{unknown}`; did you mean `{suggestion}`?") in problems(data)


def test_an_unknown_key_like_no_allowed_one_lists_them():
    assert problems({"pools": [{"name": "a", "zzzzzz": 1}]}) == [
        ("aks.pools[0].zzzzzz", "unknown key `zzzzzz`; allowed here: name, maxCount")
    ]


def test_a_misspelled_required_key_is_reported_once():
    assert problems({"pools": [{"nmae": "a"}]}) == [("aks.pools[0].nmae", "unknown key `nmae`; did you mean `name`?")]


def test_the_model_is_found_by_the_errors_title_when_not_given():
    assert problems({"clustrName": "x"}, root=None) == problems({"clustrName": "x"}, root=Cluster)


def test_model_at_follows_optional_lists_and_maps():
    assert model_at(Cluster, ("pools", 0)) is Pool
    assert model_at(Cluster, ("byZone", "1")) is Pool
    assert model_at(Cluster, ("system",)) is Pool
    assert model_at(Cluster, ("version",)) is None
    assert model_at(Cluster, ("nowhere", 0)) is None


def test_closest_ignores_case_and_gives_up_on_strangers():
    assert closest("clustername", ["clusterName", "location"]) == "clusterName"
    assert closest("qqq", ["clusterName", "location"]) is None


@pytest.mark.parametrize(
    ("data", "written", "expected"),
    [
        (
            {"version": 1.3},
            {"aks.version": "1.30"},
            'YAML reads 1.30 as the number 1.3, not a string: quote it: "1.30"',
        ),
        (
            {"version": True},
            {"aks.version": "yes"},
            'YAML reads yes as the boolean true, not a string: quote it: "yes"',
        ),
        ({"version": 60}, None, 'YAML reads 60 as an integer, not a string: quote it: "60"'),
        ({"zone": 1}, None, "quote it: \"1\" (allowed: '1', '2' or '3')"),
        ({"replicas": True}, {"aks.replicas": "on"}, "YAML reads on as the boolean true, not a whole number"),
        ({"replicas": 1.5}, None, "1.5 is not allowed; it must be a whole number without a fraction"),
    ],
)
def test_a_scalar_yaml_typed_against_the_model_says_how_to_write_it(data, written, expected):
    ((_, message),) = problems(data, yaml_scalars=written)
    assert expected in message


def test_a_number_where_a_string_belongs_names_the_cli_flag_that_keeps_it_a_string():
    """`pulumi config set --path key 2` stores the integer 2 whatever the shell quotes: only `--type string` helps."""
    ((_, message),) = problems({"version": 60})
    assert message.endswith("; with `pulumi config set --path`, add `--type string`")


def _quoted(value: object) -> object:
    if not isinstance(value, str):
        raise ValueError("quote the version")
    return value


def test_a_value_is_shown_as_the_file_wrote_it():
    class Version(ConfigModel):
        version: Annotated[str, BeforeValidator(_quoted)]

    with pytest.raises(ValidationError) as caught:
        Version.model_validate({"version": 1.3})
    assert problems_from(caught.value, "", yaml_scalars={"version": "1.30"}) == [
        ("version", "1.30 is not allowed; quote the version")
    ]


def test_messages_and_keys_stay_on_one_line():
    assert one_line("a\nb\r\tc\u2028d\x85") == "a\\nb\\r\\tc\\u2028d\\x85"
    ((key, message),) = problems({"pools": [{"name": "a", "bad\nkey": 1}]})
    assert "\n" not in key and "\n" not in message
