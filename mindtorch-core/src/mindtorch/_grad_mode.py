"""Thread-local grad mode, read on every op call."""

import threading


class _GradState(threading.local):
    enabled = True
    inference = False
    multithreading = True  # set_multithreading_enabled
    grad_layout_enforced = True  # enforce_grad_layout_policy


state = _GradState()
