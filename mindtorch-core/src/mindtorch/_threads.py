"""Intra-op thread settings (torch.set_num_threads and friends).

Core keeps the numbers; a backend with a thread pool (the CPU one) reads
get_num_threads() when it splits an op, so a change takes effect at once.
"""

import os


def _default_threads():
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return max(1, os.cpu_count() or 1)


_state = {"threads": None, "interop": None}


def get_num_threads():
    """Threads used for intra-op parallelism (default: OMP_NUM_THREADS, else the usable cores)."""
    n = _state["threads"]
    if n is None:
        n = _state["threads"] = _default_threads()
    return n


def _check_count(name, num):
    if not isinstance(num, int) or isinstance(num, bool):
        raise RuntimeError(f"{name} expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError(f"{name} expects a positive integer")


def init_num_threads():
    """Settle the intra-op thread count for the calling thread (the default is resolved once, then kept)."""
    get_num_threads()


def set_num_threads(num):
    _check_count("set_num_threads", num)
    _state["threads"] = num


def get_num_interop_threads():
    n = _state["interop"]
    return get_num_threads() if n is None else n


def set_num_interop_threads(num):
    _check_count("set_num_interop_threads", num)
    _state["interop"] = num
