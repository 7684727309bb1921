"""The conformance suites (pytest) and their helpers."""
