"""A DataLoader worker's result channel: one end of a Unix socket pair that carries, with each
message, the descriptors of the shared-memory blocks it names (SCM_RIGHTS).

A tensor pickled for the channel names its block by an index into the descriptors sent right after
the message, not by a descriptor its sender must stay alive to hand over (multiprocessing's DupFd
asks the sender's resource sharer): a batch a worker finished arrives whole even if the worker dies
the next moment. Messages no one reads take their descriptors with them when the socket closes.
"""

import os
import socket
import struct
import threading
from multiprocessing import context, reduction

_MAX_FDS = 253  # descriptors one sendmsg may carry (the kernel's SCM_MAX_FD)
_incoming = threading.local()  # the descriptors of the message being unpickled in this thread


class _Sent:
    """multiprocessing's DupFd made during `send`: the index of a descriptor sent with the message."""

    def __init__(self, index):
        self.index = index

    def detach(self):
        fds = _incoming.fds
        fd, fds[self.index] = fds[self.index], -1
        return fd


class _Collect:
    """Stands in for a spawning Popen while a message is pickled: DupFd(fd) records a duplicate of fd."""

    DupFd = _Sent

    def __init__(self):
        self.fds = []

    def duplicate_for_child(self, fd):
        self.fds.append(os.dup(fd))
        return len(self.fds) - 1


def _socket(conn):
    return socket.fromfd(conn.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)  # a duplicate: closed after use


def send(conn, obj):
    """Pickle `obj` (ForkingPickler, so tensors go by shared memory) and send it with its descriptors."""
    collect = _Collect()
    context.set_spawning_popen(collect)
    try:
        payload = reduction.ForkingPickler.dumps(obj)
    finally:
        context.set_spawning_popen(None)
    try:
        conn.send_bytes(struct.pack("!I", len(collect.fds)) + payload)
        if collect.fds:
            sock = _socket(conn)
            try:
                for i in range(0, len(collect.fds), _MAX_FDS):
                    reduction.sendfds(sock, collect.fds[i : i + _MAX_FDS])
            finally:
                sock.close()
    finally:
        for fd in collect.fds:
            os.close(fd)


def recv(conn):
    """The next object; EOFError when the sender died before its message was whole."""
    try:
        buf = conn.recv_bytes()
        (n,) = struct.unpack_from("!I", buf)
    except (OSError, struct.error) as e:
        raise EOFError(str(e)) from None
    fds = []
    sock = _socket(conn)
    try:
        while len(fds) < n:
            fds.extend(reduction.recvfds(sock, min(_MAX_FDS, n - len(fds))))
    except (OSError, RuntimeError, AssertionError, ValueError) as e:
        for fd in fds:
            os.close(fd)
        raise EOFError(str(e)) from None
    finally:
        sock.close()
    _incoming.fds = fds
    try:
        return reduction.ForkingPickler.loads(memoryview(buf)[4:])
    finally:
        _incoming.fds = None
        for fd in fds:
            if fd >= 0:  # not taken by what was unpickled
                os.close(fd)
