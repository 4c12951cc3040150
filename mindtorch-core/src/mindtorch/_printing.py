"""PyTorch-style tensor repr."""
import numpy as np

from . import _dtype as D

_opts = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    for k, v in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                 ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


def _float_formatter(values):
    finite = values[np.isfinite(values)]
    p = _opts["precision"]
    if finite.size == 0:
        return lambda v: _special(v) or f"{v}"
    absvals = np.abs(finite)
    nonzero = absvals[absvals != 0]
    int_mode = np.all(finite == np.round(finite))
    sci = _opts["sci_mode"]
    if sci is None and nonzero.size:
        sci = nonzero.max() / nonzero.min() > 1000.0 or nonzero.max() > 1e8 or nonzero.min() < 1e-4
    if int_mode and not sci:
        width = max(len(f"{v:.0f}") for v in finite) + 1
        return lambda v: (_special(v) or f"{v:.0f}.").rjust(width)
    if sci:
        width = max(len(f"{v:.{p}e}") for v in finite)
        return lambda v: (_special(v) or f"{v:.{p}e}").rjust(width)
    width = max(len(f"{v:.{p}f}") for v in finite)
    return lambda v: (_special(v) or f"{v:.{p}f}").rjust(width)


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _summarize(a, edge):
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    return np.stack([_summarize(x, edge) for x in a]) if a.ndim > 1 else a


def _format(a, fmt, indent, summarize, edge):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        items = [fmt(v) for v in a.tolist()]
        if summarize and len(items) > 2 * edge:
            items = items[:edge] + ["..."] + items[-edge:]
        line = ", ".join(items)
        width = _opts["linewidth"] - indent
        if len(line) + 2 > width and len(items) > 1:
            per = max(1, (width - 2) // (len(items[0]) + 2))
            rows = [", ".join(items[i:i + per]) for i in range(0, len(items), per)]
            line = (",\n" + " " * (indent + 1)).join(rows)
        return "[" + line + "]"
    rows = [_format(x, fmt, indent + 1, summarize, edge) for x in a]
    if summarize and len(rows) > 2 * edge:
        rows = rows[:edge] + ["..."] + rows[-edge:]
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def tensor_repr(t):
    from ._creation import host_values
    suffix = []
    if t.device.type != "cpu":
        suffix.append(f"device='{t.device}'")
    default_dtypes = (D.get_default_dtype(), D.int64, D.bool_)
    if t.device.type == "meta":
        body = "..."
        suffix.append(f"size={tuple(t._shape)}")
        if t.dtype is not D.get_default_dtype():
            suffix.append(f"dtype={t.dtype}")
    else:
        a = host_values(t)
        n = a.size
        summarize = n > _opts["threshold"]
        edge = _opts["edgeitems"]
        if n == 0:
            body = "[]"
            if len(t._shape) != 1:
                suffix.append(f"size={tuple(t._shape)}")
        else:
            shown = _summarize(a, edge) if summarize else a
            if t.dtype is D.bool_:
                fmt = lambda v: str(bool(v))
                w = max(len(fmt(v)) for v in shown.reshape(-1).tolist())
                fmt_w = lambda v: fmt(v).rjust(w)
            elif t.dtype.is_complex:
                fmt_w = lambda v: f"{v.real:.4f}{v.imag:+.4f}j"
            elif t.dtype.is_floating_point:
                fmt_w = _float_formatter(shown.astype(np.float64).reshape(-1))
            else:
                w = max(len(str(v)) for v in shown.reshape(-1).tolist())
                fmt_w = lambda v: str(v).rjust(w)
            body = _format(shown, fmt_w, len("tensor("), summarize, edge)
        if t.dtype not in default_dtypes or (n == 0 and t.dtype is not D.get_default_dtype()):
            suffix.append(f"dtype={t.dtype}")
    if t._grad_fn is not None:
        suffix.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
