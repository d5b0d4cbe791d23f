"""Write the policy pack's copy of the Kueue reference table (:mod:`components.config.queues.kueue_references`).

    python -m tests.support.policy_references            # print it
    python -m tests.support.policy_references --write    # write policies/elastic_capacity_policies/kueue_references.py

Pulumi runs the pack from ``policies/`` in a process of its own, where the program's packages are not importable, so
the pack reads this generated copy; a test keeps the committed file identical to this output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from components.config.queues.kueue_references import REFERENCES
from tools import generated_file

PACK_COPY = Path(__file__).resolve().parents[2] / "policies" / "elastic_capacity_policies" / "kueue_references.py"


def text() -> str:
    """The copy: every reference as ``(kind, path, target)``."""
    rows = "".join(f"    ({json.dumps(r.kind)}, {json.dumps(r.path)}, {json.dumps(r.target)}),\n" for r in REFERENCES)
    return (
        '"""Which field of which Kueue kind names which other object: a copy of the program\'s table\n'
        "(components/config/queues/kueue_references.py), by ``python -m tests.support.policy_references --write``.\n"
        '"""\n\n'
        f"REFERENCES: tuple[tuple[str, str, str], ...] = (\n{rows})\n"
    )


if __name__ == "__main__":
    raise SystemExit(generated_file.main(PACK_COPY, text, sys.argv[1:]))
