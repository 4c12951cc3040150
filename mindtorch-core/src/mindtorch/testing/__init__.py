"""mindtorch.testing: torch.testing's API (assert_close, make_tensor) and the backend conformance kit.

mindtorch.testing.conformance   the backend conformance kit: run it against any device with
                                `python -m mindtorch.testing.conformance --device mydev`
"""

from ._comparison import assert_allclose, assert_close, make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
