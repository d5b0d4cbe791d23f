"""Kueue on a cluster: the install, the Azure extension, queues, monitoring, the smoke Job, MultiKueue."""
