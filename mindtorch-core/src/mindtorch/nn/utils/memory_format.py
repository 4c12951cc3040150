"""convert_conv2d/3d_weight_memory_format: a model's convolution weights copied in a memory format."""

import mindtorch


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        # mindtorch lays tensors out contiguously whatever the format asked: the copy is a plain one
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """The weights of every Conv2d / ConvTranspose2d in `module`, copied in `memory_format`; returns module."""
    return _convert(module, memory_format, (mindtorch.nn.Conv2d, mindtorch.nn.ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """The weights of every Conv3d / ConvTranspose3d in `module`, copied in `memory_format`; returns module."""
    return _convert(module, memory_format, (mindtorch.nn.Conv3d, mindtorch.nn.ConvTranspose3d))
