"""Recurrent layers through ops-nn's fused operators: `_rnn_layer` (one layer, one direction, the whole sequence)
is one aclnnLSTM (aclnnGRU) launch and `_rnn_layer_backward` one aclnnLstmBackward (aclnnGRUBackward) launch,
whatever the number of time steps; the few launches around them lay the operands out (no per-step work).

The operators take PyTorch's parameters as they are (weight_ih, weight_hh, bias_ih, bias_hh; gates i, f, g, o and
r, z, n: torch_npu passes nn.LSTM's and nn.GRU's unchanged), a time-major (T, B, features) input, and for the LSTM
a padded one with batchSizes for packed sequences. Their per-step activations are written straight into the
columns of core's workspace (ops/nn.py documents its layout: LSTM i, f, g, o | tanh(c) | h_prev | c_prev, GRU
r, z, n | W_hn h + b_hn | h_prev); the backward reads them back from there, rebuilding each step's h (and c) with
a few elementwise passes over the whole sequence.

Arguments the operators do not fit run core's composite (a Python loop over the steps), for the reason `_unfused`
names: the plain RNN modes (no ACLNN operator), a projection (proj_size: the LSTM operators' params have no
weight_hr), a dtype or chip the operator's doc omits (float64 and bfloat16 everywhere; aclnnLstmBackward on the
Atlas training and inference parts; the GRU operators everywhere but the A2 and A3 parts), a packed sequence for
the GRU (its docs do not support batchSizes yet), mixed dtypes, only one of the two biases, and an empty sequence.
A packed sequence is padded around the LSTM operators, and one run in reverse has each sequence's steps reversed
within its length (one row gather each way).
"""

from collections import namedtuple

import numpy as np
from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips, optable
from ..aclnn import BoolArray, launch, scalar_for
from ..copy import COPY, empty
from ._common import dense, fill, view

KERNELS, kernel = kernel_table()

# the operators of a cell, its workspace width in H columns (no projection) and where h_prev sits
Cell = namedtuple("Cell", "forward backward columns h_prev")
CELLS = {"LSTM": Cell("LSTM", "LstmBackward", 7, 5), "GRU": Cell("GRU", "GRUBackward", 5, 4)}
C_PREV = 6  # the LSTM's c_prev column


def _documented(op, dtype):
    names = optable.dtypes(op, chips.product(), "input")
    return chips.has_op(op) and names is not None and chips.DOC_NAMES.get(dtype) in names


def _unfused(op, mode, tensors, b_ih, b_hh, w_hr, batch_sizes):
    """Why these arguments take the composite, or None when the fused operator `op` takes them."""
    if op is None:
        return f"no fused ACLNN operator for mode {mode}"
    if w_hr is not None:
        return "a projection: the LSTM operators' params have no weight_hr"
    dtype = tensors[0].dtype
    if not _documented(op, dtype):
        return f"aclnn{op} is not documented for {dtype} on product {chips.product()}"
    if any(t is not None and t.dtype is not dtype for t in tensors):
        return "operands of more than one dtype (the docs want one)"
    if (b_ih is None) != (b_hh is None):
        return "only one of the two biases"
    if not batch_sizes:
        return "an empty sequence"
    if mode == "GRU" and batch_sizes[-1] != batch_sizes[0]:
        return "a packed sequence: the GRU operators' docs do not support batchSizes yet"
    return None


# --- layouts -------------------------------------------------------------------------------------------------


def _steps_view(t, T, B, n, column=0, width=None):
    """A (T * B, width) row-major tensor seen as (T, B, n), from column `column * n` on."""
    width = n if width is None else width
    return view(t, (T, B, n), (B * width, width, 1), t._offset + column * n)


def _state(t):
    """A (B, H) state as the operators' (1, B, H)."""
    return view(t, (1,) + tuple(t._shape), (t._shape[0] * t._stride[0],) + tuple(t._stride))


class _Layout:
    """Where each row of the packed sequence (time-major, step t holding its first batch_sizes[t] sequences) sits
    in the (T, B) grid the operators run through, and the moves between the two. A padded batch run forward
    needs none; a packed one is padded (zeros where a sequence has ended); run in reverse, each sequence's steps
    are reversed within its own length, which keeps the batch sizes, so the operators run it forward."""

    def __init__(self, batch_sizes, reverse, device):
        self.T, self.B = len(batch_sizes), batch_sizes[0]
        self.packed = batch_sizes[-1] != self.B
        self.moved = self.packed or reverse
        self.device = device
        self.rows = self.sizes = None
        if self.moved:
            lengths = [sum(n > b for n in batch_sizes) for b in range(self.B)]
            at = [
                (lengths[b] - 1 - t if reverse else t) * self.B + b for t, n in enumerate(batch_sizes) for b in range(n)
            ]
            self.rows = COPY.from_host(np.array(at, np.int64), D.int64, device)
        if self.packed:
            self.sizes = COPY.from_host(np.array(batch_sizes, np.int64), D.int64, device)

    def grid(self, t):
        """Sequence rows as the dense (T * B, n) grid the operators read (`t` itself when it is one)."""
        if not self.moved:
            return dense(t)  # the views below take a row-major (rows, n) tensor (an incoming gradient may be expanded)
        grid = empty((self.T * self.B, t._shape[1]), t.dtype, self.device)
        if self.packed:
            launch("InplaceZero", grid)
        launch("InplaceIndexCopy", grid, 0, self.rows, t)
        return grid

    def target(self, out):
        """Where an operator writes what ends up in `out` (rows, n): a grid when rows move, else `out` itself."""
        return empty((self.T * self.B, out._shape[1]), out.dtype, self.device) if self.moved else out

    def from_grid(self, grid, out):
        """The grid's sequence rows into `out` (rows, n)."""
        if self.moved:
            launch("IndexSelect", grid, 0, self.rows, out)


def _params(w_ih, w_hh, b_ih, b_hh):
    return [w_ih, w_hh] + ([b_ih, b_hh] if b_ih is not None else [])


def _sequence(grid, layout):
    """The operators' input layout: (T * B, n) with batchSizes, else (T, B, n)."""
    return grid if layout.packed else _steps_view(grid, layout.T, layout.B, grid._shape[1])


# --- the kernels ---------------------------------------------------------------------------------------------


def _op(mode, which):
    cell = CELLS.get(mode)
    return cell and getattr(cell, which)


@kernel("_rnn_layer")
def rnn_layer(m, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    tensors = (input, hx, cx, w_ih, w_hh, b_ih, b_hh)
    if _unfused(_op(mode, "forward"), mode, tensors, b_ih, b_hh, w_hr, batch_sizes):
        return OPS["_rnn_layer"].composite(input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse)
    cell, dev = CELLS[mode], input.device
    lay = _Layout(list(batch_sizes), reverse, dev)
    T, B, H = lay.T, lay.B, w_hh._shape[1]
    out, h_n, c_n, ws = (empty(mm.shape, mm.dtype, dev) for mm in m)
    grid_ws, grid_out = lay.target(ws), lay.target(out)
    cols = [_steps_view(grid_ws, T, B, H, k, cell.columns * H) for k in range(cell.columns)]
    hs = empty((T, B, H), input.dtype, dev)
    ins = (_sequence(lay.grid(input), lay), _params(w_ih, w_hh, b_ih, b_hh))
    # batchSizes, hasBias, numLayers, dropout, train, bidirectional, batchFirst
    attrs = (lay.sizes, b_ih is not None, 1, 0.0, True, False, False)
    y = _steps_view(grid_out, T, B, H)
    if mode == "LSTM":
        cs = empty((T, B, H), input.dtype, dev)
        i, f, g, o, tanh_c = cols[:5]
        steps = (i, g, f, o, hs, cs, tanh_c)
        launch(cell.forward, *ins, [_state(hx), _state(cx)], *attrs, y, _state(h_n), _state(c_n), *_lists(steps))
        _previous_states(cols[C_PREV], cx, cs, T, B, H)
    else:
        launch(cell.forward, *ins, _state(hx), *attrs, y, _state(h_n), *_lists(cols[:4] + [hs]))
    _previous_states(cols[cell.h_prev], hx, hs, T, B, H)
    lay.from_grid(grid_out, out)
    lay.from_grid(grid_ws, ws)
    return out, h_n, c_n, ws


def _lists(tensors):
    """One single-tensor list per tensor (the operators take one tensor per layer and direction)."""
    return [[t] for t in tensors]


def _previous_states(col, first, steps, T, B, H):
    """The workspace's h_prev (c_prev) column: the initial state at step 0, step t - 1's state after."""
    launch("InplaceCopy", view(col, (B, H), col._stride[1:]), first)
    if T > 1:
        launch(
            "InplaceCopy",
            view(col, (T - 1, B, H), col._stride, col._offset + col._stride[0]),
            view(steps, (T - 1, B, H), steps._stride),
        )


@kernel("_rnn_layer_backward")
def rnn_layer_backward(
    m, g_out, g_hy, g_cy, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, batch_sizes, mode, reverse
):
    tensors = (input, g_out, g_hy, g_cy, hx, cx, w_ih, w_hh, b_ih, b_hh, ws)
    if _unfused(_op(mode, "backward"), mode, tensors, b_ih, b_hh, w_hr, batch_sizes):
        args = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, batch_sizes, mode, reverse)
        return OPS["_rnn_layer_backward"].composite(g_out, g_hy, g_cy, *args)
    cell, dev = CELLS[mode], input.device
    lay = _Layout(list(batch_sizes), reverse, dev)
    T, B, H = lay.T, lay.B, w_hh._shape[1]
    grads = [empty(mm.shape, mm.dtype, dev) for mm in m]
    grid_ws = lay.grid(ws)
    cols = [_steps_view(grid_ws, T, B, H, k, cell.columns * H) for k in range(cell.columns)]
    grid_dx = lay.target(grads[0])
    has_bias = b_ih is not None
    x = _sequence(lay.grid(input), lay)
    dy = _sequence(lay.grid(_zeros_if_none(g_out, input, rows=input._shape[0], cols=H)), lay)
    dh = _state(_zeros_if_none(g_hy, hx))
    params = _params(w_ih, w_hh, b_ih, b_hh)
    dparams = grads[3:7] if has_bias else grads[3:5]
    if mode == "LSTM":
        i, f, g, o, tanh_c, _, c_prev = cols
        hs, cs = _lstm_states(i, f, g, o, tanh_c, c_prev, (T, B, H), dev)
        steps = _lists((i, g, f, o, hs, cs, tanh_c))
        dc = _state(_zeros_if_none(g_cy, cx))
        attrs = (lay.sizes, has_bias, 1, 0.0, True, False, False, BoolArray((True,) * 4))
        outs = (_sequence(grid_dx, lay), _state(grads[1]), _state(grads[2]), dparams)
        launch(cell.backward, x, [_state(hx), _state(cx)], params, dy, dh, dc, *steps, *attrs, *outs)
    else:
        r, z, n, hn, h_prev = cols
        steps = _lists((r, z, n, hn, _gru_states(z, n, h_prev, (T, B, H), dev)))
        attrs = (None, has_bias, 1, False, False)  # batchSizes, hasBias, numLayers, bidirection, batchFirst
        outs = (_sequence(grid_dx, lay), _state(grads[1]), dparams)
        launch(cell.backward, x, params, _state(hx), dy, dh, *steps, *attrs, *outs)
    lay.from_grid(grid_dx, grads[0])
    return tuple(grads)


def _lstm_states(i, f, g, o, tanh_c, c_prev, shape, dev):
    """Each step's h = o tanh(c) and c = f c_prev + i g, from the workspace (what the backward reads as h and c)."""
    hs, cs = (empty(shape, i.dtype, dev) for _ in range(2))
    launch("Mul", o, tanh_c, hs)
    launch("Mul", f, c_prev, cs)
    launch("InplaceAddcmul", cs, i, g, scalar_for(1, i.dtype))
    return hs, cs


def _gru_states(z, n, h_prev, shape, dev):
    """Each step's h = n + z (h_prev - n), from the workspace."""
    hs = empty(shape, z.dtype, dev)
    one = scalar_for(1, z.dtype)
    launch("Sub", h_prev, n, one, hs)
    launch("InplaceMul", hs, z)
    launch("InplaceAdd", hs, n, one)
    return hs


def _zeros_if_none(g, like, rows=None, cols=None):
    """An incoming gradient autograd left out (the output was not used) as zeros."""
    if g is not None:
        return g
    shape = tuple(like._shape) if rows is None else (rows, cols)
    return fill(empty(shape, like.dtype, like.device), 0)
