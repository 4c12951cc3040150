"""torch.backends.cuda: flags only (no CUDA device exists in mindtorch)."""


class _MatmulFlags:
    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.fp32_precision = "none"


matmul = _MatmulFlags()


def is_built():
    return False


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _flag(name):
    def enabled():
        return _sdp[name]

    def enable(value):
        _sdp[name] = bool(value)

    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _flag("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _flag("mem_efficient")
math_sdp_enabled, enable_math_sdp = _flag("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _flag("cudnn")
