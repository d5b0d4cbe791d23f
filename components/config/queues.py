"""Placeholder: replaced by the module's owner."""

from components.config.base import ConfigModel


class QueuesConfig(ConfigModel):
    """Placeholder."""
