"""mindtorch.jit: scripting and tracing return what they are given (eager only), warning once."""

from ._eager import warn_once


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    warn_once("jit.script")
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    warn_once("jit.trace")
    return func


def trace_module(mod, inputs, *args, **kwargs):
    warn_once("jit.trace_module")
    return mod


def is_tracing():
    return False


def is_scripting():
    return False


def ignore(drop=False, **kwargs):
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def interface(obj):
    return obj


def _overload(fn):
    return fn


def _overload_method(fn):
    return fn


class Final:
    """Annotation marker (torch.jit.Final)."""

    def __class_getitem__(cls, item):
        return item


def annotate(the_type, the_value):
    return the_value


def fork(func, *args, **kwargs):
    """Runs func at once and returns a finished future (eager: no parallel interpreter)."""
    return _Done(func(*args, **kwargs))


def wait(future):
    return future.wait()


class _Done:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


class ScriptModule:
    """Never produced by mindtorch.jit (scripting returns the module itself); exists for isinstance checks."""


ScriptFunction = ScriptModule
