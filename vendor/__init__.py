"""The vendor's own test cases, in and out: op_api gtest unit tests (and their CSV-driven form), ATK
json and TTK csv read into the project's case files, and the suite's cases written back in those
formats. Imports spec, oracle, backends and judging; never suites or reports."""
