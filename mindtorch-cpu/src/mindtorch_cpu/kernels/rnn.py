"""Recurrent layers in NumPy: one direction of one layer over a whole packed sequence, and its
backpropagation through time.

The input projection (and, in the backward, the weight gradients) are one matmul over every step;
only the recurrent matmul and the gate arithmetic run per step. The workspace layout is the one
ops/nn.py documents for `_rnn_layer`.
"""

import numpy as np

from ..blas import GATE
from ..convert import arr, quiet, wrap
from . import kernel_table

KERNELS, kernel = kernel_table()

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _a(t, dt):
    return None if t is None else arr(t).astype(dt, copy=False)


def _compute_dtype(t):
    d = arr(t).dtype
    return d if d in (np.float32, np.float64) else np.dtype(np.float32)  # half types compute in float32


def _steps(batch_sizes, reverse):
    steps, off = [], 0
    for b in batch_sizes:
        steps.append((off, off + b, b))
        off += b
    return steps[::-1] if reverse else steps


def _transposed(w):
    # BLAS multiplies a small batch by a contiguous matrix ~1.5x faster than by a transposed view
    return np.ascontiguousarray(w.T)


def _sigmoid_derivative(y, out, tmp):
    """out *= y * (1 - y): the sigmoid's derivative from its value."""
    np.multiply(y, y, out=tmp)
    np.subtract(y, tmp, out=tmp)
    out *= tmp


# The sigmoid gates are evaluated as (1 + tanh(x / 2)) / 2: NumPy's tanh is vectorised and cheaper than
# exp plus a division, and all four LSTM gates then take one tanh pass. The halving is folded into the
# gates' columns of the input projection and of W_hh^T, once per call.
def _lstm_gate_affine(H, dt):
    """(scale, shift) rows over the i, f, g, o columns: tanh(scale * x) * scale + shift is the activation."""
    scale = np.full(4 * H, 0.5, dt)
    scale[2 * H : 3 * H] = 1
    shift = np.full(4 * H, 0.5, dt)
    shift[2 * H : 3 * H] = 0
    return scale, shift


def _lstm_forward(gi, h, c, w, out, ws, steps):
    H = c.shape[1]
    hout = h.shape[1]
    scale, shift = _lstm_gate_affine(H, gi.dtype)
    w_hh_t, w_hr = _transposed(w[1]) * scale, w[-1]
    gi *= scale
    pre = np.empty((h.shape[0], 4 * H), gi.dtype)
    ig = np.empty((h.shape[0], H), gi.dtype)
    for lo, hi, b in steps:
        blk, p = ws[lo:hi], pre[:b]
        hp, cp = h[:b], c[:b]
        blk[:, 5 * H : 5 * H + hout] = hp
        blk[:, 5 * H + hout :] = cp
        np.matmul(hp, w_hh_t, out=p)
        p += gi[lo:hi]
        np.tanh(p, out=p)
        p *= scale
        p += shift
        blk[:, : 4 * H] = p  # the arithmetic runs on the contiguous buffer, one strided copy
        i, f, g, o = (blk[:, k * H : (k + 1) * H] for k in range(4))
        cp *= f  # the cell state is updated in place, its previous value saved above
        cp += np.multiply(i, g, out=ig[:b])
        tc = blk[:, 4 * H : 5 * H]
        np.tanh(cp, out=tc)
        m = tc * o
        hn = m if w_hr is None else m @ w_hr.T
        out[lo:hi] = hn
        h[:b] = hn


def _lstm_backward(g_out, dh, dc, x, w, ws, steps):
    w_hh, w_hr = w[1], w[-1]
    H = dc.shape[1]
    hout = dh.shape[1]
    dgates = np.empty((x.shape[0], 4 * H), x.dtype)
    up = np.empty((dh.shape[0], 4 * H), x.dtype)  # the gradient reaching each gate's activation
    tmp = np.empty((dh.shape[0], H), x.dtype)
    dw_hr = None if w_hr is None else np.zeros(w_hr.shape, x.dtype)
    for lo, hi, b in reversed(steps):
        blk, dg, u, t = ws[lo:hi], dgates[lo:hi], up[:b], tmp[:b]
        i, f, g, o = (blk[:, k * H : (k + 1) * H] for k in range(4))
        tc, cp = blk[:, 4 * H : 5 * H], blk[:, 5 * H + hout :]
        dhb, dcb = dh[:b], dc[:b]
        dhb += g_out[lo:hi]
        if w_hr is not None:
            dw_hr += dhb.T @ (o * tc)
            dm = dhb @ w_hr
        else:
            dm = dhb
        np.multiply(tc, tc, out=t)  # dc += dm * o * (1 - tanh(c)^2)
        np.subtract(1, t, out=t)
        t *= o
        t *= dm
        dcb += t
        np.multiply(dcb, g, out=u[:, :H])
        np.multiply(dcb, cp, out=u[:, H : 2 * H])
        np.multiply(dcb, i, out=u[:, 2 * H : 3 * H])
        np.multiply(dm, tc, out=u[:, 3 * H :])
        gates = blk[:, : 4 * H]
        np.multiply(gates, gates, out=dg)  # y (1 - y) for the sigmoid gates, 1 - y^2 for g
        np.subtract(gates, dg, out=dg)
        dgg = dg[:, 2 * H : 3 * H]
        np.multiply(g, g, out=dgg)
        np.subtract(1, dgg, out=dgg)
        dg *= u
        dcb *= f
        np.matmul(dg, w_hh, out=dhb)
    hprev = ws[:, 5 * H : 5 * H + hout]
    return dgates, dgates, hprev, dw_hr


def _gru_forward(gi, h, c, w, out, ws, steps):
    H = h.shape[1]
    # r and z through (1 + tanh(x / 2)) / 2, as the LSTM's sigmoid gates
    w_hh_t, b_hh = _transposed(w[1]), w[3]
    gi[:, : 2 * H] *= 0.5
    gh_all = np.empty((h.shape[0], 3 * H), gi.dtype)
    for lo, hi, b in steps:
        blk, gh = ws[lo:hi], gh_all[:b]
        hp = h[:b]
        blk[:, 4 * H :] = hp
        np.matmul(hp, w_hh_t, out=gh)
        if b_hh is not None:
            gh += b_hh
        blk[:, 3 * H : 4 * H] = gh[:, 2 * H :]  # W_hn h + b_hn, before the halving
        x = gi[lo:hi]
        rz = gh[:, : 2 * H]
        rz *= 0.5
        rz += x[:, : 2 * H]
        np.tanh(rz, out=rz)
        np.multiply(rz, 0.5, out=blk[:, : 2 * H])
        blk[:, : 2 * H] += 0.5
        r, z, n = blk[:, :H], blk[:, H : 2 * H], blk[:, 2 * H : 3 * H]
        np.multiply(r, blk[:, 3 * H : 4 * H], out=n)
        n += x[:, 2 * H :]
        np.tanh(n, out=n)
        hn = hp - n
        hn *= z
        hn += n
        out[lo:hi] = hn
        h[:b] = hn


def _gru_backward(g_out, dh, dc, x, w, ws, steps):
    w_hh = w[1]
    H = dh.shape[1]
    dgi = np.empty((x.shape[0], 3 * H), x.dtype)
    dgh = np.empty_like(dgi)
    tmp = np.empty((dh.shape[0], 2 * H), x.dtype)
    for lo, hi, b in reversed(steps):
        blk, di, dhh = ws[lo:hi], dgi[lo:hi], dgh[lo:hi]
        r, z, n, hn, hp = (blk[:, k * H : (k + 1) * H] for k in range(5))
        dhb = dh[:b]
        dhb += g_out[lo:hi]
        dn = di[:, 2 * H :]
        np.multiply(dhb, 1 - z, out=dn)
        dn *= 1 - n * n
        np.multiply(dhb, hp - n, out=di[:, H : 2 * H])
        np.multiply(dn, hn, out=di[:, :H])
        _sigmoid_derivative(blk[:, : 2 * H], di[:, : 2 * H], tmp[:b])
        dhh[:, : 2 * H] = di[:, : 2 * H]
        np.multiply(dn, r, out=dhh[:, 2 * H :])
        dhb *= z
        dhb += dhh @ w_hh
    return dgi, dgh, ws[:, 4 * H :], None


def _rnn_forward(act):
    def forward(gi, h, c, w, out, ws, steps):
        w_hh_t = _transposed(w[1])
        H = h.shape[1]
        for lo, hi, b in steps:
            blk = ws[lo:hi]
            hp = h[:b]
            blk[:, H:] = hp
            hn = hp @ w_hh_t
            hn += gi[lo:hi]
            if act == "tanh":
                np.tanh(hn, out=hn)
            else:
                np.maximum(hn, 0, out=hn)
            blk[:, :H] = hn
            out[lo:hi] = hn
            h[:b] = hn

    return forward


def _rnn_backward(act):
    def backward(g_out, dh, dc, x, w, ws, steps):
        w_hh = w[1]
        H = dh.shape[1]
        dpre = np.empty((x.shape[0], H), x.dtype)
        for lo, hi, b in reversed(steps):
            hn = ws[lo:hi, :H]
            dhb, d = dh[:b], dpre[lo:hi]
            np.add(dhb, g_out[lo:hi], out=d)
            if act == "tanh":
                d *= 1 - hn * hn
            else:
                d *= hn > 0
            np.matmul(d, w_hh, out=dhb)
        return dpre, dpre, ws[:, H:], None

    return backward


_FORWARD = {
    "LSTM": _lstm_forward,
    "GRU": _gru_forward,
    "RNN_TANH": _rnn_forward("tanh"),
    "RNN_RELU": _rnn_forward("relu"),
}
_BACKWARD = {
    "LSTM": _lstm_backward,
    "GRU": _gru_backward,
    "RNN_TANH": _rnn_backward("tanh"),
    "RNN_RELU": _rnn_backward("relu"),
}


@kernel("_rnn_layer")
def rnn_layer(m, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    dt = _compute_dtype(input)
    x, h0, c0 = _a(input, dt), _a(hx, dt), _a(cx, dt)
    w = [_a(t, dt) for t in (w_ih, w_hh, b_ih, b_hh, w_hr)]
    h = np.array(h0, dt, order="C")
    c = None if c0 is None else np.array(c0, dt, order="C")
    out = np.empty(m[0].shape, dt)
    ws = np.empty(m[3].shape, dt)
    with GATE, quiet():  # the whole layer's matmuls count as one BLAS call in flight for a fork to wait on
        gi = x @ w[0].T
        if w[2] is not None:
            gi += w[2]
        if mode != "GRU" and w[3] is not None:
            gi += w[3]
        _FORWARD[mode](gi, h, c, w, out, ws, _steps(batch_sizes, reverse))
    c_n = c if c is not None else np.empty((0,), dt)
    return tuple(wrap(a, mm.dtype) for a, mm in zip((out, h, c_n, ws), m))


@kernel("_rnn_layer_backward")
def rnn_layer_backward(m, g_out, g_hy, g_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, batch_sizes, mode, rev):
    dt = _compute_dtype(input)
    x = _a(input, dt)
    w = [_a(t, dt) for t in (w_ih, w_hh, b_ih, b_hh, w_hr)]
    dh = np.array(_a(g_hy, dt), dt, order="C")
    dc = np.array(_a(g_cy, dt), dt, order="C") if mode == "LSTM" else None
    with GATE, quiet():
        d_in, d_rec, hprev, dw_hr = _BACKWARD[mode](_a(g_out, dt), dh, dc, x, w, _a(ws, dt), _steps(batch_sizes, rev))
        grads = (d_in @ w[0], dh, dc, d_in.T @ x, d_rec.T @ hprev, d_in.sum(0), d_rec.sum(0), dw_hr)
    # an absent argument (cx, a bias, weight_hr) gets an empty gradient
    present = (True, True, dc is not None, True, True, w[2] is not None, w[3] is not None, dw_hr is not None)
    return tuple(wrap(a if p else np.empty((0,), dt), mm.dtype) for a, p, mm in zip(grads, present, m))
