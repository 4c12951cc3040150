"""The Distribution base class: shapes, argument validation, sample / rsample, and the shared helpers."""
import math
import warnings

import mindtorch

from . import constraints

__all__ = ["Distribution"]


def _size(shape):
    return mindtorch.Size(tuple(shape))


def broadcast_all(*values):
    """Tensors (numbers become tensors of the default dtype) broadcast to one shape."""
    ref = next((v for v in values if isinstance(v, mindtorch.Tensor)), None)
    kw = {} if ref is None else {"dtype": ref.dtype if ref.dtype.is_floating_point else None, "device": ref.device}
    tensors = [v if isinstance(v, mindtorch.Tensor) else mindtorch.tensor(float(v), **kw) for v in values]
    return mindtorch.broadcast_tensors(*tensors)


def probs_to_logits(probs, is_binary=False):
    eps = mindtorch.finfo(probs.dtype).eps
    p = probs.clamp(min=eps, max=1 - eps)
    return mindtorch.log(p) - mindtorch.log1p(-p) if is_binary else mindtorch.log(p)


def logits_to_probs(logits, is_binary=False):
    return mindtorch.sigmoid(logits) if is_binary else mindtorch.softmax(logits, dim=-1)


class lazy_property:
    """Computed on first access and cached on the instance (probs from logits and the other way)."""

    def __init__(self, fn):
        self.fn = fn
        self.__doc__ = fn.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.fn(instance)
        instance.__dict__[self.fn.__name__] = value
        return value


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape, self._event_shape = _size(batch_shape), _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # the other parametrisation was given (probs vs logits): nothing to check
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=()):
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def expand(self, batch_shape, _instance=None):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        with mindtorch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning, stacklevel=2)
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return mindtorch.exp(self.entropy())

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def _validate_sample(self, value):
        if not isinstance(value, mindtorch.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim = len(self._event_shape)
        if tuple(value.shape[len(value.shape) - event_dim:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{tuple(self._event_shape)}.")
        actual = tuple(value.shape)[:len(value.shape) - event_dim]
        expected = tuple(self._batch_shape)
        for a, e in zip(reversed(actual), reversed(expected)):
            if a != 1 and e != 1 and a != e:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {tuple(value.shape)} vs "
                                 f"{expected + tuple(self._event_shape)}.")
        if self.support is not None and not bool(self.support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{k}: {self.__dict__[k] if self.__dict__[k].numel() == 1 else self.__dict__[k].size()}"
                         for k in names)
        return f"{type(self).__name__}({args})"


LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class BinaryParams:
    """probs and logits of a two-outcome parameter (Bernoulli, Binomial, Geometric, ...), each computed
    from the other on first use."""

    def _set_binary(self, probs, logits, *others):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        values = broadcast_all(value, *others)
        setattr(self, name, values[0])
        self._param = values[0]
        return values[1:]

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


def _expand_into(self, batch_shape, names):
    """A copy of `self` with the parameters `names` expanded to batch_shape (views, no data copied)."""
    new = type(self).__new__(type(self))
    for n in names:
        setattr(new, n, getattr(self, n).expand(tuple(batch_shape)))
    Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


class LocScale(Distribution):
    """A real-valued location-scale family: loc and scale broadcast together, expand views both."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_into(self, batch_shape, ("loc", "scale"))
