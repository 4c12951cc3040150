"""Run a program written for PyTorch with mindtorch standing in for it, unchanged.

    python -m mindtorch.run script.py [args...]
    python -m mindtorch.run -m package.module [args...]

`import torch` and every `torch.<submodule>` import resolve to mindtorch's modules, and
importlib.metadata reports a `torch` distribution at the PyTorch API version mindtorch implements
(libraries such as transformers check it), as does `torch.__version__` (a TorchVersion, comparable with
strings and tuples). Processes the program starts with multiprocessing's spawn method install the same
alias before they import the main module. Nothing changes outside the processes this starts.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import runpy
import sys

USAGE = "usage: python -m mindtorch.run script.py [args...] | -m module [args...]"


def _target(name):
    return "mindtorch" + name[len("torch") :]


class _TorchAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves torch and torch.* to the mindtorch module of the same path (the same module object)."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch" and not name.startswith("torch."):
            return None
        try:
            real = importlib.util.find_spec(_target(name))
        except ModuleNotFoundError:
            return None
        if real is None:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=real.submodule_search_locations is not None)

    def create_module(self, spec):
        return importlib.import_module(_target(spec.name))

    def exec_module(self, module):
        pass  # already executed under its mindtorch name

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):  # noqa: B008  (importlib's own default)
        if context.name is None or context.name.lower() == "torch":
            yield _TorchDistribution()


class _TorchDistribution(importlib.metadata.Distribution):
    def read_text(self, filename):
        if filename == "METADATA":
            from .version import torch_api

            return (
                f"Metadata-Version: 2.1\nName: torch\nVersion: {torch_api}\nSummary: mindtorch standing in for torch\n"
            )
        return None

    def locate_file(self, path):
        return os.path.join(os.path.dirname(__file__), str(path))


def install():
    """Make `torch` mean mindtorch in this process (idempotent)."""
    if not any(isinstance(f, _TorchAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchAlias())
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        del sys.modules[name]  # a real torch imported earlier must not leak through
    import mindtorch
    import mindtorch.version
    from mindtorch.torch_version import TorchVersion

    # programs compare torch.__version__ with the PyTorch release whose API they use
    mindtorch.__version__ = TorchVersion(mindtorch.version.torch_api)
    mindtorch.version.__version__ = mindtorch.version.torch_api
    sys.modules["torch"] = mindtorch
    _hand_down_to_spawned_children()


class _InstallOnUnpickle:
    """Unpickled in a spawned child before it imports the parent's main module: installs the alias there."""

    def __reduce__(self):
        return (install, ())


def _hand_down_to_spawned_children():
    """A spawned child (multiprocessing's spawn start method: mp.spawn, Pool, DataLoader workers) starts
    a fresh interpreter, unpickles the preparation data its parent sends, then imports the parent's main
    module, which imports torch. An entry of that data which installs the alias when unpickled runs
    first, with no environment variable, sitecustomize or change of the child's command line; the child's
    `prepare` ignores keys it does not know. (The forkserver method keeps only main_path and sys_path
    of this data; fork children inherit the alias as they are.)"""
    from multiprocessing import spawn

    original = spawn.get_preparation_data
    if getattr(original, "_hands_down_torch_alias", False):
        return

    def get_preparation_data(name):
        data = original(name)
        data["mindtorch_torch_alias"] = _InstallOnUnpickle()
        return data

    get_preparation_data._hands_down_torch_alias = True
    spawn.get_preparation_data = get_preparation_data


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = [argv[1]] + argv[2:]
        # `-m torch.distributed.run` and the like: runpy needs the real module's code, under its own name
        name = _target(argv[1]) if argv[1] == "torch" or argv[1].startswith("torch.") else argv[1]
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    else:
        script = os.path.abspath(argv[0])  # Python's own __file__ of a main script is absolute
        sys.argv = argv
        sys.path[0] = os.path.dirname(script)
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    # run from the importable module, so that what spawned children unpickle names mindtorch.run
    from mindtorch import run

    sys.exit(run.main())
