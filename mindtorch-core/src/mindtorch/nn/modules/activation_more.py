"""The remaining pointwise activations of torch.nn (each one call into nn.functional)."""
import mindtorch
from .. import init
from ..parameter import Parameter
from ._lazy import F
from .module import Module

__all__ = ["Threshold", "RReLU", "Hardsigmoid", "Hardswish", "SELU", "CELU", "GLU", "Hardshrink", "Softshrink",
           "LogSigmoid", "PReLU", "Softsign", "Tanhshrink", "Softmax2d"]


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class _Plain(Module):
    """An activation with only an inplace flag that PyTorch does not print."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._fn)(input, inplace=self.inplace)


class Hardsigmoid(_Plain):
    _fn = "hardsigmoid"


class Hardswish(_Plain):
    _fn = "hardswish"


class SELU(_Plain):
    _fn = "selu"

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(mindtorch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _Unary(Module):
    _fn = None

    def forward(self, input):
        return getattr(F, self._fn)(input)


class LogSigmoid(_Unary):
    _fn = "logsigmoid"


class Softsign(_Unary):
    _fn = "softsign"


class Tanhshrink(_Unary):
    _fn = "tanhshrink"


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)
