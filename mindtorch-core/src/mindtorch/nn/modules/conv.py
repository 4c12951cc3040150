
import mindtorch
from .. import init
from ..parameter import Parameter
from ._lazy import F
from .module import Module

__all__ = ["Conv1d", "Conv2d"]


def _ntuple(x, n):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,) * n


class _ConvNd(Module):
    _n = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in {"zeros", "reflect", "replicate", "circular"}:
            raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        self.weight = Parameter(mindtorch.empty((out_channels, in_channels // groups, *self.kernel_size),
                                                device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(mindtorch.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init._default_layer_init(self.weight, self.bias)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.kernel_size):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)

    def _conv_forward(self, input, weight, bias):
        fn = F.conv1d if self._n == 1 else F.conv2d
        if self.padding_mode != "zeros":
            return fn(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                      self.stride, (0,) * self._n, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    _n = 1


class Conv2d(_ConvNd):
    _n = 2
