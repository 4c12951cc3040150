"""mindtorch.compiler: mindtorch has no compiler; the answers are those of eager PyTorch."""

from ._eager import warn_once


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def disable(fn=None, recursive=True, *, reason=None):
    if fn is None:
        return lambda f: f
    return fn


def reset():
    pass


def compile(*args, **kwargs):
    warn_once("compiler.compile")
    return args[0] if args else None


def cudagraph_mark_step_begin():
    pass
