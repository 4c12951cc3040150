"""InstanceNorm1d/2d/3d, LocalResponseNorm and CrossMapLRN2d."""
import warnings

import mindtorch

from ._lazy import F
from .module import Module
from .normalization import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "CrossMapLRN2d"]


class _InstanceNorm(_NormBase):
    _dims = 1  # spatial dimensions

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)

    def _check_input_dim(self, input):
        if input.dim() not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"expected {self._dims + 1}D or {self._dims + 2}D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._dims - 1
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False")
        unbatched = input.dim() == self._dims + 1
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum if self.momentum is not None
                              else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    _dims = 3


class LocalResponseNorm(Module):
    __constants__ = ["size", "alpha", "beta", "k"]

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(LocalResponseNorm):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        # PyTorch's legacy kernel: a window of 2 * pre_pad - 1 channels, and channel 0 is never
        # dropped from the running sum once the window has passed it
        c = input.size(1)
        pre = int((self.size - 1) / 2 + 1)
        sq = input * input
        padded = F.pad(sq, (0, 0, 0, 0, pre - 1, pre - 1))
        scale = sum(padded.narrow(1, i, c) for i in range(2 * pre - 1))
        if c > pre:
            stuck = mindtorch.arange(c, device=input.device) >= pre
            scale = scale + sq.narrow(1, 0, 1) * stuck.reshape(1, c, 1, 1).to(input.dtype)
        return input * (scale * (self.alpha / self.size) + self.k).pow(-self.beta)
