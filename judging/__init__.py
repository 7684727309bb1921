"""Judging and records: what the suites and the reports both stand on.

``judge`` compares a backend's result with the spec's expectation and the oracle under a precision
standard; ``records`` is the outcome record, its schema, and the writer. Nothing here imports the
suites or the reports.
"""
