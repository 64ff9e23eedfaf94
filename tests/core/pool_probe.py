"""Run in a pool worker by tests/core/test_runner.py: what the worker has imported."""

import sys


def imported(name: str) -> bool:
    return name in sys.modules
