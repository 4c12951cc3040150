"""Core's import layering, read from the sources with ast (the lint session does not install mindtorch).

Every import counts, those inside functions too: a function-local import hides a dependency from the
interpreter, not from the design. Core is layered (LAYERS, lowest first); a module may import its own
layer and those below, never one above, and no import cycle may join more than MAX_CYCLE modules.

Edges to the root package `mindtorch` itself are not counted. The root is the assembled public API:
it imports every layer, and a low module that needs a public op at call time binds it late through
the root (`import mindtorch` in the function, then `mindtorch.xxx(...)`), as a user's code would.
Counting those edges would put every such module in one cycle with the root and hide the real
structure. `from mindtorch import _tensor` names a submodule, so it is an edge to mindtorch._tensor.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "mindtorch-core" / "src" / "mindtorch"
PKG = "mindtorch"
MAX_CYCLE = 3

# lowest first; names are relative to mindtorch ("ops.*": the modules of ops/ not named elsewhere).
# Modules not listed are the top layer: nn, optim, utils (data), distributed, serialization, the
# public API modules and the generated API (ops/__init__, ops/codegen); they may import any layer.
LAYERS = (
    (
        "leaves",
        (
            "_dtype",
            "_device",
            "_geometry",
            "_flags",
            "_grad_mode",
            "_amp_state",
            "_profiling",
            "_errors",
            "_threads",
            "_fpwarnings",
            "_accel_load",
            "_accel_build",
            "version",
            "_backends.registry",
            "plugins.hookspec",
        ),
    ),
    ("device access", ("_host_data", "_generator", "accelerator")),
    ("storage", ("_storage",)),
    ("tensor state", ("_tensor", "_legacy")),
    (
        "op table",
        ("ops.schema", "ops.registry", "ops.derivatives", "ops.formulas", "ops.meta", "ops.argparse_", "ops.docs"),
    ),
    ("dispatch", ("dispatch", "_backends.fallback")),
    (
        "ops",
        (
            "ops.*",
            "_tensor_from_data",
            "_tensor_indexing",
            "_printing",
            "linalg",
            "_linalg_lu",
            "_linalg_householder",
            "fft",
            "special",
        ),
    ),
    ("autograd", ("autograd", "autograd.*")),
    ("api", ("ops", "ops.codegen")),
)
LOADER = "mindtorch._backends.loader"
LOADER_IMPORTERS = {"mindtorch"}  # the package root loads the plugins; everything else asks the registry
PUBLIC_PLUGINS = "mindtorch.plugins"
# what a backend distribution's src/ may import from core (tests/plugins/test_public_surface.py has the
# finer rule: no private names through these either)
BACKEND_ALLOWED = ("mindtorch", "mindtorch.plugins")
BACKEND_ALLOWED_PREFIXES = ("mindtorch.nn", "mindtorch.optim", "mindtorch.testing", "mindtorch.utils")


def package_sources(pkg_dir):
    """{module name: (source, is_package)} for every module of the package at `pkg_dir`."""
    out = {}
    for p in sorted(pkg_dir.rglob("*.py")):
        parts = list(p.relative_to(pkg_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = (p.read_text(), p.name == "__init__.py")
    return out


def imports_of(name, source, is_package, known):
    """[(imported module, line)] for every import in `source` of a module in `known` (or of a
    package prefix of it), relative imports resolved against `name`."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            # `from pkg import sub` names the submodule; `from pkg import name` the package
            targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        else:
            continue
        for t in targets:
            while t not in known and "." in t:
                t = t.rsplit(".", 1)[0]
            if t in known:
                found.append((t, node.lineno))
    return found


def import_graph(sources):
    """{module: {imported module: first line}} within `sources`, edges to the root package left out."""
    graph = {}
    for name, (source, is_package) in sources.items():
        edges = graph[name] = {}
        for target, line in imports_of(name, source, is_package, sources):
            if target not in (name, PKG):
                edges.setdefault(target, line)
    return graph


def cycles(graph):
    """The strongly connected components with more than one module, largest first (Tarjan, iterative)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return sorted(found, key=len, reverse=True)


def describe(graph, comp):
    members = set(comp)
    lines = [f"{len(comp)} modules: {', '.join(comp)}"]
    lines += [f"  {a} -> {b} (line {graph[a][b]})" for a in comp for b in sorted(graph[a]) if b in members]
    return "\n".join(lines)


def layer_of(module, layers=LAYERS):
    """(index, name) of the module's layer; modules not listed are in the top layer."""
    rel = module[len(PKG) + 1 :] if module.startswith(PKG + ".") else ""
    for i, (layer, names) in enumerate(layers):
        if rel in names:
            return i, layer
    for i, (layer, names) in enumerate(layers):
        if any(n.endswith(".*") and rel.startswith(n[:-1]) for n in names):
            return i, layer
    return len(layers), "top"


def layer_violations(graph, layers=LAYERS):
    bad = []
    for a, edges in graph.items():
        ia, la = layer_of(a, layers)
        for b, line in edges.items():
            ib, lb = layer_of(b, layers)
            if ib > ia:
                bad.append(f"{a} ({la}) imports {b} ({lb}) at line {line}")
    return bad


def rule_violations(graph):
    bad = []
    for a, edges in graph.items():
        if LOADER in edges and a not in LOADER_IMPORTERS:
            bad.append(f"{a} imports the plugin loader (line {edges[LOADER]}); only the package root may")
        if (a == PUBLIC_PLUGINS or a.startswith(PUBLIC_PLUGINS + ".")) and LOADER in edges:
            bad.append(f"{a} (the public plugin surface) imports the private loader")
    return bad


def _core_graph():
    return import_graph(package_sources(CORE))


def test_no_import_cycle_longer_than_allowed():
    graph = _core_graph()
    found = cycles(graph)
    largest = found[0] if found else []
    assert len(largest) <= MAX_CYCLE, (
        f"import cycle in core longer than {MAX_CYCLE} modules; the largest:\n{describe(graph, largest)}"
    )


def test_no_layer_imports_a_layer_above_it():
    bad = layer_violations(_core_graph())
    assert not bad, "imports against the layering (LAYERS in this file):\n" + "\n".join(bad)


def test_only_the_root_imports_the_plugin_loader():
    bad = rule_violations(_core_graph())
    assert not bad, "\n".join(bad)


def test_every_module_the_table_names_exists():
    modules = {m[len(PKG) + 1 :] for m in package_sources(CORE)}
    missing = [
        n
        for _, names in LAYERS
        for n in names
        if not (n[:-2] in modules or any(m.startswith(n[:-1]) for m in modules) if n.endswith(".*") else n in modules)
    ]
    assert not missing, f"LAYERS names modules core does not have: {missing}"


def test_backends_import_only_the_public_surface():
    core = set(package_sources(CORE))
    bad = []
    for pkg in sorted(p for p in ROOT.glob("mindtorch-*/src/mindtorch_*") if p.is_dir()):
        for name, (source, is_package) in package_sources(pkg).items():
            for target, line in imports_of(name, source, is_package, core):
                if target not in BACKEND_ALLOWED and not target.startswith(BACKEND_ALLOWED_PREFIXES):
                    bad.append(f"{name} imports {target} (line {line})")
    assert not bad, "backends import core only through mindtorch.plugins and public mindtorch:\n" + "\n".join(bad)


# -- the checks above catch what they claim: a planted cycle and planted bad edges --------------

PLANTED = {
    "mindtorch": ("from . import _a\nfrom ._backends import loader\n", True),
    "mindtorch._a": ("def f():\n    from . import _b\n", False),  # a function-local import counts
    "mindtorch._b": ("from mindtorch import _c\n", False),  # a submodule named through the root counts
    "mindtorch._c": ("import mindtorch._d\n", False),
    "mindtorch._d": ("from ._a import f\nimport mindtorch\n", False),  # the root edge does not
    "mindtorch._dtype": ("def g():\n    from ._tensor import Tensor\n", False),
    "mindtorch._tensor": ("", False),
    "mindtorch._backends": ("", True),
    "mindtorch._backends.loader": ("", False),
    "mindtorch.plugins": ("from .._backends import loader\n", True),
}


def test_a_planted_cycle_is_caught():
    graph = import_graph(PLANTED)
    found = cycles(graph)
    assert found and found[0] == ["mindtorch._a", "mindtorch._b", "mindtorch._c", "mindtorch._d"], found
    assert len(found[0]) > MAX_CYCLE
    assert "mindtorch" not in graph["mindtorch._d"]
    assert "mindtorch._b -> mindtorch._c (line 1)" in describe(graph, found[0])


def test_planted_bad_edges_are_caught():
    graph = import_graph(PLANTED)
    assert layer_violations(graph) == ["mindtorch._dtype (leaves) imports mindtorch._tensor (tensor state) at line 2"]
    bad = rule_violations(graph)
    assert len(bad) == 2 and all(b.startswith("mindtorch.plugins ") for b in bad), bad
