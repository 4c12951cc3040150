"""Padding layers: constant, zero, reflection, replication and circular, in 1, 2 and 3 dimensions."""

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]


class _PadNd(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self.dims)

    def _check_input_dim(self, input):
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        if self.mode == "circular":
            self._check_input_dim(input)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ConstantPad1d(_ConstantPadNd):
    mode, dims = "constant", 1


class ConstantPad2d(_ConstantPadNd):
    mode, dims = "constant", 2


class ConstantPad3d(_ConstantPadNd):
    mode, dims = "constant", 3


class ZeroPad1d(_ZeroPadNd):
    mode, dims = "constant", 1


class ZeroPad2d(_ZeroPadNd):
    mode, dims = "constant", 2


class ZeroPad3d(_ZeroPadNd):
    mode, dims = "constant", 3


class ReflectionPad1d(_PadNd):
    mode, dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    mode, dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    mode, dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    mode, dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    mode, dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    mode, dims = "replicate", 3


class CircularPad1d(_PadNd):
    mode, dims = "circular", 1


class CircularPad2d(_PadNd):
    mode, dims = "circular", 2


class CircularPad3d(_PadNd):
    mode, dims = "circular", 3
