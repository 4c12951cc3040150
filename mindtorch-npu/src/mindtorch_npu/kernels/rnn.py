"""Recurrent layers through ops-nn's fused LSTM operators: `_rnn_layer` (one layer, one direction, the whole
sequence) is one aclnnLSTM launch and `_rnn_layer_backward` one aclnnLstmBackward launch, whatever the number of
time steps; the few launches around them lay the operands out (no per-step work).

The operators take PyTorch's parameters as they are (weight_ih, weight_hh, bias_ih, bias_hh; gates i, f, g, o:
torch_npu passes nn.LSTM's unchanged), a time-major (T, B, features) input, and a padded one with batchSizes for
packed sequences. Their per-step activations (i, j = g, f, o, h, c, tanh(c)) are written straight into the columns
of core's workspace (ops/nn.py documents its layout: i, f, g, o | tanh(c) | h_prev | c_prev); the backward reads
them back from there, rebuilding h and c with two elementwise passes.

Arguments the operators do not fit run core's composite (a Python loop over the steps), for the reason `_unfused`
names: the GRU and plain RNN modes (no ACLNN operator is bound for them), a projection (proj_size: the operators'
params have no weight_hr), a dtype the operator's doc omits for this chip's product (float64, bfloat16; and the
backward on the Atlas training and inference parts, which aclnnLstmBackward.md lists as unsupported), mixed
dtypes, only one of the two biases, and an empty sequence. A packed sequence is padded around the operators, and
one run in reverse has each sequence's steps reversed within its length (one row gather each way).
"""

import numpy as np
from mindtorch.plugins import OPS, dtypes as D, kernel_table

from .. import chips, optable
from ..aclnn import BoolArray, launch, scalar_for
from ..copy import COPY, empty
from ._common import dense, fill, view

KERNELS, kernel = kernel_table()

FORWARD, BACKWARD = "LSTM", "LstmBackward"
WORKSPACE_COLUMNS = 7  # i, f, g, o, tanh(c), h_prev, c_prev: H columns each (no projection)
TANH_C, H_PREV, C_PREV = 4, 5, 6


def _documented(op, dtype):
    names = optable.dtypes(op, chips.product(), "input")
    return chips.has_op(op) and names is not None and chips.DOC_NAMES.get(dtype) in names


def _unfused(op, mode, tensors, b_ih, b_hh, w_hr, batch_sizes):
    """Why these arguments take the composite, or None when the fused operator takes them."""
    if mode != "LSTM":
        return f"no fused ACLNN operator is bound for mode {mode}"
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


def _attributes(layout, has_bias):
    """batchSizes, hasBias, numLayers, dropout, train, bidirectional, batchFirst"""
    return layout.sizes, has_bias, 1, 0.0, True, False, False


def _sequence(grid, layout):
    """The operators' input layout: (T * B, n) with batchSizes, else (T, B, n)."""
    return grid if layout.packed else _steps_view(grid, layout.T, layout.B, grid._shape[1])


# --- the kernels ---------------------------------------------------------------------------------------------


@kernel("_rnn_layer")
def rnn_layer(m, input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse):
    args = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, batch_sizes, mode, reverse)
    if _unfused(FORWARD, mode, (input, hx, cx, w_ih, w_hh, b_ih, b_hh), b_ih, b_hh, w_hr, batch_sizes):
        return OPS["_rnn_layer"].composite(*args)
    lay = _Layout(list(batch_sizes), reverse, input.device)
    T, B, H = lay.T, lay.B, w_hh._shape[1]
    out, h_n, c_n, ws = (empty(mm.shape, mm.dtype, input.device) for mm in m)
    grid_ws, grid_out = lay.target(ws), lay.target(out)
    cols = [_steps_view(grid_ws, T, B, H, k, WORKSPACE_COLUMNS * H) for k in range(WORKSPACE_COLUMNS)]
    hs, cs = (empty((T, B, H), input.dtype, input.device) for _ in range(2))
    i, f, g, o, tanh_c = cols[:5]
    launch(
        FORWARD,
        _sequence(lay.grid(input), lay),
        _params(w_ih, w_hh, b_ih, b_hh),
        [_state(hx), _state(cx)],
        *_attributes(lay, b_ih is not None),
        _steps_view(grid_out, T, B, H),
        _state(h_n),
        _state(c_n),
        *([t] for t in (i, g, f, o, hs, cs, tanh_c)),
    )
    _previous_states(cols[H_PREV], hx, hs, T, B, H)
    _previous_states(cols[C_PREV], cx, cs, T, B, H)
    lay.from_grid(grid_out, out)
    lay.from_grid(grid_ws, ws)
    return out, h_n, c_n, ws


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
    if _unfused(BACKWARD, mode, tensors, b_ih, b_hh, w_hr, batch_sizes):
        args = (input, hx, cx, w_ih, w_hh, b_ih, b_hh, w_hr, ws, batch_sizes, mode, reverse)
        return OPS["_rnn_layer_backward"].composite(g_out, g_hy, g_cy, *args)
    dev = input.device
    lay = _Layout(list(batch_sizes), reverse, dev)
    T, B, H = lay.T, lay.B, w_hh._shape[1]
    grads = [empty(mm.shape, mm.dtype, dev) for mm in m]
    g_hy, g_cy = (_zeros_if_none(g, hx) for g in (g_hy, g_cy))
    grid_ws = lay.grid(ws)
    cols = [_steps_view(grid_ws, T, B, H, k, WORKSPACE_COLUMNS * H) for k in range(WORKSPACE_COLUMNS)]
    i, f, g, o, tanh_c, _, c_prev = cols
    hs, cs = _step_states(i, f, g, o, tanh_c, c_prev, (T, B, H), dev)
    grid_dx = lay.target(grads[0])
    has_bias = b_ih is not None
    launch(
        BACKWARD,
        _sequence(lay.grid(input), lay),
        [_state(hx), _state(cx)],
        _params(w_ih, w_hh, b_ih, b_hh),
        _sequence(lay.grid(_zeros_if_none(g_out, input, rows=input._shape[0], cols=H)), lay),
        _state(g_hy),
        _state(g_cy),
        *([t] for t in (i, g, f, o, hs, cs, tanh_c)),
        *_attributes(lay, has_bias),
        BoolArray((True,) * 4),
        _sequence(grid_dx, lay),
        _state(grads[1]),
        _state(grads[2]),
        grads[3:7] if has_bias else grads[3:5],
    )
    lay.from_grid(grid_dx, grads[0])
    return tuple(grads)


def _step_states(i, f, g, o, tanh_c, c_prev, shape, dev):
    """Each step's h = o tanh(c) and c = f c_prev + i g, from the workspace (what the backward reads as h and c)."""
    hs, cs = (empty(shape, i.dtype, dev) for _ in range(2))
    launch("Mul", o, tanh_c, hs)
    launch("Mul", f, c_prev, cs)
    launch("InplaceAddcmul", cs, i, g, scalar_for(1, i.dtype))
    return hs, cs


def _zeros_if_none(g, like, rows=None, cols=None):
    """An incoming gradient autograd left out (the output was not used) as zeros."""
    if g is not None:
        return g
    shape = tuple(like._shape) if rows is None else (rows, cols)
    return fill(empty(shape, like.dtype, like.device), 0)
