"""components.yaml_text reads and writes what safe_load and safe_dump do, through libyaml where PyYAML has it and
through the pure-Python classes where it has not."""

from __future__ import annotations

import importlib.util
import string
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from components import yaml_text
from tests.support.multikueue import WORKER_KUBECONFIG

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STACK_FILES = sorted(PROJECT_ROOT.glob("stacks/Pulumi.*.yaml"))
LIBYAML_WRITES_OTHERWISE = [
    pytest.param({"": None}, id="an empty key, which PyYAML writes as a complex key"),
    pytest.param([{"\r": None}], id="a key with a line break, which libyaml writes as a complex key"),
    pytest.param({"0" * 123: None}, id="a long key, which PyYAML writes as a complex key"),
    pytest.param({"a": "\x1f" * 4 + "\u0100" * 10 + "0" * 70}, id="escapes, where the two fold a long scalar apart"),
    pytest.param({"a": "中文 " * 30}, id="non-ASCII text"),
    pytest.param({"a": ':"""\n\n\n\t:' + ":" * 80}, id="line breaks and tabs in a long double-quoted scalar"),
    pytest.param(None, id="a document of one scalar, which PyYAML ends with ..."),
]
"""Data libyaml's emitter writes differently from safe_dump's (each found by comparing the two)."""
BROKEN = ["users: [{token: s3cret", "clusters: [", "a: b: c", "a:\n\tb: 1", "\x00"]

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=120)
long_keys = st.text("0a", min_size=95, max_size=130)
keys = st.text(string.printable, max_size=20) | st.text(max_size=5) | st.integers() | long_keys
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4))


@pytest.fixture
def without_libyaml(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """A copy of yaml_text imported by a PyYAML built without libyaml (no C classes). A copy: reloading the module
    itself would give its functions new identities, which the run cache reads as a patched program."""
    monkeypatch.delattr(yaml, "CSafeLoader")
    monkeypatch.delattr(yaml, "CSafeDumper")
    spec = importlib.util.spec_from_file_location("yaml_text_without_libyaml", yaml_text.__file__)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["libyaml", "pure-python"])
def module(request: pytest.FixtureRequest) -> ModuleType:
    """yaml_text as imported here, and without libyaml."""
    return yaml_text if request.param == "libyaml" else request.getfixturevalue("without_libyaml")


@pytest.mark.skipif(
    not yaml.__with_libyaml__,
    reason="PyYAML here is built without libyaml: install libyaml-dev, then pip install --no-binary=pyyaml pyyaml",
)
def test_with_libyaml_it_reads_and_writes_through_the_c_classes(monkeypatch: pytest.MonkeyPatch):
    assert (yaml.CSafeLoader, yaml.CSafeDumper) == (yaml_text.FAST_LOADER, yaml_text.FAST_DUMPER)
    used: list[type] = []
    dump, load = yaml.dump, yaml.load

    def recorded_dump(data: object, **options: Any) -> Any:
        used.append(options["Dumper"])
        return dump(data, **options)

    def recorded_load(text: str, **options: Any) -> Any:
        used.append(options["Loader"])
        return load(text, **options)

    monkeypatch.setattr(yaml, "dump", recorded_dump)
    monkeypatch.setattr(yaml, "load", recorded_load)
    yaml_text.load(yaml_text.dump({"a": [1, "b"]}))
    assert used == [yaml.CSafeDumper, yaml.CSafeLoader]


def test_without_libyaml_it_uses_the_pure_python_safe_classes(without_libyaml: ModuleType):
    assert (yaml.SafeLoader, yaml.SafeDumper) == (without_libyaml.FAST_LOADER, without_libyaml.FAST_DUMPER)


@pytest.mark.parametrize("path", STACK_FILES, ids=lambda path: path.name)
def test_a_stack_file_loads_and_dumps_as_safe_load_and_safe_dump_do(module: ModuleType, path: Path):
    text = path.read_text()
    document = yaml.safe_load(text)
    assert module.load(text) == document and module.load_all(text) == [document]
    for sort_keys in (False, True):
        assert module.dump(document, sort_keys=sort_keys) == yaml.safe_dump(document, sort_keys=sort_keys)
    assert module.dump_all([document, document]) == yaml.safe_dump_all([document, document], sort_keys=False)


def test_a_kubeconfig_loads_and_dumps_as_safe_load_and_safe_dump_do(module: ModuleType):
    document = yaml.safe_load(WORKER_KUBECONFIG)
    assert module.load(WORKER_KUBECONFIG.encode()) == document
    assert module.dump(document) == yaml.safe_dump(document, sort_keys=False)


@pytest.mark.parametrize("data", LIBYAML_WRITES_OTHERWISE)
def test_data_libyaml_writes_otherwise_is_written_as_safe_dump_writes_it(module: ModuleType, data: object):
    assert module.dump(data) == yaml.safe_dump(data, sort_keys=False)
    assert module.dump_all([{"a": 1}, data]) == yaml.safe_dump_all([{"a": 1}, data], sort_keys=False)


@given(documents, st.booleans())
def test_any_data_is_written_as_safe_dump_writes_it_and_read_back_as_safe_load_reads_it(data: object, sort: bool):
    text = yaml_text.dump(data, sort_keys=sort)
    assert text == yaml.safe_dump(data, sort_keys=sort)
    assert yaml_text.load(text) == yaml.safe_load(text)


@pytest.mark.parametrize("text", BROKEN, ids=repr)
def test_text_that_is_not_yaml_raises_pyyamls_own_error(module: ModuleType, text: str):
    with pytest.raises(yaml.YAMLError) as expected:
        yaml.safe_load(text)
    for read in (module.load, module.load_all):
        with pytest.raises(type(expected.value)) as raised:
            read(text)
        assert str(raised.value) == str(expected.value)
