"""Recurrent layers (RNN, LSTM, GRU and their cells) as compositions of tensor ops.

Each layer projects its whole input through weight_ih in one matmul, then steps through time
with the recurrent matmul only. Padded and packed inputs share one loop: a padded batch is a
packed one whose batch size never shrinks. Parameter names, shapes, init and repr follow
PyTorch, so its state_dicts load unchanged.
"""

import math
import numbers
import warnings

import mindtorch

from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# --- one time step of each cell kind: (input projection, state, weights) -> new state ----------------
# w_hh_t is W_hh transposed once per sequence. RNN and LSTM steps get gi with both biases already
# added (folded once per sequence), so the recurrent term is a single addmm; GRU needs b_hh apart,
# inside r * (W_hn h + b_hn).
def _rnn_step(act):
    # looked up per call: naming mindtorch.tanh at import would generate it then
    def step(gi, h, w_hh_t, b_hh=None, w_hr=None):
        return getattr(mindtorch, act)(mindtorch.addmm(gi, h, w_hh_t))

    return step


def _lstm_step(gi, state, w_hh_t, b_hh=None, w_hr=None):
    h, c = state
    gates = mindtorch.addmm(gi, h, w_hh_t)
    # one sigmoid over all four gates (the g slice is unused) instead of three
    i, f, _, o = mindtorch.sigmoid(gates).chunk(4, -1)
    g = mindtorch.tanh(gates.chunk(4, -1)[2])
    c = f * c + i * g
    h = o * mindtorch.tanh(c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gru_step(gi, h, w_hh_t, b_hh, w_hr=None):
    i_r, i_z, i_n = gi.chunk(3, -1)
    gh = h.mm(w_hh_t) if b_hh is None else mindtorch.addmm(b_hh, h, w_hh_t)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r = mindtorch.sigmoid(i_r + h_r)
    z = mindtorch.sigmoid(i_z + h_z)
    n = mindtorch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


_STEP = {"RNN_TANH": _rnn_step("tanh"), "RNN_RELU": _rnn_step("relu"), "LSTM": _lstm_step, "GRU": _gru_step}


def _input_projection(mode, x, w_ih, b_ih, b_hh):
    """x W_ih^T + b_ih, plus b_hh where the step takes it folded in."""
    gi = F.linear(x, w_ih, b_ih)
    if mode != "GRU" and b_hh is not None:
        gi = gi + b_hh
    return gi


def _head(state, b):
    return tuple(s[:b] for s in state) if isinstance(state, tuple) else state[:b]


def _merge(new, old, b):
    """The new state of the first b sequences over the kept state of the finished ones."""
    if isinstance(new, tuple):
        return tuple(_merge(n, o, b) for n, o in zip(new, old))
    return new if b == old.shape[0] else mindtorch.cat([new, old[b:]], 0)


def _run_direction(step, gi, steps, state, weights, reverse, packed):
    """One direction of one layer: per-step outputs (time order) and the final state."""
    outs = []
    for t in range(len(steps) - 1, -1, -1) if reverse else range(len(steps)):
        off, b = steps[t]
        x = gi[off : off + b] if packed else gi[t]
        new = step(x, _head(state, b), *weights)
        state = _merge(new, state, b)
        outs.append(new[0] if isinstance(new, tuple) else new)
    if reverse:
        outs.reverse()
    return outs, state


class RNNBase(Module):
    def __init__(  # noqa: C901
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                f"expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        for name, v in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(v, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(v).__name__}")
        for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"{name} should be of type int, got: {type(v).__name__}")
            if v <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        fk = {"device": device, "dtype": dtype}
        dirs = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for d in range(dirs):
                layer_in = input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih_l{}{}", (gate_size, layer_in)), ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, "_reverse" if d else "")
                    setattr(self, name, Parameter(mindtorch.empty(shape, **fk)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """No-op: there is no fused weight buffer to compact."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # --- argument checks (PyTorch's messages) ------------------------------------------------------
    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        expected = self.get_expected_hidden_size(input, batch_sizes)
        if self.mode == "LSTM":
            self.check_hidden_size(hidden[0], expected, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hidden[1], expected[:2] + (self.hidden_size,), "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(hidden, expected)

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        if "proj_size" not in self.__dict__:
            self.proj_size = 0

    # --- forward ------------------------------------------------------------------------------------
    def _zeros(self, input, batch, size):
        dirs = 2 if self.bidirectional else 1
        return mindtorch.zeros((self.num_layers * dirs, batch, size), dtype=input.dtype, device=input.device)

    def forward(self, input, hx=None):
        lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        packed = isinstance(input, PackedSequence)
        batched = True
        if packed:
            data, batch_sizes, sorted_indices, unsorted_indices = input
            batch = int(batch_sizes[0])
            bs = [int(b) for b in batch_sizes.tolist()]
        else:
            if input.dim() not in (2, 3):
                if lstm or self.mode == "GRU":
                    raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
                raise ValueError(f"RNN: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
            batched = input.dim() == 3
            if not batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
            batch_sizes = sorted_indices = unsorted_indices = None
            batch = input.size(0) if self.batch_first else input.size(1)
            if hx is not None:
                self._check_hx_dims(hx, batched)
                if not batched:
                    hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = self._zeros(data if packed else input, batch, real_hidden)
            hx = (h0, self._zeros(h0, batch, self.hidden_size)) if lstm else h0
            self.check_forward_args(data if packed else input, hx, batch_sizes)
        else:
            if lstm:
                hx = tuple(hx)
            self.check_forward_args(data if packed else input, hx, batch_sizes)
            hx = self.permute_hidden(hx, sorted_indices)
        if not packed:
            data = input.transpose(0, 1) if self.batch_first else input
            bs = [batch] * data.shape[0]
        output, h_n = self._layers(data, bs, hx, packed)
        if packed:
            return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), self.permute_hidden(
                h_n, unsorted_indices
            )
        if self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n = tuple(h.squeeze(1) for h in h_n) if lstm else h_n.squeeze(1)
        return output, h_n

    def _check_hx_dims(self, hx, batched):
        want = 3 if batched else 2
        kind = "batched 3-D" if batched else "unbatched 2-D"
        if self.mode == "LSTM":
            if hx[0].dim() != want or hx[1].dim() != want:
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                )
        elif hx.dim() != want:
            raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx.dim()}-D tensor")

    def _layers(self, data, batch_sizes, hx, packed):
        """All layers over time-major data ((T, N, F) padded or (sum batch_sizes, F) packed)."""
        lstm = self.mode == "LSTM"
        step = _STEP[self.mode]
        dirs = 2 if self.bidirectional else 1
        steps, off = [], 0
        for b in batch_sizes:
            steps.append((off, b))
            off += b
        h_out, c_out = [], []
        names = iter(self._all_weights)
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w = [getattr(self, n) for n in next(names)]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                k = layer * dirs + d
                state = (hx[0][k], hx[1][k]) if lstm else hx[k]
                gi = _input_projection(self.mode, data, w_ih, b_ih, b_hh)
                seq, state = _run_direction(step, gi, steps, state, (w_hh.t(), b_hh, w_hr), d == 1, packed)
                outs.append(mindtorch.cat(seq, 0) if packed else mindtorch.stack(seq, 0))
                if lstm:
                    h_out.append(state[0])
                    c_out.append(state[1])
                else:
                    h_out.append(state)
            data = outs[0] if dirs == 1 else mindtorch.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                data = F.dropout(data, self.dropout, True)
        h_n = mindtorch.stack(h_out, 0)
        return data, ((h_n, mindtorch.stack(c_out, 0)) if lstm else h_n)


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# --- cells ---------------------------------------------------------------------------------------------
class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        fk = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(mindtorch.empty((num_chunks * hidden_size, input_size), **fk))
        self.weight_hh = Parameter(mindtorch.empty((num_chunks * hidden_size, hidden_size), **fk))
        if bias:
            self.bias_ih = Parameter(mindtorch.empty(num_chunks * hidden_size, **fk))
            self.bias_hh = Parameter(mindtorch.empty(num_chunks * hidden_size, **fk))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, n_states):
        """Batch an unbatched call and default the state to zeros; returns (input, states, batched)."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = mindtorch.zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)
            return input, (z,) * n_states, batched
        states = tuple(hx) if n_states == 2 else (hx,)
        for idx, s in enumerate(states):
            if s.dim() not in (1, 2):
                what = f"hx[{idx}]" if n_states == 2 else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {s.dim()}D instead")
        if not batched:
            states = tuple(s.unsqueeze(0) for s in states)
        for s in states:
            if s.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden0 batch size {s.size(0)}")
            if s.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden0 has inconsistent hidden_size: got {s.size(1)}, expected {self.hidden_size}"
                )
        return input, states, batched

    def _cell(self, step, input, hx, n_states, mode):
        input, states, batched = self._prepare(input, hx, n_states)
        gi = _input_projection(mode, input, self.weight_ih, self.bias_ih, self.bias_hh)
        out = step(gi, states if n_states == 2 else states[0], self.weight_hh.t(), self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if n_states == 2 else out.squeeze(0)
        return out


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._cell(_STEP[mode], input, hx, 1, mode)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(_lstm_step, input, hx, 2, "LSTM")


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(_gru_step, input, hx, 1, "GRU")
