import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_configure(config):
    config.addinivalue_line("markers", "parity: compares with PyTorch (skipped without torch)")
    config.addinivalue_line("markers", "hardware: needs a real Ascend NPU")
    config.addinivalue_line("markers", "slow: long-running")


@pytest.fixture(autouse=True)
def _seed():
    import mindtorch

    mindtorch.manual_seed(0)
    yield


@pytest.fixture
def two_threads():
    """The cpu backend's pool at two threads for the test."""
    import mindtorch

    before = mindtorch.get_num_threads()
    mindtorch.set_num_threads(2)
    yield
    mindtorch.set_num_threads(before)
