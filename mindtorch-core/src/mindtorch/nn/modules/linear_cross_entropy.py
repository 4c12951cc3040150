"""The home of linear_cross_entropy's chunked evaluation in PyTorch; it exports no public names.

Here F.linear_cross_entropy always takes the reference path (linear, then cross_entropy) in nn.functional,
and LinearCrossEntropyOptions lives in linear_cross_entropy_options.py, so this module is empty.
"""

__all__ = []
