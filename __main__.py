"""Entry point of `pulumi up`: read the stack's configuration, then build what it asks for."""

import gc

from components.config.stack import read_stack_config
from components.fleet import deploy

# The SDK allocates a few hundred objects per resource and keeps nearly all of them to the end, so CPython's young
# generation collections keep rescanning them: at 3,200 resources the collector doubles the time per resource
# (BENCHMARKS.md). Freezing what the imports built and collecting less often keeps the cost per resource flat.
gc.freeze()
gc.set_threshold(50_000, 20, 100)

deploy(read_stack_config())
