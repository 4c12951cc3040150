"""Conv3d and the transposed convolutions (compositions over the 2-d convolution kernel)."""
import mindtorch
from ..parameter import Parameter
from ._lazy import F
from .conv import _ConvNd, _ntuple

__all__ = ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


class Conv3d(_ConvNd):
    _n = 3

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            return F.conv3d(F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), weight, bias,
                            self.stride, (0, 0, 0), self.dilation, self.groups)
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                         device, dtype)
        self.transposed = True
        self.output_padding = _ntuple(output_padding, self._n)
        # the transposed kernel layout: (in, out / groups, *k)
        self.weight = Parameter(mindtorch.empty((in_channels, out_channels // groups, *self.kernel_size),
                                                device=device, dtype=dtype))
        self.reset_parameters()

    def extra_repr(self):
        n = self._n
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        if output_size is None:
            return self.output_padding
        n = num_spatial_dims
        non_spatial = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or "
                             f"{non_spatial + n} elements (got {len(output_size)})")
        mins = [(input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1 for d in range(n)]
        maxs = [m + stride[d] - 1 for d, m in enumerate(mins)]
        for size, lo, hi in zip(output_size, mins, maxs):
            if size < lo or size > hi:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {mins} to "
                                 f"{maxs} (for an input of {tuple(input.shape[-n:])})")
        return tuple(int(output_size[d]) - mins[d] for d in range(n))

    def forward(self, input, output_size=None):
        n = self._n
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size, n,
                                              self.dilation)
        fn = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[n]
        return fn(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3
