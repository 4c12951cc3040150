"""no_grad, enable_grad, set_grad_enabled, inference_mode: context managers and decorators."""
import functools
import inspect

from .._grad_mode import state


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError("grad mode decorators apply to functions, not classes")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen(*args, **kwargs):
                g = fn(*args, **kwargs)
                with self.clone():
                    try:
                        value = next(g)
                    except StopIteration as stop:
                        return stop.value
                while True:
                    try:
                        with self.clone():
                            value = g.send((yield value))
                    except StopIteration as stop:
                        return stop.value
            return gen

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_Mode):
    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False


class enable_grad(_Mode):
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
        state.enabled = mode  # takes effect as a function call too, as in PyTorch

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_Mode):
    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled = False
            state.inference = True

    def __exit__(self, *exc):
        state.enabled, state.inference = self.prev
        return False

    def clone(self):
        return inference_mode(self.mode)
