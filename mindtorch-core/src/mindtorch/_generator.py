"""Generator: a device's random state, provided by its backend."""

from ._device import as_device, device as _device

_defaults = {}
_by_name = {}  # device spelled as a string -> its entry in _defaults (never replaced)


class Generator:
    def __init__(self, device="cpu"):
        from ._backends.registry import backend_for

        self.device = as_device(device) or _device("cpu")
        self._state = backend_for(self.device.type).new_generator(self.device.index or 0)

    def manual_seed(self, seed):
        seed = int(seed)
        if not (-0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF):
            raise RuntimeError("Overflow when unpacking long")
        self._state.manual_seed(seed & 0xFFFF_FFFF_FFFF_FFFF)
        return self

    def seed(self):
        return self._state.seed()

    def initial_seed(self):
        return self._state.initial_seed()

    def get_state(self):
        return self._state.get_state()

    def set_state(self, state):
        self._state.set_state(state)
        return self

    def __repr__(self):
        return f"<mindtorch.Generator object on {self.device}>"


def default_generator(dev=None):
    g = _by_name.get(dev) if dev.__class__ is str else None
    if g is not None:  # kernels name their device ("cpu"): no device object to build per draw
        return g
    name = dev if dev.__class__ is str else None
    dev = as_device(dev) or _device("cpu")
    key = (dev.type, dev.index or 0)
    g = _defaults.get(key)
    if g is None:
        g = _defaults[key] = Generator(_device(dev.type, dev.index) if dev.index is not None else dev)
    if name is not None:
        _by_name[name] = g
    return g


def manual_seed(seed):
    """Seed every device's default generator (as torch.manual_seed does)."""
    from ._backends.registry import BACKENDS

    default_generator("cpu").manual_seed(seed)
    for g in list(_defaults.values()):
        g.manual_seed(seed)
    for kind, b in BACKENDS.items():
        if kind != "cpu" and b.has_generator() and b.is_available():
            for i in range(max(b.device_count(), 0)):
                default_generator(_device(kind, i)).manual_seed(seed)
    return default_generator("cpu")


def seed():
    import random

    s = random.getrandbits(63)
    manual_seed(s)
    return s


def initial_seed():
    return default_generator("cpu").initial_seed()


def get_rng_state():
    return default_generator("cpu").get_state()


def set_rng_state(state):
    default_generator("cpu").set_state(state)


def generator_state(generator, dev):
    """The backend state object kernels draw from."""
    return (generator or default_generator(dev))._state
