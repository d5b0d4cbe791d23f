"""Placeholder: replaced by the module's owner."""

from components.config.base import ConfigModel


class KueueConfig(ConfigModel):
    """Placeholder."""


class SmokeJobConfig(ConfigModel):
    """Placeholder."""
