"""mindtorch.utils.collect_env: the environment report for bug reports (python -m mindtorch.utils.collect_env)."""

import platform
import sys


def get_env_info():
    """A dict: versions of mindtorch, Python, NumPy and the OS, and the loaded backends with their devices."""
    import numpy

    import mindtorch
    from mindtorch._backends.registry import BACKENDS

    mindtorch.backends_installed()
    backends = {}
    for name, b in sorted(BACKENDS.items()):
        try:
            avail, count = b.is_available(), b.device_count()
        except Exception as exc:  # a broken device must not stop the report
            avail, count = f"error: {exc}", 0
        backends[name] = {
            "distribution": b.distribution,
            "version": b.version,
            "available": avail,
            "device_count": count,
        }
    return {
        "mindtorch_version": mindtorch.__version__,
        "python_version": sys.version.replace("\n", " "),
        "python_platform": platform.platform(),
        "numpy_version": numpy.__version__,
        "is_cuda_available": False,
        "backends": backends,
    }


def get_pretty_env_info():
    info = get_env_info()
    lines = [
        f"mindtorch version: {info['mindtorch_version']}",
        "Is CUDA available: False",
        f"Python version: {info['python_version']}",
        f"Python platform: {info['python_platform']}",
        f"NumPy version: {info['numpy_version']}",
        "Backends:",
    ]
    for name, b in info["backends"].items():
        lines.append(
            f"  {name}: {b['distribution']} {b['version']} (available: {b['available']}, devices: {b['device_count']})"
        )
    return "\n".join(lines)


def main():
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
