"""The settings mindtorch.save and mindtorch.load read: the fallback byte order, crc32 records, the
flags of a memory-mapped load, and the thread-local skip_data switch."""

import contextlib
import enum
import mmap
import shutil
import tempfile
import threading
import warnings


class SourceChangeWarning(Warning):
    pass


class LoadEndianness(enum.Enum):
    NATIVE = 1
    LITTLE = 2
    BIG = 3


class _Settings:
    load_endianness = None
    compute_crc32 = True
    mmap_flags = getattr(mmap, "MAP_PRIVATE", None)


class _ThreadSettings(threading.local):
    skip_data = False
    materialize_fake_tensors = False


settings = _Settings()
thread_settings = _ThreadSettings()


def get_default_load_endianness():
    """The byte order assumed for a checkpoint without a byteorder record (None: native)."""
    return settings.load_endianness


def set_default_load_endianness(endianness):
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    settings.load_endianness = endianness


def get_crc32_options():
    return settings.compute_crc32


def set_crc32_options(compute_crc32):
    settings.compute_crc32 = compute_crc32


def get_default_mmap_options():
    return settings.mmap_flags


class set_default_mmap_options:
    """Set the flags of load(mmap=True) (mmap.MAP_PRIVATE or mmap.MAP_SHARED); as a context manager,
    the previous flags come back on exit."""

    def __init__(self, flags):
        shared, private = getattr(mmap, "MAP_SHARED", None), getattr(mmap, "MAP_PRIVATE", None)
        if private is None:
            raise RuntimeError("Changing the default mmap options is currently not supported for Windows")
        if flags != private and flags != shared:
            raise ValueError(
                "Invalid argument in function set_default_mmap_options, "
                f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}"
            )
        self.prev = settings.mmap_flags
        settings.mmap_flags = flags

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        settings.mmap_flags = self.prev


class skip_data:
    """Within it, save writes each storage's record as zero bytes of the right size (to fill in a later
    pass) and load leaves the storages it makes unfilled."""

    def __init__(self, materialize_fake_tensors=False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._prev = (thread_settings.skip_data, thread_settings.materialize_fake_tensors)
        thread_settings.skip_data = True
        thread_settings.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, exc_type, exc_value, traceback):
        thread_settings.skip_data, thread_settings.materialize_fake_tensors = self._prev


@contextlib.contextmanager
def mkdtemp():
    """A fresh temporary directory's path, removed with its contents on exit."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether module.__version__ is at least req_version_tuple, compared field by field in the
    tuple's own types; a version that cannot be read that way raises, or warns and counts as met."""
    try:
        fields = module.__version__.split(".")
        have = tuple(type(want)(fields[i]) for i, want in enumerate(req_version_tuple))
        return have >= req_version_tuple
    except Exception as exc:
        message = (
            f"'{module.__name__}' module version string is malformed '{module.__version__}' and cannot be "
            f"compared with tuple {req_version_tuple!s}"
        )
        if error_if_malformed:
            raise RuntimeError(message) from exc
        warnings.warn(message + ", but continuing assuming that requirement is met", stacklevel=2)
        return True
