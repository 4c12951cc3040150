"""The cpu backend passes the conformance suite fully (one test per op and per structural check)."""

from mindtorch.testing.conformance.pytest_plugin import conformance_tests

test_conformance = conformance_tests("cpu", strict=True)
