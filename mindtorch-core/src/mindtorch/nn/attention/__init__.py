"""mindtorch.nn.attention: SDPBackend and sdpa_kernel (torch.nn.attention).

mindtorch has one scaled_dot_product_attention (the math formulation, per device), so choosing
backends records the choice for programs that read it back and leaves every result unchanged.
"""

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __repr__(self):
        return f"<SDPBackend.{self.name}: {self.value}>"


_enabled = [set(SDPBackend) - {SDPBackend.ERROR}]


def _current():
    return set(_enabled[-1])


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    chosen = {backends} if isinstance(backends, SDPBackend) else set(backends)
    _enabled.append(chosen)
    try:
        yield {}
    finally:
        _enabled.pop()
