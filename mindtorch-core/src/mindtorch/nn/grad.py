"""Gradients of convolutions with respect to their input or weight (torch.nn.grad).

Each is the vector-Jacobian product of the convolution itself, taken through autograd, so every
dimensionality, stride, padding, dilation and groups setting shares the forward's rules and kernels.
"""

import mindtorch

from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _vjp(conv, input, weight, grad_output, wrt, stride, padding, dilation, groups):
    with mindtorch.enable_grad():
        input = input.detach().requires_grad_(wrt == "input")
        weight = weight.detach().requires_grad_(wrt == "weight")
        out = conv(input, weight, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(
                f"grad_output has shape {tuple(grad_output.shape)} but the convolution's output "
                f"has shape {tuple(out.shape)}"
            )
        return mindtorch.autograd.grad(out, input if wrt == "input" else weight, grad_output)[0]


def _pair(conv):
    def grad_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        x = mindtorch.zeros(tuple(input_size), dtype=grad_output.dtype, device=grad_output.device)
        return _vjp(conv, x, weight, grad_output, "input", stride, padding, dilation, groups)

    def grad_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        w = mindtorch.zeros(tuple(weight_size), dtype=grad_output.dtype, device=grad_output.device)
        return _vjp(conv, input, w, grad_output, "weight", stride, padding, dilation, groups)

    return grad_input, grad_weight


conv1d_input, conv1d_weight = _pair(F.conv1d)
conv2d_input, conv2d_weight = _pair(F.conv2d)
conv3d_input, conv3d_weight = _pair(F.conv3d)
