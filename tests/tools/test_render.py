"""The offline render tool: plan.json and manifests on disk, secrets redacted, and a malformed stack refused with
exit code 2 and the key (each rule's refusal is a file of the bad-input corpus, tests/cases/invalid)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from components import yaml_text
from tests.support import PROJECT_ROOT
from tests.support.stacks import AKS_STACK, MULTICLOUD_STACK, edited_stack, rendered
from tools import render


def test_the_files_written_are_the_plan_and_manifests_the_tests_read(tmp_path):
    """Every other test reads a render in memory (``tests.support.stacks.rendered``): the files of
    ``python -m tools.render`` hold exactly that, for a stack of both clouds."""
    out = tmp_path / "out"
    assert render.main([str(MULTICLOUD_STACK), "--out", str(out)]) == 0
    plan, manifests = rendered(MULTICLOUD_STACK)
    assert json.loads((out / "plan.json").read_text()) == plan
    written = {str(p.relative_to(out / "manifests")): yaml_text.load(p.read_text()) for p in out.rglob("*.yaml")}
    assert written == manifests and manifests


def test_kubeconfigs_are_secrets_and_redacted_in_the_plan(aks, ack):
    for plan, _ in (aks, ack):
        providers = [r for r in plan["resources"] if r["type"] == "pulumi:providers:kubernetes"]
        assert providers
        assert all(p["inputs"]["kubeconfig"] == "[secret]" for p in providers)
    assert aks[0]["outputs"]["kubeconfig"] == "[secret]"
    assert ack[0]["outputs"]["ackKubeconfigs"] == "[secret]"
    for path in ("aks", "ack"):
        assert "mock-token" not in json.dumps((aks if path == "aks" else ack)[0])


def aks_pool(config):
    return config["elastic-capacity:aks"]["userPools"][0]


def test_bad_config_from_the_command_line_is_one_line_without_a_traceback(tmp_path):
    bad = edited_stack(AKS_STACK, lambda c: aks_pool(c).update(minCount=6), tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "tools.render", str(bad), "--out", str(tmp_path / "out")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert "elastic-capacity:aks.userPools[0].minCount" in result.stderr


def test_the_plan_says_which_resources_are_protected(aks, tmp_path):
    assert {r["protect"] for r in aks[0]["resources"]} == {False}
    production = edited_stack(
        AKS_STACK, lambda c: c.update({"elastic-capacity:environment": {"kind": "production"}}), tmp_path
    )
    plan, _ = rendered(production)
    assert {r["name"] for r in plan["resources"] if r["protect"]} == {"aks-cluster", "kueue-chart"}


def test_a_malformed_stack_file_exits_2_naming_the_file_and_line(tmp_path, capsys):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(
        AKS_STACK.read_text().replace("    clusterName: kueue-cas\n", "    clusterName: a\n    clusterName: b\n")
    )
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {bad}:")
    assert "elastic-capacity:aks.clusterName: duplicate key `clusterName`" in error
    assert not (tmp_path / "out").exists()


def test_a_type_error_quotes_the_scalar_as_the_file_wrote_it(tmp_path, capsys):
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text(AKS_STACK.read_text().replace('kubernetesVersion: "1.35"', "kubernetesVersion: 1.30"))
    assert render.main([str(bad), "--out", str(tmp_path / "out")]) == 2
    assert (
        'aks.kubernetesVersion: 1.30 is not allowed; YAML reads 1.30 as the number 1.3, not a string: quote it: "1.30"'
        in (capsys.readouterr().err)
    )


@pytest.fixture
def empty_stack(tmp_path):
    """A stack that deploys nothing: the output-directory rules without the cost of a full render."""
    path = tmp_path / "Pulumi.empty.yaml"
    path.write_text("config: {}\n")
    return path


def previous_render_of(stack: Path, out: Path) -> Path:
    """A directory as an earlier render of ``stack`` left it, with a manifest the stack no longer creates."""
    (out / "manifests" / "aks").mkdir(parents=True)
    (out / "manifests" / "aks" / "job-stale.yaml").write_text("kind: Job\n")
    (out / "plan.json").write_text("{}\n")
    (out / render.RENDER_MARKER).write_text(f"{stack.resolve()}\n")
    return out


def test_a_previous_render_of_the_same_stack_file_is_cleared_first(empty_stack, tmp_path, capsys):
    out = previous_render_of(empty_stack, tmp_path / "out")
    assert render.main([str(empty_stack), "--out", str(out)]) == 0
    assert f"cleared the previous render of {empty_stack} in {out}: " in capsys.readouterr().out
    assert not (out / "manifests" / "aks").exists(), "no stale manifest survives"
    assert (out / render.RENDER_MARKER).read_text() == f"{empty_stack.resolve()}\n"
    assert render.main([str(empty_stack), "--out", str(out)]) == 0, "a render can always be redone in place"


@pytest.mark.parametrize(
    ("prepare", "expected"),
    [
        (lambda out, stack: (out / "notes.txt").write_text("mine"), "is not empty and is not a render"),
        (lambda out, stack: previous_render_of(stack.with_name("Pulumi.other.yaml"), out), "not of "),
        (lambda out, stack: (previous_render_of(stack, out) / "notes.txt").write_text("mine"), "but also notes.txt"),
    ],
    ids=["foreign files", "another stack's render", "a render with files added"],
)
def test_a_directory_that_is_not_a_previous_render_is_refused_and_left_alone(
    prepare, expected, empty_stack, tmp_path, capsys
):
    out = tmp_path / "out"
    out.mkdir()
    prepare(out, empty_stack)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    assert render.main([str(empty_stack), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {out} ") and expected in error and error.count("\n") == 1
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before


def test_an_output_path_that_is_a_file_is_refused(empty_stack, tmp_path, capsys):
    (tmp_path / "out").write_text("")
    assert render.main([str(empty_stack), "--out", str(tmp_path / "out")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_a_failed_render_leaves_the_previous_render_as_it_was(tmp_path, capsys):
    bad = edited_stack(AKS_STACK, lambda c: aks_pool(c).update(minCount=6), tmp_path)
    out = previous_render_of(bad, tmp_path / "out")
    assert render.main([str(bad), "--out", str(out)]) == 2
    assert (out / "manifests" / "aks" / "job-stale.yaml").is_file()
