"""DataParallel: single-process data parallelism, as PyTorch runs it where it has no (or one) accelerator.

Without an accelerator PyTorch's DataParallel is a transparent wrapper that calls the module; with one
accelerator device it moves the module and the inputs there. Splitting a batch over several devices in
one process (replicas with broadcast gradients) is not implemented: DistributedDataParallel is the way
to use several devices, as PyTorch itself recommends.
"""

import mindtorch

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _to(obj, device):
    if isinstance(obj, mindtorch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to(o, device) for o in obj)
    if isinstance(obj, dict):
        return {k: _to(v, device) for k, v in obj.items()}
    return obj


def _devices(device_ids, output_device):
    """(device for the module and inputs, output device), or (None, None) when there is no accelerator."""
    acc = mindtorch.accelerator.current_accelerator()
    if acc is None:
        return None, None
    ids = (
        list(range(mindtorch.accelerator.device_count()))
        if device_ids is None
        else [mindtorch.device(i).index if isinstance(i, (str, mindtorch.device)) else int(i) for i in device_ids]
    )
    if not ids:
        raise RuntimeError("no available devices were found")
    if len(ids) > 1:
        raise NotImplementedError(
            f"DataParallel over several {acc.type} devices in one process is not supported "
            "by mindtorch; use torch.nn.parallel.DistributedDataParallel"
        )
    out = ids[0] if output_device is None else output_device
    out = out if isinstance(out, mindtorch.device) else mindtorch.device(acc.type, int(out))
    return mindtorch.device(acc.type, ids[0]), out


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        src, out = _devices(device_ids, output_device)
        self.device_ids = [] if src is None else [src.index]
        self.output_device = None if out is None else out.index
        self.src_device_obj = src
        self._output_device_obj = out
        if src is not None:
            self.module.to(src)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    f"module must have its parameters and buffers on device {self.src_device_obj} "
                    f"(device_ids[0]) but found one of them on device: {t.device}"
                )
        out = self.module(*_to(inputs, self.src_device_obj), **_to(kwargs, self.src_device_obj))
        return _to(out, self._output_device_obj)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """Functional form: evaluate `module(*inputs, **module_kwargs)` the way DataParallel would."""
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    src, out = _devices(device_ids, output_device)
    if src is None:  # unlike the module, PyTorch's functional form refuses to run without an accelerator
        raise RuntimeError("device type could not be determined")
    result = module(*_to(inputs, src), **_to(module_kwargs or {}, src))
    return _to(result, out)
