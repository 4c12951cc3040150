"""Tensor.polygamma(n) and Tensor.polygamma_(n): the method spellings of torch.polygamma(n, input), whose
schema puts the order before the tensor."""

from .ops.registry import copy_into_self

METHODS = ("polygamma", "polygamma_")


def polygamma(self, n):
    import mindtorch

    return mindtorch.polygamma(n, self)


polygamma_ = copy_into_self(polygamma)
