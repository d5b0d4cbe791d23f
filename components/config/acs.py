"""Placeholder: replaced by the module's owner."""

from components.config.base import ConfigModel


class AcsWorkloadConfig(ConfigModel):
    """Placeholder."""


class AckConfig(ConfigModel):
    """Placeholder."""
