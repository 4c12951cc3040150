"""mindtorch.utils: data loading helpers."""
from . import data  # noqa: F401
