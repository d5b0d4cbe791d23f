"""Rule ids: every check is registered once, and a violation raised inside it carries its id to the message."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from components.config import rules
from components.config.base import ConfigError, Problem, RuleViolation
from components.config.rules import RULES, first_sentence, rule
from tests.support import PROJECT_ROOT
from tests.support.config import as_config
from tools import rules_reference

CONFIG = PROJECT_ROOT / "components" / "config"


def test_a_violation_raised_inside_a_rule_carries_its_id_and_an_inner_rule_wins():
    @rule("test.inner")
    def inner() -> None:
        """Nothing, because it is a test."""
        raise RuleViolation("key", 1, "no")

    @rule("test.outer")
    def outer(inner_first: bool) -> None:
        """Nothing either, because it is a test too."""
        if inner_first:
            inner()
        raise ValueError("plain")

    with pytest.raises(RuleViolation) as caught:
        outer(True)
    assert caught.value.rule == "test.inner"
    with pytest.raises(ValueError, match="plain") as plain:
        outer(False)
    assert plain.value.rule == "test.outer"  # type: ignore[attr-defined]
    for rule_id in ("test.inner", "test.outer"):
        del RULES[rule_id]


def _documented() -> None:
    """A check, because a rule needs one."""


def test_one_id_names_one_check():
    with pytest.raises(ValueError, match="is used by"):
        rule("stack.one-kueue-target")(_documented)
    with pytest.raises(ValueError, match="kebab-case"):
        rule("Stack_Rule")(_documented)


def test_a_check_without_a_docstring_is_no_rule():
    def undocumented() -> None:
        pass

    with pytest.raises(ValueError, match="docstring saying what it refuses and why"):
        rule("test.undocumented")(undocumented)
    with pytest.raises(ValueError, match="docstring"):
        rule("test.blank", source="https://example.org/")(lambda: None)
    assert "test.undocumented" not in RULES and "test.blank" not in RULES


def test_the_message_ends_each_problem_with_its_rule():
    error = ConfigError([Problem("a", "bad", "x.one"), ("b", "worse")], rule="x.two")
    assert str(error) == "a: bad [rule: x.one]; b: worse [rule: x.two]"
    assert error.problems == [("a", "bad"), ("b", "worse")] and error.rules == ["x.one", "x.two"]


def test_a_loaded_stack_names_the_rule_it_broke():
    from components.config.loader import load_stack_config

    with pytest.raises(ConfigError) as caught:
        load_stack_config(
            as_config({"aks": {"preset": "aks-walkthrough"}, "smokeJob": {"enabled": True, "localQueue": "nope"}})
        )
    assert caught.value.rules == ["stack.smoke-job-targets-a-local-queue-and-pool"]
    assert str(caught.value).endswith("[rule: stack.smoke-job-targets-a-local-queue-and-pool]")


def test_first_sentence_keeps_abbreviations_and_markup():
    assert first_sentence("A ``x``, e.g. 2: the rest. Then more.") == "A ``x``, e.g. 2: the rest"


def _validator_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """Functions pydantic runs as validators: decorated model or field validators, and AfterValidator arguments."""
    referenced = {
        node.args[0].id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) in ("AfterValidator", "BeforeValidator")
        and node.args
        and isinstance(node.args[0], ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if node.name in referenced or any(d.startswith(("model_validator", "field_validator")) for d in decorators):
                found.append((node, decorators))
    return [node for node, decorators in found if not any(d.startswith("rule(") for d in decorators)]


FILL_INS = {"_names_from_the_stack"}
"""Validators that only fill in defaults and refuse nothing. (base.py's ``matching`` stamps its own id.)"""


def test_every_validator_is_a_registered_rule():
    missing = {
        path.relative_to(CONFIG).as_posix(): names
        for path in sorted(set(CONFIG.rglob("*.py")) - {CONFIG / "base.py"})
        if (names := [f.name for f in _validator_functions(ast.parse(path.read_text())) if f.name not in FILL_INS])
    }
    assert missing == {}, "decorate these with @rule(...)"


ALL_RULES = rules_reference.load_all()
"""Every rule: the decorated checks, the :func:`~components.config.rules.declare` d ones and ``schema.*``."""


def test_the_registry_holds_every_kind_of_rule():
    kinds = {"decorated": 0, "declared": 0, "schema": 0}
    for entry in ALL_RULES.values():
        kinds[
            "schema" if entry.where.startswith("pydantic:") else "declared" if entry.function is None else "decorated"
        ] += 1
    assert kinds["schema"] == len(rules.SCHEMA_CHECKS) and min(kinds.values()) > 0, kinds


def unexplained(entry: rules.Rule) -> str | None:
    """What ``entry`` lacks: an id with a section, a sentence beyond its function's name, a public source."""
    name_words = entry.where.rpartition(".")[2].rpartition(":")[2].strip("_").replace("_", " ")
    if entry.id.count(".") < 1:
        return "an id of the form <section>.<rule>"
    if not entry.checks or entry.checks == name_words:
        return f"{entry.where}: say in a docstring what it refuses and why"
    if not entry.source or not entry.source.startswith(("https://", "docs/")):
        return f"cite the public source it follows (source=... or a URL in the docstring), not {entry.source!r}"
    if entry.source.startswith("docs/"):
        path, _, anchor = entry.source.partition("#")
        text = (PROJECT_ROOT / path).read_text()
        if anchor not in {_anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}:
            return f"{path} has no section #{anchor}"
    return None


def test_every_rule_says_what_it_refuses_and_follows_a_source():
    """Each rule of docs/rules.md (a project source is a section of the docs); the failures listed by rule id."""
    lacking = {rule_id: why for rule_id, entry in ALL_RULES.items() if (why := unexplained(entry))}
    assert lacking == {}


def test_a_rule_without_a_sentence_or_a_source_is_named():
    entry = next(iter(ALL_RULES.values()))
    assert unexplained(entry) is None
    assert "docstring" in unexplained(dataclasses.replace(entry, checks=""))
    assert "public source" in unexplained(dataclasses.replace(entry, source=None))
    assert "no section" in unexplained(dataclasses.replace(entry, source="docs/rules.md#no-such-section"))


def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def test_a_cross_section_check_shows_the_keys_it_names_or_its_callers_guard():
    keys = rules_reference.guarded_keys()
    derived = rules_reference.cross_section_keys(ALL_RULES, keys)
    where = {rule_id: ALL_RULES[rule_id].where for rule_id in ALL_RULES}
    assert derived[where["kueue-extension.region"]] == ["aks.location"]  # passed by its caller
    assert "kueue.frameworks" in derived[where["feasibility.smoke-job-is-a-framework"]]  # named in its refusal
    assert derived[where["acs.refuse-reserved"]] == ["ack.workloads[]"]  # its caller's model keys
    unkeyed = [r.id for r in ALL_RULES.values() if r.key is None and r.where not in keys and r.where not in derived]
    assert len(unkeyed) <= 5, unkeyed
