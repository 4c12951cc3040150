"""mindtorch.random: the default generator's seed and state, and fork_rng (torch.random)."""

import contextlib
import warnings

from ._generator import get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng", "thread_safe_generator"]

_fork_rng_warned_already = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Within the block the random state may change freely: on exit the CPU generator and those of
    `devices` (of `device_type`, the current accelerator's type by default, else "cuda") are restored."""
    global _fork_rng_warned_already
    import mindtorch

    if device_type == "meta" or not enabled:
        yield
        return
    if device_type is None:
        acc = mindtorch.accelerator.current_accelerator()
        device_type = "cuda" if acc is None else acc.type
    device_mod = mindtorch.get_device_module(device_type)
    if devices is None:
        count = device_mod.device_count()
        if count > 1 and not _fork_rng_warned_already:
            kind = device_type.upper()
            warnings.warn(
                f"{kind} reports that you have {count} available devices, and you have used {_caller} "
                f"without explicitly specifying which devices are being used. Every {kind} device's "
                f"generator is saved and restored; pass the '{_devices_kw}' keyword argument of "
                f"{_caller} with the devices you use to do less.",
                stacklevel=3,
            )
            _fork_rng_warned_already = True
        devices = list(range(count))
    else:
        devices = list(devices)  # traversed twice: a generator would be spent after the first time
    cpu_state = get_rng_state()
    device_states = [device_mod.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, device_states):
            device_mod.set_rng_state(state, d)


def thread_safe_generator():
    """In a DataLoader thread worker, that worker's own generator; elsewhere None (the global one)."""
    from .utils.data import get_worker_info

    info = get_worker_info()
    rng = getattr(info, "rng", None)
    if getattr(info, "worker_method", None) == "thread" and rng is not None:
        return rng.torch_generator
    return None
