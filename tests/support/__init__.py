"""What the tests share: config helpers, fakes, schemas, vendor-example oracles and factories, each in one place."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
"""The repository's root: where ``__main__.py`` and ``stacks/`` are."""
