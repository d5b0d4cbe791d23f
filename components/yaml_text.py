"""Plain YAML text, read and written in one place: libyaml's speed, PyYAML's safe results.

PyYAML built with libyaml (``yaml.__with_libyaml__``) parses about 12x and emits about 4.5x faster through its C
classes than through the pure-Python ``safe_load``/``safe_dump``, and the program, the tools and the tests read and
write a lot of YAML (chart values, kubeconfigs, stack files, CRDs). Without libyaml the pure-Python safe classes
serve. Either way the results are ``safe_load``'s and ``safe_dump``'s:

- :func:`load` and :func:`load_all` build the same objects (the parser is libyaml's, the constructor and resolver
  are PyYAML's safe ones). Text libyaml refuses is read again by the pure-Python loader, so an error carries
  PyYAML's own message and mark (libyaml words its problems differently and marks the end of the text on the line
  after it), and text only libyaml refuses still loads.
- :func:`dump` and :func:`dump_all` write ``safe_dump``'s exact text. libyaml's emitter folds a long double-quoted
  scalar at other points (it counts an escape as one column, PyYAML as its length), writes an empty, multi-line or
  long (from about 123 characters) key otherwise, and ends a document of one scalar without ``...``; so only data
  whose keys are short and whose keys and strings are all printable ASCII, under a mapping or a sequence, goes
  through libyaml, and anything else through PyYAML.

Product code may not import ``tools/``, so this lives in ``components/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML was built with it, else the pure-Python one."""
FAST_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's safe dumper where PyYAML was built with it, else the pure-Python one: for text that need not be
``safe_dump``'s (``tools.render``'s manifests, megabytes of a chart's CRDs), ``yaml.dump(data, Dumper=FAST_DUMPER)``."""

SIMPLE_KEY_LENGTH = 100
"""Keys at least this long go through PyYAML: it writes one of 123 characters or more as a complex key, libyaml
from 129."""


def load(text: str | bytes) -> Any:
    """``yaml.safe_load(text)``."""
    try:
        return yaml.load(text, Loader=FAST_LOADER)
    except yaml.YAMLError:
        return yaml.load(text, Loader=yaml.SafeLoader)


def load_all(text: str | bytes) -> list[Any]:
    """``list(yaml.safe_load_all(text))``."""
    try:
        return list(yaml.load_all(text, Loader=FAST_LOADER))
    except yaml.YAMLError:
        return list(yaml.load_all(text, Loader=yaml.SafeLoader))


def dump(data: Any, *, sort_keys: bool = False) -> str:
    """``yaml.safe_dump(data, sort_keys=sort_keys)``; keys keep their order unless asked, as the product writes."""
    dumper = FAST_DUMPER if _libyaml_writes_alike(data) else yaml.SafeDumper
    return yaml.dump(data, Dumper=dumper, sort_keys=sort_keys)


def dump_all(documents: Iterable[Any], *, sort_keys: bool = False) -> str:
    """``yaml.safe_dump_all(documents, sort_keys=sort_keys)``."""
    documents = list(documents)
    fast = all(_libyaml_writes_alike(document) for document in documents)
    return yaml.dump_all(documents, Dumper=FAST_DUMPER if fast else yaml.SafeDumper, sort_keys=sort_keys)


def _libyaml_writes_alike(document: Any) -> bool:
    """Whether libyaml's emitter writes ``document`` as PyYAML's does (the module's docstring says where not)."""
    return isinstance(document, dict | list) and _printable_ascii(document)


def _printable_ascii(node: Any) -> bool:
    if isinstance(node, str):
        return node.isascii() and node.isprintable()
    if isinstance(node, dict):
        return all(_short_key(key) and _printable_ascii(value) for key, value in node.items())
    if isinstance(node, list):
        return all(_printable_ascii(item) for item in node)
    return node is None or isinstance(node, bool | int | float)


def _short_key(key: Any) -> bool:
    """A key both emitters write as a simple key: not empty, and well within the 128 characters PyYAML allows one,
    its tag (such as ``!!str``) included."""
    return 0 < len(str(key)) < SIMPLE_KEY_LENGTH and _printable_ascii(key)
