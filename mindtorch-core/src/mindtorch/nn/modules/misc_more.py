"""Container, SyncBatchNorm, AdaptiveLogSoftmaxWithLoss, CTCLoss and LinearCrossEntropyLoss."""
import dataclasses
import math
import warnings
from collections import namedtuple

import mindtorch
from ._lazy import F
from .container import ModuleList, Sequential
from .linear import Linear
from .loss import _Loss, _WeightedLoss
from .module import Module
from .normalization import _BatchNorm

__all__ = ["Container", "SyncBatchNorm", "AdaptiveLogSoftmaxWithLoss", "CTCLoss", "LinearCrossEntropyLoss",
           "LinearCrossEntropyOptions"]


class Container(Module):
    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
                      "Subclass that instead.")
        for key, value in kwargs.items():
            self.add_module(key, value)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over any number of dims; without a distributed process group there is nothing to sync, so it
    normalizes with the local batch, as PyTorch does when torch.distributed is not initialized."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group, bias=module.bias is not None)
            if module.affine:
                with mindtorch.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax over many classes: a head over the frequent ones plus one projected cluster per tail."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        fk = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **fk)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hsz, bias=False, **fk),
                                        Linear(hsz, osz, bias=False, **fk)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size",
                                   input_.size())
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size",
                                   input_.size())
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = targ_dim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        lo, hi = int(target.min().item()), int(target.max().item())
        if lo < 0 or hi >= self.n_classes:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{lo}, {hi}] were found. ")
        # the head picks the class itself (shortlist) or the cluster holding it
        head_index = target.clamp(max=self.shortlist_size - 1)
        output = mindtorch.zeros(target.shape, dtype=input.dtype, device=input.device)
        for i in range(self.n_clusters):
            start, stop = self.cutoffs[i], self.cutoffs[i + 1]
            mask = (target >= start) & (target < stop)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            head_index = head_index.masked_fill(mask, self.shortlist_size + i)
            local = F.log_softmax(self.tail[i](input.index_select(0, rows)), dim=1)
            picked = local.gather(1, (target.index_select(0, rows) - start).unsqueeze(1)).squeeze(1)
            output = output.index_add(0, rows, picked)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return mindtorch.cat(parts, 1)

    def log_prob(self, input):
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        out = self._get_full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        return self.log_prob(input).argmax(-1)


class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """Options of PyTorch's chunked linear_cross_entropy; validated and kept, the reference path ignores them."""
    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (mindtorch.float16, mindtorch.bfloat16,
                                                                 mindtorch.float32, mindtorch.float64):
            raise ValueError(f"acc_dtype must be one of float16, bfloat16, float32, float64, got {self.acc_dtype}")


class LinearCrossEntropyLoss(_WeightedLoss):
    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        # stored 2-d like Linear, reshaped to (C, *out_features, in) in forward
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias, device=device,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        w = self.linear.weight.reshape((self.num_classes, *self.out_features, self.linear.in_features))
        b = None if self.linear.bias is None else self.linear.bias.reshape((self.num_classes, *self.out_features))
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")
