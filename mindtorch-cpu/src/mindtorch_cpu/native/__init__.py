"""Fused float32 kernels (kernels.c), or ``LIB is None`` when they were not built.

Callers check ``usable(*arrays)`` (the library is loaded and every array is C-contiguous float32)
and otherwise run their NumPy kernels. The elementwise and row kernels take a whole op and a thread
count and share the work out on the library's own pool (pool.c); the others work on one block and
release the GIL, so their blocks run in parallel on the backend's Python thread pool.
MINDTORCH_CPU_NATIVE=0 turns the library off (the NumPy kernels then run everywhere).

Two entries reach the same compiled file: ctypes (``LIB``, any build) and, when the build found
Python.h, the file imported as an extension module (``ENTRY``), whose calls take the arrays
themselves and cost a few hundred ns instead of ctypes' 1.5-3 us. ``_K`` holds the kernels of the
entry in use, each called with arrays (or None) for its pointers. MINDTORCH_CPU_NATIVE_ENTRY=ctypes
(read once, at import) keeps to ctypes.
"""

import ctypes
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

HERE = Path(__file__).resolve().parent
# library file -> NumPy CPU features it needs; build.py makes them, the first usable one is loaded
# (AVX-512 runs the elementwise and row kernels 1.3-1.6x faster than AVX2 where the CPU has it)
VARIANTS = {
    "_kernels_x86_64_v4.so": ("AVX2", "FMA3", "AVX512F", "AVX512CD", "AVX512VL", "AVX512BW", "AVX512DQ"),
    "_kernels_x86_64_v3.so": ("AVX2", "FMA3"),
    "_kernels.so": (),
}
F32 = np.dtype(np.float32)
# Elements per call of a block kernel (pooling, im2col): no cache blocking is needed (each makes one
# pass per element), and a call has a fixed cost, so each thread takes its whole share in one call.
BLOCK = 1 << 40

_P, _N, _I = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
# kernels that take a whole op and share it out on the library's own pool: the last argument is how
# many threads they may use
_POOLED = {
    "mt_exp_f32": (_P, _P, _N, _I),
    "mt_relu_f32": (_P, _P, _N, _I),
    "mt_threshold_backward_f32": (_P, _P, _P, _N, ctypes.c_float, _I),
    "mt_gelu_f32": (_P, _P, _N, _I),
    "mt_gelu_backward_f32": (_P, _P, _P, _N, _I),
    "mt_gelu_tanh_f32": (_P, _P, _N, _I),
    "mt_gelu_tanh_backward_f32": (_P, _P, _P, _N, _I),
    "mt_binary_f32": (_P, _P, _P, _N, _I, ctypes.c_float, _I),
    "mt_softmax_f32": (_P, _P, _N, _N, _I, _I),
    "mt_softmax_backward_f32": (_P, _P, _P, _N, _N, _I, _I),
    "mt_sum_rows_f32": (_P, _P, _N, _N, _I),
    "mt_adam_f32": (_P, _P, _P, _P, _P, _N) + (ctypes.c_float,) * 7 + (_I, _I),
    "mt_attn_softmax_f32": (_P, _P, _P, _N, _N, _N, ctypes.c_float, _I),
    "mt_attn_probs_f32": (_P, _P, _P, _N, _N, _N, ctypes.c_float, _I),
    "mt_norm_f32": (_P, _P, _P, _P, _P, _P, _N, _N, ctypes.c_float, _I, _I),
    "mt_norm_backward_f32": (_P, _P, _P, _P, _P, _P, _P, _P, _N, _N, _N, _I, _I),
    "mt_cross_entropy_f32": (_P, _P, _P, _P, _P, _P, _N, _N, _N, _I),
    "mt_cross_entropy_backward_f32": (_P, _P, _P, _P, _N, _N, _I),
    "mt_conv2d_f32": (_P, _P, _P, _P, _P, _I),
    "mt_conv2d_input_f32": (_P, _P, _P, _P, _I),
    "mt_conv2d_weight_f32": (_P, _P, _P, _P, _I),
}
THREADED = frozenset(_POOLED)
# kernels that work on the block they are given (the caller shares blocks out)
_SIGNATURES = {
    **_POOLED,
    "mt_nll_f32": (_P, _P, _P, _P, _P, _N, _N, _N),
    "mt_max_pool2d_f32": (_P, _P, _P) + (_N,) * 13,
    "mt_max_pool2d_backward_f32": (_P, _P, _P, _N, _N, _N),
    "mt_im2col_f32": (_P, _P) + (_N,) * 14,
    "mt_col2im_f32": (_P, _P) + (_N,) * 14,
}
_RETURNS = {  # the others return nothing
    "mt_nll_f32": _N,
    "mt_cross_entropy_f32": _N,
    "mt_norm_backward_f32": _N,
    "mt_conv2d_f32": _N,
    "mt_conv2d_input_f32": _N,
    "mt_conv2d_weight_f32": _N,
}


def _cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_features__
    return __cpu_features__


def _load():
    if os.environ.get("MINDTORCH_CPU_NATIVE", "1") == "0":
        return None, None, None
    features = None
    for name, needs in VARIANTS.items():
        path = HERE / name
        if not path.exists():
            continue
        if needs:
            features = features if features is not None else _cpu_features()
            if not all(features.get(f) for f in needs):
                continue
        try:
            lib = ctypes.CDLL(str(path))
            for fn, args in _SIGNATURES.items():
                f = getattr(lib, fn)
                f.argtypes, f.restype = args, _RETURNS.get(fn)
        except (OSError, AttributeError):  # AttributeError: a stale build, older than kernels.c
            continue
        return lib, name, path
    return None, None, None


def _load_entry(lib, name, path):
    """The loaded library's file imported as an extension module, or None: forced off, or a build
    without the entry (no Python.h at build time) or with one made for another Python version."""
    if lib is None or os.environ.get("MINDTORCH_CPU_NATIVE_ENTRY", "") == "ctypes":
        return None
    built_for = getattr(lib, "mt_entry_python", None)  # absent: a build without the entry
    if built_for is None or built_for() != sys.hexversion >> 16:
        return None
    stem = name.split(".")[0]
    loader = importlib.machinery.ExtensionFileLoader(f"{__name__}.{stem}", str(path))
    spec = importlib.util.spec_from_file_location(loader.name, str(path), loader=loader)
    try:
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except ImportError:
        return None
    return module if all(hasattr(module, fn) for fn in _SIGNATURES) else None


def _through_ctypes(fn):
    """fn (a ctypes function) called like the extension's: arrays (or None) for its pointer arguments."""
    pointers = tuple(i for i, t in enumerate(fn.argtypes) if t is _P)

    def call(*args):
        args = list(args)
        for i in pointers:
            args[i] = _p(args[i])
        return fn(*args)

    return call


LIB, VARIANT, _PATH = _load()
ENTRY = _load_entry(LIB, VARIANT, _PATH)
if ENTRY is not None:
    _K = ENTRY
elif LIB is not None:
    _K = SimpleNamespace(**{fn: _through_ctypes(getattr(LIB, fn)) for fn in _SIGNATURES})
else:
    _K = None


def usable(*arrays):
    """True when the library is loaded and every array is C-contiguous float32."""
    if LIB is None:
        return False
    for a in arrays:  # noqa: SIM110  (a loop, not all(): a generator costs more than the check)
        if (a.dtype is not F32 and a.dtype != F32) or not a.flags.c_contiguous:
            return False
    return True


_addr, _char_at = ctypes.addressof, ctypes.c_char.from_buffer


def _p(a):
    """The data address of a C-contiguous array: through the buffer protocol (~0.3 us), or the
    ctypes attribute (~1 us, which builds the array interface) for read-only and empty arrays."""
    if a is None:
        return None
    try:
        return _addr(_char_at(a))
    except (TypeError, ValueError):
        return a.ctypes.data


# --- elementwise: out and inputs of one size. `threads`: how many threads the kernel may use (its
# own pool, see pool.c); the caller decides by the op's size ----------------------------------------
def exp(out, x, threads=1):
    _K.mt_exp_f32(x, out, out.size, threads)


def relu(out, x, threads=1):
    _K.mt_relu_f32(x, out, out.size, threads)


def threshold_backward(out, g, x, threshold, threads=1):
    _K.mt_threshold_backward_f32(g, x, out, out.size, threshold, threads)


def gelu(out, x, tanh=False, threads=1):
    (_K.mt_gelu_tanh_f32 if tanh else _K.mt_gelu_f32)(x, out, out.size, threads)


def gelu_backward(out, g, x, tanh=False, threads=1):
    (_K.mt_gelu_tanh_backward_f32 if tanh else _K.mt_gelu_backward_f32)(g, x, out, out.size, threads)


BINARY_OPS = {"add": 0, "sub": 1, "mul": 2, "div": 3}


def binary(out, a, b, op, threads=1):
    """out = a op b (op a BINARY_OPS value) for float32 arrays of out's size; either operand may be a
    number instead (a Python float, or a 0-d / 1-element array)."""
    s = 0.0
    if a.__class__ is not np.ndarray or a.size == 1 != out.size:
        s, a = float(a), None
    elif b.__class__ is not np.ndarray or b.size == 1 != out.size:
        s, b = float(b), None
    _K.mt_binary_f32(a, b, out, out.size, op, s, threads)


# --- rows: blocks of rows along the last axis (rows, ..., d) ---------------------------------------
def softmax(out, x, log=False, threads=1):
    d = out.shape[-1]
    _K.mt_softmax_f32(x, out, out.size // d, d, log, threads)


def softmax_backward(out, g, y, log=False, threads=1):
    d = out.shape[-1]
    _K.mt_softmax_backward_f32(g, y, out, out.size // d, d, log, threads)


def sum_rows(out, x, threads=1):
    """out (one float32 per row) = the sums of the rows of x along its last axis."""
    _K.mt_sum_rows_f32(x, out, out.size, x.size // max(out.size, 1), threads)


def attn_softmax(s, bias, lse, scale, threads=1):
    """Attention's probabilities in place: each row of s (..., S) becomes softmax(scale * row + bias
    row), where bias (None, or (P, S): its rows repeat over s's rows) is added; lse (one per row)
    gets each row's logsumexp."""
    d = s.shape[-1]
    _K.mt_attn_softmax_f32(s, bias, lse, s.size // d, d, 0 if bias is None else bias.shape[0], scale, threads)


def attn_probs(s, bias, lse, scale, threads=1):
    """The backward's probabilities in place: each row of s becomes e^(scale * row + bias row - lse),
    divided by its sum (s, bias and lse as in attn_softmax)."""
    d = s.shape[-1]
    _K.mt_attn_probs_f32(s, bias, lse, s.size // d, d, 0 if bias is None else bias.shape[0], scale, threads)


# mt_adam_f32's flags
ADAM_MAXIMIZE, ADAM_DECAY, ADAM_DECOUPLED, ADAM_AMSGRAD = 1, 2, 4, 8
ADAM_LERP_FROM_END, ADAM_V2_SCALES, ADAM_SS_SCALES = 16, 32, 64


def adam(
    p,
    g,
    exp_avg,
    exp_avg_sq,
    max_exp_avg_sq,
    *,
    beta1,
    beta2,
    lr,
    weight_decay,
    eps,
    decoupled,
    maximize,
    step_size,
    bc2_sqrt,
    threads=1,
):
    """One Adam / AdamW update of a float32 parameter in place, with the single-tensor update's roundings:
    its numbers rounded to float32 where NumPy rounds them (max_exp_avg_sq: None without amsgrad)."""
    w = 1 - beta1  # the exp_avg lerp's weight: PyTorch's lerp steps from the nearer end
    far = abs(w) >= 0.5
    flags = (
        ADAM_MAXIMIZE * bool(maximize)
        | ADAM_DECAY * (weight_decay != 0)
        | ADAM_DECOUPLED * bool(decoupled)
        | ADAM_AMSGRAD * (max_exp_avg_sq is not None)
        | ADAM_LERP_FROM_END * far
        | ADAM_V2_SCALES * (1 - beta2 != 1)
        | ADAM_SS_SCALES * (-step_size != 1)
    )
    wd = 1 - lr * weight_decay if decoupled else weight_decay
    _K.mt_adam_f32(
        p,
        g,
        exp_avg,
        exp_avg_sq,
        max_exp_avg_sq,
        p.size,
        1 - w if far else w,
        1 - beta2,
        beta2,
        wd,
        bc2_sqrt,
        eps,
        -step_size,
        flags,
        threads,
    )


def norm(y, x, w, b, mean, rstd, eps, center, d=None, threads=1):
    """Layer norm (center) or RMS norm of the rows of x (rows of d elements: x.shape[1] by default) into
    y; mean (if center) and rstd get one value per row."""
    d = x.shape[1] if d is None else d
    _K.mt_norm_f32(x, w, b, y, mean, rstd, x.size // d, d, eps, center, threads)


def norm_backward(dx, g, x, mean, rstd, w, dw, db, center, d=None, threads=1):
    """dx of the rows (of d elements: x.shape[1] by default); dw / db (zeroed by the caller) get the
    weight and bias gradients added. g may hold fewer rows than x, a whole number of times fewer:
    its rows are then repeated over x's (a broadcast gradient, read without copying it out)."""
    d = x.shape[1] if d is None else d
    rows = x.size // d
    gperiod = g.size // d if d else rows
    if _K.mt_norm_backward_f32(g, x, mean, rstd, w, dx, dw, db, rows, d, gperiod, center, threads) < 0:
        raise MemoryError("layer norm backward: no memory for its per-thread sums")


def nll(logp, target, weight, losses, sums, ignore_index):
    """sums (float64, 2) += (the sum of -weight[t] * logp[row, t], the sum of weight[t]) over the rows of
    logp (rows, classes) whose int64 target t is not ignore_index; losses (None, or one per row) gets
    each row's term. Returns the first row whose target is out of range, else -1."""
    return _K.mt_nll_f32(logp, target, weight, losses, sums, logp.shape[0], logp.shape[1], ignore_index)


def cross_entropy(logp, x, target, weight, losses, sums, ignore_index, threads=1):
    """logp = log_softmax of the rows of x (rows, classes), then nll(logp, ...) (see there)."""
    return _K.mt_cross_entropy_f32(x, target, weight, logp, losses, sums, x.shape[0], x.shape[1], ignore_index, threads)


def cross_entropy_backward(out, logp, coef, target, threads=1):
    """out = coef[:, None] * (exp(logp) - one_hot(target)); target int64, in range."""
    _K.mt_cross_entropy_backward_f32(logp, coef, target, out, out.shape[0], out.shape[1], threads)


# --- pooling: (planes, h, w) blocks ---------------------------------------------------------------------
def max_pool2d(y, idx, x, ks, stride, padding, dilation):
    """Max and its flat in-plane index over windows of x (planes, h, w) into y / idx (planes, ho, wo)."""
    planes, h, w = x.shape
    _K.mt_max_pool2d_f32(x, y, idx, planes, h, w, y.shape[1], y.shape[2], *ks, *stride, *padding, *dilation)


def max_pool2d_backward(dx, g, idx):
    """dx (planes, h, w) = the gradients g (planes, ho, wo) added at their indices."""
    _K.mt_max_pool2d_backward_f32(g, idx, dx, dx.shape[0], dx.shape[1] * dx.shape[2], g.shape[1] * g.shape[2])


# --- convolution: blocks of whole images ----------------------------------------------------------------
def im2col(cols, x, ks, out_hw, stride, top_left, dilation):
    """cols (n, c*kh*kw, ho*wo) <- the kernel taps of x (n, c, h, w), zero in the padding; the padding
    is given by its top and left sizes (the far sides follow from the output size)."""
    n, c, h, w = x.shape
    _K.mt_im2col_f32(x, cols, n, c, h, w, *out_hw, *ks, *stride, *top_left, *dilation)


def col2im(dx, cols, ks, out_hw, stride, top_left, dilation):
    """dx (n, c, h, w) = the adjoint of im2col applied to cols."""
    n, c, h, w = dx.shape
    _K.mt_col2im_f32(cols, dx, n, c, h, w, *out_hw, *ks, *stride, *top_left, *dilation)


# --- convolution as tiled products (conv.c): whole ops, shared out on the library's pool --------------------
def _conv_geometry(x_shape, y_shape, ks, stride, top_left, dilation):
    return np.array((*x_shape, y_shape[1], *y_shape[2:], *ks, *stride, *top_left, *dilation), np.int64)


def _checked(status, what):
    if status < 0:
        raise MemoryError(f"{what}: no memory for its scratch buffers")


def conv2d(y, x, w, bias, stride, top_left, dilation, threads=1):
    """y (n, o, ho, wo) = the convolution of x (n, c, h, w) with w (o, c, kh, kw), plus bias (o,) when
    not None; the padding is given by its top and left sizes (the far sides follow from y's size)."""
    geo = _conv_geometry(x.shape, y.shape, w.shape[2:], stride, top_left, dilation)
    _checked(_K.mt_conv2d_f32(x, w, bias, y, geo, threads), "conv2d")


def conv2d_input(dx, gy, w, stride, top_left, dilation, threads=1):
    """dx (n, c, h, w) = the gradient of conv2d's input for the output's gradient gy (n, o, ho, wo)."""
    geo = _conv_geometry(dx.shape, gy.shape, w.shape[2:], stride, top_left, dilation)
    _checked(_K.mt_conv2d_input_f32(gy, w, dx, geo, threads), "conv2d backward (input)")


# conv2d_weight keeps a vector (64 bytes at most) of partial sums per weight element for each of up to 4
# chunks a thread: past this many bytes in all, the caller takes another kernel
WEIGHT_SUMS_BYTES = 1 << 25


def conv2d_weight_fits(weight_size, threads):
    return 4 * max(1, threads) * 64 * int(np.prod(weight_size)) <= WEIGHT_SUMS_BYTES


def conv2d_weight(dw, gy, x, top_left, dilation, threads=1):
    """dw (o, c, kh, kw) = the gradient of conv2d's weight for the output's gradient gy (n, o, ho, wo), at
    stride 1 (the padding's top and left sizes at least 0)."""
    geo = _conv_geometry(x.shape, gy.shape, dw.shape[2:], (1, 1), top_left, dilation)
    _checked(_K.mt_conv2d_weight_f32(gy, x, dw, geo, threads), "conv2d backward (weight)")
