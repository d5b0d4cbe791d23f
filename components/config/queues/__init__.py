"""The ``queues`` section: Kueue's queue objects, their quota, policies, checks and references."""
