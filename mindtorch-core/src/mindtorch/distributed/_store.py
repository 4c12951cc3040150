"""Key-value stores (torch.distributed's Store, HashStore, TCPStore, FileStore, PrefixStore): where the
processes of a job meet before any collective runs.

Values are bytes (a str is stored as its UTF-8 bytes); a `get` or `wait` blocks until the keys exist, at
most the store's timeout, then raises DistStoreError. `add` keeps a counter as the decimal text of an
int, as PyTorch does, so `get` of a counter reads b"3".
"""

import fcntl
import pickle
import socket
import struct
import threading
import time
from datetime import timedelta

from ._engine import DistError, DistStoreError, timeout_seconds

__all__ = ["Store", "HashStore", "TCPStore", "FileStore", "PrefixStore", "DistNetworkError", "QueueEmptyError"]

_DEFAULT_TIMEOUT = timedelta(seconds=300)


class DistNetworkError(DistError):
    """A network failure of the distributed machinery (a store's server cannot be reached)."""


class QueueEmptyError(DistStoreError):
    """A store's queue_pop found its queue empty within the timeout."""


def _as_bytes(value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (list, tuple)):  # PyTorch also takes a list of byte values
        return bytes(value)
    raise TypeError(f"a store value is bytes or str, got {type(value).__name__}")


def _key(key):
    if not isinstance(key, str):
        raise TypeError(f"a store key is a str, got {type(key).__name__}")
    return key


class _Table:
    """The keys and values of a store, safe to use from several threads: the operations every store
    offers, each applied at once (`get` and `wait` block on the condition until the keys exist)."""

    def __init__(self):
        self.data, self.cond = {}, threading.Condition()

    def call(self, op, *args):
        with self.cond:
            return getattr(self, "_" + op)(*args)

    def _set(self, key, value):
        self.data[key] = value
        self.cond.notify_all()

    def _get(self, key):
        return self.data.get(key)

    def _add(self, key, amount):
        value = int(self.data.get(key, b"0")) + amount
        self._set(key, str(value).encode())
        return value

    def _append(self, key, value):
        self._set(key, self.data.get(key, b"") + value)

    def _compare_set(self, key, expected, desired):
        current = self.data.get(key)
        if (current is None and expected == b"") or current == expected:
            self._set(key, desired)
            return desired
        return expected if current is None else current

    def _check(self, keys):
        return all(k in self.data for k in keys)

    def _delete_key(self, key):
        return self.data.pop(key, None) is not None

    def _num_keys(self):
        return len(self.data)

    def _queue_push(self, key, value):
        self.data.setdefault(key, [])
        self.data[key].append(value)
        self.cond.notify_all()

    def _queue_pop(self, key):
        q = self.data.get(key)
        return q.pop(0) if q else None

    def _queue_len(self, key):
        return len(self.data.get(key) or ())

    def ready(self, keys):
        """Every key holds a value (a queue key: at least one)."""
        return all(self.data.get(k) not in (None, []) for k in keys)

    def wait_for(self, keys, seconds):
        """Block until every key is ready; False when `seconds` passed first."""
        deadline = time.monotonic() + seconds
        with self.cond:
            while not self.ready(keys):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
        return True


def _timeout_error(keys, seconds):
    return DistStoreError(f"wait timeout after {seconds * 1000:g}ms, keys: {', '.join('/' + k for k in keys)}")


class Store:
    """The store interface. A subclass implements `_call(op, *args)` and `_wait(keys, seconds)`."""

    def __init__(self):
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        timeout_seconds(timeout)
        self._timeout = timeout

    def _seconds(self, timeout=None):
        return timeout_seconds(self._timeout if timeout is None else timeout)

    def _blocking(self, keys, timeout=None):
        seconds = self._seconds(timeout)
        if not self._wait(keys, seconds):
            raise _timeout_error(keys, seconds)

    def set(self, key, value):
        self._call("set", _key(key), _as_bytes(value))

    def get(self, key):
        self._blocking([_key(key)])
        return self._call("get", key)

    def add(self, key, value):
        return self._call("add", _key(key), int(value))

    def append(self, key, value):
        self._call("append", _key(key), _as_bytes(value))

    def compare_set(self, key, expected_value, desired_value):
        return self._call("compare_set", _key(key), _as_bytes(expected_value), _as_bytes(desired_value))

    def multi_get(self, keys):
        return [self.get(k) for k in keys]

    def multi_set(self, keys, values):
        for k, v in zip(keys, values, strict=True):
            self.set(k, v)

    def wait(self, keys, timeout=None):
        self._blocking([_key(k) for k in keys], timeout)

    def check(self, keys):
        return self._call("check", [_key(k) for k in keys])

    def delete_key(self, key):
        return self._call("delete_key", _key(key))

    def num_keys(self):
        return self._call("num_keys")

    def queue_push(self, key, value):
        self._call("queue_push", _key(key), _as_bytes(value))

    def queue_pop(self, key, block=True):
        if block and not self._wait([_key(key)], self._seconds()):
            raise QueueEmptyError(f"queue_pop timed out after {self._seconds():g} s, key: {key}")
        value = self._call("queue_pop", key)
        if value is None:
            raise QueueEmptyError(f"queue_pop found the queue {key} empty")
        return value

    def queue_len(self, key):
        return self._call("queue_len", _key(key))

    def has_extended_api(self):
        return True

    def _call(self, op, *args):
        raise NotImplementedError(f"{type(self).__name__} does not implement the store operation {op}")

    def _wait(self, keys, seconds):
        raise NotImplementedError(f"{type(self).__name__} does not implement waiting for keys")


class HashStore(Store):
    """A store inside one process, shared by its threads."""

    def __init__(self):
        super().__init__()
        self._table = _Table()

    def _call(self, op, *args):
        return self._table.call(op, *args)

    def _wait(self, keys, seconds):
        return self._table.wait_for(keys, seconds)


class PrefixStore(Store):
    """Every key of `store` under `prefix/`."""

    def __init__(self, prefix, store):
        super().__init__()
        if not isinstance(store, Store):
            raise TypeError(f"PrefixStore wraps a Store, got {type(store).__name__}")
        self.prefix, self.underlying_store = prefix, store
        self._timeout = store.timeout

    def _k(self, key):
        return f"{self.prefix}/{key}"

    def _call(self, op, *args):
        if op in ("check",):
            return self.underlying_store._call(op, [self._k(k) for k in args[0]])
        if op == "num_keys":
            return self.underlying_store._call(op)
        return self.underlying_store._call(op, self._k(args[0]), *args[1:])

    def _wait(self, keys, seconds):
        return self.underlying_store._wait([self._k(k) for k in keys], seconds)


# --------------------------------------------------------------------------- TCPStore

_LEN = struct.Struct("!Q")
_WORKERS = "/mindtorch/store/users"  # the processes that opened the store


def _send_msg(sock, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_LEN.pack(len(data)) + data)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            raise ConnectionError("the peer closed the connection")
        got += k
    return bytes(buf)


def _recv_msg(sock):
    (n,) = _LEN.unpack(_recv_exact(sock, _LEN.size))
    return pickle.loads(_recv_exact(sock, n))


class _Server:
    """The TCPStore's server: a thread per client, all on one _Table."""

    def __init__(self, port):
        self.table = _Table()
        # every interface, as PyTorch's server: clients may reach this host by any of its addresses
        self.sock = socket.create_server(("", port), backlog=128)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, name="mindtorch-tcpstore", daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        with conn:
            while True:
                try:
                    op, args = _recv_msg(conn)
                except (ConnectionError, OSError, EOFError):
                    return
                if op == "wait":
                    result = self.table.wait_for(*args)
                else:
                    result = self.table.call(op, *args)
                _send_msg(conn, result)


_SERVERS = {}  # port -> the server of multi-tenant stores in this process


def _server(port, multi_tenant):
    """A new server, or the one this process already runs on `port` for multi-tenant stores."""
    if multi_tenant and port in _SERVERS:
        return _SERVERS[port]
    server = _Server(port)
    if multi_tenant:
        _SERVERS[server.port] = server
    return server


class TCPStore(Store):
    """A store served over TCP by the process made `is_master` (its server runs in a thread there);
    every instance, the master's included, is a client of it. Port 0 on the master picks a free port
    (`.port` tells which)."""

    def __init__(
        self,
        host_name,
        port,
        world_size=None,
        is_master=False,
        timeout=_DEFAULT_TIMEOUT,
        wait_for_workers=True,
        multi_tenant=False,
        master_listen_fd=None,
        use_libuv=True,
    ):
        super().__init__()
        self._timeout = timeout
        self.host = host_name
        self._server = _server(port, multi_tenant) if is_master else None
        self.port = self._server.port if is_master else port
        self._lock = threading.Lock()
        self._sock = self._connect(self._seconds())
        self.libuvBackend = False
        # every client counts itself in (a key of the store, as in PyTorch's num_keys)
        self._call("add", _WORKERS, 1)
        if is_master and world_size is not None and wait_for_workers:
            self._await_workers(world_size)

    def _connect(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=max(0.1, deadline - time.monotonic()))
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(
                        f"The client socket has timed out after {seconds:g}s while trying to connect to "
                        f"({self.host}, {self.port}): {e}"
                    ) from None
                time.sleep(0.05)

    def _await_workers(self, world_size):
        deadline, key = time.monotonic() + self._seconds(), _WORKERS
        while int(self._call("get", key) or b"0") < world_size:
            if time.monotonic() > deadline:
                raise DistStoreError(
                    f"Timed out after {self._seconds():g} seconds waiting for clients. "
                    f"{int(self._call('get', key) or b'0')}/{world_size} clients joined."
                )
            time.sleep(0.01)

    def _call(self, op, *args):
        with self._lock:
            try:
                _send_msg(self._sock, (op, args))
                return _recv_msg(self._sock)
            except (ConnectionError, OSError) as e:
                raise DistNetworkError(f"the TCPStore at ({self.host}, {self.port}) is gone: {e}") from None

    def _wait(self, keys, seconds):
        return self._call("wait", keys, seconds)


# --------------------------------------------------------------------------- FileStore


class FileStore(Store):
    """A store in a file that processes sharing a file system open: every operation takes the file's
    lock, reads the table, applies itself and writes the table back when it changed."""

    def __init__(self, file_name, world_size=-1):
        super().__init__()
        self.path, self.world_size = file_name, world_size
        with open(self.path, "ab"):
            pass
        self._call("add", _WORKERS, 1)

    def _apply(self, op, args):
        """`op` on the file's table, under the file's lock."""
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                table = _Table()
                raw = f.read()
                if raw:
                    table.data = pickle.loads(raw)
                before = dict(table.data)
                result = table.call(op, *args) if op != "wait" else table.ready(args[0])
                if table.data != before:
                    f.seek(0)
                    f.truncate()
                    f.write(pickle.dumps(table.data, protocol=pickle.HIGHEST_PROTOCOL))
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def _call(self, op, *args):
        return self._apply(op, args)

    def delete_key(self, key):
        """As PyTorch's FileStore: True whether or not the key was there."""
        super().delete_key(key)
        return True

    def _wait(self, keys, seconds):
        deadline = time.monotonic() + seconds
        while not self._apply("wait", (keys,)):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True
