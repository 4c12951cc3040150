"""Which of PyTorch's public names mindtorch lacks (needs torch installed: the parity oracle).

python tools/missing_names.py        counts per namespace
python tools/missing_names.py -v     and the missing names

A namespace's public names are its `__all__`, else its attributes not starting with "_"; for
`torch.Tensor`, the class's public attributes. Names matching EXCLUDED are not counted: what
mindtorch deliberately does not offer (TorchScript, quantization, sparse layouts, vendor libraries).
tests/parity/namespaces/test_public_names.py holds the counts as a ratchet.
"""

import importlib
import re
import sys
import types
import warnings

PAIRS = [
    ("torch", "mindtorch"),
    ("torch.Tensor", "mindtorch.Tensor"),
    ("torch.nn", "mindtorch.nn"),
    ("torch.nn.functional", "mindtorch.nn.functional"),
    ("torch.nn.modules", "mindtorch.nn.modules"),
    ("torch.nn.utils", "mindtorch.nn.utils"),
    ("torch.nn.init", "mindtorch.nn.init"),
    ("torch.optim", "mindtorch.optim"),
    ("torch.optim.lr_scheduler", "mindtorch.optim.lr_scheduler"),
    ("torch.utils.data", "mindtorch.utils.data"),
    ("torch.utils.checkpoint", "mindtorch.utils.checkpoint"),
    ("torch.autograd", "mindtorch.autograd"),
    ("torch.autograd.functional", "mindtorch.autograd.functional"),
    ("torch.autograd.graph", "mindtorch.autograd.graph"),
    ("torch.random", "mindtorch.random"),
    ("torch.linalg", "mindtorch.linalg"),
    ("torch.special", "mindtorch.special"),
    ("torch.fft", "mindtorch.fft"),
    ("torch.amp", "mindtorch.amp"),
    ("torch.testing", "mindtorch.testing"),
    ("torch.serialization", "mindtorch.serialization"),
    ("torch.distributions", "mindtorch.distributions"),
    ("torch.distributed", "mindtorch.distributed"),
    ("torch.multiprocessing", "mindtorch.multiprocessing"),
    ("torch.func", "mindtorch.func"),
    ("torch.profiler", "mindtorch.profiler"),
    ("torch.hub", "mindtorch.hub"),
]

# (pattern, why) pairs; a name matching any pattern of its namespace (or of "*") is not counted
_TORCHSCRIPT = (
    r".*Type|Script.*|Graph.*|Node|Block|Value|Use|Argument.*|CompleteArgumentSpec|Code|CompilationUnit|"
    r"ConcreteModuleType.*|FunctionSchema|Gradient|ExecutionPlan|StaticModule|LiteScriptModule|TracingState|"
    r"ErrorReport|JITException|AliasDb|CallStack|DeepCopyMemoTable|InferredType|OperatorInfo|"
    r"import_ir_module.*|parse_ir|parse_schema|parse_type_comment|merge_type_from_type_comment|unify_type_list|"
    r"fork|wait|Future|Capsule|Tag|cpp|BenchmarkConfig|BenchmarkExecutionStats|ThroughputBenchmark|"
    r"LockingLogger|NoopLogger|AggregationType|SUM|AVG|PyTorchFile.*|.*StorageContext|ScriptModuleSerializer|"
    r"DispatchKey.*|ExcludeDispatchKeyGuard|DisableTorchFunction.*|IODescriptor|FileCheck|Sym.*|sym_.*|"
    r"ModuleDict|ParameterDict|BufferDict"
)
EXCLUDED = {
    "*": [
        (_TORCHSCRIPT, "TorchScript and the C++ runtime's introspection types"),
        (
            r".*quantiz.*|q_.*|qscheme|qint.*|quint.*|int_repr|dequantize|fake_quantize.*|fbgemm.*|"
            r"choose_qparams.*|fused_moving_avg_obs_fake_quant|empty_quantized|intrinsic|qat",
            "quantization",
        ),
        (
            r"cudnn_.*|miopen_.*|mkldnn.*|is_mkldnn|to_mkldnn|is_vulkan.*|is_xla|is_ipu|is_maia|is_mtia|is_xpu|"
            r"is_mps|ipu|xpu|mtia|has_mkl|has_lapack|has_openmp|has_spectral",
            "vendor libraries and devices mindtorch has no backend for",
        ),
        (
            r"sparse_.*|.*_indices|.*_indices_copy|values_copy|indices|values|to_sparse.*|is_sparse.*|coalesce|"
            r"is_coalesced|dense_dim|sparse_dim|sparse_mask|sparse_resize.*|spmm|hspmm|smm|dsmm|hsmm|saddmm|sspaddmm|"
            r"resize_as_sparse_|to_dense|to_padded_tensor|nested.*|is_nested|indices_copy|native_norm",
            "sparse and nested layouts",
        ),
        (r"bits.*|bit|u?int[1-7]|float4_e2m1fn_x2|complex32|chalf", "bit-packed and sub-byte dtypes"),
    ],
    "torch.distributed": [
        # DDP's C++ machinery (mindtorch's DDP is Python: its buckets are its own) and the per-device
        # backend table of c10d's C++ process groups
        (r"Reducer|GradBucket|Logger|BackendConfig", "the C++ internals of DDP and c10d process groups"),
    ],
    "torch": [
        ("lobpcg", "an iterative eigensolver of its own (torch._lobpcg, ~1000 lines), left out of the linalg set"),
        (r"export", "torch.export: whole-program graph capture for ahead-of-time compilers"),
    ],
    "torch.autograd": [
        (
            "NestedIOFunction",
            "the pre-1.0 Function with instance forward/backward: calling it fails in PyTorch 2.13 itself",
        )
    ],
    "torch.func": [("rearrange", "einops-style rearrange over first-class dimensions (functorch.dim)")],
    "torch.linalg": [("common_notes", "a dict of docstring fragments torch.linalg's documentation is built from")],
    "torch.optim": [(r"SparseAdam", "Adam for sparse gradients: mindtorch has no sparse layouts")],
    "torch.utils.data": [
        (
            r"DFIterDataPipe|DataChunk|IterDataPipe|MapDataPipe|argument_validation|functional_datapipe|"
            r"guaranteed_datapipes_determinism|non_deterministic|runtime_validation|runtime_validation_disabled",
            "DataPipes, deprecated in PyTorch (moved to torchdata, then dropped)",
        )
    ],
    "torch.nn.functional": [
        (r"BroadcastingList[1-3]", "TorchScript's annotations for arguments given as a number or a list"),
        (r"scaled_mm|scaled_grouped_mm", "float8 GEMMs with per-block scales: the float8 formats have no kernels"),
    ],
    "torch.Tensor": [
        (r"eig|lstsq|solve|symeig", "removed in PyTorch 1.9: PyTorch keeps the names only to raise"),
        (r"index", "first-class dimensions (functorch.dim), a separate tensor model"),
    ],
}


def _excluded(namespace, name):
    rules = EXCLUDED.get("*", []) + EXCLUDED.get(namespace, [])
    return any(re.fullmatch(pattern, name) for pattern, _ in rules)


def _public(obj, is_class):
    names = None if is_class else getattr(obj, "__all__", None)
    if names:
        return names
    # without __all__, the attributes that are its own: not modules (submodules appear as attributes only once
    # something imports them, so counting them would depend on the process) and not what it imported from
    # outside torch (sys, typing, datetime.timedelta, ...)
    return [n for n in dir(obj) if not n.startswith("_") and _own(getattr(obj, n))]


def _own(value):
    if isinstance(value, types.ModuleType):
        return False
    home = getattr(value, "__module__", None)
    return not isinstance(home, str) or home.startswith("torch")


def _resolve(dotted):
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        module, _, attr = dotted.rpartition(".")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ModuleNotFoundError, AttributeError):
            return None


def missing(torch_name, ours_name):
    """(the namespace's counted public names, those mindtorch lacks), exclusions left out of both."""
    theirs = _resolve(torch_name)
    is_class = isinstance(theirs, type)
    names = [n for n in _public(theirs, is_class) if not _excluded(torch_name, n)]
    ours = _resolve(ours_name)
    if ours is None:  # the whole namespace is missing
        return names, sorted(names)
    return names, sorted(n for n in names if not hasattr(ours, n))


def counts():
    warnings.simplefilter("ignore")
    return {t: missing(t, m) for t, m in PAIRS}


def main(verbose=False):
    for t, (names, miss) in counts().items():
        print(f"{t}: {len(miss)} of {len(names)} public names missing")
        if verbose and miss:
            print("   ", " ".join(miss))


if __name__ == "__main__":
    main("-v" in sys.argv)
