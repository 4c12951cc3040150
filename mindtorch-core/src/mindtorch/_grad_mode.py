"""Thread-local grad mode, read on every op call."""

import threading


class _GradState(threading.local):
    enabled = True
    inference = False


state = _GradState()
