"""mindtorch.distributions: so far the constraint objects (torch.distributions.constraints), which
programs use to validate parameters; the distribution classes are not written yet."""
from . import constraints  # noqa: F401

__all__ = ["constraints"]
