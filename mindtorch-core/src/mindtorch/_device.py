"""torch.device: a device type with an optional index ("npu:1")."""


class device:
    __slots__ = ("type", "index", "_key")
    type: str
    index: "int | None"
    _cache = {}

    def __new__(cls, type_or_str=None, index=None):
        if isinstance(type_or_str, device):
            if index is None:
                return type_or_str
            type_or_str = type_or_str.type
        key = (type_or_str, index)
        hit = cls._cache.get(key)
        if hit is not None:
            return hit
        if isinstance(type_or_str, int) and not isinstance(type_or_str, bool) and index is None:
            raise RuntimeError("mindtorch.device(int) needs an accelerator type; write device('npu', 0)")
        if not isinstance(type_or_str, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type(type_or_str).__name__})"
            )
        if not type_or_str:
            raise RuntimeError("Device string must not be empty")
        kind, idx = type_or_str, index
        if ":" in type_or_str:
            if index is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed explicitly: " + type_or_str
                )
            kind, _, num = type_or_str.partition(":")
            if not num.isdigit():
                raise RuntimeError(f"Invalid device string: '{type_or_str}'")
            idx = int(num)
        if not kind or not (kind.isidentifier() and kind.islower()):
            raise RuntimeError(
                f"Expected one of cpu, meta, npu, ... device type at start of device string: {type_or_str}"
            )
        if idx is not None:
            if isinstance(idx, bool) or not isinstance(idx, int):
                raise TypeError("device index must be an int")
            if idx < 0:
                raise RuntimeError(f"Device index must not be negative, got {idx}")
        # one object per (type, index), however it was spelled: dispatch compares devices by identity
        self = cls._cache.get((kind, idx))
        if self is None:
            self = object.__new__(cls)
            object.__setattr__(self, "type", kind)
            object.__setattr__(self, "index", idx)
            object.__setattr__(self, "_key", (kind, idx))
            cls._cache[(kind, idx)] = self
        cls._cache[key] = self
        return self

    def __setattr__(self, name, value):
        raise AttributeError("device objects are immutable")

    def __eq__(self, other):
        if isinstance(other, device):
            return self._key == other._key
        if isinstance(other, str):
            return self == device(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._key)

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        # `with torch.device("meta"):` makes it the default device for factories
        _context.append(_default[0])
        _default[0] = self
        return self

    def __exit__(self, *exc):
        _default[0] = _context.pop()
        return False


def as_device(d):
    if d is None or type(d) is device:
        return d
    if isinstance(d, int) and not isinstance(d, bool):
        raise RuntimeError("a bare device index is ambiguous here; pass a device such as 'npu:0'")
    return device(d)


_default = [device("cpu")]
_context = []


def default_device():
    return _default[0]


def set_default_device(d):
    _default[0] = device("cpu") if d is None else as_device(d)


def get_default_device():
    return _default[0]
