"""PyTorch-style tensor repr."""

import numpy as np

from . import _dtype as D
from ._host_data import host_values
from ._tensor import Tensor, make_tensor

_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    if profile is not None:
        base = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, float("inf"), 3, 80)}[profile]
        _opts.update(zip(("precision", "threshold", "edgeitems", "linewidth"), base))
    for k, v in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options (PyTorch keeps this in torch._tensor_str.get_printoptions)."""
    return dict(_opts)


def _float_formatter(values):
    """PyTorch's float formatting: fixed width from the nonzero finite values, int/fixed/sci modes."""
    p = _opts["precision"]
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    width = 1
    int_mode = bool(np.all(finite == np.ceil(finite)))
    sci = False
    if nonzero.size:
        big, small = nonzero.max(), nonzero.min()
        sci = big / small > 1000.0 or big > 1e8 or (not int_mode and small < 1e-4)
    if _opts["sci_mode"] is not None:
        sci = _opts["sci_mode"]
    signed = finite[finite != 0]  # zeros never widen the columns (as in PyTorch)
    if int_mode and not sci:
        fmt = lambda v: f"{v:.0f}."
    elif sci:
        fmt = lambda v: f"{v:.{p}e}"
    else:
        fmt = lambda v: f"{v:.{p}f}"
    if signed.size:
        width = max(len(fmt(v)) for v in _extremes(signed))

    def format_(v):
        s = _special(v) or fmt(v)
        return " " * (width - len(s)) + s

    format_.width = width
    return format_


def _extremes(vals):
    # the widest rendering comes from the largest magnitudes (or a sign); check both ends of each sign
    neg, pos = vals[vals < 0], vals[vals > 0]
    out = []
    for part in (neg, pos):
        if part.size:
            out += [part.min(), part.max()]
    return out


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _complex_formatter(values):
    re_fmt = _float_formatter(values.real.astype(np.float64))
    im_fmt = _float_formatter(np.abs(values.imag).astype(np.float64))

    def format_(v):
        im = im_fmt(abs(v.imag)).lstrip()
        return re_fmt(v.real) + ("-" if v.imag < 0 else "+") + im + "j"

    format_.width = re_fmt.width + im_fmt.width + 2
    return format_


def _plain_formatter(values, render):
    width = max((len(render(v)) for v in values), default=1)

    def format_(v):
        s = render(v)
        return " " * (width - len(s)) + s

    format_.width = width
    return format_


def _shown(a, edge, summarize):
    """The values that will be printed (edges only along summarised dims)."""
    if a.ndim == 0 or not summarize:
        return a
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    return np.stack([_shown(x, edge, summarize) for x in a]) if a.ndim > 1 else a


def _edge_values(t, edge):
    """The values a summarised repr shows (the first and last `edge` along every longer dim), read
    through t's strides from its storage, so that a large view (an expand) is never materialised."""
    index = [np.r_[0:edge, n - edge : n] if n > 2 * edge else np.arange(n) for n in t._shape]
    offsets = t._offset + sum(
        np.asarray(ix * st).reshape((1,) * d + (-1,) + (1,) * (len(index) - d - 1))
        for d, (ix, st) in enumerate(zip(index, t._stride))
    )
    n = t._storage.nbytes // t.dtype.itemsize
    flat = host_values(make_tensor(t._storage, (n,), (1,), 0, t.dtype, t.device))
    return flat[np.broadcast_to(np.asarray(offsets), tuple(len(ix) for ix in index))]


def _format(a, fmt, indent, summarize, edge, shape):
    """a: the shown values; shape: the tensor's, whose longer dims were cut to their edges."""
    if a.ndim == 0:
        return fmt(a.item())
    cut = summarize and shape[0] > 2 * edge
    if a.ndim == 1:
        vals = a.tolist()
        items = (
            [fmt(v) for v in vals[:edge]] + [" ..."] + [fmt(v) for v in vals[-edge:]] if cut else [fmt(v) for v in vals]
        )
        per = max(1, (_opts["linewidth"] - indent) // (fmt.width + 2))
        rows = [", ".join(items[i : i + per]) for i in range(0, len(items), per)]
        return "[" + (",\n" + " " * (indent + 1)).join(rows) + "]"
    subs = list(a[:edge]) + [None] + list(a[-edge:]) if cut else list(a)
    rows = ["..." if x is None else _format(x, fmt, indent + 1, summarize, edge, shape[1:]) for x in subs]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def tensor_repr(t, *, tensor_contents=None):
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    default_dtypes = (
        D.get_default_dtype(),
        D.int64,
        D.bool_,
        D.complex128 if D.get_default_dtype() is D.float64 else D.complex64,
    )
    if t.device.type == "meta":
        body = "..."
        suffix.append(f"size={tuple(t._shape)}")
        if t.dtype is not D.get_default_dtype():
            suffix.append(f"dtype={t.dtype}")
    else:
        n = 1
        for size in t._shape:
            n *= size
        summarize = n > _opts["threshold"]
        edge = _opts["edgeitems"]
        a = _edge_values(t, edge) if summarize else host_values(t)
        if n == 0:
            body = "[]"
            if len(t._shape) != 1:
                suffix.append(f"size={tuple(t._shape)}")
        else:
            flat = _shown(a, edge, summarize).reshape(-1)
            if t.dtype is D.bool_:
                fmt_w = _plain_formatter(flat.tolist(), lambda v: str(bool(v)))
            elif t.dtype.is_complex:
                fmt_w = _complex_formatter(flat)
            elif t.dtype.is_floating_point:
                fmt_w = _float_formatter(flat.astype(np.float64))
            else:
                fmt_w = _plain_formatter(flat.tolist(), str)
            body = _format(a, fmt_w, len("tensor("), summarize, edge, tuple(t._shape))
        if t.dtype not in default_dtypes or (n == 0 and t.dtype is not D.get_default_dtype()):
            suffix.append(f"dtype={t.dtype}")
    if t._grad_fn is not None:
        suffix.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"


Tensor.__repr__ = tensor_repr
