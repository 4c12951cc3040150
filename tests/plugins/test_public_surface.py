"""The in-repo backends import nothing private from core: the public surface is proven by our own code."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# public modules a backend may import from; everything else in core is private
ALLOWED_MODULES = {"mindtorch", "mindtorch.plugins"}
ALLOWED_PREFIXES = ("mindtorch.nn", "mindtorch.optim", "mindtorch.testing", "mindtorch.utils")


def backend_sources():
    return sorted(p for pkg in ROOT.glob("mindtorch-*/src/mindtorch_*") if pkg.is_dir() for p in pkg.rglob("*.py"))


def private_imports(source, filename="<src>"):
    """(line, what) for every import of a private core name in `source`."""
    bad = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            mod = node.module
            if mod.split(".")[0] != "mindtorch":
                continue
            if not _allowed(mod):
                bad.append((node.lineno, mod))
            else:
                bad += [(node.lineno, f"{mod}.{a.name}") for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Import):
            bad += [
                (node.lineno, a.name)
                for a in node.names
                if a.name.split(".")[0] == "mindtorch" and not _allowed(a.name)
            ]
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Name)
            and node.value.id in ("mindtorch", "torch")
        ):
            bad.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return bad


def _allowed(mod):
    return mod in ALLOWED_MODULES or any(mod == p or mod.startswith(p + ".") for p in ALLOWED_PREFIXES)


def test_the_rule_catches_private_imports():
    src = (
        "from mindtorch import _dtype as D\nfrom mindtorch._tensor import make_tensor\n"
        "import mindtorch.ops.registry\nfrom mindtorch._backends.registry import backend_for\n"
        "import mindtorch\nx = mindtorch._C\nfrom mindtorch.plugins import Storage, dtypes\n"
        "from mindtorch import tensor\nfrom mindtorch.nn import functional\n"
    )
    assert [line for line, _ in private_imports(src)] == [1, 2, 3, 4, 6]


def test_backends_are_found():
    pkgs = {p.relative_to(ROOT).parts[0] for p in backend_sources()}
    assert {"mindtorch-cpu", "mindtorch-meta"} <= pkgs and "mindtorch-core" not in pkgs, pkgs


@pytest.mark.parametrize("path", backend_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_backend_imports_only_the_public_surface(path):
    bad = private_imports(path.read_text(), str(path))
    assert not bad, f"{path.relative_to(ROOT)} imports private core names (use mindtorch.plugins): {bad}"


def test_public_surface_names():
    import mindtorch.plugins as P

    for name in (
        "Backend",
        "hookimpl",
        "PLUGIN_API_VERSION",
        "Storage",
        "make_tensor",
        "Tensor",
        "TensorMeta",
        "dtypes",
        "device",
        "contiguous_strides",
        "numel",
        "broadcast_shapes",
        "missing_kernel_error",
        "OutOfMemoryError",
        "backend_for",
        "OPS",
        "generator_state",
    ):
        assert hasattr(P, name), name
        assert name in P.__doc__, f"{name} is not documented in mindtorch.plugins"
