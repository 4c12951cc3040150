"""Variable-length sequences for the recurrent modules: padding and packing (PyTorch's nn.utils.rnn).

A PackedSequence stores the time steps one after another: step t holds the first batch_sizes[t]
sequences of the batch sorted by decreasing length. Everything here is built from tensor ops, so
gradients flow through packing and unpacking on every backend.
"""

from collections import namedtuple

import mindtorch as torch

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(permutation.numel(), device=permutation.device))
    return output


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence(*packed) with a 2-tuple, as PyTorch allows
            if isinstance(data, (list, tuple)) and len(data) == 2:
                data, batch_sizes = data
            else:
                raise TypeError("PackedSequence needs batch_sizes")
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like pack_sequence "
                "and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data, indices=None):
        s, u = self.sorted_indices, self.unsorted_indices
        if indices is not None:
            s = None if s is None else indices(s)
            u = None if u is None else indices(u)
        return type(self)(data, self.batch_sizes, s, u)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        return self._with_data(data, lambda t: t.to(dev))

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def double(self):
        return self._with_data(self.data.double())

    def float(self):
        return self._with_data(self.data.float())

    def half(self):
        return self._with_data(self.data.half())

    def bfloat16(self):
        return self._with_data(self.data.bfloat16())

    def long(self):
        return self._with_data(self.data.long())

    def int(self):
        return self._with_data(self.data.int())

    def short(self):
        return self._with_data(self.data.short())

    def char(self):
        return self._with_data(self.data.char())

    def byte(self):
        return self._with_data(self.data.byte())

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    if isinstance(lengths, torch.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                f"{lengths.device.type} tensor"
            )
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _steps(batch_sizes):
    """(offset, batch) of every time step in a packed sequence."""
    out, off = [], 0
    for b in batch_sizes:
        out.append((off, b))
        off += b
    return out


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch of sequences of the given lengths."""
    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lens) != input.shape[batch_dim]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
            f"(batch_size={input.shape[batch_dim]})"
        )
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                "to sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = None
    else:
        # stable, so equal lengths keep their order
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = torch.tensor(order, dtype=torch.int64, device=input.device)
        lens = [lens[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    if lens and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    if lens and lens[0] > input.shape[1 - batch_dim]:
        raise RuntimeError(
            f"Expected sequence length to be larger than or equal to {lens[0]} (got {input.shape[1 - batch_dim]})"
        )
    if batch_first:
        input = input.transpose(0, 1)
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    data = torch.cat([input[t, :b] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, torch.tensor(batch_sizes, dtype=torch.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: (padded batch, lengths) in the caller's original batch order."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    max_len, batch = len(batch_sizes), batch_sizes[0]
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, "
                f"but got total_length={total_length} and max sequence length being {max_len}"
            )
    else:
        total_length = max_len
    tail = tuple(data.shape[1:])
    rows = []
    for off, b in _steps(batch_sizes):
        step = data[off : off + b]
        if b < batch:
            step = torch.cat([step, data.new_full((batch - b,) + tail, padding_value)], 0)
        rows.append(step)
    rows += [data.new_full((batch,) + tail, padding_value)] * (total_length - max_len)
    padded = torch.stack(rows, 1 if batch_first else 0)
    lengths = torch.tensor([sum(1 for b in batch_sizes if b > i) for i in range(batch)], dtype=torch.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), filling with padding_value."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, torch.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    out = []
    for s in sequences:
        n = max_len - s.shape[0]
        if n:
            fill = s.new_full((n,) + tuple(s.shape[1:]), padding_value)
            s = torch.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        out.append(s)
    return torch.stack(out, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of unpadded sequences from a padded batch and its lengths."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of shape (L_i, *)."""
    lengths = torch.tensor([s.shape[0] for s in sequences], dtype=torch.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
