"""The recording's dependency walk, which the wiring tests and the render rely on, and the options it keeps."""

from __future__ import annotations

import pulumi

from tools import mock_runtime
from tools.recording import Recording, Registration


def registration(name: str, *, parent: str | None = None, deps=(), provider: str | None = None):
    return Registration(
        urn=f"urn:{name}",
        id=name,
        type="test:index:Thing",
        name=name,
        custom=True,
        remote=False,
        parent=f"urn:{parent}" if parent else None,
        provider=f"urn:{provider}::id" if provider else None,
        providers={},
        dependencies=tuple(f"urn:{d}" for d in deps),
        property_dependencies={},
        ignore_changes=(),
        replace_on_changes=(),
        delete_before_replace=False,
        raw_inputs={},
    )


def recording_of(*registrations) -> Recording:
    return Recording(list(registrations), {}, set(), [])


def test_depends_on_follows_explicit_dependencies_transitively():
    graph = recording_of(registration("a"), registration("b", deps=["a"]), registration("c", deps=["b"]))
    assert graph.depends_on(graph.named("c"), graph.named("a"))
    assert not graph.depends_on(graph.named("a"), graph.named("c"))


def test_depending_on_a_component_means_waiting_for_each_of_its_children():
    graph = recording_of(
        registration("component"), registration("child", parent="component"), registration("user", deps=["component"])
    )
    assert graph.depends_on(graph.named("user"), graph.named("child"))


def test_a_child_inherits_what_its_parent_waits_for():
    graph = recording_of(
        registration("pool"), registration("component", deps=["pool"]), registration("child", parent="component")
    )
    assert graph.depends_on(graph.named("child"), graph.named("pool"))


def test_a_resource_waits_for_its_provider_and_what_the_provider_waits_for():
    graph = recording_of(
        registration("cluster"), registration("provider", deps=["cluster"]), registration("obj", provider="provider")
    )
    assert graph.depends_on(graph.named("obj"), graph.named("cluster"))
    assert graph.provider_of(graph.named("obj")) == graph.named("provider")


def test_siblings_do_not_wait_for_each_other():
    graph = recording_of(
        registration("component"), registration("a", parent="component"), registration("b", parent="component")
    )
    assert not graph.depends_on(graph.named("a"), graph.named("b"))


def test_protect_is_recorded_as_the_engine_sees_it_inherited_unless_set():
    def program() -> None:
        component = pulumi.ComponentResource("test:index:Component", "component", None, pulumi.ResourceOptions())
        pulumi.CustomResource("test:index:Thing", "kept", {}, pulumi.ResourceOptions(protect=True))
        pulumi.CustomResource("test:index:Thing", "plain", {}, pulumi.ResourceOptions(parent=component))
        protected_parent = pulumi.ComponentResource(
            "test:index:Component", "protected", None, pulumi.ResourceOptions(protect=True)
        )
        pulumi.CustomResource("test:index:Thing", "inherits", {}, pulumi.ResourceOptions(parent=protected_parent))

    recording = mock_runtime.run(program, {})
    assert {r.name: r.protect for r in recording.registrations} == {
        "component": False,
        "kept": True,
        "plain": False,
        "protected": True,
        "inherits": True,
    }
