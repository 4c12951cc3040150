"""Tensor ops: pointwise, reductions, indexing, creation, views, linalg, fft, special, argument forms and checks."""
