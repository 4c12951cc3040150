"""Error helpers shared by the dispatcher and the backends."""


def no_backend_error(device_type):
    from .plugins import loader
    reason = loader.skip_reason(device_type)
    if reason is not None:
        return RuntimeError(f"the mindtorch backend for the device '{device_type}' was skipped at load: {reason}")
    dist = loader.distribution_for_device(device_type)
    # installed but left out by MINDTORCH_BACKENDS: say so, not "install it"
    for name, d in loader.deselected:
        if name == device_type or d == dist:
            sel = ",".join(sorted({*loader.BACKENDS, name}))
            return RuntimeError(
                f"the mindtorch backend for the device '{device_type}' is installed ({d}) but not loaded: "
                f"{loader.ENV_SELECT} does not select '{name}'; set {loader.ENV_SELECT}={sel} (or unset it) "
                f"before importing mindtorch")
    if device_type == "cuda" and dist is None:  # PyTorch's own message and class on a build without CUDA
        return AssertionError("Torch not compiled with CUDA enabled")
    hint = f"; install it with `pip install {dist}`" if dist else ""
    return RuntimeError(f"no installed mindtorch backend provides the device '{device_type}'{hint}")


def missing_kernel_error(op_name, device_type):
    return NotImplementedError(
        f"Could not run '{op_name}' on the '{device_type}' device: the {device_type} backend has no kernel for it")


class OutOfMemoryError(RuntimeError):
    """A device allocator could not satisfy a request (torch.OutOfMemoryError)."""


class LinAlgError(RuntimeError):
    """A singular or non-positive-definite input to a linear-algebra op (torch.linalg.LinAlgError)."""


LinAlgError.__module__ = "mindtorch.linalg"
