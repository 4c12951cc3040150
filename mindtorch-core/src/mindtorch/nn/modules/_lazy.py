"""Late binding to mindtorch.nn.functional (written by another module owner, imported on first use)."""


class _LazyFunctional:
    def __getattr__(self, name):
        import mindtorch.nn.functional as F
        value = getattr(F, name)
        setattr(self, name, value)  # cache: later lookups skip __getattr__
        return value


F = _LazyFunctional()
