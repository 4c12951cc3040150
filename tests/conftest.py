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
