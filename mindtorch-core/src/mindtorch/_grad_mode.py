"""Thread-local grad and inference mode, read on every op call, and the write rule inference mode sets."""

import threading


class _GradState(threading.local):
    enabled = True
    inference = False
    multithreading = True  # set_multithreading_enabled
    grad_layout_enforced = True  # enforce_grad_layout_policy


state = _GradState()


_INFERENCE_WRITE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def refuse_inference_write(t):
    """An inference tensor (or a view of one) is written only inside inference mode, whatever grad mode."""
    if (t if t._base is None else t._base)._inference and not state.inference:
        raise RuntimeError(_INFERENCE_WRITE)
