"""NPU graphs: capture the work a stream is given once, replay it with one call (torch.npu.NPUGraph).

Built on ACL Graph: aclmdlRICaptureBegin makes the stream record its tasks into a model run instance
instead of running them, aclmdlRICaptureEnd hands the instance over, aclmdlRIExecuteAsync queues it
again. PyTorch's CUDA-graph semantics: capture on a side stream, a private memory pool per graph
(shareable through graph_pool_handle() / pool=), static inputs and outputs (a replay reads and writes
the very addresses the capture saw), make_graphed_callables for autograd.

Refused while capturing, as CANN refuses it: synchronizing the capturing stream or its device, blocking
copies between host and device (`.item()`, `.cpu()`, printing a tensor); here also: random operators
(their (seed, offset) would be baked into the graph, so every replay would repeat the captured draw).
"""

import gc
import itertools

from .acl import types as A
from .kernels._common import BOUNDS
from .state import ALLOCATOR, RUNTIME
from .streams import Stream, stream as _stream_ctx

__all__ = [
    "NPUGraph",
    "graph",
    "graph_pool_handle",
    "is_current_stream_capturing",
]

_MODES = {
    "global": A.ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
    "thread_local": A.ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
    "relaxed": A.ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
}
_pool_ids = itertools.count(1)


def graph_pool_handle():
    """An opaque id of a graph memory pool, to share one pool between graphs (`pool=`)."""
    return (0, next(_pool_ids))


def is_current_stream_capturing():
    """True when an NPU graph capture is underway on the current stream of the current device."""
    if RUNTIME.state != "ready" or not RUNTIME.captures:
        return False
    return RUNTIME.capturing(RUNTIME.current_device()) is not None


class NPUGraph:
    """One captured graph: capture_begin / capture_end around the work, then replay()."""

    def __init__(self, keep_graph=False):
        self._model = None
        self._pool = None
        self._device = None
        self._stream = None
        self._capturing = False
        self._checks = []  # deferred index-bounds checks captured with the graph, re-read after each replay

    def capture_begin(self, pool=None, capture_error_mode="global"):
        if capture_error_mode not in _MODES:
            raise RuntimeError(
                f"Unknown capture error mode. Expected `global`, `thread_local`, or `relaxed`, got {capture_error_mode}"
            )
        if self._model is not None or self._capturing:
            raise RuntimeError(
                "This NPUGraph instance already owns a captured graph. To capture a new graph, create a new instance."
            )
        RUNTIME.ensure()
        index = RUNTIME.current_device()
        stream = RUNTIME.current_stream(index)
        if stream == 0:
            raise RuntimeError(
                "NPU graphs must be captured on a non-default stream. "
                "(However, after capture, it's ok to replay them on the default stream.)"
            )
        pool_id = tuple(pool) if pool is not None else (next(_pool_ids), 0)
        ALLOCATOR.begin_allocate_to_pool(index, pool_id, stream)
        try:
            RUNTIME.capture_begin(index, stream, _MODES[capture_error_mode])
        except BaseException:
            ALLOCATOR.end_allocate_to_pool(index, pool_id, stream)
            ALLOCATOR.release_pool(index, pool_id)
            raise
        self._device, self._stream, self._pool, self._capturing = index, stream, pool_id, True
        RUNTIME.captures[(index, stream)] = self

    def capture_end(self):
        if not self._capturing:
            raise RuntimeError("capture_end() called before capture_begin().")
        index, stream = self._device, self._stream
        if RUNTIME.current_stream(index) != stream:
            raise RuntimeError("Capture must end on the same stream it began on.")
        self._capturing = False
        RUNTIME.captures.pop((index, stream), None)
        ALLOCATOR.end_allocate_to_pool(index, self._pool, stream)
        try:
            self._model = RUNTIME.capture_end(index, stream)
        except BaseException:
            self._checks = []
            ALLOCATOR.release_pool(index, self._pool)
            self._pool = None
            raise

    def instantiate(self):
        """Accepted for torch.cuda.CUDAGraph(keep_graph=True): the model run instance is ready at capture_end."""
        if self._model is None:
            raise RuntimeError("Called NPUGraph::instantiate without a preceding successful capture.")

    def replay(self):
        if self._model is None:
            raise RuntimeError("Called NPUGraph::replay without a preceding successful capture.")
        index = self._device
        stream = RUNTIME.current_stream(index)
        RUNTIME.execute_model(index, self._model, stream)
        if self._checks:  # read at the next host wait, as eager index checks are; a replay overwrites the
            # previous one's results, so each check waits there once
            queued = {id(check) for check, _ in BOUNDS.pending}
            BOUNDS.pending.extend((check, stream) for check in self._checks if id(check) not in queued)
            if RUNTIME.sync_hook is None:
                RUNTIME.sync_hook = BOUNDS.drain

    def reset(self):
        """Destroy the captured graph and let its memory pool go (after the queued replays finished)."""
        if self._capturing:
            raise RuntimeError("Cannot reset an NPUGraph while it is capturing; call capture_end() first.")
        model, self._model = self._model, None
        self._checks = []
        if model is not None:
            RUNTIME.destroy_model(model)
        if self._pool is not None:
            if RUNTIME.state == "ready":
                ALLOCATOR.release_pool(self._device, self._pool)
            self._pool = None

    def pool(self):
        """The id of this graph's memory pool, to pass as `pool=` to another graph's capture."""
        if self._pool is None:
            raise RuntimeError("Called NPUGraph::pool() without a preceding capture_begin().")
        return self._pool

    def enable_debug_mode(self):
        """Accepted for torch.cuda.CUDAGraph compatibility: debug_dump works without it."""

    def debug_dump(self, debug_path):
        """Write the recorded tasks as JSON (aclmdlRIDebugJsonPrint)."""
        if self._model is None:
            raise RuntimeError("Called NPUGraph::debug_dump without a preceding successful capture.")
        RUNTIME.dump_model(self._model, str(debug_path))

    def __del__(self):
        try:
            if not self._capturing:
                self.reset()
        except Exception:  # interpreter teardown: the runtime may be gone
            pass


class graph:
    """`with torch.npu.graph(g):` captures the block into NPUGraph `g` on a side stream."""

    default_capture_stream = None

    def __init__(self, npu_graph, pool=None, stream=None, capture_error_mode="global"):
        if self.__class__.default_capture_stream is None:
            self.__class__.default_capture_stream = Stream()
        self.pool = () if pool is None else (pool,)
        self.capture_stream = stream if stream is not None else self.__class__.default_capture_stream
        self.stream_ctx = _stream_ctx(self.capture_stream)
        self.npu_graph = npu_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        from . import module

        module.synchronize()
        gc.collect()
        module.empty_cache()
        self.stream_ctx.__enter__()
        try:
            self.npu_graph.capture_begin(*self.pool, capture_error_mode=self.capture_error_mode)
        except BaseException:
            self.stream_ctx.__exit__(None, None, None)
            raise

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            self.npu_graph.capture_end()
        except Exception:
            if exc_type is None:
                raise  # the capture failed by itself; otherwise the block's own error says why
        finally:
            self.stream_ctx.__exit__(exc_type, exc_value, traceback)
        return False
