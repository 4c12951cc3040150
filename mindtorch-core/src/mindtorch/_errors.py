"""Error helpers shared by the dispatcher and the backends."""


def no_backend_error(device_type):
    from .plugins.loader import distribution_for_device
    dist = distribution_for_device(device_type)
    hint = f"; install it with `pip install {dist}`" if dist else ""
    return RuntimeError(f"no installed mindtorch backend provides the device '{device_type}'{hint}")


def missing_kernel_error(op_name, device_type):
    return NotImplementedError(
        f"Could not run '{op_name}' on the '{device_type}' device: the {device_type} backend has no kernel for it")


class OutOfMemoryError(RuntimeError):
    """A device allocator could not satisfy a request (torch.OutOfMemoryError)."""
