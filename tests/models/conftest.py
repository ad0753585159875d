"""tests/models: the CP-SAT encoders (models/) tested directly, against a brute force."""

from __future__ import annotations


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a test of tests/models that takes more than a second or two")
