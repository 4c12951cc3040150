"""Namespaces real programs touch: cuda, accelerator, backends, onnx, compile/jit,
utils.collect_env, and hasattr on the top-level module never raising."""

from helpers import torch_or_skip

torch = torch_or_skip()

import warnings  # noqa: E402

import mindtorch  # noqa: E402
import pytest  # noqa: E402


def _outcome(lib, expr):
    """("ok", value) or ("raise", class, message) for an expression evaluated with `torch` bound to lib."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", eval(expr, {"torch": lib, "_f": lambda v: v * 2}))
    except Exception as e:
        return ("raise", type(e), str(e))


SAME = [
    "torch.cuda.is_available()",
    "torch.cuda.device_count()",
    "torch.cuda.manual_seed(0)",
    "torch.cuda.manual_seed_all(3)",
    "torch.cuda.seed()",
    "torch.cuda.seed_all()",
    "torch.cuda.empty_cache()",
    "torch.cuda.synchronize()",
    "torch.cuda.current_device()",
    "torch.cuda.get_device_name()",
    "torch.cuda.get_device_name(0)",
    "torch.cuda.get_device_capability()",
    "torch.cuda.get_device_properties(0)",
    "torch.cuda.memory_allocated()",
    "torch.cuda.max_memory_allocated()",
    "torch.cuda.memory_reserved()",
    "torch.cuda.max_memory_reserved()",
    "torch.cuda.is_bf16_supported()",
    "torch.cuda.is_initialized()",
    "torch.cuda.init()",
    "torch.cuda.current_stream()",
    "torch.cuda.get_rng_state()",
    "torch.cuda.initial_seed()",
    "torch.cuda.get_rng_state_all()",
    "torch.cuda.get_arch_list()",
    "torch.cuda.mem_get_info()",
    "torch.cuda.Stream()",
    "torch.cuda.CUDAGraph()",
    "torch.cuda.set_rng_state_all([])",
    "torch.zeros(2, device='cuda')",
    "torch.zeros(2).cuda()",
    "torch.zeros(2).cuda(0)",
    "torch.zeros(2).cuda('cuda:0')",
    "torch.nn.Linear(2, 2).cuda(1)",
    "torch.ones(2).to('cuda')",
    "torch.tensor([1.0], device='cuda:0')",
    "torch.nn.Linear(2, 2).cuda()",
    "torch.zeros(2).is_cuda",
    "torch.device('cuda').type",
    "torch.empty(3, device=torch.device('cuda', 1))",
    "torch.accelerator.is_available()",
    "torch.accelerator.current_accelerator()",
    "torch.accelerator.device_count()",
    "torch.accelerator.synchronize()",
    "torch.backends.mps.is_available()",
    "torch.backends.mps.is_built()",
    "torch.backends.cudnn.is_available()",
    "torch.backends.cudnn.benchmark",
    "torch.backends.cudnn.deterministic",
    "torch.backends.cudnn.enabled",
    "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.is_built()",
    "torch.jit.is_tracing()",
    "torch.jit.is_scripting()",
    "torch.compiler.is_compiling()",
    "torch.compiler.is_exporting()",
]


@pytest.mark.parametrize("expr", SAME)
def test_same_answer_as_cpu_pytorch(expr):
    mt, th = _outcome(mindtorch, expr), _outcome(torch, expr)
    assert mt[0] == th[0], (mt, th)
    if th[0] == "raise":
        assert mt[1] is th[1] and mt[2] == th[2]
    else:
        assert mt[1] == th[1]


def test_cuda_context_managers_without_device_are_no_ops():
    for lib in (torch, mindtorch):
        with lib.cuda.device(-1), lib.cuda.StreamContext(None):
            pass
        with pytest.raises(RuntimeError, match="compiled without CUDA"), lib.cuda.device(0):
            pass


@pytest.mark.parametrize(
    "flag",
    ["torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic", "torch.backends.cuda.matmul.allow_tf32"],
)
def test_flags_are_settable(flag):
    holder, attr = flag.rsplit(".", 1)
    obj = eval(holder, {"torch": mindtorch})
    old = getattr(obj, attr)
    try:
        setattr(obj, attr, not old)
        assert getattr(eval(holder, {"torch": mindtorch}), attr) is (not old)
    finally:
        setattr(obj, attr, old)


def test_backends_submodules_import_as_in_programs():
    import mindtorch.backends.cudnn as cudnn
    import torch.backends.cudnn as tcudnn

    assert cudnn.benchmark == tcudnn.benchmark
    cudnn.benchmark = True
    assert mindtorch.backends.cudnn.benchmark is True
    cudnn.benchmark = False


def test_onnx_export_says_not_supported():
    with pytest.raises(NotImplementedError, match="ONNX"):
        mindtorch.onnx.export(mindtorch.nn.Linear(2, 2), mindtorch.zeros(2), "model.onnx")


def test_compile_and_jit_return_their_argument_and_warn_once():
    from mindtorch import _eager

    _eager._warned.clear()
    m = mindtorch.nn.Linear(3, 2)

    def f(x):
        return x * 2

    with pytest.warns(UserWarning, match="unchanged"):
        assert mindtorch.compile(m) is m
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mindtorch.compile(f) is f  # once only
        assert mindtorch.compile(mode="max-autotune")(f) is f
    with pytest.warns(UserWarning):
        assert mindtorch.jit.script(m) is m
    with pytest.warns(UserWarning):
        assert mindtorch.jit.trace(f, mindtorch.ones(2)) is f
    x = mindtorch.ones(3)
    assert mindtorch.equal(mindtorch.compile(f)(x), f(x))


def test_collect_env_reports_versions_and_backends():
    from mindtorch.utils import collect_env

    info = collect_env.get_env_info()
    assert info["mindtorch_version"] == mindtorch.__version__
    assert "cpu" in info["backends"] and info["backends"]["cpu"]["available"] is True
    text = collect_env.get_pretty_env_info()
    assert "mindtorch version" in text and "cpu" in text


@pytest.mark.parametrize(
    "name",
    [
        "fft",
        "special",
        "distributions",
        "testing",
        "backends",
        "cuda",
        "onnx",
        "no_such_name",
        "compile",
        "accelerator",
        "jit",
        "amp",
        "library",
    ],
)
def test_hasattr_never_raises(name):
    got = hasattr(mindtorch, name)
    assert got is (name in dir(mindtorch))
    if name in ("backends", "cuda", "onnx", "compile", "accelerator", "jit", "testing"):
        assert got and hasattr(torch, name)


def test_every_top_level_name_resolves_without_raising():
    for name in dir(torch):
        try:
            hasattr(mindtorch, name)
        except Exception as e:
            pytest.fail(f"hasattr(mindtorch, {name!r}) raised {type(e).__name__}: {e}")


@pytest.mark.parametrize(
    "expr",
    [
        "torch._dynamo.config.cache_size_limit",
        "torch._dynamo.config.suppress_errors",
        "torch._dynamo.is_compiling()",
        "torch.compiler.is_dynamo_compiling()",
        "torch._dynamo.allow_in_graph(_f) is _f",
        "torch.compiler.allow_in_graph(_f) is _f",
        "torch._dynamo.assume_constant_result(_f)(3)",
        "torch._dynamo.disable(_f)(3)",
        "torch.compiler.disable(_f)(3)",
        "torch.compiler.disable()(_f)(3)",
        "torch.jit.ignore(_f)(3)",
        "torch.jit.unused(_f)(3)",
        "torch.version.cuda",
        "torch.version.hip",
    ],
)
def test_eager_compiler_names(expr):
    mt, th = _outcome(mindtorch, expr), _outcome(torch, expr)
    assert mt == th


def test_save_on_cpu_keeps_results_and_gradients():
    grads = []
    for lib in (mindtorch, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.save_on_cpu(pin_memory=False):
            y = (x.sin() * x).sum()
        y.backward()
        grads.append(x.grad.tolist())
    assert grads[0] == pytest.approx(grads[1], rel=1e-6)
