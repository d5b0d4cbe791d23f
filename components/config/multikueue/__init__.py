"""The ``multiKueue`` section: the manager's adapters, the workers, and their rules."""
