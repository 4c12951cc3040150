"""torch.backends.mkldnn: flags only (mindtorch's cpu backend computes with NumPy)."""

enabled = True


def is_available():
    return False
