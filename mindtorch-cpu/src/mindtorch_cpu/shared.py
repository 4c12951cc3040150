"""Shared-memory segments behind the CPU allocator's shared storages.

An anonymous segment (the "file_descriptor" strategy) is a memory file with no name: it keeps one
open descriptor, which is what other processes receive (duplicated through multiprocessing's DupFd),
and its memory goes when the last descriptor and mapping are gone, whoever dies first. A named
segment ("file_system") is a file in /dev/shm: its creator removes it when its storage dies, and
multiprocessing's resource tracker, a process that outlives the creator, removes it if the creator
dies first.
"""

import errno
import mmap
import os
import uuid
from multiprocessing import reduction, resource_tracker

_DIR = "/dev/shm"


class Segment:
    __slots__ = ("fd", "name", "mm", "key", "creator")

    def __init__(self, fd, name, mm, creator):
        self.fd, self.name, self.mm = fd, name, mm
        st = os.fstat(fd)
        self.key = (st.st_dev, st.st_ino)  # one block, however many descriptors or names reach it
        self.creator = creator  # the pid that removes a named segment, or None
        if name is not None:  # a named block is reopened by name; no descriptor is kept
            os.close(fd)
            self.fd = None

    def handle(self, nbytes):
        """What another process needs to map the block (pickled by multiprocessing's ForkingPickler:
        DupFd hands over a duplicate descriptor, kept open until the receiver takes it)."""
        if self.name is not None:
            return ("name", self.name, nbytes)
        return ("fd", reduction.DupFd(self.fd), nbytes)

    def close(self):
        """The storage is gone: drop the descriptor, and a named block's file when made here."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.name is not None and self.creator == os.getpid():
            self.creator = None
            try:
                os.unlink(os.path.join(_DIR, self.name))
            except FileNotFoundError:
                pass
            resource_tracker.unregister("/" + self.name, "shared_memory")


def _fd_error(err, name):
    """PyTorch's error for a block it cannot create (at the descriptor limit, say)."""
    return RuntimeError(
        f"unable to open shared memory object </{name}> in read-write mode: {os.strerror(err.errno)} ({err.errno})"
    )


def create(nbytes, named=False):
    """A new zeroed segment of `nbytes` bytes mapped here."""
    name = f"mindtorch_{os.getpid()}_{uuid.uuid4().hex}"
    path = os.path.join(_DIR, name)
    fd = None
    try:
        if named or not hasattr(os, "memfd_create"):
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            if not named:
                os.unlink(path)  # nameless from the start: nothing to leave behind
        else:
            fd = os.memfd_create(name, os.MFD_CLOEXEC)
        os.ftruncate(fd, nbytes)
        mm = mmap.mmap(fd, nbytes)
    except OSError as e:
        if fd is not None:
            os.close(fd)
            if named:
                os.unlink(path)
        if e.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOSPC):
            raise _fd_error(e, name) from None
        raise
    if named:
        resource_tracker.register("/" + name, "shared_memory")
    return Segment(fd, name if named else None, mm, os.getpid() if named else None)


def attach(handle):
    """(segment, nbytes) for a handle made by Segment.handle in another process."""
    kind, where, nbytes = handle
    if kind == "fd":
        fd = where.detach()
        name = None
    else:
        name = where
        fd = os.open(os.path.join(_DIR, name), os.O_RDWR)
    try:
        mm = mmap.mmap(fd, max(nbytes, 1))
    except OSError:
        os.close(fd)
        raise
    return Segment(fd, name, mm, None), nbytes
