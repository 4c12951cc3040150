"""What a mindtorch backend contributes: the plugin author's reference.

A backend is an ordinary distribution that declares an entry point in the
group ``mindtorch.backends``; the entry point names a module (or object)
that implements some of the hooks below, marked with
``mindtorch.plugins.hookimpl``. Every per-device hook receives the device
type and returns None for device types the plugin does not own.

Hooks run once, when ``mindtorch`` is imported; their answers are stored in
plain tables so that no hook call sits on the per-op path. What the returned
objects must offer is also written as ``typing.Protocol`` classes in
``mindtorch.plugins.protocols`` (Allocator, CopyRoutines, GeneratorState,
Kernel, CollectiveEngine), which the loader checks and mypy reads.
"""

import pluggy

PROJECT = "mindtorch"
# Bump when a hook's meaning or the kernel calling convention changes.
PLUGIN_API_VERSION = 1

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def mindtorch_plugin_api_version():
    """Return the plugin-API version the plugin was built for.

    A plugin whose version differs from ``PLUGIN_API_VERSION`` is skipped
    with a warning (or rejected under strict loading).
    """


@hookspec
def mindtorch_device_types():
    """Return the device type names this plugin provides, e.g. ``["npu"]``.

    Two plugins claiming one device type is an error naming both.
    """


@hookspec(firstresult=True)
def mindtorch_allocator(device_type):
    """Return the allocator for ``device_type``.

    An allocator has ``allocate(nbytes, device) -> Storage``,
    ``free(storage)`` (called when the last tensor on the storage dies),
    ``bytes_in_use(device) -> int`` and ``data_ptr(storage) -> int``.
    Caching allocators may also offer ``empty_cache()``,
    ``bytes_reserved(device)`` and ``max_bytes_in_use(device)``. A backend
    that builds results with ``make_lazy_tensor`` offers
    ``adopt(host_array, device) -> Storage``: the storage of such a result,
    made when first asked for.
    """


@hookspec(firstresult=True)
def mindtorch_copy_routines(device_type):
    """Return the host<->device copy routines for ``device_type``.

    An object with ``to_host(tensor) -> numpy.ndarray`` (an array of the
    tensor's shape holding its elements; a host device may return a view that
    shares memory; bfloat16 travels as uint16 bits), ``from_host(array, dtype, device)
    -> Tensor`` (a new contiguous tensor) and ``copy_from_host(dst, array)``
    (write an array of dst's shape into the possibly strided ``dst``).
    ``from_host`` may also accept ``non_blocking=False``: when it does, copies asked
    for with ``non_blocking=True`` pass it, and the backend may return before the
    device has read the array (it must then keep its own copy of the data alive).
    Copies between two devices of this backend are the ``copy_`` kernel;
    copies between backends go through the host using these routines.
    """


@hookspec
def mindtorch_kernels(device_type):
    """Return ``{op name: kernel}`` for ``device_type``.

    Op names are the schema table's qualified names (``"add"``,
    ``"max.dim"``). A kernel is called as ``kernel(meta, *args)``: ``meta``
    is what the op's shape rule returned (a ``TensorMeta`` or a tuple of
    them: shape and dtype of each output), ``args`` the bound arguments in
    schema order. It returns the output tensor(s). In-place kernels
    (``add_``) write into their first argument and return it. View ops are
    done by core and need no kernel.

    Kernels see only tensors of their own device type (and Python numbers):
    core moves 0-dim cpu operands, routes copies between backends through
    the copy routines, and gives factory kernels a normalised ``device``
    (``mydev:0``, never None or an index-less device). The tutorial is
    docs/PLUGINS.md.
    """


@hookspec(firstresult=True)
def mindtorch_is_available(device_type):
    """Return whether ``device_type`` can run here (driver present, devices visible)."""


@hookspec(firstresult=True)
def mindtorch_device_count(device_type):
    """Return the number of devices of ``device_type``."""


@hookspec(firstresult=True)
def mindtorch_synchronize(device_type, index):
    """Wait for all work queued on device ``index``; return True when handled."""


@hookspec(firstresult=True)
def mindtorch_generator(device_type, index):
    """Return a new random Generator state object for device ``index``.

    It must offer ``manual_seed(seed)``, ``seed()``, ``initial_seed()``,
    ``get_state()`` and ``set_state(state)``.
    """


@hookspec(firstresult=True)
def mindtorch_timing_event(device_type, index):
    """Optionally return a new timing event for device ``index``, so the profiler can time each op's
    device work (its device time columns and trace rows).

    The event offers torch.cuda.Event's timing methods: ``record()`` marks the device's current
    stream, ``synchronize()`` waits until the mark is reached, and ``start.elapsed_time(end)``
    returns the milliseconds between two recorded events. Called only while a profiler records.
    """


@hookspec(firstresult=True)
def mindtorch_device_module(device_type):
    """Optionally return a module exposed as ``mindtorch.<device_type>``
    (like ``torch.cuda``): is_available, device_count, synchronize, ..."""


@hookspec(firstresult=True)
def mindtorch_host_fallback(device_type):
    """Optionally opt ``device_type`` into host fallback for bring-up.

    Return True (every op the device lacks) or a collection of op names.
    Such an op runs on the cpu backend: inputs are copied to the host with
    the copy routines, the cpu kernel runs, results are copied back. Each op
    warns once when it first falls back, and ``python -m mindtorch`` and the
    conformance report show it as "fallback". Decided at load time, so a
    backend may read an environment variable here. Needs mindtorch-cpu.
    """


@hookspec(firstresult=True)
def mindtorch_distributed_backends(device_type):
    """Optionally return the collective engines ``device_type`` offers to mindtorch.distributed, as
    ``{backend name: factory}`` (mindtorch-npu offers ``"hccl"``).

    ``init_process_group(name)`` calls ``factory(comm, timeout)`` once per process group, with the
    group's mpi4py communicator (rank, size, and a channel for bootstrap data such as a root id) and
    the timeout in seconds or None. The engine it returns has ``device_type`` and, each on tensors of
    that device type and each returning a work handle with ``wait()``, ``is_completed()``,
    ``is_success()``, ``exception()`` and ``result()``: ``all_reduce(tensor, op)``,
    ``broadcast(tensor, root)``, ``reduce(tensor, root, op)``, ``all_gather_into_tensor(output, input)``,
    ``reduce_scatter_tensor(output, input, op)``, ``scatter(output, packed_or_None, root)``,
    ``send(tensor, peer)``, ``recv(tensor, peer)``, ``barrier()``; and ``destroy()``. ``op`` is a
    ReduceOp name ("sum", "avg", "product", "min", "max"); roots and peers are ranks within the group.
    Core composes all_gather, gather and the tensor-list forms from these and bumps the version of
    every tensor written.
    """
