"""The socket transport: processes started without an MPI launcher (torchrun, mindtorch.distributed.run,
multiprocessing) form their group through a store, then move cpu tensors over TCP connections.

This is what mindtorch runs for PyTorch's "gloo" backend when a rendezvous (init_method or store) is
given; it is mindtorch's own engine, not Gloo. Every pair of processes shares one connection, opened
once when the default group is made (each publishes its listening address in the store). A reader
thread per connection files the messages it receives by (group, kind, tag), in arrival order, so a
sender never waits for its peer to be ready to receive, and a receiver takes its messages in the
order it asked for them. A peer whose connection closes is gone: a wait for it raises
DistBackendError at once; a wait for a live peer gives up after the group's timeout.

Collectives run when called (each completes before it returns its Work) as direct exchanges between
the members: reductions combine the members' arrays in group-rank order on every rank, so all ranks
get the same bits.
"""

import pickle
import socket
import struct
import threading
import time

import numpy as np

from ._buffers import Buf, byte_counts, divide, reduce_arrays, split_back
from ._engine import DistBackendError, HostWork, timeout_seconds
from ._peers import mismatch_message

_HEADER = struct.Struct("!qqqQ")  # group id, kind, tag, payload bytes
_P2P, _COLLECTIVE, _AGREE, _OBJECT = 0, 1, 2, 3
_GRACE = 0.2  # seconds a wait still looks for messages of a peer whose connection closed


def _recv_into(sock, view):
    got, n = 0, len(view)
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("connection closed")
        got += k


def _address_for(master_addr):
    """The address of this host its peers reach: the interface that routes to the master."""
    if master_addr:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((socket.gethostbyname(master_addr), 9))
                return s.getsockname()[0]
        except OSError:
            pass
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


class SocketWorld:
    """The TCP connections of this process to every other process of the job, and their inboxes."""

    def __init__(self, store, rank, size, timeout, master_addr=None):
        self.rank, self.size, self.timeout = rank, size, timeout
        self.cond = threading.Condition()
        self.inbox = {}  # (peer, group, kind, tag) -> {arrival index: bytes}
        self.arrived, self.taken = {}, {}  # the same keys -> messages filed, messages claimed
        self.gone = {}  # peer -> why its connection ended
        self.socks, self.send_locks = {}, {}
        self.closing = False
        self.next_group = 1
        # one rendezvous per default group: the store may outlive a destroyed one
        generation = (int(store.add("mindtorch/sockets/joined", 1)) - 1) // size
        prefix = f"mindtorch/sockets/{generation}"
        server = socket.create_server(("", 0), backlog=max(size, 8))
        host = _address_for(master_addr)
        store.set(f"{prefix}/addr/{rank}", f"{host}:{server.getsockname()[1]}")
        try:
            self._connect(store, prefix)
            self._accept(server)
        finally:
            server.close()
        for peer, sock in self.socks.items():
            self.send_locks[peer] = threading.Lock()
            threading.Thread(target=self._read, args=(peer, sock), name=f"mindtorch-peer-{peer}", daemon=True).start()

    def _connect(self, store, prefix):
        """Connect to every lower rank (higher ranks connect to this one)."""
        for peer in range(self.rank):
            host, port = store.get(f"{prefix}/addr/{peer}").decode().rsplit(":", 1)
            sock = socket.create_connection((host, int(port)), timeout=self.timeout)
            sock.sendall(struct.pack("!q", self.rank))
            self._keep(peer, sock)

    def _accept(self, server):
        server.settimeout(self.timeout)
        for _ in range(self.rank + 1, self.size):
            try:
                sock, _ = server.accept()
            except TimeoutError:
                raise DistBackendError(
                    f"init_process_group did not complete within {self.timeout:g} s: "
                    f"{self.size - len(self.socks) - 1} peers did not connect"
                ) from None
            sock.settimeout(self.timeout)
            buf = bytearray(8)
            _recv_into(sock, memoryview(buf))
            self._keep(struct.unpack("!q", buf)[0], sock)

    def _keep(self, peer, sock):
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.socks[peer] = sock

    def _read(self, peer, sock):
        head = bytearray(_HEADER.size)
        try:
            while True:
                _recv_into(sock, memoryview(head))
                group, kind, tag, n = _HEADER.unpack(head)
                data = bytearray(n)
                _recv_into(sock, memoryview(data))
                key = (peer, group, kind, tag)
                with self.cond:
                    k = self.arrived.get(key, 0)
                    self.inbox.setdefault(key, {})[k] = data
                    self.arrived[key] = k + 1
                    self.cond.notify_all()
        except (ConnectionError, OSError) as e:
            with self.cond:
                self.gone[peer] = "exited" if isinstance(e, ConnectionError) else f"failed ({e})"
                self.cond.notify_all()

    def send(self, peer, group, kind, tag, data):
        view = memoryview(data).cast("B")
        if peer in self.gone:
            raise DistBackendError(f"rank {peer} {self.gone[peer]}: cannot send to it (rank {self.rank})")
        with self.send_locks[peer]:
            try:
                self.socks[peer].sendall(_HEADER.pack(group, kind, tag, len(view)))
                self.socks[peer].sendall(view)
            except OSError as e:
                raise DistBackendError(f"sending to rank {peer} failed: {e}") from None

    def claim(self, peer, group, kind, tag):
        """A ticket for the next message of this key: messages are taken in the order asked for."""
        key = (peer, group, kind, tag)
        with self.cond:
            t = self.taken.get(key, 0)
            self.taken[key] = t + 1
        return key, t

    def ready(self, key, ticket):
        with self.cond:
            return ticket in self.inbox.get(key, ())

    def take(self, key, ticket, limit, what):
        """The message of a ticket, once it arrived (DistBackendError when its sender is gone, or after
        `limit` seconds)."""
        deadline = None if limit is None else time.monotonic() + limit
        peer, gone_at = key[0], None
        with self.cond:
            while ticket not in self.inbox.get(key, ()):
                now = time.monotonic()
                if peer in self.gone:
                    gone_at = gone_at or now
                    if now - gone_at > _GRACE:
                        raise DistBackendError(
                            f"{what} failed: rank {peer} {self.gone[peer]} while the others waited "
                            f"(rank {self.rank} among them)"
                        )
                if deadline is not None and now > deadline:
                    raise DistBackendError(
                        f"{what} did not complete within {limit:g} s (a peer process may have died or diverged)"
                    )
                wake = _GRACE if deadline is None else min(_GRACE, max(deadline - now, 0.001))
                self.cond.wait(wake)
            return self.inbox[key].pop(ticket)

    def any_ready(self, peers, group, kind, tag):
        with self.cond:
            return any(self.taken.get(k, 0) in self.inbox.get(k, ()) for k in ((p, group, kind, tag) for p in peers))

    def take_any(self, peers, group, kind, tag, limit, what):
        """(peer, message): the first message of this key from any of `peers`."""
        deadline = None if limit is None else time.monotonic() + limit
        with self.cond:
            while True:
                for peer in peers:
                    key = (peer, group, kind, tag)
                    t = self.taken.get(key, 0)
                    if t in self.inbox.get(key, ()):
                        self.taken[key] = t + 1
                        return peer, self.inbox[key].pop(t)
                if all(p in self.gone for p in peers):
                    raise DistBackendError(f"{what} failed: every peer it may receive from is gone")
                if deadline is not None and time.monotonic() > deadline:
                    raise DistBackendError(f"{what} did not complete within {limit:g} s")
                self.cond.wait(_GRACE)

    def new_group_id(self):
        """The id of a new group: every process makes the groups in the same order (new_group is
        collective), so the ids agree."""
        gid, self.next_group = self.next_group, self.next_group + 1
        return gid

    def close(self):
        for sock in self.socks.values():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
        self.socks = {}


class SocketComm:
    """A group over a SocketWorld: the world ranks of its members (in group-rank order), as an MPI
    communicator offers them (Get_rank, Get_size, bcast, Free)."""

    def __init__(self, world, ranks, group_id=0):
        self.world, self.ranks, self.group_id = world, list(ranks), group_id
        self.rank = self.ranks.index(world.rank)

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return len(self.ranks)

    def Free(self):
        """Nothing of its own: the connections belong to the world."""

    def exchange(self, kind, outgoing, sources, limit, what):
        """Send outgoing[k] to group rank k, then receive one message from each of `sources`."""
        for k, data in outgoing.items():
            self.world.send(self.ranks[k], self.group_id, kind, 0, data)
        tickets = {k: self.world.claim(self.ranks[k], self.group_id, kind, 0) for k in sources}
        return {k: self.world.take(*tickets[k], limit, what) for k in sources}

    def others(self):
        return [k for k in range(len(self.ranks)) if k != self.rank]

    def bcast(self, obj, root=0):
        """A picklable object from group rank `root` to every member."""
        if self.rank == root:
            data = pickle.dumps(obj)
            self.exchange(_OBJECT, dict.fromkeys(self.others(), data), (), self.world.timeout, "bcast")
            return obj
        return pickle.loads(self.exchange(_OBJECT, {}, (root,), self.world.timeout, "bcast")[root])

    def allgather(self, obj):
        data = pickle.dumps(obj)
        got = self.exchange(_OBJECT, dict.fromkeys(self.others(), data), self.others(), self.world.timeout, "allgather")
        return [obj if k == self.rank else pickle.loads(got[k]) for k in range(len(self.ranks))]


# --------------------------------------------------------------------------- the transport


def world_comm(store, rank, size, timeout, master_addr=None):
    return SocketComm(SocketWorld(store, rank, size, timeout, master_addr), range(size))


def release_world(comm):
    comm.world.close()


def split(comm, ranks):
    """The group of `ranks` (world ranks, sorted) on its members, None on the others; every process
    calls it, in the same order."""
    gid = comm.world.new_group_id()
    return SocketComm(comm.world, ranks, gid) if comm.world.rank in ranks else None


def agree(comm, what, timeout, ranks):
    """Every member calls the same collective with the same arguments (a RuntimeError on all of them
    otherwise): the descriptions are exchanged before any data moves."""
    data = what.encode()
    got = comm.exchange(_AGREE, dict.fromkeys(comm.others(), data), comm.others(), timeout, what.split("(", 1)[0])
    everyone = [what if k == comm.rank else bytes(got[k]).decode() for k in range(comm.Get_size())]
    if any(w != what for w in everyone):
        raise RuntimeError(mismatch_message(everyone, ranks))


def abort_on_uncaught_exception(active):
    """Nothing to arrange: a process that ends closes its connections, which fails its peers' waits."""


# --------------------------------------------------------------------------- the engine


class Work(HostWork):
    """An operation of the socket engine: done, or a receive still to take (`pending`)."""

    backend_name = "gloo"

    def __init__(self, pending=None):
        self._pending = pending

    def is_completed(self):
        if self._pending is not None and self._pending(poll=True):
            self._pending = None
        return self._pending is None

    def wait(self, timeout=None):
        if self._pending is not None:
            self._pending(poll=False, limit=None if timeout is None else timeout_seconds(timeout))
            self._pending = None
        return True


_DONE = Work()


def _bytes(arr):
    return arr.reshape(-1).view(np.uint8)


class SocketEngine:
    """The GroupEngine (see _engine) of a SocketComm: cpu tensors over the world's connections."""

    device_type = "cpu"

    def __init__(self, comm, timeout):
        self.comm, self.timeout = comm, timeout
        self.rank, self.size = comm.Get_rank(), comm.Get_size()

    def _everyone(self, data, what):
        """Every member's bytes (this one's included), in group-rank order."""
        others = self.comm.others()
        got = self.comm.exchange(_COLLECTIVE, dict.fromkeys(others, data), others, self.timeout, what)
        return [data if k == self.rank else got[k] for k in range(self.size)]

    def _from(self, root, what):
        return self.comm.exchange(_COLLECTIVE, {}, (root,), self.timeout, what)[root]

    def _to(self, outgoing, what):
        self.comm.exchange(_COLLECTIVE, outgoing, (), self.timeout, what)

    def _reduced(self, buf, pieces, op):
        arrays = [np.frombuffer(p, dtype=buf.arr.dtype).reshape(buf.arr.shape) for p in pieces]
        buf.arr[...] = reduce_arrays(arrays, op, buf.bf16)
        (divide(buf, self.size) if op == "avg" else buf.back)()

    def all_reduce(self, tensor, op, async_op):
        b = Buf(tensor, out=True)
        self._reduced(b, self._everyone(_bytes(b.arr), "allreduce"), op)
        return _DONE

    def broadcast(self, tensor, root, async_op):
        b = Buf(tensor, out=True)
        if self.rank == root:
            self._to(dict.fromkeys(self.comm.others(), _bytes(b.arr)), "bcast")
        else:
            _bytes(b.arr)[...] = np.frombuffer(self._from(root, "bcast"), np.uint8)
        b.back()
        return _DONE

    def reduce(self, tensor, root, op, async_op):
        b = Buf(tensor, out=True)
        if self.rank != root:
            self._to({root: _bytes(b.arr)}, "reduce")
            return _DONE
        got = self.comm.exchange(_COLLECTIVE, {}, self.comm.others(), self.timeout, "reduce")
        self._reduced(b, [_bytes(b.arr) if k == root else got[k] for k in range(self.size)], op)
        return _DONE

    def all_gather(self, outputs, input, async_op):
        src = Buf(input).arr
        pieces = self._everyone(_bytes(src), "allgather")
        packed = np.stack([np.frombuffer(p, src.dtype).reshape(src.shape) for p in pieces])
        split_back(packed, outputs)()
        return _DONE

    def all_gather_into_tensor(self, output, input, async_op):
        src, out = Buf(input), Buf(output, out=True)
        _bytes(out.arr)[...] = np.concatenate(
            [np.frombuffer(p, np.uint8) for p in self._everyone(_bytes(src.arr), "allgather")]
        )
        out.back()
        return _DONE

    def reduce_scatter_tensor(self, output, input, op, async_op):
        src, out = Buf(input), Buf(output, out=True)
        blocks = src.arr.reshape(self.size, -1)
        got = self.comm.exchange(
            _COLLECTIVE, {k: blocks[k] for k in self.comm.others()}, self.comm.others(), self.timeout, "reduce_scatter"
        )
        pieces = [_bytes(blocks[k]) if k == self.rank else got[k] for k in range(self.size)]
        self._reduced(out, pieces, op)
        return _DONE

    def gather(self, input, outputs, root, async_op):
        src = Buf(input).arr
        if self.rank != root:
            self._to({root: _bytes(src)}, "gather")
            return _DONE
        got = self.comm.exchange(_COLLECTIVE, {}, self.comm.others(), self.timeout, "gather")
        packed = np.stack(
            [src if k == root else np.frombuffer(got[k], src.dtype).reshape(src.shape) for k in range(self.size)]
        )
        split_back(packed, outputs)()
        return _DONE

    def scatter(self, output, packed, root, async_op):
        out = Buf(output, out=True)
        if self.rank == root:
            rows = Buf(packed).arr
            self._to({k: rows[k] for k in self.comm.others()}, "scatter")
            out.arr.reshape(-1)[...] = rows[root].reshape(-1)
        else:
            _bytes(out.arr)[...] = np.frombuffer(self._from(root, "scatter"), np.uint8)
        out.back()
        return _DONE

    def all_to_all_single(self, output, input, output_split_sizes, input_split_sizes, async_op):
        src, out = Buf(input), Buf(output, out=True)
        isz = src.arr.itemsize
        sc = byte_counts(input_split_sizes, input, self.size, isz, "input")
        rc = byte_counts(output_split_sizes, output, self.size, isz, "output")
        sd, rd = np.cumsum([0] + sc).tolist(), np.cumsum([0] + rc).tolist()
        sbytes, rbytes = _bytes(src.arr), _bytes(out.arr)
        others = self.comm.others()
        got = self.comm.exchange(
            _COLLECTIVE, {k: sbytes[sd[k] : sd[k + 1]] for k in others}, others, self.timeout, "alltoall"
        )
        for k in range(self.size):
            piece = sbytes[sd[k] : sd[k + 1]] if k == self.rank else np.frombuffer(got[k], np.uint8)
            rbytes[rd[k] : rd[k + 1]] = piece
        out.back()
        return _DONE

    def barrier(self, async_op):
        self._everyone(b"", "barrier")
        return _DONE

    def send(self, tensor, peer, tag):
        self.comm.world.send(self.comm.ranks[peer], self.comm.group_id, _P2P, tag, _bytes(Buf(tensor).arr))
        return _DONE

    def _deliver(self, out, data):
        _bytes(out.arr)[...] = np.frombuffer(data, np.uint8)
        out.back()

    def recv(self, tensor, peer, tag):
        out, world = Buf(tensor, out=True), self.comm.world
        if peer is None:
            return Work(lambda poll=False, limit=None: self._recv_any(out, tag, poll, limit) is not None)
        key, ticket = world.claim(self.comm.ranks[peer], self.comm.group_id, _P2P, tag)

        def pending(poll=False, limit=None):
            if poll and not world.ready(key, ticket):
                return False
            self._deliver(out, world.take(key, ticket, self.timeout if limit is None else limit, "recv"))
            return True

        return Work(pending)

    def _recv_any(self, out, tag, poll, limit):
        """Receive into `out` from whichever member sends first; its group rank (None when polling
        found nothing yet)."""
        peers = [self.comm.ranks[k] for k in self.comm.others()]
        if poll and not self.comm.world.any_ready(peers, self.comm.group_id, _P2P, tag):
            return None
        source, data = self.comm.world.take_any(
            peers, self.comm.group_id, _P2P, tag, self.timeout if limit is None else limit, "recv"
        )
        self._deliver(out, data)
        return self.comm.ranks.index(source)

    def recv_wait(self, tensor, peer, tag):
        out = Buf(tensor, out=True)
        if peer is None:
            return self._recv_any(out, tag, False, None)
        world = self.comm.world
        key, ticket = world.claim(self.comm.ranks[peer], self.comm.group_id, _P2P, tag)
        self._deliver(out, world.take(key, ticket, self.timeout, "recv"))
        return peer

    def destroy(self):
        """Nothing of its own: the group's connections belong to the world."""


cpu_engine = SocketEngine  # the engine of cpu tensors on this transport
