"""PyTorch's submodule paths under nn.modules, optim, distributions and utils.data hold their names in
mindtorch too: wherever mindtorch has any of a torch module's public names (anywhere in the matching
mindtorch package), the same path imports under mindtorch and serves every one of those names, so
`from torch.optim.adam import Adam` works with `torch` aliased to mindtorch."""

from helpers import torch_or_skip

torch = torch_or_skip()

import importlib  # noqa: E402
import inspect  # noqa: E402
import pkgutil  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402

import pytest  # noqa: E402

PACKAGES = {
    "torch.nn.modules": "mindtorch.nn",
    "torch.optim": "mindtorch.optim",
    "torch.distributions": "mindtorch.distributions",
    "torch.utils.data": "mindtorch.utils.data",
}

# torch modules whose names say nothing about where mindtorch should keep its own, each with its reason
# (none today: the DataPipes, which reuse names such as Sampler for other classes, are told apart by
# _same_kind below)
EXCLUDED = set()


def _import(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def _walk(package):
    """The package and its public submodules' names (private `_x` parts skipped)."""
    pkg = _import(package)
    names = [package]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for info in pkgutil.walk_packages(pkg.__path__, package + ".", onerror=lambda name: None):
            if not any(part.startswith("_") for part in info.name.split(".")):
                names.append(info.name)
    return names


def _torch_paths():
    paths = []
    for package in PACKAGES:
        for name in _walk(package)[1:]:
            if name in EXCLUDED:
                continue
            try:
                _import(name)
            except Exception:
                continue
            paths.append(name)
    return paths


def public_names(module):
    """A module's public names with their objects: its __all__, else the public classes, functions and
    other non-module objects whose __module__ says they are defined there."""
    declared = getattr(module, "__all__", None)
    if declared is not None:
        return {n: getattr(module, n, None) for n in declared}
    return {
        n: v
        for n, v in vars(module).items()
        if not n.startswith("_")
        and not isinstance(v, types.ModuleType)
        and getattr(v, "__module__", None) == module.__name__
    }


def name_index(modules):
    """name -> the objects bound to it in any of `modules` (public, non-module attributes)."""
    index = {}
    for module in modules:
        for n, v in vars(module).items():
            if not n.startswith("_") and not isinstance(v, types.ModuleType):
                index.setdefault(n, []).append(v)
    return index


def _same_kind(theirs, ours):
    """A class or function counts only as one of the same __name__ (torch's DataPipes alias `Sampler` to a
    SamplerIterDataPipe, which is not mindtorch's Sampler); other objects count by name."""
    if inspect.isclass(theirs) or inspect.isroutine(theirs):
        return (inspect.isclass(ours) or inspect.isroutine(ours)) and getattr(ours, "__name__", None) == getattr(
            theirs, "__name__", None
        )
    return True


def expected_names(theirs, index):
    """The names of torch module `theirs` that mindtorch has somewhere in the matching package."""
    return sorted(n for n, obj in public_names(theirs).items() if any(_same_kind(obj, o) for o in index.get(n, ())))


def missing_names(theirs, index, ours):
    """The expected names that module `ours` does not serve (all of them when `ours` is None: no module)."""
    want = expected_names(theirs, index)
    return want if ours is None else [n for n in want if not hasattr(ours, n)]


_INDEXES = {}


def _index_for(ours_package):
    if ours_package not in _INDEXES:
        modules = []
        for name in _walk(ours_package):
            try:
                modules.append(_import(name))
            except Exception:
                continue
        _INDEXES[ours_package] = name_index(modules)
    return _INDEXES[ours_package]


@pytest.mark.parametrize("path", _torch_paths())
def test_path_serves_its_names(path):
    torch_package = next(p for p in PACKAGES if path.startswith(p + "."))
    ours_package = PACKAGES[torch_package]
    ours_path = "mindtorch" + path[len("torch") :]
    theirs = _import(path)
    want = expected_names(theirs, _index_for(ours_package))
    if not want:
        pytest.skip(f"mindtorch has none of {path}'s public names")
    try:
        ours = _import(ours_path)
    except ImportError as e:
        pytest.fail(f"{ours_path} does not import ({e}) though mindtorch has {want}")
    missing = missing_names(theirs, _index_for(ours_package), ours)
    assert not missing, f"{ours_path} lacks {missing}"


def test_checker_reports_a_missing_name():
    theirs = types.ModuleType("torch.fake.widgets")
    theirs.__all__ = ["Widget", "make_widget", "Gadget"]

    class Widget:
        pass

    def make_widget():
        pass

    theirs.Widget, theirs.make_widget = Widget, make_widget
    theirs.Gadget = type("GadgetIterDataPipe", (), {})  # an alias to another class: not ours by name

    class Gadget:
        pass

    ours_elsewhere = types.ModuleType("mindtorch.fake._impl")
    ours_elsewhere.Widget, ours_elsewhere.make_widget, ours_elsewhere.Gadget = Widget, make_widget, Gadget
    index = name_index([ours_elsewhere])
    assert expected_names(theirs, index) == ["Widget", "make_widget"]

    ours = types.ModuleType("mindtorch.fake.widgets")
    ours.Widget = Widget
    assert missing_names(theirs, index, ours) == ["make_widget"]
    assert missing_names(theirs, index, None) == ["Widget", "make_widget"]
    ours.make_widget = make_widget
    assert missing_names(theirs, index, ours) == []


def test_public_names_without_all_takes_what_the_module_defines():
    module = types.ModuleType("torch.fake.plain")
    defined = type("Defined", (), {"__module__": "torch.fake.plain"})
    imported = type("Imported", (), {"__module__": "elsewhere"})
    module.Defined, module.Imported, module._private = defined, imported, defined
    assert public_names(module) == {"Defined": defined}
