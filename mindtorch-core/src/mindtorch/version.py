"""mindtorch.version (torch.version): no CUDA or ROCm build exists; `torch_api` is the PyTorch API implemented."""

from . import __version__  # noqa: F401

torch_api = "2.13.0"
cuda = None
hip = None
xpu = None
git_version = "unknown"
debug = False
