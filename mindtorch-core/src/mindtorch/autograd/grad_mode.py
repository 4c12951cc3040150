"""no_grad, enable_grad, set_grad_enabled, inference_mode: context managers and decorators.

The state is thread-local (mindtorch._grad_mode.state), so a mode entered in
one thread never leaks into another.
"""

import functools
import inspect

from .._grad_mode import state
from .._tensor import inference_mode_entered


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} decorator does not support classes; decorate its methods")
        if not callable(fn):
            raise TypeError(f"{type(self).__name__} decorator expects a callable, got {type(fn).__name__}")
        mode = self
        if inspect.isgeneratorfunction(fn):

            @functools.wraps(fn)
            def gen(*args, **kwargs):
                # the mode applies while the generator body runs, not while the caller runs
                with mode.clone():
                    g = fn(*args, **kwargs)
                try:
                    with mode.clone():
                        request = g.send(None)
                    while True:
                        try:
                            response = yield request
                        except GeneratorExit:
                            with mode.clone():
                                g.close()
                            raise
                        except BaseException as exc:
                            with mode.clone():
                                request = g.throw(exc)
                        else:
                            with mode.clone():
                                request = g.send(response)
                except StopIteration as stop:
                    return stop.value

            return gen

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with mode.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamMode(_Mode):
    """Usable as @mode, @mode() and `with mode():`."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):
    def __init__(self, orig_func=None):
        self.prev = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False


class enable_grad(_NoParamMode):
    def __init__(self, orig_func=None):
        self.prev = False

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False


class set_grad_enabled(_Mode):
    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self.mode = mode
        self.prev = state.enabled
        state.enabled = mode  # takes effect as a plain function call too, as in PyTorch

    def __call__(self, fn):
        state.enabled = self.prev  # used as a decorator: only the decorated function sees the mode
        return super().__call__(fn)

    def __enter__(self):
        state.enabled = self.mode

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False

    def clone(self):
        prev = state.enabled
        m = set_grad_enabled(self.mode)
        m.prev = prev
        state.enabled = prev
        return m


class inference_mode(_Mode):
    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare @inference_mode

    def __init__(self, mode=True):
        if not isinstance(mode, bool):
            return
        self.mode = mode

    def __enter__(self):
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled = False
            state.inference = True
        else:
            state.inference = False
        inference_mode_entered(1)

    def __exit__(self, *exc):
        state.enabled, state.inference = self.prev
        inference_mode_entered(-1)
        return False

    def clone(self):
        return inference_mode(self.mode)


class _FlagMode(_Mode):
    """A thread-local autograd flag set on construction (so a plain call works too) and restored on exit."""

    flag = ""

    def __init__(self, mode):
        self.mode = mode
        self.prev = getattr(state, self.flag)
        setattr(state, self.flag, mode)

    def __call__(self, fn):
        setattr(state, self.flag, self.prev)  # as a decorator: only the decorated function sees the mode
        return super().__call__(fn)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        setattr(state, self.flag, self.prev)
        return False

    def clone(self):
        prev = getattr(state, self.flag)
        m = self.__class__(self.mode)
        m.prev = prev
        setattr(state, self.flag, prev)
        return m


class set_multithreading_enabled(_FlagMode):
    """Whether backward may run on per-device worker threads. mindtorch's engine always runs backward on
    the calling thread, so either setting computes the same; the flag is kept for code that reads it."""

    flag = "multithreading"


class enforce_grad_layout_policy(_FlagMode):
    """Whether accumulated gradients are made to follow their parameter's strides (True) or may keep the
    incoming gradient's layout (False). Values are the same either way; only the layout may differ."""

    flag = "grad_layout_enforced"

    def __init__(self, enable=True):
        super().__init__(enable)
