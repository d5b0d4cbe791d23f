"""The command line every generator of a committed file shares: ``--write`` rewrites the file, no argument prints it.

Each generated file (docs/config-reference.md, docs/rules.md, stacks/stack-file.schema.json, the policy pack's copy of
the reference table) has a test that fails while it is stale; this is how its generator is run to bring it back.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def main(target: Path, text: Callable[[], str], argv: list[str]) -> int:
    """Write ``text()`` to ``target`` with ``--write``, print it without arguments; anything else is exit code 2."""
    if argv == ["--write"]:
        target.write_text(text(), encoding="utf-8")
    elif not argv:
        sys.stdout.write(text())
    else:
        print(f"usage: python -m <generator> [--write] (writes {target.name}); got {' '.join(argv)!r}", file=sys.stderr)
        return 2
    return 0
