"""Example backends for plug-in authors (not registered by default)."""
