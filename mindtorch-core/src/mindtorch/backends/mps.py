"""torch.backends.mps: there is no MPS device in mindtorch."""


def is_available():
    return False


def is_built():
    return False
