"""Entry point of `pulumi up`: read the stack's configuration, then build what it asks for."""

from components import gc_tuning
from components.config.loader import read_stack_config
from components.fleet import deploy

if gc_tuning.under_the_language_host():
    gc_tuning.tune()

deploy(read_stack_config())
