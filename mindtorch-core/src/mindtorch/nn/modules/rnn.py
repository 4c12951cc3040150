"""Recurrent layers (RNN, LSTM, GRU and their cells).

Each direction of each layer is one `_rnn_layer` op over the whole sequence (a fused kernel where
the device has one, the per-step composite elsewhere), recorded as one autograd node. Padded and
packed inputs share it: a padded batch is a packed one whose batch size never shrinks. Parameter
names, shapes, init and repr follow PyTorch, so its state_dicts load unchanged.
"""

import math
import numbers
import warnings

import mindtorch

from ...ops.nn import RNN_CELLS, RNN_GATES, gru_cell, lstm_cell, rnn_input_projection
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# The cells are one step of the layers' per-step composite, from the projected input.
def _cell_step(mode, gi, states, w_hh_t, b_hh):
    if mode == "LSTM":
        h, c, _ = lstm_cell(gi, states[0], states[1], w_hh_t, None)
        return h, c
    if mode == "GRU":
        return gru_cell(gi, states[0], w_hh_t, b_hh)[0]
    return RNN_CELLS[mode](gi, states[0], w_hh_t)


def run_cell(mode, input, states, w_ih, w_hh, b_ih, b_hh):
    """One step of a cell on a batch: h', or (h', c') for an LSTM (states: (h,) or (h, c))."""
    gi = rnn_input_projection(mode, input, w_ih, b_ih, b_hh)
    return _cell_step(mode, gi, states, w_hh.t(), b_hh)


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
        if mode not in RNN_GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        fk = {"device": device, "dtype": dtype}
        dirs = 2 if bidirectional else 1
        gate_size = RNN_GATES[mode] * hidden_size
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
            if data.shape[0] == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
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
        weights = [getattr(self, n) for names in self._all_weights for n in names]
        return run_layers(
            self.mode,
            data,
            batch_sizes,
            hx,
            weights,
            self.bias,
            self.proj_size > 0,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            packed,
        )


def run_layers(
    mode, data, batch_sizes, hx, weights, has_biases, has_proj, num_layers, dropout, train, bidirectional, packed
):
    """A stacked recurrent network over time-major data ((T, N, F) padded, or (sum batch_sizes, F) packed):
    (output, h_n or (h_n, c_n)). `weights` are PyTorch's flat parameter list: per layer and direction
    w_ih, w_hh, then b_ih, b_hh with biases, then w_hr with projections; hx is h_0 or (h_0, c_0)."""
    lstm = mode == "LSTM"
    dirs = 2 if bidirectional else 1
    steps = data.shape[0]
    if not packed:
        data = data.reshape(-1, data.shape[-1])
    per = 2 + 2 * bool(has_biases) + bool(has_proj)
    h_out, c_out = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w = weights[k * per : (k + 1) * per]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            w_hr = w[-1] if has_proj else None
            hk, ck = (hx[0][k], hx[1][k]) if lstm else (hx[k], None)
            out, h_n, c_n, _ = mindtorch.ops._rnn_layer(
                data, hk, ck, w[0], w[1], b_ih, b_hh, w_hr, batch_sizes, mode, d == 1
            )
            outs.append(out)
            h_out.append(h_n)
            c_out.append(c_n)
        data = outs[0] if dirs == 1 else mindtorch.cat(outs, -1)
        if dropout > 0 and train and layer < num_layers - 1:
            data = F.dropout(data, dropout, True)
    if not packed:
        data = data.view(steps, -1, data.shape[-1])
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

    def _cell(self, mode, input, hx, n_states):
        input, states, batched = self._prepare(input, hx, n_states)
        out = run_cell(mode, input, states, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
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
        return self._cell(mode, input, hx, 1)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("LSTM", input, hx, 2)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell("GRU", input, hx, 1)
