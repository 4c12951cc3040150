"""Error helpers and classes shared by the dispatcher and the backends (a leaf: no mindtorch imports)."""


def missing_kernel_error(op_name, device_type):
    return NotImplementedError(
        f"Could not run '{op_name}' on the '{device_type}' device: the {device_type} backend has no kernel for it"
    )


class OutOfMemoryError(RuntimeError):
    """A device allocator could not satisfy a request (torch.OutOfMemoryError)."""


class AcceleratorError(RuntimeError):
    """An error the accelerator runtime reported while executing on a device (torch.AcceleratorError)."""


class FatalError(Exception):
    """An unrecoverable error of the runtime itself (torch.FatalError)."""


class LinAlgError(RuntimeError):
    """A singular or non-positive-definite input to a linear-algebra op (torch.linalg.LinAlgError).

    A kernel that knows it sets `info`: LAPACK's positive info for the failing matrix (the 1-based zero
    pivot of an LU, the order of the leading minor that is not positive-definite), which the *_ex
    variants report."""

    info = 1


LinAlgError.__module__ = "mindtorch.linalg"
