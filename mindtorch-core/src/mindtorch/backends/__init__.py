"""mindtorch.backends: the flags programs set on torch.backends (cudnn, cuda, mps, ...).

The flags are stored and read back as in PyTorch's CPU build; no mindtorch device uses cuDNN,
TF32 or MPS, so setting them changes no result.
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp  # noqa: F401
