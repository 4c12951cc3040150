import pytest


@pytest.fixture(autouse=True)
def _seed():
    """These tests read the repository's files; they need no mindtorch installed (the lint session)."""
    yield
