"""Entry point of `pulumi up`: read the stack's configuration, then build what it asks for."""

from components.config.stack import read_stack_config
from components.fleet import deploy

deploy(read_stack_config())
