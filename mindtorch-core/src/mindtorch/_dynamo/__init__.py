"""mindtorch._dynamo: the torch._dynamo names programs and libraries call; mindtorch runs eagerly, so
decorators return what they decorate and queries answer "not compiling"."""

import types

from ..compiler import allow_in_graph, assume_constant_result, disable, is_compiling, reset  # noqa: F401

config = types.SimpleNamespace(
    cache_size_limit=8,
    accumulated_cache_size_limit=256,
    suppress_errors=False,
    capture_scalar_outputs=False,
    verbose=False,
)


def mark_dynamic(t, index, *, min=None, max=None):
    pass


def mark_static(t, index=None):
    pass


def maybe_mark_dynamic(t, index):
    pass
