"""A backend's CollectiveEngine (see _engine) as distributed_c10d calls a group's engine."""

from ..dispatch import bump_version


def _written(work, tensor):
    """The engine wrote `tensor` in place: autograd sees a new version, as after any in-place op."""
    bump_version(tensor)
    return work


class PluginEngine:
    """A GroupEngine over a backend's CollectiveEngine.

    Device work is queued in order, so `async_op` changes nothing here and tags are not needed; gather
    and the list form of all_gather go through one all-gather into a packed tensor, then device copies
    (queued after it) into the list.
    """

    def __init__(self, engine, name, size):
        self.engine, self.name, self.size = engine, name, size
        self.device_type = engine.device_type

    def all_reduce(self, tensor, op, async_op):
        return _written(self.engine.all_reduce(tensor, op), tensor)

    def broadcast(self, tensor, root, async_op):
        return _written(self.engine.broadcast(tensor, root), tensor)

    def reduce(self, tensor, root, op, async_op):
        return _written(self.engine.reduce(tensor, root, op), tensor)

    def all_gather_into_tensor(self, output, input, async_op):
        return _written(self.engine.all_gather_into_tensor(output, input), output)

    def reduce_scatter_tensor(self, output, input, op, async_op):
        return _written(self.engine.reduce_scatter_tensor(output, input, op), output)

    def scatter(self, output, packed, root, async_op):
        return _written(self.engine.scatter(output, packed, root), output)

    def all_gather(self, outputs, input, async_op):
        packed = input.new_empty((self.size,) + tuple(input.shape))
        work = self.engine.all_gather_into_tensor(packed, input)
        for k, o in enumerate(outputs or ()):
            o.detach().copy_(packed[k])
        return work

    def gather(self, input, outputs, root, async_op):
        """Every rank gathers; the root keeps the pieces."""
        return self.all_gather(outputs, input, async_op)

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, async_op):
        raise RuntimeError(f"all_to_all_single is not supported by mindtorch's {self.name} backend")

    def barrier(self, async_op):
        return self.engine.barrier()

    def send(self, tensor, peer, tag):
        return self.engine.send(tensor, peer)

    def recv(self, tensor, peer, tag):
        if peer is None:  # the engine receives from a named peer only
            raise ValueError("Must specify either src or group_src")
        return _written(self.engine.recv(tensor, peer), tensor)

    def recv_wait(self, tensor, peer, tag):
        self.recv(tensor, peer, tag).wait()
        return peer

    def destroy(self):
        self.engine.destroy()
