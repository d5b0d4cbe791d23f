"""The ``kueue`` section and what it pins: the install, gates, profiles, images, monitoring."""
