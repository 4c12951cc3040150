"""torch_npu for mindtorch: the module Ascend training scripts import (`import torch; import torch_npu`),
over mindtorch and its npu backend, never over PyTorch.

It makes sure the npu backend is loaded and exposes what torch_npu documents that this backend provides:
`torch_npu.npu` (the same module as `mindtorch.npu` / `torch.npu`), the fused functions `npu_rms_norm`,
`npu_rotary_mul`, `npu_swiglu`, `npu_grouped_matmul` (its MoE form), `npu_fusion_attention` / `npu_fusion_attention_grad`, and tensor formats
(`npu_format_cast`, `get_npu_format`, `Format`): every tensor here is kept in ND format, so casting to any
other format is an error saying so. Asking for a torch_npu name not provided is an AttributeError naming
it, never a stand-in.

`import torch_npu.npu`, `torch.npu.amp` and, under `python -m mindtorch.run`, `import torch.npu` resolve to
the backend's device module.
"""

import importlib
import sys
import warnings

import mindtorch
import mindtorch_npu

if getattr(sys.modules.get("torch"), "__name__", "mindtorch") != "mindtorch":
    # a script that imported PyTorch as `torch` would hand PyTorch tensors to functions over mindtorch
    warnings.warn(
        "this torch_npu is mindtorch-npu's and works on mindtorch tensors, but `torch` in this process is "
        "PyTorch: run the script under `python -m mindtorch.run` or write `import mindtorch as torch`",
        UserWarning,
        stacklevel=2,
    )

from ._formats import Format, get_npu_format, npu_format_cast
from ._fused import npu_grouped_matmul, npu_rms_norm, npu_rotary_mul, npu_swiglu

__version__ = mindtorch_npu.__version__

__all__ = [
    "npu",
    "Format",
    "get_npu_format",
    "npu_format_cast",
    "npu_grouped_matmul",
    "npu_rms_norm",
    "npu_rotary_mul",
    "npu_swiglu",
    "npu_fusion_attention",
    "npu_fusion_attention_grad",
]

# asking for mindtorch.npu loads the npu backend (plugins load lazily) and gives its device module
npu = mindtorch.npu

_LAZY = {"npu_fusion_attention": "._attention", "npu_fusion_attention_grad": "._attention"}


def _register_modules():
    """The device module under the import paths scripts use: torch_npu.npu, mindtorch.npu and, when `torch`
    is mindtorch (the runner), torch.npu; each with its .amp submodule."""
    prefixes = ["torch_npu", "mindtorch"]
    if sys.modules.get("torch") is mindtorch:
        prefixes.append("torch")
    for prefix in prefixes:
        sys.modules.setdefault(f"{prefix}.npu", npu)
        sys.modules.setdefault(f"{prefix}.npu.amp", npu.amp)


_register_modules()


def __getattr__(name):
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value
    if name.startswith("__"):
        raise AttributeError(f"module 'torch_npu' has no attribute '{name}'")
    raise AttributeError(f"torch_npu.{name} is not provided by mindtorch-npu")


def __dir__():
    return sorted(set(globals()) | set(__all__))
